#!/usr/bin/env python3
"""Runs JAX's jax.random (`--engine jax`) or MLX's mx.random (`--engine mlx`)
on the CPU beside exporace and compares the noise bits and the categorical
ids: the command line of scripts/conformance/jax_cpu.py and mlx_cpu.py,
started by scripts/conformance-jax.sh and conformance-mlx.sh; see
docs/conformance.md.

Usage: conformance_keyed.py --engine jax|mlx --exporace BIN --out JSON [--seed N]
"""

import argparse
import importlib
import sys
from pathlib import Path

# No __pycache__ beside the package in the repository.
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))

if __name__ == "__main__":
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--engine", choices=["jax", "mlx"], required=True)
    known, rest = ap.parse_known_args()
    sys.argv = [sys.argv[0], *rest]
    importlib.import_module(f"conformance.{known.engine}_cpu").main()
