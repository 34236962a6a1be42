#!/usr/bin/env bash
# A crate that depends on exporace (tests/wasm-pack-consumer) tested as the
# crate's users test theirs: formatted, linted and tested natively with cargo,
# then with `wasm-pack test` in headless Debian Chromium and Firefox ESR, built
# as a user's crate builds (no target features) and with SIMD128 as the npm
# package builds. Nothing is downloaded: wasm-pack takes the wasm-bindgen CLI
# on PATH (--mode no-install) and the drivers named here; its check for a
# newer wasm-pack may print a warning where crates.io's API cannot be reached.
# Browser flags are in the crate's webdriver.json. Its Cargo.lock holds the
# workspace's versions (`--locked`); after a dependency change in the core,
# copy the root Cargo.lock over it and run `cargo metadata` in its folder,
# which keeps those versions and drops the packages it does not use.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/wasm-pack-consumer}"
export WASM_BINDGEN_TEST_TIMEOUT=120
cd tests/wasm-pack-consumer

cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
for flags in "" "-C target-feature=+simd128"; do
  echo "wasm-pack test, RUSTFLAGS=\"$flags\""
  RUSTFLAGS="$flags" wasm-pack test --headless --chrome --firefox --mode no-install \
    --chromedriver /usr/bin/chromedriver --geckodriver "$(command -v geckodriver)" -- --locked
done
