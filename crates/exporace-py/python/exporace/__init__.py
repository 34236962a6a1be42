"""exporace: exponential-race (Gumbel-max) sampling as LLM inference engines
do it, replayed bit for bit.

The catalogue of engine noise recipes (:func:`models`), the noise an engine
draws (:func:`noise`), the token its sampler picks with the runner-up and the
margin in ulps (:func:`sample`), the core's samplers on arrays (:func:`race`,
:func:`recover`, :func:`rejection`), exact win probabilities, dead zones and
model comparisons, and assertions for a test suite (:mod:`exporace.testing`).

Arrays may be numpy arrays, or anything numpy reads without a copy on the
CPU (``__array__``, DLPack), so torch CPU tensors pass as they are.

>>> import numpy as np, exporace
>>> logits = np.zeros(3000, dtype=np.float32); logits[2500] = 100.0
>>> s = exporace.sample("vllm-0.33-f32", logits, seed=7, pos=3, temperature=1.0)
>>> s.token, s.margin_ulps > 1000
(2500, True)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from . import _args, _core, _keyed
from ._keyed import KEYED_MODELS
from .errors import ExporaceError, ExporaceTypeError, ExporaceValueError

__version__: str = _core.__version__

__all__ = [
    "ExporaceError",
    "ExporaceTypeError",
    "ExporaceValueError",
    "HASHED_MODELS",
    "KEYED_MODELS",
    "NAN_POLICIES",
    "Race",
    "Rejection",
    "FlashInferSample",
    "Sample",
    "audit",
    "compare_models",
    "dead_zone",
    "flashinfer_sample",
    "models",
    "noise",
    "race",
    "recover",
    "rejection",
    "run",
    "sample",
    "win_probability",
]

#: The models whose engines hash (seed, position, token) into their noise:
#: :func:`sample` replays their samplers.
HASHED_MODELS: tuple[str, ...] = ("vllm-0.33-f32", "vllm-0.33-f64", "sglang-0.5", "vllm-cpu-0.32")

#: What a NaN score does in an argmax: the first NaN wins (``torch.argmax``),
#: a NaN never wins (vLLM's CPU kernel), or a NaN is an error.
NAN_POLICIES: tuple[str, ...] = ("first_nan_wins", "nan_never_wins", "reject")

ProgressFn = Callable[[int, int], Any]


def run(scenario: dict[str, Any] | str) -> dict[str, Any]:
    """Answer a scenario (the JSON format of ``exporace run``), given as a
    dict or as JSON text, with its report.

    >>> r = exporace.run({"exporace": 1, "op": "race", "precision": "f64",
    ...                   "weights": [0.5, 0.25, 0.25], "noise": [1.0, 4.0, 0.5]})
    >>> r["result"]["winner"]["token"]  # 0.25 * 4 beats 0.5 * 1
    1
    """
    if isinstance(scenario, dict):
        try:
            text = json.dumps(scenario, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ExporaceValueError(f"scenario cannot be written as JSON: {e}", "scenario") from None
    elif isinstance(scenario, str):
        text = scenario
    else:
        raise ExporaceTypeError(
            f"scenario must be a dict or JSON text, got {_args.describe(scenario)}", "scenario"
        )
    return json.loads(_core.run_json(text))


def _op(op: str, body: dict[str, Any], **header: Any) -> Any:
    """The ``result`` of one scenario operation."""
    scenario = {"exporace": 1, "op": op, **{k: v for k, v in header.items() if v is not None}}
    scenario.update(body)
    return run(scenario)["result"]


def models() -> list[dict[str, Any]]:
    """The noise catalogue: each model's facts (name, engine, versions,
    precision, kind, lattice, transform, clamp, smallest E, largest Gumbel
    value, noise error, tie rule, source, stream), as plain Python data.

    >>> names = [m["name"] for m in exporace.models()]
    >>> "vllm-0.33-f32" in names and "torch-cpu" in names
    True
    >>> [m["versions"] for m in exporace.models() if m["name"] == "sglang-0.5"]
    ['0.5.23']
    """
    return json.loads(_core.models_json())["result"]["models"]


def _model(model: Any, name: str = "model") -> str:
    if not isinstance(model, str):
        raise ExporaceTypeError(f"{name} must be a catalogue name, got {_args.describe(model)}", name)
    return model


def _precision(precision: Any) -> str | None:
    if precision is None:
        return None
    return _args.choice(precision, "precision", ("f32", "f64"))


def noise(
    model: str,
    seed: int,
    *,
    tokens: int | range,
    pos: int | None = None,
    draft: bool = False,
    row: int = 0,
    address: str | None = None,
    precision: str | None = None,
    size: int | None = None,
    offset: int | None = None,
) -> np.ndarray:
    """The noise ``model`` draws for ``tokens`` (a count from token 0, or a
    ``range``), as float32 or float64 by the model's precision (or
    ``precision``): E for exponential recipes, G for Gumbel recipes.

    ``address`` says where the words come from: ``"hashed"`` (the engine's
    hash of seed, ``pos`` and token; the default for :data:`HASHED_MODELS`),
    ``"keyed"`` (the engine's Threefry key of ``seed``, then flat elements
    ``tokens`` of a request of ``size`` elements; the default for
    :data:`KEYED_MODELS`), ``"mrv2"`` (vLLM's Triton key of seed and
    ``pos``; the default for other models when ``pos`` is given),
    ``"triton"`` (``tl.randint4x`` offsets), ``"torch_cpu"`` (torch's CPU
    generator), ``"flashinfer"`` (``flashinfer-0.7``: curand's words of
    block ``row`` over a vocabulary of ``size`` tokens, at curand's
    ``offset``, default 0) or ``"exporace"`` (exporace's Philox stream at
    ``row``; the default otherwise). At most 2^20 draws.

    The keyed address replays ``jax.random.gumbel(jax.random.key(seed),
    shape)`` and ``mx.random.gumbel(shape=shape, key=mx.random.key(seed))``
    flattened: ``size`` is the request's number of elements (the product of
    ``shape``; JAX's ``mode="high"`` and MLX's words depend on it), by
    default the count of ``tokens``; it takes no ``pos``. JAX with its
    defaults (``jax_enable_x64`` off) keys with the seed's low 32 bits:
    give those.

    >>> g = exporace.noise("vllm-0.33-f32", seed=1, pos=0, tokens=4)
    >>> g.dtype, g.shape
    (dtype('float32'), (4,))
    >>> # jax.random.gumbel(jax.random.key(42), (2, 8192)) on an H100: elements 8190 to 8193
    >>> g = exporace.noise("jax-0.11-gpu", seed=42, tokens=range(8190, 8194), size=2 * 8192)
    >>> [hex(b) for b in g.view(np.uint32)]
    ['0xbeb530a4', '0x3fe1d8ce', '0x3fa8605f', '0x3f82bc9e']
    """
    model = _model(model)
    seed_v = _args.seed_bits(seed)
    counted = not isinstance(tokens, range)
    if isinstance(tokens, range):
        if tokens.step != 1 or len(tokens) == 0:
            raise ExporaceValueError(
                f"tokens must be a non-empty range with step 1, got {tokens!r}", "tokens"
            )
        start, n = _args.count(tokens.start, "tokens"), len(tokens)
    else:
        start, n = 0, _args.count(tokens, "tokens")
    if n == 0:
        raise ExporaceValueError("tokens is 0: ask for at least one draw", "tokens")
    pos_v = None if pos is None else _args.count(pos, "pos")
    draft_v = _args.flag(draft, "draft")
    if address is None:
        if model in KEYED_MODELS:
            address = "keyed"
        elif model in HASHED_MODELS:
            address = "hashed"
            if pos_v is None and model == "vllm-cpu-0.32":
                pos_v = 0
        else:
            address = "exporace" if pos_v is None else "mrv2"
    address = _args.choice(
        address,
        "address",
        ("exporace", "triton", "mrv2", "torch_cpu", "hashed", "keyed", "flashinfer"),
    )
    if offset is not None and address != "flashinfer":
        raise ExporaceValueError(
            f"offset is curand's offset for address flashinfer; address {address} takes none",
            "offset",
        )
    offset_v = None if offset is None else _args.count(offset, "offset")
    if address == "keyed":
        for name, given in (("pos", pos_v is not None), ("draft", draft_v)):
            if given:
                raise ExporaceValueError(
                    f"address keyed takes no {name}: the key is made of the seed alone", name
                )
        size_v: int | None = _keyed.size(model, size, start, n, counted)
    elif address == "flashinfer":
        if size is None:
            raise ExporaceValueError(
                "address flashinfer needs size: the vocabulary, curand's subsequence "
                "of token t in block row being row * size + t",
                "size",
            )
        size_v = _args.count(size, "size")
    elif size is not None:
        raise ExporaceValueError(
            "size is the request's number of elements for address keyed; "
            f"address {address} takes none",
            "size",
        )
    else:
        size_v = None
    return _core.noise(
        model,
        _precision(precision),
        seed_v,
        address,
        start,
        n,
        _args.count(row, "row"),
        pos_v,
        draft_v,
        size_v,
        offset_v,
    )


@dataclass(frozen=True)
class Sample:
    """What a sampler picked: per row (arrays) for a batch, or for one row
    (scalars) when the logits were 1-D.

    ``score`` is what the engine compared (``logits / temperature + G`` in
    its precision, widened exactly to float64); ``runner_up`` is the best of
    the rest (-1 for a one-token vocabulary); ``margin_ulps`` is the distance
    between the two scores in ulps of the engine's precision (``None`` or
    -1 where unknown: no runner-up, or a NaN score).
    """

    token: Any
    runner_up: Any
    score: Any
    runner_up_score: Any
    margin_ulps: Any


def _standing(cols: Sequence[np.ndarray], one: bool) -> dict[str, Any]:
    token, runner_up, score, runner_up_score, margin, known = cols
    if one:
        return {
            "token": int(token[0]),
            "runner_up": int(runner_up[0]),
            "score": float(score[0]),
            "runner_up_score": float(runner_up_score[0]),
            "margin_ulps": int(margin[0]) if known[0] else None,
        }
    margin = np.where(known, margin.astype(np.int64, copy=False), -1)
    if (margin < -1).any():
        # A margin past 2^63 ulps (scores of opposite signs far apart) keeps
        # its full value as uint64, with the mask.
        margin = np.ma.masked_array(cols[4], mask=~known)
    return {
        "token": token,
        "runner_up": runner_up,
        "score": score,
        "runner_up_score": runner_up_score,
        "margin_ulps": margin,
    }


def sample(
    model: str,
    logits: Any,
    seed: Any,
    pos: Any = None,
    *,
    temperature: Any = None,
    draft: bool = False,
    rows: Any = None,
    row: Any = None,
    threads: int | None = None,
    progress: ProgressFn | None = None,
) -> Sample:
    """The token ``model``'s engine picks from ``logits`` (``[V]`` or
    ``[B, V]``), with the runner-up and the margin in ulps.

    - ``vllm-0.33-f32`` / ``vllm-0.33-f64``: vLLM Model Runner V2's
      ``gumbel_sample`` (float32 logits; ``pos`` and ``temperature``
      needed, 0 is greedy; ``draft`` salts the position);
    - ``sglang-0.5``: SGLang's ``multinomial_with_seed`` (float64
      log-probabilities; ``pos`` needed);
    - ``vllm-cpu-0.32``: vLLM's CPU ``fused_gumbel_argmax`` (float32 logits;
      no ``pos``);
    - ``jax-0.11-cpu`` / ``jax-0.11-gpu`` (and ``-high`` for
      ``mode="high"``): ``jax.random.categorical(jax.random.key(seed),
      logits)``; ``mlx-0.32-cpu``: ``mx.random.categorical(logits,
      key=mx.random.key(seed))`` (float32 logits; no ``pos``,
      ``temperature`` or ``draft``). These engines draw one Gumbel array
      for the whole call under one key, so a row's noise depends on its
      place: row ``r`` is row ``row`` of a call of ``rows`` rows, by
      default row ``r`` of a call that is the whole batch (1-D logits: a
      call of one row). JAX with its defaults (``jax_enable_x64`` off) keys
      with the seed's low 32 bits: give those.

    ``seed``, ``pos``, ``temperature``, ``rows`` and ``row`` are one value
    for every row or one per row. Seeds are int64 (negative ones as their
    bits) or uint64. Rows run on ``threads`` threads (every core by default)
    without the GIL; ``progress(done_rows, total_rows)`` is called between
    chunks, and Ctrl-C stops the call.

    >>> logits = np.zeros((2, 3000), dtype=np.float32); logits[:, 7] = 100.0
    >>> exporace.sample("vllm-0.33-f32", logits, seed=[1, 2], pos=0, temperature=0.7).token
    array([7, 7])
    >>> # One call of JAX 0.11.2 and of MLX 0.32.4 on a CPU, key(3): their ids
    >>> logits = np.array([[0.5, 2, -np.inf, 1, 3], [1, 1.5, 0.25, 2, -1]], np.float32)
    >>> exporace.sample("jax-0.11-cpu", logits, seed=3).token
    array([1, 0])
    >>> exporace.sample("jax-0.11-cpu-high", logits, seed=3).token
    array([4, 1])
    >>> exporace.sample("mlx-0.32-cpu", logits, seed=3).token
    array([4, 2])
    >>> # The second row alone, placed in its call
    >>> exporace.sample("mlx-0.32-cpu", logits[1], seed=3, rows=2, row=1).token
    2
    """
    model = _args.choice(_model(model), "model", HASHED_MODELS + KEYED_MODELS)
    reads = {
        "vllm-0.33-f32": (np.float32, "vLLM reads float32 logits"),
        "vllm-0.33-f64": (np.float32, "vLLM reads float32 logits and widens them"),
        "vllm-cpu-0.32": (np.float32, "vLLM's CPU kernel reads float32 logits"),
        "sglang-0.5": (np.float64, "SGLang adds its noise to float64 log-probabilities"),
    }
    keyed = (np.float32, "JAX and MLX add their noise to float32 logits")
    dtype, why = reads.get(model, keyed)
    x = _args.array(logits, "logits", [dtype], (1, 2), why)
    one = x.ndim == 1
    x2 = x.reshape(1, -1) if one else x
    if model in KEYED_MODELS:
        unused = {"pos": pos is not None, "temperature": temperature is not None,
                  "draft": _args.flag(draft, "draft")}
        cols = _keyed.sample_columns(
            model, x2, seed, rows, row, unused, _args.threads(threads), _args.callback(progress)
        )
        return Sample(**_standing(cols, one))
    _keyed.no_rows(model, rows, row)
    b = x2.shape[0]
    vllm = model.startswith("vllm-0.33")
    if model == "vllm-cpu-0.32":
        if pos is not None:
            raise ExporaceValueError("vllm-cpu-0.32 takes no pos: its kernel hashes none", "pos")
    elif pos is None:
        raise ExporaceValueError(f"{model} needs pos, the token's position", "pos")
    if not vllm:
        if temperature is not None:
            raise ExporaceValueError(
                f"{model} takes no temperature: its engine applies it before this step",
                "temperature",
            )
        if _args.flag(draft, "draft"):
            raise ExporaceValueError(f"{model} has no draft noise: only vLLM 0.33 salts drafts", "draft")
    elif temperature is None:
        raise ExporaceValueError(f"{model} needs temperature (0 is greedy)", "temperature")
    cols = _core.sample(
        model,
        x2,
        _args.seeds(seed, b),
        _args.positions(0 if pos is None else pos, b),
        _args.temperatures(1.0 if temperature is None else temperature, b),
        _args.flag(draft, "draft"),
        _args.threads(threads),
        _args.callback(progress),
    )
    return Sample(**_standing(cols, one))


def _nan_policy(nan_policy: Any) -> str:
    return _args.choice(nan_policy, "nan_policy", NAN_POLICIES)


def _noise_array(x: Any, name: str, ndim: int | tuple[int, ...] = 1) -> np.ndarray:
    return _args.array(
        x, name, [np.float32, np.float64], ndim, "its dtype is the noise precision"
    )


@dataclass(frozen=True)
class Race:
    """One race's standing: the winner and its score, the runner-up (-1
    without one) and its score, and the margin in ulps of the noise's
    precision (``None`` without a runner-up or with a NaN score)."""

    winner: int
    score: float
    runner_up: int
    runner_up_score: float
    margin_ulps: int | None


def race(weights: Any, noise: Any, *, form: str = "div", nan_policy: str) -> Race:
    """``argmax_i w_i / q_i`` (``form="div"``, vLLM V1's ``random_sample``)
    or ``argmax_i w_i * inv_q_i`` (``form="mul"``), on float32 weights; the
    noise's dtype (float32 or float64) is the precision. ``nan_policy`` is
    required: one of :data:`NAN_POLICIES`.

    >>> r = exporace.race(np.array([0.5, 0.25, 0.25], np.float32),
    ...                   np.array([1.0, 4.0, 0.5]), form="mul", nan_policy="reject")
    >>> r.winner, r.runner_up
    (1, 0)
    """
    w = _args.array(weights, "weights", [np.float32], 1, "the engines' probabilities are float32")
    n = _noise_array(noise, "noise")
    form = _args.choice(form, "form", ("div", "mul"))
    return Race(*_core.race(form, w, n, _nan_policy(nan_policy)))


def _batch(
    vocab_size: Any,
    cu_num_draft_tokens: Any,
    draft_token_ids: Any,
    target_probs: Any,
    draft_probs: Any,
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    v = _args.integer(vocab_size, "vocab_size", 1, 1 << 62)
    cu = _args.array(cu_num_draft_tokens, "cu_num_draft_tokens", [np.int32], 1, "vLLM's layout")
    ids = _args.array(draft_token_ids, "draft_token_ids", [np.int32], 1, "vLLM's layout")
    probs = _args.array(target_probs, "target_probs", [np.float32], 2, "vLLM's layout, [T, V]")
    d = None
    if draft_probs is not None:
        d = _args.array(draft_probs, "draft_probs", [np.float32], 2, "vLLM's layout, [T, V]")
        d = d.reshape(-1)
    return v, cu, ids, probs.reshape(-1), d


def recover(
    *,
    vocab_size: int,
    cu_num_draft_tokens: Any,
    draft_token_ids: Any,
    target_probs: Any,
    inv_q: Any,
    nan_policy: str,
    draft_probs: Any = None,
) -> Sample:
    """vLLM's recovered token at every draft position (the race of the
    residual ``max(p - q, 0)`` against the request's noise row ``inv_q``,
    ``[B, V]``, float32 or float64): per position the token, runner-up,
    scores and margin.

    >>> r = exporace.recover(vocab_size=3, cu_num_draft_tokens=np.array([1], np.int32),
    ...     draft_token_ids=np.array([2], np.int32),
    ...     target_probs=np.array([[0.2, 0.3, 0.5]], np.float32),
    ...     inv_q=np.array([[1.2, 1.0, 9.0]], np.float32), nan_policy="reject")
    >>> r.token
    array([1])
    """
    batch = _batch(vocab_size, cu_num_draft_tokens, draft_token_ids, target_probs, draft_probs)
    n = _noise_array(inv_q, "inv_q", 2).reshape(-1)
    cols = _core.recover(batch, n, _nan_policy(nan_policy))
    return Sample(**_standing(cols, False))


@dataclass(frozen=True)
class Rejection:
    """One rejection-sampling step: ``output_token_ids`` ``[B, S + 1]`` (-1
    where nothing was emitted) and per request the number of accepted
    drafts."""

    output_token_ids: np.ndarray
    num_accepted: np.ndarray


def rejection(
    *,
    vocab_size: int,
    cu_num_draft_tokens: Any,
    draft_token_ids: Any,
    target_probs: Any,
    uniform: Any,
    inv_q: Any,
    nan_policy: str,
    draft_probs: Any = None,
    greedy: Any = None,
    bonus_token_ids: Any = None,
    bonus_probs: Any = None,
    bonus_inv_q: Any = None,
) -> Rejection:
    """vLLM's rejection-sampling step: accept each draft while
    ``p / q >= u`` (``uniform``, float64, one per draft), race the residual
    at the first rejection, or emit the bonus token (``bonus_token_ids``, or
    raced from ``bonus_probs`` ``[B, V]`` against ``bonus_inv_q``).

    >>> out = exporace.rejection(vocab_size=2, cu_num_draft_tokens=np.array([2], np.int32),
    ...     draft_token_ids=np.array([0, 0], np.int32),
    ...     target_probs=np.array([[0.9, 0.1], [0.3, 0.7]], np.float32),
    ...     uniform=np.array([0.5, 0.5]), inv_q=np.array([[1.0, 1.0]]),
    ...     bonus_token_ids=np.array([1], np.int32), nan_policy="reject")
    >>> out.output_token_ids.tolist()
    [[0, 1, -1]]
    """
    batch = _batch(vocab_size, cu_num_draft_tokens, draft_token_ids, target_probs, draft_probs)
    n = _noise_array(inv_q, "inv_q", 2)
    g = None
    if greedy is not None:
        g = _args.array(greedy, "greedy", [np.bool_], 1, "one flag per request")
    u = _args.array(uniform, "uniform", [np.float64], 1, "vLLM's uniforms are float64")
    bids = bprobs = bnoise = None
    if bonus_token_ids is not None:
        bids = _args.array(bonus_token_ids, "bonus_token_ids", [np.int32], 1, "vLLM's layout")
    if bonus_probs is not None:
        bprobs = _args.array(bonus_probs, "bonus_probs", [np.float32], 2, "[B, V]").reshape(-1)
    if bonus_inv_q is not None:
        bnoise = _noise_array(bonus_inv_q, "bonus_inv_q", 2).reshape(-1)
    ids_out, max_spec_len, accepted = _core.rejection(
        batch, g, u, n.reshape(-1), bids, bprobs, bnoise, _nan_policy(nan_policy)
    )
    return Rejection(ids_out.reshape(-1, max_spec_len + 1), accepted)


def _weights_list(weights: Any, name: str = "weights") -> list[float]:
    w = _args.array(weights, name, [np.float32, np.float64], 1, "weights are numbers")
    if not np.isfinite(w).all():
        i = int(np.argmin(np.isfinite(w)))
        raise ExporaceValueError(f"{name}[{i}] is {w[i]}: weights must be finite", name)
    return w.tolist()


def _model_spec(model: Any, precision: Any, name: str = "model") -> Any:
    model = _model(model, name)
    p = _precision(precision)
    return model if p is None else {"model": model, "precision": p}


def win_probability(
    model: str,
    weights: Any,
    counts: Any = None,
    *,
    precision: str | None = None,
    tolerance: float | None = None,
    max_nodes: int | None = None,
) -> dict[str, Any]:
    """Each token's exact probability of winning the race under ``model``'s
    noise law (groups of ``counts[g]`` tokens of weight ``weights[g]``; one
    token each by default), with lower and upper bounds.

    >>> r = exporace.win_probability("ideal", [0.75, 0.25])
    >>> [round(g["probability"], 12) for g in r["probabilities"]["groups"]]
    [0.75, 0.25]
    """
    w = _weights_list(weights)
    if counts is None:
        c = [1] * len(w)
    else:
        ca = _args.array(counts, "counts", [np.int64, np.int32, np.uint64], 1, "whole numbers")
        if ca.shape[0] != len(w):
            raise ExporaceValueError(
                f"counts has {ca.shape[0]} entries for {len(w)} weights", "counts"
            )
        c = [int(v) for v in ca]
    body: dict[str, Any] = {
        "model": _model_spec(model, precision),
        "groups": [{"weight": a, "count": b} for a, b in zip(w, c)],
    }
    if tolerance is not None:
        body["tolerance"] = _args.real(tolerance, "tolerance")
    if max_nodes is not None:
        body["max_nodes"] = _args.count(max_nodes, "max_nodes")
    return _op("exact", body)


def dead_zone(model: str, weights: Any, *, precision: str | None = None) -> dict[str, Any]:
    """The tokens ``model``'s noise can never let win against ``weights``
    (the largest weight's worst case beats their best), with the threshold.

    >>> r = exporace.dead_zone("torch-cuda-f32", [1.0, 1e-9])
    >>> r["count"], r["tokens"]
    (1, [1])
    """
    return _op("dead_zone", {"weights": _weights_list(weights), "model": _model_spec(model, precision)})


def compare_models(
    model_a: str,
    model_b: str,
    weights: Any,
    *,
    seed: int,
    row: int = 0,
    nan_policy: str,
) -> dict[str, Any]:
    """Two models' races on the same random bits (row ``row`` of ``seed``):
    both winners, whether the argmax flipped, the exact winner and the
    tokens whose standing differs.

    >>> r = exporace.compare_models("triton-flipped", "u64-f64-classic", [0.5, 0.5], seed=1,
    ...                             nan_policy="first_nan_wins")
    >>> sorted(r)
    ['a', 'a_name', 'b', 'b_name', 'differing', 'exact_winner', 'flipped']
    """
    body = {
        "weights": _weights_list(weights),
        "models": [_model_spec(model_a, None, "model_a"), _model_spec(model_b, None, "model_b")],
        "row": _args.count(row, "row"),
    }
    return _op(
        "compare",
        body,
        seed=_args.count(seed, "seed"),
        nan_policy=_nan_policy(nan_policy),
    )


#: The tensors of a dump, by vLLM's names.
DUMP_TENSORS: tuple[str, ...] = (
    "target_probs", "inv_q", "draft_token_ids", "cu_num_draft_tokens",
    "draft_probs", "uniform", "bonus_token_ids",
)


def audit(
    dump: Any,
    *,
    nan_policy: str,
    precision: str = "f32",
    model: str = "torch-cuda-f32",
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    """The report of ``exporace audit --json`` for a dump in vLLM's layout:
    a safetensors file's path, or a dict of arrays (``target_probs``
    ``[T, V]``, ``inv_q`` ``[B, V]``, ``draft_token_ids`` ``[T]``,
    ``cu_num_draft_tokens`` ``[B]``, and optionally ``draft_probs``,
    ``uniform``, ``bonus_token_ids``). Every draft position is raced at f32
    and f64 on the same noise (``precision`` is the engine's): flips,
    overflows, margins, and ``model``'s dead zone. ``progress(done, total)``
    is called between chunks of positions, and Ctrl-C stops the call.

    >>> r = exporace.audit({"target_probs": np.array([[0.2, 0.3, 0.5]], np.float32),
    ...     "inv_q": np.array([[1.2, 1.0, 9.0]]), "draft_token_ids": np.array([2], np.int32),
    ...     "cu_num_draft_tokens": np.array([1], np.int32)}, nan_policy="reject")
    >>> r["summary"]["flips"], r["positions"][0]["token_f32"]
    (0, 1)
    """
    policy = _nan_policy(nan_policy)
    precision = _args.choice(precision, "precision", ("f32", "f64"))
    model = _model(model)
    cb = _args.callback(progress)
    if isinstance(dump, (str, os.PathLike)):
        path = os.fspath(dump)
        if not isinstance(path, str):
            raise ExporaceTypeError("dump must be a path as text", "dump")
        text = _core.audit(path, None, precision, policy, model, cb)
    elif isinstance(dump, dict):
        tensors = {}
        for key, value in dump.items():
            if key not in DUMP_TENSORS:
                raise ExporaceValueError(
                    f"dump has a tensor {key!r}; a dump's tensors are {', '.join(DUMP_TENSORS)}",
                    "dump",
                )
            a = _args.to_numpy(value, key, None)
            if a.dtype not in (np.float32, np.float64, np.int32, np.int64):
                raise ExporaceTypeError(
                    f"{key} must be float32, float64, int32 or int64, got {a.dtype}", key
                )
            tensors[key] = np.ascontiguousarray(a)
        text = _core.audit(None, tensors, precision, policy, model, cb)
    else:
        raise ExporaceTypeError(
            f"dump must be a path or a dict of arrays, got {_args.describe(dump)}", "dump"
        )
    return json.loads(text)


@dataclass(frozen=True)
class FlashInferSample:
    """What FlashInfer's sampler picks, as far as a CPU can tell: per row
    the certified token (-1 where undetermined), whether it is certified,
    and for each undetermined row (in order) the tokens that can win."""

    token: np.ndarray
    certified: np.ndarray
    candidates: list[list[int]]


def flashinfer_sample(
    logits: Any,
    seed: Any,
    *,
    offset: Any = 0,
    threads: int | None = None,
    progress: ProgressFn | None = None,
) -> FlashInferSample:
    """FlashInfer 0.7.4's ``sampling_from_logits`` on float32 ``logits``
    ``[B, V]`` (row ``r`` is CUDA block ``r``) under ``seed`` and the Philox
    ``offset`` (one for every row, or one per row). The uniforms replay bit
    for bit; the GPU's ``lg2.approx`` is known only within its measured
    error, so a row's winner is certified when no other token's score
    interval reaches it, and otherwise its candidates are listed.

    >>> logits = np.zeros((2, 8192), np.float32); logits[0, 5] = 40.0; logits[1, 9] = 40.0
    >>> exporace.flashinfer_sample(logits, seed=1).token
    array([5, 9])
    """
    x = _args.array(logits, "logits", [np.float32], 2, "FlashInfer reads float32 logits here")
    rows = x.shape[0]
    token, certified, candidates = _core.flashinfer(
        x,
        _args.seeds(seed, rows),
        _args.unsigned(offset, "offset", rows),
        _args.threads(threads),
        _args.callback(progress),
    )
    return FlashInferSample(token, certified, candidates)
