#!/usr/bin/env bash
# Conformance against JAX's own jax.random on the CPU (opt-in; not part of
# `npm test`).
#
# Installs the pinned jax, jaxlib (its CPU build) and numpy into a virtual
# environment under target/ (jax 0.11 needs Python 3.12 or later: set PYTHON
# when python3 is older), builds the exporace CLI, and runs
# scripts/conformance_keyed.py --engine jax (scripts/conformance/jax_cpu.py),
# which draws bits, uniforms, Gumbel values in both modes and categorical ids
# from JAX for many keys, shapes and logit rows and asks exporace the same
# questions. The report goes to docs/conformance/jax-cpu-$JAX_VERSION.json;
# see docs/conformance.md. Extra arguments go to the driver. Safe to run
# again: installed packages at the pinned versions are kept.
set -euo pipefail
cd "$(dirname "$0")/.."

JAX_VERSION=0.11.2
NUMPY_VERSION=2.4.6

venv=target/conformance-jax/venv
source scripts/conformance/venv.sh
make_venv 12 15 "jax $JAX_VERSION"
pinned "jax==$JAX_VERSION" "jaxlib==$JAX_VERSION" "numpy==$NUMPY_VERSION"
export JAX_PLATFORMS=cpu
drive jax "docs/conformance/jax-cpu-$JAX_VERSION.json" "$@"
