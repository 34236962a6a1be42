"""JAX's `jax.random` on the CPU beside exporace's JAX models, driven by
scripts/conformance_keyed.py --engine jax (scripts/conformance-jax.sh
installs the pinned jax and jaxlib): for many keys and request shapes, the
words of `jax.random.bits` (as the models' 23-bit lattice integers), the
uniforms of `jax.random.uniform(minval=tiny)`, the Gumbel bits of
`jax.random.gumbel` in `mode="low"` and `mode="high"`, and the ids of
`jax.random.categorical` in both modes over vocabularies up to 151936 with
flat, Gaussian, masked, tied and non-finite rows. JAX runs with its defaults
(`jax_enable_x64` off, so `jax.random.key(seed)` keeps the seed's low 32
bits, which is the seed exporace is given)."""

from __future__ import annotations

import importlib.metadata
import sys

import jax
import jax.numpy as jnp
import numpy as np

from . import keyed_cases
from .keyed_cases import draw_bits, draw_raws, draw_uniforms, draws

TINY = float(jnp.finfo(jnp.float32).tiny)
QUANTITIES = ["raw", "uniform", "gumbel", "raw_high", "gumbel_high"]
LOW32 = 2**32 - 1


def seeds(rng: np.random.Generator, n: int) -> list[int]:
    """Python int seeds: drawn below 2^32, the ends, and seeds JAX cuts to
    their low 32 bits (past 2^32, negative)."""
    return rng.integers(0, 2**32, size=n).tolist() + [0, 2**31, 2**32 - 1, 2**40 + 3, -1]


def values(seed: int, shape: tuple[int, ...]) -> dict:
    """JAX's values for a request, flat: the lattice integers of both modes
    (the top 23 bits of the words; in mode high those of the words at i and
    n + i of the (2,) + shape request), the uniform and Gumbel bits."""
    key = jax.random.key(seed)
    f32 = jnp.float32
    u64 = lambda a: np.asarray(a).ravel().astype(np.uint64)  # noqa: E731
    bits32 = lambda a: u64(np.asarray(a).view(np.uint32))  # noqa: E731
    words = u64(jax.random.bits(key, shape, jnp.uint32))
    pair = u64(jax.random.bits(key, (2, *shape), jnp.uint32)).reshape(2, -1)
    return {
        "raw": words >> 9,
        "uniform": bits32(jax.random.uniform(key, shape, f32, minval=TINY, maxval=1.0)),
        "gumbel": bits32(jax.random.gumbel(key, shape, f32)),
        "raw_high": (pair[0] >> 9) << 23 | (pair[1] >> 9),
        "gumbel_high": bits32(jax.random.gumbel(key, shape, f32, mode="high")),
    }


def ours(ex, seed: int, n: int, start: int, count: int) -> dict:
    low = draws(ex, "jax-0.11-cpu", seed & LOW32, n, start, count)
    high = draws(ex, "jax-0.11-cpu-high", seed & LOW32, n, start, count)
    return {
        "raw": draw_raws(low),
        "uniform": draw_uniforms(low),
        "gumbel": draw_bits(low),
        "raw_high": draw_raws(high),
        "gumbel_high": draw_bits(high),
    }


def categorical(ex, rng: np.random.Generator) -> list[dict]:
    def pick(logits: np.ndarray, seed: int, mode: str | None) -> list[int]:
        key = jax.random.key(seed)
        ids = jax.random.categorical(key, jnp.asarray(logits), axis=-1, mode=mode)
        return np.asarray(ids).tolist()

    modes = [("low", "jax-0.11-cpu"), ("high", "jax-0.11-cpu-high")]
    engine = lambda logits, seed, mode: pick(logits, seed, None if mode == "low" else mode)  # noqa: E731
    return keyed_cases.categorical_cases(ex, rng, seeds, modes, engine, lambda s: s & LOW32)


def versions() -> dict:
    return {"jax": jax.__version__, "jaxlib": importlib.metadata.version("jaxlib")}


def setup() -> dict:
    return {
        "config": {
            "jax_threefry_partitionable": bool(jax.config.jax_threefry_partitionable),
            "jax_enable_x64": bool(jax.config.jax_enable_x64),
            "devices": [str(d) for d in jax.devices()],
        }
    }


def main():
    keyed_cases.main(__doc__, sys.modules[__name__])
