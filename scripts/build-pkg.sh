#!/usr/bin/env bash
# Builds the npm package `exporace` into pkg/ with plain cargo and the exact
# wasm-bindgen CLI: the web build (default in browsers), the nodejs build
# (CommonJS, with an ES module wrapper) and the threaded web build (nightly
# with atomics), which the web entry's `init({ threads })` loads where it can.
# `--no-threads` skips the last.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

threads=1
[ "${1:-}" = "--no-threads" ] && threads=0

step() { printf '\n== build-pkg: %s (%s)\n' "$*" "$(date +%T)"; }
src=crates/exporace-wasm/js
out=pkg
bindgen() { # <wasm> <target> <dir> [flags]
  wasm-bindgen "$1" --target "$2" --no-typescript --out-name exporace --out-dir "$3" "${@:4}"
}
# The single-threaded builds can restart their instance (`__wbg_reset_state`),
# which their entry modules (js/entry.mjs) do after a call is cut short.
restartable=(--experimental-reset-state-function)
# No function names or producer notes in the shipped wasm: a tenth smaller.
small=(--remove-name-section --remove-producers-section)

want="wasm-bindgen $(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' Cargo.toml)"
if [ "$(wasm-bindgen --version)" != "$want" ]; then
  echo "need $want on PATH (scripts/setup.sh installs it), found $(wasm-bindgen --version)" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out"

# The `wasm` profile (.cargo/config.toml): `release`, with every crate
# but the kernels and the bindings built for size.
profile=wasm

step "single-threaded wasm"
cargo build -p exporace-wasm --target wasm32-unknown-unknown --profile "$profile"
wasm=target/wasm32-unknown-unknown/$profile/exporace_wasm.wasm
bindgen "$wasm" web "$out/web" "${restartable[@]}" "${small[@]}"
bindgen "$wasm" nodejs "$out/node" "${restartable[@]}" "${small[@]}"
# Both builds' wasm files are the same bytes: the nodejs glue reads the web
# build's, so the package holds one.
cmp "$out/web/exporace_bg.wasm" "$out/node/exporace_bg.wasm"
rm "$out/node/exporace_bg.wasm"
sed -i 's#`${__dirname}/exporace_bg.wasm`#`${__dirname}/../web/exporace_bg.wasm`#' "$out/node/exporace.js"
grep -q '/../web/exporace_bg.wasm' "$out/node/exporace.js" || { echo "build-pkg: the nodejs glue's wasm path was not found" >&2; exit 1; }
# The package is an ES module package; the nodejs build is CommonJS.
printf '{\n  "type": "commonjs"\n}\n' >"$out/node/package.json"
# It require()s its JS snippets (crates/exporace-wasm/js/boundary.js), which
# are ES modules: their `export function f` become `exports.f = function f`
# (and `export class C`, `exports.C = class C`).
for f in $(find "$out/node/snippets" -name '*.js'); do
  sed -i -E 's/^export (function|class) ([A-Za-z0-9_]+)/exports.\2 = \1 \2/' "$f"
  if grep -nE '^[[:space:]]*(export|import)[[:space:]{*]' "$f" >&2; then
    echo "build-pkg: $f: only 'export function' and 'export class' declarations can be made CommonJS" >&2
    exit 1
  fi
done
# The entry modules (web/index.js, node/index.mjs, node/index.cjs) around
# the glue: the same exports, and a fresh instance after a call cut short.
node scripts/write-entries.mjs "$out"
cp "$src/worker-node.mjs" "$out/node/worker-node.mjs"
cp "$src/worker-web.js" "$out/web/worker-web.js"

if [ "$threads" = 1 ]; then
  step "threaded wasm (the nightly of crates/exporace-wasm/threads/rust-toolchain.toml, atomics, shared memory)"
  # Run from the folder of the pinned toolchain file, so rustup takes its nightly.
  (cd crates/exporace-wasm/threads &&
    RUSTFLAGS="-C target-feature=+atomics,+bulk-memory,+mutable-globals,+simd128 \
 -C link-arg=--shared-memory -C link-arg=--max-memory=1073741824 -C link-arg=--import-memory \
 -C link-arg=--export=__wasm_init_tls -C link-arg=--export=__tls_size \
 -C link-arg=--export=__tls_align -C link-arg=--export=__tls_base" \
    CARGO_TARGET_DIR="$PWD/../../../target/threads" \
    cargo build --manifest-path ../Cargo.toml --target wasm32-unknown-unknown --profile "$profile" \
      --features threads -Z build-std=panic_abort,std)
  bindgen "target/threads/wasm32-unknown-unknown/$profile/exporace_wasm.wasm" web "$out/threads" "${small[@]}"
  # The pool's workers import the glue by its file name (wasm-bindgen-rayon's
  # own `import('../../..')` names a directory, which only bundlers resolve),
  # so the same files run unbundled and bundled.
  helpers=$(find "$out/threads/snippets" -name workerHelpers.js)
  [ "$(echo "$helpers" | wc -l)" = 1 ] || { echo "build-pkg: expected one workerHelpers.js, found: $helpers" >&2; exit 1; }
  sed -i "s#import('../../..')#import('../../../exporace.js')#" "$helpers"
  grep -q "import('../../../exporace.js')" "$helpers" || { echo "build-pkg: $helpers: the glue import was not found" >&2; exit 1; }
  # Errors from either build are one class: the threaded snippet's
  # ExporaceError (the last declaration in js/boundary.js) is the web build's.
  own=$(find "$out/threads/snippets" -path '*/js/boundary.js')
  web=$(find "$out/web/snippets" -path '*/js/boundary.js')
  grep -q '^export class ExporaceError extends Error {$' "$own" || { echo "build-pkg: $own: no ExporaceError class" >&2; exit 1; }
  sed -i '/^export class ExporaceError extends Error {$/,$d' "$own"
  printf 'export { ExporaceError } from "../../../../web/snippets/%s";\n' "${web#"$out/web/snippets/"}" >>"$own"
fi

step "package files"
cp "$src/package.json" "$src/exporace.d.ts" "$out/"
cp -r "$src/types" "$out/types"
# The same declarations for require(): TypeScript reads a .d.ts of this ES
# module package as ES module syntax, so each file is also a .d.cts whose
# imports name the .d.cts files (`./x.cjs`).
cts() { sed -E 's#(from "\./(types/)?[a-z]+)\.js";$#\1.cjs";#' "$1" >"$2"; }
cts "$src/exporace.d.ts" "$out/exporace.d.cts"
for f in "$src"/types/*.d.ts; do
  n=$(basename "$f" .d.ts)
  cts "$f" "$out/types/$n.d.cts"
done
if grep -n 'from "\./.*\.js";$' "$out/exporace.d.cts" "$out"/types/*.d.cts >&2; then
  echo "build-pkg: a .d.cts file still imports a .js declaration" >&2
  exit 1
fi
cp crates/exporace-wasm/README.md "$out/README.md"
cp LICENSE-MIT LICENSE-APACHE "$out/"
ls -l "$out" "$out"/*/
