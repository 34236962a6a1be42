#!/usr/bin/env bash
# The wasm crate's tests in headless Debian Chromium, through cargo with
# wasm-bindgen-test-runner. Chromium's flags are in
# crates/exporace-wasm/webdriver.json; nothing is downloaded (the exact
# runner is on PATH, chromedriver is Debian's).
set -euo pipefail
cd "$(dirname "$0")/../crates/exporace-wasm"
export PATH="$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT=120

CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --target wasm32-unknown-unknown
