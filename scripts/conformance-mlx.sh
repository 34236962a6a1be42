#!/usr/bin/env bash
# Conformance against MLX's own mx.random on a Linux CPU (opt-in; not part of
# `npm test`).
#
# Installs the pinned mlx, its Linux CPU build mlx-cpu, and numpy into a
# virtual environment under target/, builds the exporace CLI, and runs
# scripts/conformance_keyed.py --engine mlx (scripts/conformance/mlx_cpu.py),
# which draws words, uniforms, Gumbel values and categorical ids from MLX for
# many keys, shapes and logit rows and asks exporace the same questions. The
# report goes to docs/conformance/mlx-cpu-$MLX_VERSION.json; see
# docs/conformance.md. Extra arguments go to the driver. Safe to run again:
# installed packages at the pinned versions are kept.
set -euo pipefail
cd "$(dirname "$0")/.."

MLX_VERSION=0.32.4
NUMPY_VERSION=2.4.6

venv=target/conformance-mlx/venv
source scripts/conformance/venv.sh
make_venv 10 15 "mlx $MLX_VERSION"
pinned "mlx==$MLX_VERSION" "mlx-cpu==$MLX_VERSION" "numpy==$NUMPY_VERSION"
drive mlx "docs/conformance/mlx-cpu-$MLX_VERSION.json" "$@"
