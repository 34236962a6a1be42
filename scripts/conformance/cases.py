"""The recovered-token kernel's cases, generated from one seed, and the
helpers the rejection cases share."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

F32 = np.float32


def softmax32(logits: np.ndarray) -> np.ndarray:
    # As rejection_sample computes target_probs.
    return torch.from_numpy(logits).softmax(dim=-1, dtype=torch.float32).numpy()


def cumsum(counts) -> np.ndarray:
    return np.cumsum(np.asarray(counts, dtype=np.int64))


def residual(target, draft, ids) -> np.ndarray:
    """The kernel's residual in f32: max(p - d, 0), or p with the draft zeroed."""
    if draft is not None:
        return np.maximum(target - draft, F32(0))
    r = target.copy()
    for t, x in enumerate(ids):
        if x >= 0:
            r[t, x] = 0
    return r


def exp_noise(gen: torch.Generator, shape, dtype) -> np.ndarray:
    # As sample_recovered_tokens draws it: q.exponential_(), inv_q = 1 / q.
    q = torch.empty(shape, dtype=dtype)
    q.exponential_(generator=gen)
    return q.reciprocal().numpy()


def draws(rng, target, draft, V):
    """Draft ids: sampled from the draft (or target) row, the target argmax,
    and the vocabulary's ends."""
    T = target.shape[0]
    src = torch.from_numpy(draft if draft is not None else target).double()
    sampled = torch.multinomial(
        src, 1, generator=torch.Generator().manual_seed(int(rng.integers(1 << 62)))
    ).numpy()[:, 0]
    ids = np.empty(T, dtype=np.int64)
    for t in range(T):
        pick = rng.choice(4, p=[0.4, 0.4, 0.1, 0.1])
        ids[t] = [sampled[t], int(np.argmax(target[t])), 0, V - 1][pick]
    return ids


@dataclass
class KernelCase:
    name: str
    kind: str
    counts: list
    target: np.ndarray
    draft: np.ndarray | None
    ids: np.ndarray
    inv64: np.ndarray
    inv32: np.ndarray


def random_probs(rng, T, V, scale=None):
    scale = float(rng.choice([0.5, 2.0, 6.0])) if scale is None else scale
    return softmax32((rng.standard_normal((T, V)) * scale).astype(F32))


def kernel_random(rng, seed, name, counts, V, with_draft):
    T, B = sum(counts), len(counts)
    target = random_probs(rng, T, V)
    draft = None
    if with_draft:
        noisy = np.log(np.maximum(target, 1e-30)) + rng.standard_normal((T, V)) * 0.7
        draft = softmax32(noisy.astype(F32))
    ids = draws(rng, target, draft, V)
    gen = torch.Generator().manual_seed(seed)
    inv64 = exp_noise(gen, (B, V), torch.float64)
    inv32 = exp_noise(gen, (B, V), torch.float32)
    return KernelCase(name, "random", counts, target, draft, ids, inv64, inv32)


def cast32(a: np.ndarray) -> np.ndarray:
    # Round to f32 as torch's .to(torch.float32) does; beyond its range, inf.
    with np.errstate(over="ignore"):
        return a.astype(F32)


def crafted(name, kind, counts, target, draft, ids, inv64):
    inv64 = np.asarray(inv64, dtype=np.float64)
    return KernelCase(
        name,
        kind,
        counts,
        np.asarray(target, F32),
        None if draft is None else np.asarray(draft, F32),
        np.asarray(ids, np.int64),
        inv64,
        cast32(inv64),
    )


def kernel_near_ties(rng, seed, name, B, V, with_draft):
    """One position per request; the noise of the runner-up is set so that its
    score sits within a few f64 ulps of the winner's."""
    counts = [1] * B
    target = random_probs(rng, B, V, scale=1.0)
    draft = (
        softmax32(np.log(target) + (rng.standard_normal((B, V)) * 0.5).astype(F32))
        if with_draft
        else None
    )
    ids = draws(rng, target, draft, V)
    inv64 = exp_noise(torch.Generator().manual_seed(seed), (B, V), torch.float64)
    res = residual(target, draft, ids).astype(np.float64)
    for r in range(B):
        s = res[r] * inv64[r]
        order = np.argsort(-s, kind="stable")
        a, b = int(order[0]), int(order[1])
        if res[r, b] == 0:
            continue
        k = int(rng.integers(-3, 4))
        inv64[r, b] = s[a] / res[r, b] * (1 + k * 2.0**-52)
    return crafted(name, "near_tie", counts, target, draft, ids, inv64)


def kernel_cases(rng, seed):
    cases = []
    shapes = [
        ([1], 2),
        ([3], 3),
        ([2, 1], 17),
        ([1, 0, 3, 2], 1000),
        ([4, 4, 4], 32000),
        ([5, 1], 128256),
        ([3, 2], 152064),
    ]
    for i, (counts, V) in enumerate(shapes):
        for with_draft in (False, True):
            tag = "draft_probs" if with_draft else "ngram"
            cases.append(
                kernel_random(
                    rng, seed + i, f"random/V{V}/B{len(counts)}/{tag}", counts, V, with_draft
                )
            )
    # The flip of vLLM #54843 at its smallest: two equal residuals, noise 1 and
    # 1 + 1e-12. In fp64 token 1 wins; cast to fp32 both scores are 0.25 and the
    # tie goes to token 0.
    cases.append(
        crafted(
            "near_tie/flip",
            "near_tie",
            [1],
            [[0.25, 0.25, 0.5, 0.0]],
            None,
            [2],
            [[1.0, 1.0 + 1e-12, 1.0, 1.0]],
        )
    )
    # Exact ties: the smallest id wins at both precisions.
    cases.append(
        crafted(
            "near_tie/exact",
            "near_tie",
            [2],
            [[0.0, 0.3, 0.3, 0.4], [0.2, 0.2, 0.2, 0.4]],
            None,
            [3, 3],
            [[1.0, 2.0, 2.0, 0.5]],
        )
    )
    for i, (B, V, with_draft) in enumerate(
        [(16, 8, False), (16, 8, True), (12, 1000, False), (8, 32000, True)]
    ):
        tag = "draft_probs" if with_draft else "ngram"
        cases.append(
            kernel_near_ties(rng, seed + 100 + i, f"near_tie/V{V}/B{B}/{tag}", B, V, with_draft)
        )
    cases += kernel_sweep(rng, seed + 1000, 24)
    cases += tail_cases(rng, seed)
    cases += zero_q_cases()
    cases += zero_residual_cases(rng)
    cases += edge_id_cases(rng, seed)
    return cases


def sweep_shape(rng, max_values=1_200_000):
    """Random counts (some requests without drafts) and a log-uniform
    vocabulary up to 152064, with the values of a scenario (target and draft
    rows, noise rows) bounded."""
    V = int(round(math.exp(rng.uniform(math.log(2), math.log(152064)))))
    B = int(rng.integers(1, 9))
    counts = [int(c) for c in rng.integers(0, 7, B)]
    if sum(counts) == 0:
        counts[0] = 1
    while (2 * sum(counts) + len(counts)) * V > max_values:
        if len(counts) > 1 and sum(counts[:-1]) > 0:
            counts = counts[:-1]
        else:
            counts = [max(1, counts[0] // 2)]
            if counts == [1]:
                break
    return counts, V


def kernel_sweep(rng, seed, n):
    out = []
    for i in range(n):
        counts, V = sweep_shape(rng)
        with_draft = bool(rng.integers(2))
        tag = "draft_probs" if with_draft else "ngram"
        out.append(
            kernel_random(
                rng, seed + i, f"sweep/{i}/V{V}/B{len(counts)}/{tag}", counts, V, with_draft
            )
        )
    return out


def tail_cases(rng, seed):
    """fp64-only tail draws: noise no fp32 draw can give (beyond fp32's range
    after 1 / E, or finer than its 24 bits) on tokens of tiny probability."""
    out = []
    special = [
        1e39,
        3.5e38,
        2.0**128,
        1e300,
        2.0**24 + 1,
        1e20 * (1 + 2.0**-40),
        2.0**100 * (1 + 2.0**-30),
    ]
    # (Fewer requests at V = 152064 keep the scenario under 32 MiB.)
    shapes = [(8, [1, 2, 1, 1, 2, 1]), (1000, [1, 2, 1, 1, 2, 1]), (152064, [1, 2, 1])]
    for i, (V, counts) in enumerate(shapes):
        B, T = len(counts), sum(counts)
        target = np.zeros((T, V), dtype=np.float64)
        for t in range(T):
            heads = rng.choice(V, size=2, replace=False)
            target[t] = 10.0 ** rng.uniform(-44, -15, V)
            target[t, heads] = [0.6, 0.39]
        target = target.astype(F32)  # the smallest become f32 subnormals or 0
        ids = np.array([int(np.argmax(target[t])) for t in range(T)])
        inv64 = exp_noise(torch.Generator().manual_seed(seed + 200 + i), (B, V), torch.float64)
        for r in range(B):
            tails = rng.choice(V, size=3, replace=False)
            inv64[r, tails] = rng.choice(special, size=3, replace=False)
        out.append(crafted(f"fp64_tail/V{V}", "fp64_tail", counts, target, None, ids, inv64))
    # A head against two tails whose noise overflows fp32: in fp64 the larger
    # tail wins, cast to fp32 both are inf and the first wins.
    out.append(
        crafted(
            "fp64_tail/overflow_pair",
            "fp64_tail",
            [1],
            [[0.9, 1e-30, 1e-30, 0.1 - 2e-30]],
            None,
            [3],
            [[1.0, 1e40, 2e40, 1.0]],
        )
    )
    # A subnormal fp32 tail: times an overflowing noise it is inf in fp32, and
    # 1.4e-6 in fp64, below the head.
    out.append(
        crafted(
            "fp64_tail/subnormal",
            "fp64_tail",
            [1],
            [[0.5, 1e-45, 0.5]],
            None,
            [2],
            [[1.0, 1e39, 1.0]],
        )
    )
    return out


def zero_q_cases():
    """q = 0, so inv_q = inf: times a zero residual NaN (which never wins on the
    CPU), times a positive one inf."""
    inf = math.inf
    return [
        # Request 0: inf on the zeroed draft token (NaN) and on a positive token.
        # Request 1: inf on tokens 0 and 3; at its first position both have
        # residual 0 (NaN) and a finite score wins, at its second token 0 has
        # 0.3 (inf wins).
        # Request 2: noise inf everywhere: NaN on zeros, inf on the positives,
        # the first positive wins.
        crafted(
            "q_zero/mixed",
            "q_zero",
            [1, 2, 3],
            [
                [0.1, 0.5, 0.0, 0.4],
                [0.0, 0.2, 0.8, 0.0],
                [0.3, 0.0, 0.3, 0.4],
                [0.0, 0.0, 0.6, 0.4],
                [0.25, 0.25, 0.25, 0.25],
                [0.0, 0.0, 0.0, 1.0],
            ],
            None,
            [1, 2, 3, 3, 0, 3],
            [[1.0, inf, 1.0, inf], [inf, 1.0, 1.0, inf], [inf, inf, inf, inf]],
        ),
        # All residuals zero and inf noise: every score NaN, token 0.
        crafted("q_zero/all_nan", "q_zero", [1], [[0.0, 0.0, 1.0]], None, [2], [[inf, inf, inf]]),
        # With draft probs: the residual max(p - d, 0) is 0 where the noise is inf.
        crafted(
            "q_zero/draft_probs",
            "q_zero",
            [2],
            [[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]],
            [[0.6, 0.2, 0.2], [0.1, 0.1, 0.8]],
            [0, 2],
            [[inf, 2.0, inf]],
        ),
    ]


def zero_residual_cases(rng):
    out = []
    for V in (3, 1000):
        target = random_probs(rng, 3, V)
        ids = [0, V - 1, V // 2]
        # Draft equal to target: every residual is 0, token 0.
        out.append(
            crafted(
                f"zero_residual/equal/V{V}",
                "zero_residual",
                [3],
                target,
                target,
                ids,
                np.ones((1, V)) * 3.0,
            )
        )
        # Target one-hot at the draft token, no draft probs: zeroed, token 0.
        onehot = np.zeros((3, V), dtype=F32)
        onehot[np.arange(3), ids] = 1
        inv = exp_noise(torch.Generator().manual_seed(V), (1, V), torch.float64)
        out.append(
            crafted(f"zero_residual/onehot/V{V}", "zero_residual", [3], onehot, None, ids, inv)
        )
        # Draft above target everywhere it matters.
        draft = np.minimum(target * 2, 1).astype(F32)
        out.append(
            crafted(
                f"zero_residual/draft_above/V{V}", "zero_residual", [3], target, draft, ids, inv
            )
        )
    return out


def edge_id_cases(rng, seed):
    """Draft ids 0, V-1 and the -1 placeholder, with the target's mass at the
    vocabulary's ends so that zeroing them decides the race."""
    out = []
    for i, V in enumerate([2, 7, 152064]):
        ids = [0, V - 1, -1, 0, V - 1]
        T = len(ids)
        target = random_probs(rng, T, V, scale=0.1).astype(np.float64)
        target[:, 0] += 0.5
        target[:, V - 1] += 0.4
        target = (target / target.sum(1, keepdims=True)).astype(F32)
        inv = exp_noise(torch.Generator().manual_seed(seed + 300 + i), (2, V), torch.float64)
        out.append(crafted(f"edge_ids/V{V}/ngram", "edge_ids", [2, 3], target, None, ids, inv))
        draft = softmax32(np.log(target) + (rng.standard_normal((T, V)) * 0.3).astype(F32))
        out.append(
            crafted(f"edge_ids/V{V}/draft_probs", "edge_ids", [2, 3], target, draft, ids, inv)
        )
    return out
