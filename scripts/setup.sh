#!/usr/bin/env bash
# Installs the tools the build and the tests need. Safe to run again: every
# step is skipped when its tool is already present.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== setup: %s\n' "$*"; }

step "rust targets"
installed=$(rustup target list --installed)
for t in wasm32v1-none; do
  grep -qx "$t" <<<"$installed" || rustup target add "$t"
done

step "npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
