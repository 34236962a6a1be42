#!/usr/bin/env bash
# The Python package: build the abi3 wheel with maturin, install it into the
# test environment (target/python-venv, made by scripts/setup.sh), and run
# its tests with pytest: bits against the core and the engines' rows,
# hostile input, the docstring examples, and the wheel in a clean venv.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-venv
wheels=target/python-wheels
mkdir -p "$wheels"
rm -f "$wheels"/exporace-*.whl
# The dev profile (optimised, as the tests need): the release wheel is
# `maturin build --release`, the same code.
"$venv/bin/maturin" build --quiet -m crates/exporace-py/Cargo.toml --out "$wheels"
"$venv/bin/pip" install --quiet --force-reinstall --no-deps --no-index "$wheels"/exporace-*.whl
cd crates/exporace-py
EXPORACE_WHEELS="$PWD/../../$wheels" "../../$venv/bin/python" -m pytest -q -p no:cacheprovider tests "$@"
