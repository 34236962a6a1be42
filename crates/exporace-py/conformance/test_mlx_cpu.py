"""MLX's own `mx.random` on a Linux CPU (mlx 0.32.4 with mlx-cpu) against
exporace's `mlx-0.32-cpu` model, through exporace.testing, with MLX's
arrays passed as they are: the Gumbel values of `mx.random.gumbel` and the
ids of `mx.random.categorical`. The example an engine developer copies into
their own suite.

`mx.random.key(seed)` takes a uint64 seed, all of whose bits make the key.
One row of logits goes in 1-D: a 2-D call with a `shape` or `num_samples`
takes MLX's inverse-CDF path, which exporace does not replay.

Opt-in: `scripts/conformance-python.sh mlx` runs it in the environment that
`scripts/conformance-mlx.sh` makes (mlx and mlx-cpu installed).
"""

from __future__ import annotations

import numpy as np
import pytest

mx = pytest.importorskip("mlx.core")
from conftest import COUNTS, logit_rows  # noqa: E402

from exporace.testing import assert_same_noise, assert_same_tokens  # noqa: E402

MODEL = "mlx-0.32-cpu"
SHAPES = [(1,), (7,), (3, 5), (2, 8192), (1000,), (4, 1000), (3, 32001), (1, 151936)]
VOCABS = [1, 7, 1000, 32000, 151936]

mx.set_default_device(mx.cpu)


def seeds(rng: np.random.Generator, n: int) -> list[int]:
    """64-bit seeds: drawn, and the ends."""
    drawn = [int(x) for x in rng.integers(0, 2**63, size=n, dtype=np.int64)]
    return drawn + [0, 2**32 + 5, 2**64 - 1]


@pytest.mark.parametrize("shape", SHAPES)
def test_gumbel_is_the_recipes_noise(shape):
    rng = np.random.default_rng(sum(shape))
    for seed in seeds(rng, 3):
        g = mx.random.gumbel(shape=shape, key=mx.random.key(seed))
        flat = np.array(g).ravel()
        assert_same_noise(flat, model=MODEL, seed=seed)
        COUNTS[f"{MODEL} gumbel values"] += flat.size


@pytest.mark.parametrize("v", VOCABS)
def test_categorical_picks_the_recipes_tokens(v):
    rng = np.random.default_rng(v)
    for rows in (1, 3):
        for name, logits in logit_rows(rng, rows, v).items():
            seed = seeds(rng, 1)[int(rng.integers(4))]
            x = mx.array(logits[0] if rows == 1 else logits)
            ids = mx.random.categorical(x, axis=-1, key=mx.random.key(seed))
            assert_same_tokens(ids, model=MODEL, logits=x, seeds=seed)
            COUNTS[f"{MODEL} categorical ids"] += rows


def test_a_row_of_a_larger_call_is_placed_by_rows_and_row():
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((8, 4000)).astype(np.float32)
    ids = np.array(mx.random.categorical(mx.array(logits), axis=-1, key=mx.random.key(5)))
    for r in range(8):
        assert_same_tokens(ids[r:r + 1], model=MODEL, logits=logits[r:r + 1], seeds=5, rows=8, row=r)
        COUNTS[f"{MODEL} categorical ids"] += 1
