#!/usr/bin/env bash
# The quick check before a commit: rustfmt, then clippy and the native unit
# tests (library and binary targets) of the crates changed since the last
# commit, staged or not, untracked files included. Crates named as arguments
# are checked instead: `npm run test:quick -- exporace-study`. `npm test`
# (scripts/test.sh) runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== test:quick: %s (%s)\n' "$*" "$(date +%T)"; }
t0=$SECONDS

if [ $# -gt 0 ]; then
  crates=("$@")
else
  crates=()
  changed=$( { git diff --name-only HEAD; git ls-files --others --exclude-standard; } | sort -u)
  for dir in $(sed -n 's#^crates/\([^/]*\)/.*#\1#p' <<<"$changed" | sort -u); do
    [ -f "crates/$dir/Cargo.toml" ] || continue
    crates+=("$(sed -n 's/^name = "\(.*\)"$/\1/p' "crates/$dir/Cargo.toml" | head -n 1)")
  done
fi

step "rustfmt"
cargo fmt --all -- --check

if [ ${#crates[@]} -eq 0 ]; then
  echo "no crate changed since the last commit; name crates as arguments to check them"
  printf 'test:quick: %ds in all\n' $((SECONDS - t0))
  exit 0
fi
pkgs=()
for c in "${crates[@]}"; do pkgs+=(-p "$c"); done
# `--lib` is refused only when no named crate has a library (exporace-cli alone).
targets=(--lib --bins)
[ "${crates[*]}" = exporace-cli ] && targets=(--bins)

step "clippy: ${crates[*]}"
cargo clippy "${pkgs[@]}" --all-targets --no-deps -- -D warnings

step "native unit tests: ${crates[*]}"
# Library and binary targets only: integration and doc tests run in npm test.
t1=$SECONDS
cargo test "${pkgs[@]}" "${targets[@]}"
printf '(cargo test: %ds)\n' $((SECONDS - t1))

printf 'test:quick: %ds in all\n' $((SECONDS - t0))
