"""Hostile input to JAX's and MLX's models: every refusal of a key, a place
in the call, a shape or a dtype is a typed exception naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

import exporace
from exporace import ExporaceTypeError, ExporaceValueError

L = np.zeros((2, 64), np.float32)
J, M = "jax-0.11-cpu", "mlx-0.32-cpu"


def noise(model=J, **kw):
    return lambda: exporace.noise(model, **{"seed": 1, "tokens": 3, **kw})


def sample(model=J, logits=L, **kw):
    return lambda: exporace.sample(model, logits, **{"seed": 1, **kw})


CASES = [
    # (call, exception, argument)
    (noise(tokens=range(2, 5)), ExporaceValueError, "size"),
    (noise(size=0), ExporaceValueError, "size"),
    (noise(size=2), ExporaceValueError, "size"),
    (noise(size=-1), ExporaceValueError, "size"),
    (noise(size=(1 << 63) + 1), ExporaceValueError, "size"),
    (noise(size=3.0), ExporaceTypeError, "size"),
    (noise(size="3"), ExporaceTypeError, "size"),
    (noise(size=True), ExporaceTypeError, "size"),
    (noise(tokens=range((1 << 63) - 2, (1 << 63) + 1), size=1 << 63), ExporaceValueError, "size"),
    (noise(pos=0), ExporaceValueError, "pos"),
    (noise(M, draft=True), ExporaceValueError, "draft"),
    (noise(address="hashed", pos=0), ExporaceValueError, "model"),
    (noise(address="exporace", size=3), ExporaceValueError, "size"),
    (noise("ideal", size=3), ExporaceValueError, "size"),
    (noise("ideal", address="keyed", size=3), ExporaceValueError, "model"),
    (noise("vllm-0.33-f32", address="keyed", size=3), ExporaceValueError, "model"),
    (noise(precision="f64"), ExporaceValueError, "model"),
    (noise(seed=1 << 64), ExporaceValueError, "seed"),
    (noise(seed=1.5), ExporaceTypeError, "seed"),
    (noise(tokens=1 << 21), ExporaceValueError, "model"),
    (sample(logits=L.astype(np.float64)), ExporaceTypeError, "logits"),
    (sample(M, logits=L.astype(np.float16)), ExporaceTypeError, "logits"),
    (sample(logits=L.astype(np.int32)), ExporaceTypeError, "logits"),
    (sample(logits=np.zeros((2, 2, 2), np.float32)), ExporaceValueError, "logits"),
    (sample(logits=np.zeros((2, 0), np.float32)), ExporaceValueError, "logits"),
    (sample(logits=np.float32(1.0)), ExporaceTypeError, "logits"),
    (sample(logits="logits"), ExporaceTypeError, "logits"),
    (sample(pos=0), ExporaceValueError, "pos"),
    (sample(M, pos=[0, 1]), ExporaceValueError, "pos"),
    (sample(temperature=1.0), ExporaceValueError, "temperature"),
    (sample(draft=True), ExporaceValueError, "draft"),
    (sample(draft=1), ExporaceTypeError, "draft"),
    (sample(seed=[1, 2, 3]), ExporaceValueError, "seed"),
    (sample(seed=np.array([1.0, 2.0])), ExporaceTypeError, "seed"),
    (sample(seed=-(1 << 63) - 1), ExporaceValueError, "seed"),
    (sample(rows=0), ExporaceValueError, "rows"),
    (sample(rows=1), ExporaceValueError, "row"),
    (sample(rows=4, row=[0, 4]), ExporaceValueError, "row"),
    (sample(rows=-1), ExporaceValueError, "rows"),
    (sample(rows=[2, 2, 2]), ExporaceValueError, "rows"),
    (sample(rows=2.0), ExporaceTypeError, "rows"),
    (sample(row=-1), ExporaceValueError, "row"),
    (sample(row="0"), ExporaceTypeError, "row"),
    (sample(row=np.array([0.0, 1.0])), ExporaceTypeError, "row"),
    (sample(rows=(1 << 64) - 1, row=0), ExporaceValueError, "rows"),
    (sample(rows=1 << 58, row=0), ExporaceValueError, "rows"),
    (sample("jax-0.11-gpu-high", rows=1 << 58, row=0), ExporaceValueError, "rows"),
    (sample("jax-0.11-gpu-high", rows=1 << 57, row=0), ExporaceValueError, "rows"),
    (sample(rows=1 << 64), ExporaceValueError, "rows"),
    (sample(threads=0), ExporaceValueError, "threads"),
    (sample(progress="yes"), ExporaceTypeError, "progress"),
    (lambda: exporace.sample("vllm-cpu-0.32", L, 1, rows=2), ExporaceValueError, "rows"),
    (lambda: exporace.sample("sglang-0.5", L.astype(np.float64), 1, 0, row=0), ExporaceValueError, "row"),
    (lambda: exporace.sample("jax-0.11", L, 1), ExporaceValueError, "model"),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_each_hostile_call_is_refused_by_name(i):
    call, exc, argument = CASES[i]
    with pytest.raises(exc) as e:
        call()
    assert isinstance(e.value, exporace.ExporaceError)
    assert e.value.argument == argument, str(e.value)
    assert str(e.value)
    # The module keeps working after every refusal.
    assert exporace.sample(J, L, seed=1).token.shape == (2,)


def test_nan_and_inf_logits_pick_as_the_engines_argmax():
    logits = np.zeros((2, 10), np.float32)
    logits[0, [3, 7]] = np.nan
    logits[1, 4] = np.inf
    for model in exporace.KEYED_MODELS:
        s = exporace.sample(model, logits, seed=1)
        # The first NaN wins, as jnp.argmax and MLX's argmax pick; inf beats any noise.
        assert s.token.tolist() == [3, 4], model
        assert s.margin_ulps[0] == -1


def test_non_contiguous_and_negative_stride_logits_give_the_same_answer():
    rng = np.random.default_rng(1)
    big = rng.normal(size=(4, 2 * 500)).astype(np.float32)
    for x in (big[:, ::2], big[::-1, ::-1]):
        assert not x.flags.c_contiguous
        for model in exporace.KEYED_MODELS:
            a = exporace.sample(model, x, seed=5)
            b = exporace.sample(model, np.ascontiguousarray(x), seed=5)
            assert a.token.tolist() == b.token.tolist()


def test_the_largest_calls_are_taken():
    # 2^57 - 1 rows of 64 logits: a call of 2^63 - 64 elements, just within
    # JAX's mode high (two words per element, below 2^64).
    rows = (1 << 57) - 1
    row = rows - 1
    for model in exporace.KEYED_MODELS:
        got = exporace.sample(model, L[0], seed=2, rows=rows, row=row).token
        want = exporace.run({"exporace": 1, "op": "sample", "seed": 2, "model": model,
                             "rows": rows, "row": row, "logits": L[0].tolist()})
        assert got == want["result"]["token"], model
