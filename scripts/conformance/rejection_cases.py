"""rejection_sample's cases, generated from one seed, and the scenario
fields that ask exporace the same step."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import torch

from .cases import F32, cumsum, draws, exp_noise, residual, softmax32, sweep_shape
from .exporace import enc, enc_probs


@dataclass
class RejectionCase:
    name: str
    kind: str
    counts: list
    logits: np.ndarray
    draft: np.ndarray | None
    ids: np.ndarray
    bonus: np.ndarray
    greedy: np.ndarray
    fp64: bool
    seed: int
    inv_q: np.ndarray | None = None  # crafted noise, else vLLM draws it
    uniform: np.ndarray | None = None  # crafted uniforms, else vLLM draws them


def rejection_case(rng, seed, name, counts, V, greedy, with_draft, fp64, noise="drawn"):
    T, B = sum(counts), len(counts)
    logits = (rng.standard_normal((T, V)) * float(rng.choice([1.0, 3.0, 8.0]))).astype(F32)
    target = softmax32(logits)
    draft = None
    if with_draft:
        draft = softmax32((logits + rng.standard_normal((T, V)) * 0.3).astype(F32))
    ids = draws(rng, target, draft, V)
    bonus = rng.integers(0, V, B)
    case = RejectionCase(
        name, noise, counts, logits, draft, ids, bonus, np.asarray(greedy, bool), fp64, seed
    )
    if noise in ("crafted", "boundary"):
        gen = torch.Generator().manual_seed(seed)
        inv = exp_noise(gen, (B, V), torch.float64)
        res = residual(target, draft, ids).astype(np.float64)
        u = torch.rand(T, dtype=torch.float64, generator=gen).numpy()
        cu = cumsum(counts)
        for r in range(B):
            start = int(cu[r - 1]) if r else 0
            for t in range(start, int(cu[r])):
                x = int(ids[t])
                d = F32(1) if draft is None else draft[t, x]
                ratio = float(target[t, x] / d) if d > 0 else 0.0
                # "boundary": every uniform just above the ratio.
                pick = 0 if noise == "boundary" else int(rng.integers(3))
                if ratio < 1 and pick == 0:
                    u[t] = math.nextafter(ratio, 2.0)  # rejects in f64, accepts cast to f32
                elif ratio <= 1 and pick == 1:
                    u[t] = ratio  # accepts at both
                elif pick == 2:
                    u[t] = 1.0  # rejects unless the ratio is >= 1
            # A near-tie in the request's noise for its first position, and inf
            # on its zeroed draft token.
            if int(cu[r]) > start:
                t = start
                s = res[t] * inv[r]
                a, b = (int(v) for v in np.argsort(-s, kind="stable")[:2])
                if res[t, b] > 0:
                    inv[r, b] = s[a] / res[t, b] * (1 + int(rng.integers(-2, 3)) * 2.0**-52)
                if draft is None and res[t, ids[t]] == 0:
                    inv[r, ids[t]] = math.inf
        case.inv_q = inv
        case.uniform = u
    return case


def rejection_cases(rng, seed):
    R, G = False, True
    configs = [
        # name, counts, V, greedy, draft probs, fp64, noise
        ("small/random", [2, 3], 5, [R, R], True, False, "drawn"),
        ("small/random/fp64", [2, 3], 5, [R, R], True, True, "drawn"),
        ("small/ngram", [3, 1, 2], 5, [R, R, R], False, True, "drawn"),
        ("small/mixed", [2, 0, 3, 1], 5, [R, G, G, R], True, True, "drawn"),
        ("small/greedy", [3, 2], 5, [G, G], False, False, "drawn"),
        ("small/crafted", [3, 3, 2, 4], 5, [R, R, R, R], True, True, "crafted"),
        ("small/crafted/ngram", [3, 3, 2, 4], 6, [R, R, G, R], False, True, "crafted"),
        ("small/boundary/ngram", [2, 2, 3, 1], 5, [R, R, R, G], False, True, "boundary"),
        ("V1000/random", [4, 4, 4, 4], 1000, [R, R, R, R], True, True, "drawn"),
        ("V1000/mixed/ngram", [1, 5, 2], 1000, [G, R, R], False, False, "drawn"),
        ("V1000/crafted", [4, 2, 3], 1000, [R, R, R], True, True, "crafted"),
        ("V32000/random", [3, 3, 3], 32000, [R, R, R], True, True, "drawn"),
        ("V32000/greedy", [4, 4], 32000, [G, G], True, False, "drawn"),
        ("V32000/crafted/ngram", [3, 2], 32000, [R, R], False, True, "crafted"),
        ("V152064/random", [2, 3], 152064, [R, R], True, True, "drawn"),
        ("V152064/mixed/ngram", [3, 2], 152064, [G, R], False, False, "drawn"),
        ("V152064/crafted", [2, 2], 152064, [R, R], True, True, "crafted"),
    ]
    for i in range(16):
        counts, V = sweep_shape(rng)
        greedy = [bool(g) for g in rng.random(len(counts)) < 0.3]
        dp, fp64 = bool(rng.integers(2)), bool(rng.integers(2))
        tag = "draft_probs" if dp else "ngram"
        configs.append(
            (f"sweep/{i}/V{V}/B{len(counts)}/{tag}", counts, V, greedy, dp, fp64, "drawn")
        )
    return [
        rejection_case(rng, seed + 500 + i, name, counts, V, greedy, dp, fp64, noise)
        for i, (name, counts, V, greedy, dp, fp64, noise) in enumerate(configs)
    ]


def kernel_uniforms(seen: dict):
    """The uniforms vLLM drew (f64) and as the CPU wrapper hands them to the
    C++ kernel (cast to fp32, widened back exactly); None for an all-greedy step."""
    if "uniform" not in seen:
        return None, None
    u64 = seen["uniform"].numpy()
    return u64, u64.astype(F32).astype(np.float64)


def rejection_fields(case: RejectionCase, seen: dict, uniform) -> dict:
    V = case.logits.shape[1]
    B, T = len(case.counts), len(case.ids)
    target = seen["target_probs"].numpy() if "target_probs" in seen else softmax32(case.logits)
    f = {
        "cu_num_draft_tokens": enc(cumsum(case.counts)),
        "draft_token_ids": enc(case.ids),
        "vocab_size": str(V),
        "target_probs": enc_probs(target),
        "greedy": json.dumps(case.greedy.tolist()),
        "bonus_token_ids": enc(case.bonus),
    }
    if case.draft is not None:
        f["draft_probs"] = enc_probs(case.draft)
    # An all-greedy step draws neither noise nor uniforms; exporace gets
    # placeholders its greedy requests never read.
    f["inv_q"] = enc(seen["inv_q"].numpy()) if "inv_q" in seen else enc(np.ones((B, V)))
    f["uniform"] = enc(uniform if uniform is not None else np.zeros(T))
    return f
