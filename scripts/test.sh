#!/usr/bin/env bash
# Every test suite, in order of speed: formatting, lints, native tests (unit,
# integration and doc tests), the no_std build and the docs.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== test: %s (%s)\n' "$*" "$(date +%T)"; }

step "rustfmt"
cargo fmt --all -- --check

step "clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "clippy on wasm32 (the SIMD128 code paths)"
cargo clippy -p exporace --target wasm32-unknown-unknown --no-default-features --features alloc -- -D warnings

step "native tests and doc tests"
cargo test --workspace

# The workspace build above unifies features (`parallel`, `serde`); here the
# study's unit tests and its Monte Carlo run on the sequential path, with the
# crate's own default features. (The sampler's unit tests run so in the
# builds for this CPU below.)
step "the study layer with its own features (sequential paths)"
cargo test -p exporace-study --lib --test experiment

# The default build is x86-64's baseline; the benchmarks build for the CPU
# they run on, whose lanes (AVX2, or AVX-512 with its own Philox, key and
# search modules) only such a build compiles.
step "the core built for this CPU (-C target-cpu=native), its own features: clippy and unit tests"
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
if [[ " $flags " == *" avx512f "* && " $flags " == *" avx512dq "* && " $flags " == *" avx512vl "* ]]; then
  echo "this CPU has AVX-512: arch/x86_64/avx512 (philox, seeded, span_keys, group, clear) is compiled and tested; arch/x86_64/avx2 is tested in the x86-64-v3 build below"
elif [[ " $flags " == *" avx2 "* ]]; then
  echo "this CPU has AVX2 and no AVX-512: arch/x86_64/avx2 (seeded, group) is compiled and tested; arch/x86_64/avx512 is not compiled here"
else
  echo "no AVX2 on this CPU: arch/x86_64/avx2 and arch/x86_64/avx512 are not compiled here"
fi
# Only the core is built for the CPU (its dependencies are the default
# build's, already compiled): clippy takes the flag after `--`, and
# `cargo rustc --profile test` builds the core's unit tests with it.
for_cpu() {
  cargo clippy -p exporace --all-targets -- -D warnings -C target-cpu="$1"
  local exe
  exe=$(cargo rustc -p exporace --lib --profile test --message-format=json-render-diagnostics -- -C target-cpu="$1" |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
  [ -x "$exe" ] || { echo "cargo rustc gave no test binary for target-cpu=$1" >&2; return 1; }
  "$exe"
}
for_cpu native
if [[ " $flags " == *" avx512f "* && " $flags " == *" avx2 "* ]]; then
  # An AVX-512 CPU also runs the AVX2 build (x86-64-v3: AVX2 and FMA, no
  # AVX-512), so arch/x86_64/avx2 is tested too.
  step "the core built for AVX2 without AVX-512 (-C target-cpu=x86-64-v3): clippy and unit tests"
  for_cpu x86-64-v3
fi

step "the library crates package for crates.io (metadata, READMEs, versioned dependencies)"
cargo package --no-verify --allow-dirty -p exporace -p exporace-study -p exporace-io -p exporace-viz -p exporace-cli

step "no_std builds (wasm32v1-none, alloc only)"
cargo build -p exporace --no-default-features --features alloc --target wasm32v1-none
cargo build -p exporace-study --no-default-features --target wasm32v1-none

step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

step "every public item has an example or a reason (nightly rustdoc lint)"
node scripts/doc-examples.mjs

# The npm package: build pkg/, then test it in headless Chromium (one thread and
# many) and from a separate Node project. Each phase prints its duration.
timed() { local t0=$SECONDS; "$@"; printf '(%s: %ds)\n' "$1" $((SECONDS - t0)); }

step "the benchmark scripts, the page's estimate, number formats and end-to-end rows (Node, no wasm)"
timed node --test tests/js/timing.test.mjs tests/js/test-times.test.mjs tests/js/rounds.test.mjs tests/js/estimate.test.mjs tests/js/e2e-rows.test.mjs

step "the Python package: wheel (maturin), pytest in its virtual environment, a clean install"
timed scripts/test-python.sh

step "npm package build (pkg/: web, node, threads)"
timed scripts/build-pkg.sh

step "wasm-bindgen tests in headless Chromium"
timed scripts/test-browser.sh

step "exporace from another crate: cargo test, then wasm-pack test in headless Chromium and Firefox"
timed scripts/test-wasm-pack.sh

step "Node consumer of the packed tarball (import, require, garbage, types)"
timed scripts/test-node-consumer.sh

step "the page's presets on the built package (Node)"
timed node --test tests/js/presets.test.mjs

step "the packed package bundled by esbuild, Vite and webpack 5, run in headless Chromium"
timed node --test tests/js/bundlers.test.mjs

step "threaded build in headless Chromium with COOP/COEP (playwright-core)"
timed node --test tests/js/threads.test.mjs

# Two test files at a time (each its own Chromium); the time and size budgets
# run alone afterwards, so no other browser competes with their timings.
step "the page (web/) in headless Chromium, with and without COOP/COEP (playwright-core)"
page_files=()
for f in tests/js/page/*.test.mjs; do [ "$f" = tests/js/page/budgets.test.mjs ] || page_files+=("$f"); done
timed node --test --test-concurrency=2 "${page_files[@]}"

step "the page's time and transfer budgets, alone in headless Chromium"
timed node --test tests/js/page/budgets.test.mjs
