"""Assertions for an engine's test suite: "this kernel picks the token the
recipe says" and "this noise is the recipe's, bit for bit".

>>> import numpy as np, exporace
>>> from exporace.testing import assert_same_tokens
>>> logits = np.zeros((2, 4096), dtype=np.float32); logits[:, 9] = 50.0
>>> assert_same_tokens([9, 9], model="vllm-0.33-f32", logits=logits,
...                    seeds=[1, 2], pos=0, temperature=1.0)
>>> assert_same_tokens([9, 9], model="jax-0.11-cpu", logits=logits, seeds=5)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _args, noise, sample
from ._keyed import KEYED_MODELS
from .errors import ExporaceValueError

__all__ = ["assert_same_noise", "assert_same_tokens"]


def _ordinal(bits: int, width: int) -> int:
    sign = 1 << (width - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def _ulps(a: np.floating, b: np.floating) -> int | None:
    """The number of representable values between ``a`` and ``b`` in their
    precision, ``None`` when either is NaN."""
    if np.isnan(a) or np.isnan(b):
        return None
    width = a.dtype.itemsize * 8
    view = np.uint32 if width == 32 else np.uint64
    x = int(np.array(a).view(view))
    y = int(np.array(b).view(view))
    return abs(_ordinal(x, width) - _ordinal(y, width))


def _score(model: str, logit: Any, g: np.floating, temperature: float) -> np.floating:
    """The engine's score of one token: its logit (divided by the
    temperature in fp32 for vLLM 0.33, widened under fp64) plus its noise,
    in the engine's precision (float32 for JAX and MLX)."""
    if model in KEYED_MODELS:
        return np.float32(logit) + g
    if model.startswith("vllm-0.33"):
        x = np.float32(logit) if temperature == 0 else np.float32(logit) / np.float32(temperature)
        if temperature == 0:
            g = g.dtype.type(0)
        return (np.float64(x) if model.endswith("f64") else x) + g
    return np.float64(logit) + g


def assert_same_tokens(
    ids: Any,
    *,
    model: str,
    logits: Any,
    seeds: Any,
    pos: Any = None,
    temperature: Any = None,
    draft: bool = False,
    rows: Any = None,
    row: Any = None,
    threads: int | None = None,
) -> None:
    """Assert that ``ids`` (one per row of ``logits``) are the tokens
    ``model``'s engine picks (see :func:`exporace.sample` for the
    arguments; ``rows`` and ``row`` place JAX's and MLX's rows in their
    call). On failure the message names the first differing row, both
    tokens, their scores under the recipe and their distance in ulps, and
    how many rows differ.
    """
    x = np.asarray(logits)
    s = sample(model, x, seeds, pos, temperature=temperature, draft=draft, rows=rows, row=row,
               threads=threads)
    want = np.atleast_1d(np.asarray(s.token))
    got = _args.to_numpy(ids, "ids", np.int64)
    got = np.atleast_1d(got)
    if got.shape != want.shape:
        raise ExporaceValueError(
            f"ids has shape {tuple(got.shape)} for {want.shape[0]} rows of logits", "ids"
        )
    bad = np.flatnonzero(got != want)
    if bad.size == 0:
        return
    r = int(bad[0])
    batch = x.reshape(-1, x.shape[-1])
    logit_row = batch[r]
    k, w = int(got[r]), int(want[r])
    margin = np.atleast_1d(np.asarray(s.margin_ulps, dtype=object))[r]
    runner = int(np.atleast_1d(s.runner_up)[r])

    def per_row(v: Any) -> Any:
        return v if np.ndim(v) == 0 else np.asarray(v)[r]

    seed, p = per_row(seeds), per_row(0 if pos is None else pos)
    t = float(per_row(1.0 if temperature is None else temperature))
    detail = f"the recipe's runner-up is {runner}, {margin} ulps behind"
    v = logit_row.shape[0]
    if 0 <= k < v:
        if model in KEYED_MODELS:
            # The row's place in its call, as sample() places it.
            call = batch.shape[0] if rows is None else int(per_row(rows))
            first = v * (r if row is None else int(per_row(row)))
            gk = noise(model, int(seed), tokens=range(first + k, first + k + 1), size=call * v)[0]
        elif model == "vllm-cpu-0.32":
            gk = noise(model, int(seed), tokens=range(k, k + 1))[0]
        else:
            gk = noise(model, int(seed), pos=int(p), tokens=range(k, k + 1), draft=draft)[0]
        sk = _score(model, logit_row[k], gk, t)
        sw = np.asarray(np.atleast_1d(s.score)[r]).astype(sk.dtype)
        got_part = f"score {sk!r}, {_ulps(sw, sk)} ulps below the winner's"
    else:
        got_part = f"not a token of a {v}-token vocabulary"
    raise AssertionError(
        f"{bad.size} of {want.shape[0]} rows differ from {model}; first row {r}: "
        f"the ids say {k} ({got_part}), the recipe picks {w} (score "
        f"{np.atleast_1d(s.score)[r]!r}); {detail}"
    )


def assert_same_noise(
    values: Any,
    *,
    model: str,
    seed: int,
    pos: int | None = None,
    tokens: int | range | None = None,
    draft: bool = False,
    size: int | None = None,
) -> None:
    """Assert that ``values`` are ``model``'s noise at ``tokens`` (all of
    ``values`` from token 0 by default), bit for bit (see
    :func:`exporace.noise` for the arguments; ``size`` is a keyed request's
    number of elements, by default the number of ``values``). On failure the
    message names the first differing token, both values with their bits,
    their distance in ulps, and how many differ.

    >>> g = exporace.noise("sglang-0.5", seed=3, pos=1, tokens=16)
    >>> exporace.testing.assert_same_noise(g, model="sglang-0.5", seed=3, pos=1)
    >>> g = exporace.noise("mlx-0.32-cpu", seed=3, tokens=10)  # mx.random.gumbel(shape=(10,))
    >>> exporace.testing.assert_same_noise(g, model="mlx-0.32-cpu", seed=3)
    """
    got = _args.array(values, "values", [np.float32, np.float64], 1, "noise is float32 or float64")
    span = range(got.shape[0]) if tokens is None else tokens
    # A count, not a range: a keyed request of exactly these values.
    asked = got.shape[0] if tokens is None else tokens
    want = noise(model, seed, pos=pos, tokens=asked, draft=draft, size=size)
    if want.shape != got.shape:
        raise ExporaceValueError(f"values has {got.shape[0]} entries for {want.shape[0]} tokens", "values")
    if want.dtype != got.dtype:
        raise AssertionError(f"values are {got.dtype}; {model} draws {want.dtype}")
    view = np.uint32 if got.dtype == np.float32 else np.uint64
    bad = np.flatnonzero(got.view(view) != want.view(view))
    if bad.size == 0:
        return
    i = int(bad[0])
    first = span[0] if isinstance(span, range) else 0
    raise AssertionError(
        f"{bad.size} of {got.shape[0]} values differ from {model}; first at token {first + i}: "
        f"{got[i]!r} (bits {int(got.view(view)[i]):#x}) where the recipe draws {want[i]!r} "
        f"(bits {int(want.view(view)[i]):#x}), {_ulps(got[i], want[i])} ulps apart"
    )
