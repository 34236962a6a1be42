"""MLX's `mx.random` on a Linux CPU beside exporace's `mlx-0.32-cpu`, driven by
scripts/conformance_keyed.py --engine mlx (scripts/conformance-mlx.sh
installs the pinned mlx and mlx-cpu): for many keys and request shapes,
MLX's 32-bit words (read through `mx.random.split`, whose keys are the words
of a request of twice as many), the uniforms of `mx.random.uniform`, the
Gumbel bits of `mx.random.gumbel`, and the ids of `mx.random.categorical`
over vocabularies up to 151936 with flat, Gaussian, masked, tied and non-
finite rows, one row (1-D logits) or several."""

from __future__ import annotations

import importlib.metadata
import platform
import sys

import mlx.core as mx
import numpy as np

from . import keyed_cases
from .keyed_cases import draw_bits, draw_raws, draw_uniforms, draws

QUANTITIES = ["raw", "uniform", "gumbel"]
MODEL = "mlx-0.32-cpu"


def seeds(rng: np.random.Generator, n: int) -> list[int]:
    """64-bit seeds (`mx.random.key` takes a uint64): drawn, and the ends."""
    drawn = [int(x) for x in rng.integers(0, 2**63, size=n, dtype=np.int64)]
    return drawn + [0, 2**32 + 5, 2**64 - 1]


def values(seed: int, shape: tuple[int, ...]) -> dict:
    """MLX's values for a request, flat: its words (for an even size, where
    `mx.random.split(key, n / 2)` is the request of shape (n / 2, 2)), the
    uniform and Gumbel bits."""
    key = mx.random.key(seed)
    n = keyed_cases.size_of(shape)
    u64 = lambda a: np.array(a).ravel().astype(np.uint64)  # noqa: E731
    bits32 = lambda a: u64(np.array(a).view(np.uint32))  # noqa: E731
    return {
        "raw": None if n % 2 else u64(mx.random.split(key, n // 2)),
        "uniform": bits32(mx.random.uniform(shape=shape, key=key)),
        "gumbel": bits32(mx.random.gumbel(shape=shape, key=key)),
    }


def ours(ex, seed: int, n: int, start: int, count: int) -> dict:
    d = draws(ex, MODEL, seed, n, start, count)
    return {"raw": draw_raws(d), "uniform": draw_uniforms(d), "gumbel": draw_bits(d)}


def categorical(ex, rng: np.random.Generator) -> list[dict]:
    def pick(logits: np.ndarray, seed: int, mode) -> list[int]:
        # One row goes in as 1-D logits (no shape: the Gumbel path).
        arg = mx.array(logits[0] if len(logits) == 1 else logits)
        ids = mx.random.categorical(arg, axis=-1, key=mx.random.key(seed))
        return np.array(ids).ravel().tolist()

    return keyed_cases.categorical_cases(ex, rng, seeds, [(None, MODEL)], pick, lambda s: s)


def versions() -> dict:
    return {
        "mlx": importlib.metadata.version("mlx"),
        "mlx_cpu": importlib.metadata.version("mlx-cpu"),
        "glibc": platform.libc_ver()[1],
    }


def setup() -> dict:
    mx.set_default_device(mx.cpu)
    return {"device": str(mx.default_device())}


def main():
    keyed_cases.main(__doc__, sys.modules[__name__])
