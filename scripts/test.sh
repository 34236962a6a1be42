#!/usr/bin/env bash
# Every test suite, in order of speed: formatting, lints, native tests (unit,
# integration and doc tests), the no_std build and the docs.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== test: %s\n' "$*"; }

step "rustfmt"
cargo fmt --all -- --check

step "clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "native tests and doc tests"
cargo test --workspace

step "no_std build (wasm32v1-none, alloc only)"
cargo build -p exporace --no-default-features --features alloc --target wasm32v1-none

step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
