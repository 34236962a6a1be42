"""vLLM's CPU sampler `torch.ops._C.fused_gumbel_argmax` (TopKTopPSampler.
forward_cpu) beside exporace's `sample` operation with model vllm-cpu-0.32:
generated rows (flat, masked, one dominant token, Gaussian logits, ties,
non-finite values) over vocabularies up to 152064 and many seeds, including
seeds past 2^31 and negative int64 seeds."""

from __future__ import annotations

import json

import numpy as np
import torch

from .exporace import Exporace, enc

VOCABS = [1, 7, 1000, 32000, 128256, 152064]


def rows(rng: np.random.Generator, v: int) -> list[tuple[str, np.ndarray]]:
    """Named logit rows of vocabulary `v`."""
    out = [
        ("flat", np.zeros(v, np.float32)),
        ("gaussian", (rng.standard_normal(v) * 3).astype(np.float32)),
    ]
    dom = rng.standard_normal(v).astype(np.float32)
    dom[rng.integers(v)] = 40.0
    out.append(("one dominant token", dom))
    masked = (rng.standard_normal(v) * 2).astype(np.float32)
    keep = rng.choice(v, size=max(1, v // 50), replace=False)
    mask = np.ones(v, bool)
    mask[keep] = False
    masked[mask] = -np.inf
    out.append(("masked (top 2%)", masked))
    if v > 1:
        tied = np.full(v, -5.0, np.float32)
        tied[rng.choice(v, size=min(v, 4), replace=False)] = 1.0
        out.append(("four tied leaders", tied))
        odd = (rng.standard_normal(v)).astype(np.float32)
        odd[rng.integers(v)] = np.nan
        odd[rng.integers(v)] = np.inf
        out.append(("NaN and inf", odd))
    allmasked = np.full(v, -np.inf, np.float32)
    out.append(("every token masked", allmasked))
    return out


def seeds(rng: np.random.Generator, n: int) -> list[int]:
    """Seeds as forward_cpu draws them (torch.randint(0, 2**31)), and int64
    seeds a generator could hand over, negative and past 2^32."""
    s = rng.integers(0, 2**31, size=n).tolist()
    return s + [0, 2**31 - 1, 2**40 + 3, -1, -(2**63)]


def run(ex: Exporace, rng: np.random.Generator) -> dict:
    cases, ids, equal = [], 0, 0
    for v in VOCABS:
        n_seeds = 12 if v <= 32000 else 4
        for name, row in rows(rng, v):
            seed_list = seeds(rng, n_seeds)
            logits = torch.from_numpy(np.tile(row, (len(seed_list), 1)))
            got = torch.ops._C.fused_gumbel_argmax(
                logits, torch.tensor(seed_list, dtype=torch.int64)
            ).tolist()
            ours = []
            for s in seed_list:
                text = json.dumps(
                    {
                        "exporace": 1,
                        "op": "sample",
                        "seed": str(s & (2**64 - 1)),
                        "model": "vllm-cpu-0.32",
                    }
                )[:-1] + f', "logits": {enc(row)}}}'
                ours.append(ex.run(text)["token"])
            same = sum(int(a == b) for a, b in zip(got, ours))
            ids += len(seed_list)
            equal += same
            case = {"vocab": v, "row": name, "seeds": len(seed_list), "equal": same}
            if same != len(seed_list):
                case["mismatch"] = {"vllm": got, "exporace": ours, "seeds": seed_list}
            cases.append(case)
            print(f"gumbel    V {v:<7} {name:<22} ids {same}/{len(seed_list)}", flush=True)
    return {"cases": len(cases), "ids": ids, "equal": equal, "rows": cases}
