#!/usr/bin/env bash
# Regenerates the golden answers under tests/golden/ from the native build.
# Review the diff before committing: a change in bits is a change in results.
set -euo pipefail
cd "$(dirname "$0")/.."
for s in tests/golden/*.scenario.json tests/golden/*.params.json; do
  r="${s%.*.json}.result.json"
  [ -e "$r" ] || : >"$r"
done
EXPORACE_BLESS=1 cargo test -p exporace-wasm --test golden
git status --short tests/golden
