"""JAX's own `jax.random` on the CPU (jax 0.11.2 with jaxlib's CPU build,
its defaults: threefry partitionable, `jax_enable_x64` off) against
exporace's `jax-0.11-cpu` and `jax-0.11-cpu-high` models, through
exporace.testing, with JAX's arrays passed as they are: the Gumbel values of
`jax.random.gumbel` and the ids of `jax.random.categorical`, in
`mode="low"` and `mode="high"`. The example an engine developer copies into
their own suite.

With `jax_enable_x64` off, `jax.random.key(seed)` keeps the seed's low 32
bits: exporace is given those. One test turns it on for a while, where every
bit of an int64 seed makes the key.

Opt-in: `scripts/conformance-python.sh jax` runs it in the environment that
`scripts/conformance-jax.sh` makes (jax and jaxlib installed).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from conftest import COUNTS, logit_rows  # noqa: E402

from exporace.testing import assert_same_noise, assert_same_tokens  # noqa: E402

MODES = [(None, "jax-0.11-cpu"), ("high", "jax-0.11-cpu-high")]
SHAPES = [(1,), (7,), (3, 5), (2, 8192), (1000,), (4, 1000), (3, 32001), (1, 151936)]
VOCABS = [1, 7, 1000, 32000, 151936]
LOW32 = 2**32 - 1


def seeds(rng: np.random.Generator, n: int) -> list[int]:
    """Seeds drawn below 2^32, the ends, and seeds JAX cuts to their low 32
    bits (past 2^32, negative)."""
    return rng.integers(0, 2**32, size=n).tolist() + [0, 2**31, 2**32 - 1, 2**40 + 3, -1]


def test_jax_runs_with_its_defaults_on_the_cpu():
    assert jax.config.jax_threefry_partitionable
    assert not jax.config.jax_enable_x64
    assert all(d.platform == "cpu" for d in jax.devices())


@pytest.mark.parametrize("mode,model", MODES)
@pytest.mark.parametrize("shape", SHAPES)
def test_gumbel_is_the_recipes_noise(shape, mode, model):
    rng = np.random.default_rng(sum(shape))
    for seed in seeds(rng, 3):
        g = jax.random.gumbel(jax.random.key(seed), shape, jnp.float32, mode=mode or "low")
        flat = np.asarray(g).ravel()
        assert_same_noise(flat, model=model, seed=seed & LOW32)
        COUNTS[f"{model} gumbel values"] += flat.size


@pytest.mark.parametrize("mode,model", MODES)
@pytest.mark.parametrize("v", VOCABS)
def test_categorical_picks_the_recipes_tokens(v, mode, model):
    rng = np.random.default_rng(v)
    for rows in (1, 3):
        for name, logits in logit_rows(rng, rows, v).items():
            seed = seeds(rng, 1)[int(rng.integers(6))]
            key = jax.random.key(seed)
            # One row as 1-D logits, several as a batch: JAX's own arrays in.
            x = jnp.asarray(logits[0] if rows == 1 else logits)
            ids = jax.random.categorical(key, x, axis=-1, mode=mode)
            assert_same_tokens(ids, model=model, logits=x, seeds=seed & LOW32)
            COUNTS[f"{model} categorical ids"] += rows


@pytest.mark.parametrize("mode,model", MODES)
def test_a_row_of_a_larger_call_is_placed_by_rows_and_row(mode, model):
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((8, 4000)).astype(np.float32)
    ids = np.asarray(jax.random.categorical(jax.random.key(5), logits, axis=-1, mode=mode))
    for r in range(8):
        assert_same_tokens(ids[r:r + 1], model=model, logits=logits[r:r + 1], seeds=5, rows=8, row=r)
        COUNTS[f"{model} categorical ids"] += 1


@pytest.mark.parametrize("mode,model", MODES)
def test_with_x64_enabled_every_bit_of_the_seed_makes_the_key(mode, model):
    seeds64 = [2**40 + 3, 12345678901234, 2**63 - 1, -1, -(2**63)]
    rng = np.random.default_rng(64)
    logits = rng.standard_normal((3, 1000)).astype(np.float32)
    jax.config.update("jax_enable_x64", True)
    try:
        for seed in seeds64:
            key = jax.random.key(seed)
            g = jax.random.gumbel(key, (3, 1000), jnp.float32, mode=mode or "low")
            assert_same_noise(np.asarray(g).ravel(), model=model, seed=seed)
            COUNTS[f"{model} gumbel values"] += g.size
            ids = jax.random.categorical(key, jnp.asarray(logits), axis=-1, mode=mode)
            assert_same_tokens(ids, model=model, logits=logits, seeds=seed)
            COUNTS[f"{model} categorical ids"] += 3
    finally:
        jax.config.update("jax_enable_x64", False)
