#!/usr/bin/env bash
# Installs the tools the build and the tests need. Safe to run again: every
# step is skipped when its tool is already present. Nothing here downloads a
# browser or a prebuilt binary: Chromium and Firefox come from Debian, the wasm
# tools and geckodriver are compiled from crates.io, and the npm packages carry
# no browser.
set -euo pipefail
cd "$(dirname "$0")/.."

# The wasm-bindgen CLI must match the `wasm-bindgen` crate in Cargo.lock exactly.
WASM_BINDGEN_VERSION=0.2.130
# `wasm-pack test` and Firefox's WebDriver (scripts/test-wasm-pack.sh).
WASM_PACK_VERSION=0.15.1
GECKODRIVER_VERSION=0.37.1

step() { printf '\n== setup: %s (%s)\n' "$*" "$(date +%T)"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
export PATH="$HOME/.cargo/bin:$PATH"

step "rust targets"
installed=$(rustup target list --installed)
for t in wasm32v1-none wasm32-unknown-unknown; do
  grep -qx "$t" <<<"$installed" || rustup target add "$t"
done

# The threaded build's nightly, pinned in its toolchain file.
nightly=$(sed -n 's/^channel = "\(.*\)"$/\1/p' crates/exporace-wasm/threads/rust-toolchain.toml)
step "$nightly with rust-src and the wasm target (threaded build)"
rustup toolchain list | grep -q "^$nightly" \
  || rustup toolchain install "$nightly" --profile minimal --component rust-src --target wasm32-unknown-unknown
rustup +"$nightly" component list --installed | grep -q '^rust-src' || rustup +"$nightly" component add rust-src
rustup +"$nightly" target list --installed | grep -qx wasm32-unknown-unknown \
  || rustup +"$nightly" target add wasm32-unknown-unknown

step "chromium and chromedriver (Debian)"
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver
fi

step "firefox-esr (Debian)"
if [ ! -x /usr/bin/firefox-esr ]; then
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y firefox-esr
fi

step "wasm-pack $WASM_PACK_VERSION and geckodriver $GECKODRIVER_VERSION"
if [ "$(wasm-pack --version 2>/dev/null)" != "wasm-pack $WASM_PACK_VERSION" ]; then
  cargo install --locked wasm-pack --version "=$WASM_PACK_VERSION" --force
fi
if [ "$(geckodriver --version 2>/dev/null | head -n1)" != "geckodriver $GECKODRIVER_VERSION" ]; then
  cargo install --locked geckodriver --version "=$GECKODRIVER_VERSION" --force
fi

step "wasm-bindgen CLI $WASM_BINDGEN_VERSION"
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  # `--locked` fails: the CLI's lockfile names a webpki-roots release the
  # registry does not serve. Without it, cargo resolves a served one.
  cargo install wasm-bindgen-cli --version "=$WASM_BINDGEN_VERSION" --force
fi

step "npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# The Python package's build and test tools, pinned, in a virtual
# environment of CPython 3.10 or later; numpy's wheel is also kept in
# target/python-wheels, where the test of a clean install finds it.
step "python: maturin, numpy and pytest (target/python-venv)"
req=crates/exporace-py/requirements-dev.txt
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
  || { echo "the Python package needs CPython 3.10 or later as python3"; exit 1; }
if [ ! -x target/python-venv/bin/python ] || ! cmp -s "$req" target/python-venv/requirements-dev.txt; then
  python3 -m venv target/python-venv
  target/python-venv/bin/pip install --quiet --disable-pip-version-check -r "$req"
  target/python-venv/bin/pip download --quiet --disable-pip-version-check --only-binary=:all: \
    -d target/python-wheels "$(grep '^numpy==' "$req")"
  cp "$req" target/python-venv/requirements-dev.txt
fi
