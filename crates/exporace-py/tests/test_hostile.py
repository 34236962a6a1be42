"""Hostile input, as a stranger would send it: every refusal is a typed
exception that names the argument, and the module keeps working."""

from __future__ import annotations

import math

import numpy as np
import pytest

import exporace
from exporace import ExporaceTypeError, ExporaceValueError

L = np.zeros((2, 64), np.float32)
NAN = float("nan")


class Weird:
    """An object that claims to be an array and is not."""

    def __array__(self, *a, **k):
        raise RuntimeError("cannot")


class Gpu:
    """What a torch tensor on a GPU does."""

    def __array__(self, *a, **k):
        raise TypeError("can't convert cuda:0 device type tensor to numpy")


CASES = [
    # (call, exception, argument)
    (lambda: exporace.noise("no-such", seed=1, tokens=3), ExporaceValueError, "model"),
    (lambda: exporace.noise(3, seed=1, tokens=3), ExporaceTypeError, "model"),
    (lambda: exporace.noise("ideal", seed=NAN, tokens=3), ExporaceTypeError, "seed"),
    (lambda: exporace.noise("ideal", seed=1.0, tokens=3), ExporaceTypeError, "seed"),
    (lambda: exporace.noise("ideal", seed=True, tokens=3), ExporaceTypeError, "seed"),
    (lambda: exporace.noise("ideal", seed=1 << 64, tokens=3), ExporaceValueError, "seed"),
    (lambda: exporace.noise("ideal", seed=-(1 << 63) - 1, tokens=3), ExporaceValueError, "seed"),
    (lambda: exporace.noise("ideal", seed=1, tokens=0), ExporaceValueError, "tokens"),
    (lambda: exporace.noise("ideal", seed=1, tokens=-1), ExporaceValueError, "tokens"),
    (lambda: exporace.noise("ideal", seed=1, tokens=10**12), ExporaceValueError, "model"),
    (lambda: exporace.noise("ideal", seed=1, tokens=range(0, 9, 2)), ExporaceValueError, "tokens"),
    (lambda: exporace.noise("ideal", seed=1, tokens="3"), ExporaceTypeError, "tokens"),
    (lambda: exporace.noise("ideal", seed=1, tokens=3, precision="f16"), ExporaceValueError, "precision"),
    (lambda: exporace.noise("ideal", seed=1, tokens=3, address="x"), ExporaceValueError, "address"),
    (lambda: exporace.noise("ideal", seed=1, tokens=3, draft=1), ExporaceTypeError, "draft"),
    (lambda: exporace.noise("vllm-0.33-f32", seed=1, pos=-1, tokens=3), ExporaceValueError, "pos"),
    (lambda: exporace.noise("vllm-0.33-f32", seed=1, pos=1 << 63, tokens=3), ExporaceValueError, "pos"),
    (lambda: exporace.noise("sglang-0.5", seed=1, pos=0, tokens=3, draft=True), ExporaceValueError, "model"),
    (lambda: exporace.sample("ideal", L, 1, 0), ExporaceValueError, "model"),
    (lambda: exporace.sample("vllm-0.33-f32", L.astype(np.float16), 1, 0, temperature=1.0), ExporaceTypeError, "logits"),
    (lambda: exporace.sample("vllm-0.33-f32", L.astype(np.float64), 1, 0, temperature=1.0), ExporaceTypeError, "logits"),
    (lambda: exporace.sample("sglang-0.5", L, 1, 0), ExporaceTypeError, "logits"),
    (lambda: exporace.sample("vllm-0.33-f32", np.zeros((2, 2, 2), np.float32), 1, 0, temperature=1.0), ExporaceValueError, "logits"),
    (lambda: exporace.sample("vllm-0.33-f32", np.zeros((2, 0), np.float32), 1, 0, temperature=1.0), ExporaceValueError, "logits"),
    (lambda: exporace.sample("vllm-0.33-f32", "logits", 1, 0, temperature=1.0), ExporaceTypeError, "logits"),
    (lambda: exporace.sample("vllm-0.33-f32", None, 1, 0, temperature=1.0), ExporaceTypeError, "logits"),
    (lambda: exporace.sample("vllm-0.33-f32", {"a": 1}, 1, 0, temperature=1.0), ExporaceTypeError, "logits"),
    (lambda: exporace.sample("vllm-0.33-f32", Weird(), 1, 0, temperature=1.0), ExporaceTypeError, "logits"),
    (lambda: exporace.sample("vllm-0.33-f32", Gpu(), 1, 0, temperature=1.0), ExporaceTypeError, "logits"),
    (lambda: exporace.sample("vllm-0.33-f32", np.array([[object()]]), 1, 0, temperature=1.0), ExporaceTypeError, "logits"),
    (lambda: exporace.sample("vllm-0.33-f32", L, NAN, 0, temperature=1.0), ExporaceTypeError, "seed"),
    (lambda: exporace.sample("vllm-0.33-f32", L, [1, 2, 3], 0, temperature=1.0), ExporaceValueError, "seed"),
    (lambda: exporace.sample("vllm-0.33-f32", L, np.array([1.5, 2.0]), 0, temperature=1.0), ExporaceTypeError, "seed"),
    (lambda: exporace.sample("vllm-0.33-f32", L, [1, -(1 << 70)], 0, temperature=1.0), ExporaceValueError, "seed"),
    (lambda: exporace.sample("vllm-0.33-f32", L, [1, "2"], 0, temperature=1.0), ExporaceTypeError, "seed"),
    (lambda: exporace.sample("vllm-0.33-f32", L, [[1], [2]], 0, temperature=1.0), ExporaceValueError, "seed"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, None, temperature=1.0), ExporaceValueError, "pos"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, -3, temperature=1.0), ExporaceValueError, "pos"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, [0, -3], temperature=1.0), ExporaceValueError, "pos"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, (1 << 63) - 1, temperature=1.0), ExporaceValueError, "pos"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, 0.5, temperature=1.0), ExporaceTypeError, "pos"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, 0), ExporaceValueError, "temperature"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, 0, temperature=NAN), ExporaceValueError, "temperature"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, 0, temperature=-1.0), ExporaceValueError, "temperature"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, 0, temperature=math.inf), ExporaceValueError, "temperature"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, 0, temperature="hot"), ExporaceTypeError, "temperature"),
    (lambda: exporace.sample("vllm-cpu-0.32", L, 1, 0), ExporaceValueError, "pos"),
    (lambda: exporace.sample("vllm-cpu-0.32", L, 1, temperature=1.0), ExporaceValueError, "temperature"),
    (lambda: exporace.sample("sglang-0.5", L.astype(np.float64), 1, 0, draft=True), ExporaceValueError, "draft"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, 0, temperature=1.0, threads=0), ExporaceValueError, "threads"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, 0, temperature=1.0, threads=1.5), ExporaceTypeError, "threads"),
    (lambda: exporace.sample("vllm-0.33-f32", L, 1, 0, temperature=1.0, progress=3), ExporaceTypeError, "progress"),
    (lambda: exporace.race(np.ones(3, np.float32), np.ones(2), nan_policy="reject"), ExporaceValueError, "noise"),
    (lambda: exporace.race(np.ones(3, np.float32), np.ones(3)), TypeError, None),
    (lambda: exporace.race(np.ones(3, np.float32), np.ones(3), nan_policy="maybe"), ExporaceValueError, "nan_policy"),
    (lambda: exporace.race(np.ones(3, np.float32), np.ones(3), form="pow", nan_policy="reject"), ExporaceValueError, "form"),
    (lambda: exporace.race(np.ones(3), np.ones(3), nan_policy="reject"), ExporaceTypeError, "weights"),
    (lambda: exporace.race(np.array([1, NAN, 1], np.float32), np.ones(3), nan_policy="reject"), ExporaceValueError, "noise"),
    (lambda: exporace.race(np.ones(3, np.float32), np.array([1, -0.0, 1]), nan_policy="reject"), ExporaceValueError, "noise"),
    (lambda: exporace.race(np.ones(3, np.float32), np.ones(3, np.int64), nan_policy="reject"), ExporaceTypeError, "noise"),
    (lambda: exporace.recover(vocab_size=0, cu_num_draft_tokens=[1], draft_token_ids=[0], target_probs=[[1.0]], inv_q=[[1.0]], nan_policy="reject"), ExporaceValueError, "vocab_size"),
    (lambda: exporace.recover(vocab_size=2, cu_num_draft_tokens=np.array([5], np.int32), draft_token_ids=np.array([0], np.int32), target_probs=np.ones((1, 2), np.float32), inv_q=np.ones((1, 2)), nan_policy="reject"), ExporaceValueError, "inv_q"),
    (lambda: exporace.win_probability("ideal", [1.0, NAN]), ExporaceValueError, "weights"),
    (lambda: exporace.win_probability("ideal", [1.0, 1.0], counts=[1]), ExporaceValueError, "counts"),
    (lambda: exporace.win_probability("ideal", [1.0], tolerance=-1.0), ExporaceValueError, "tolerance"),
    (lambda: exporace.dead_zone("ideal", [[1.0]]), ExporaceValueError, "weights"),
    (lambda: exporace.compare_models("ideal", 5, [1.0], seed=1, nan_policy="reject"), ExporaceTypeError, "model_b"),
    (lambda: exporace.run(42), ExporaceTypeError, "scenario"),
    (lambda: exporace.run("{"), ExporaceValueError, "scenario"),
    (lambda: exporace.run("[" * 100_000), ExporaceValueError, "scenario"),
    (lambda: exporace.run({"exporace": 1, "op": "race", "weights": [NAN]}), ExporaceValueError, "scenario"),
    (lambda: exporace.run({"exporace": 1, "op": "race", "precision": "f64", "weights": [1], "noise": [1], "x": 1}), ExporaceValueError, "scenario"),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_each_hostile_call_is_refused_by_name(i):
    call, exc, argument = CASES[i]
    with pytest.raises(exc) as e:
        call()
    if argument is not None:
        assert isinstance(e.value, exporace.ExporaceError)
        assert e.value.argument == argument, str(e.value)
        assert str(e.value)
    # The module keeps working after every refusal.
    assert exporace.noise("ideal", seed=1, tokens=2).shape == (2,)


def test_non_contiguous_and_negative_stride_arrays_give_the_same_answer():
    rng = np.random.default_rng(1)
    big = rng.normal(size=(4, 2 * 500)).astype(np.float32)
    strided = big[:, ::2]
    flipped = big[::-1, ::-1]
    for x in (strided, flipped):
        assert not x.flags.c_contiguous
        a = exporace.sample("vllm-0.33-f32", x, 5, 1, temperature=1.0)
        b = exporace.sample("vllm-0.33-f32", np.ascontiguousarray(x), 5, 1, temperature=1.0)
        assert a.token.tolist() == b.token.tolist()


def test_lists_and_array_likes_are_read_at_the_engines_dtype():
    class Tensorish:
        def __init__(self, a):
            self.a = a

        def __array__(self, dtype=None, copy=None):
            return self.a

    x = np.zeros(50, np.float32)
    x[9] = 40.0
    assert exporace.sample("vllm-cpu-0.32", Tensorish(x), 2).token == 9
    assert exporace.sample("vllm-cpu-0.32", x.tolist(), 2).token == 9
    # DLPack: numpy's own arrays carry it.
    class OnlyDlpack:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, *a, **k):
            return self.a.__dlpack__(*a, **k)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    assert exporace.sample("vllm-cpu-0.32", OnlyDlpack(x), 2).token == 9


def test_exceptions_are_value_and_type_errors():
    assert issubclass(ExporaceValueError, ValueError)
    assert issubclass(ExporaceTypeError, TypeError)
    assert issubclass(ExporaceValueError, exporace.ExporaceError)
