#!/usr/bin/env python3
"""Runs vLLM's own CPU sampling code beside exporace and compares the ids: the
command line of the conformance package (scripts/conformance/), started by
scripts/conformance-vllm.sh; see docs/conformance.md.

Usage: conformance_vllm.py --exporace BIN --out JSON [--fixture-dir DIR] [--seed N]
"""

import sys
from pathlib import Path

# No __pycache__ beside the package in the repository.
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))

from conformance.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
