"""exporace.sample against the same recipe written in numpy and in torch, in
one run: SGLang 0.5's seeded sampling (Murmur3 hash of seed, position and
token; x = h / (2^32 - 1); G = -log(-min(log x, -2^-32)); argmax of
log-probabilities + G) on a batch of 64 x 152064 fp64 log-probabilities.

    python benches/python/sample_bench.py [--out results.json] [--repeats 5]

`benches/python/tables.mjs` writes the README's table from the results.

Each figure is the median of the repeats, in milliseconds per batch, on 1,
2, 4, ... threads up to the CPUs there are (torch.set_num_threads; numpy is
one thread). The
numpy and torch versions use their own log, so their ids are compared with
exporace's only for the share of rows that agree (reported, not required).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import numpy as np

import exporace

B, V = 64, 152064
M32 = 0xFFFFFFFF


def rotl(x, r):
    return ((x << np.uint32(r)) | (x >> np.uint32(32 - r))) & np.uint32(M32)


def mix_np(h, k):
    k = (k * np.uint32(0xCC9E2D51)) & np.uint32(M32)
    k = rotl(k, 15)
    k = (k * np.uint32(0x1B873593)) & np.uint32(M32)
    h = rotl(h ^ k, 13)
    return (h * np.uint32(5) + np.uint32(0xE6546B64)) & np.uint32(M32)


def fmix_np(h):
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0xC2B2AE35)
    return h ^ (h >> np.uint32(16))


def sglang_numpy(logprobs, seeds, pos):
    """The recipe in numpy, row by row (uint32 arithmetic wraps)."""
    tokens = np.arange(logprobs.shape[1], dtype=np.uint32)
    out = np.empty(logprobs.shape[0], dtype=np.int64)
    with np.errstate(over="ignore"):
        for r in range(logprobs.shape[0]):
            s = int(seeds[r]) % (1 << 64)
            h = mix_np(np.uint32(0), np.uint32(s & M32))
            h = mix_np(h, np.uint32(s >> 32))
            h = mix_np(h, np.uint32(int(pos[r]) & M32))
            h = fmix_np(mix_np(np.full_like(tokens, h), tokens) ^ np.uint32(16))
            x = h.astype(np.float64) * (1.0 / M32)
            with np.errstate(divide="ignore"):
                g = -np.log(-np.minimum(np.log(x), -(2.0**-32)))
            out[r] = int(np.argmax(logprobs[r] + g))
    return out


def sglang_torch(torch, logprobs, seeds, pos):
    """The recipe in torch on the CPU, batched (int64 arithmetic masked to
    32 bits, as SGLang's own torch fallback does)."""
    m = 0xFFFFFFFF

    def rotl_t(x, r):
        return ((x << r) | (x >> (32 - r))) & m

    def mix_t(h, k):
        k = (k * 0xCC9E2D51) & m
        k = rotl_t(k, 15)
        k = (k * 0x1B873593) & m
        h = rotl_t(h ^ k, 13)
        return (h * 5 + 0xE6546B64) & m

    def fmix_t(h):
        h = h ^ (h >> 16)
        h = (h * 0x85EBCA6B) & m
        h = h ^ (h >> 13)
        h = (h * 0xC2B2AE35) & m
        return h ^ (h >> 16)

    s = torch.tensor([int(v) % (1 << 64) for v in seeds], dtype=torch.uint64).to(torch.int64)
    p = torch.tensor(pos, dtype=torch.int64)
    h = mix_t(torch.zeros_like(s), s & m)
    h = mix_t(h, (s >> 32) & m)
    h = mix_t(h, p & m)
    tok = torch.arange(logprobs.shape[1], dtype=torch.int64)
    h = fmix_t(mix_t(h[:, None], tok[None, :]) ^ 16)
    x = h.to(torch.float64) * (1.0 / m)
    g = -torch.log(-torch.clamp(torch.log(x), max=-(2.0**-32)))
    return torch.argmax(logprobs + g, dim=1).numpy()


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, else the platform's."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def median_ms(f, repeats):
    f()  # warm
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), min(times), max(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(B, V))
    logprobs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    seeds = rng.integers(0, 1 << 62, size=B)
    pos = np.arange(B, dtype=np.int64) * 7
    cores = os.cpu_count() or 1
    rows = []

    def row(name, threads, f):
        med, lo, hi = median_ms(f, args.repeats)
        rows.append({"impl": name, "threads": threads, "ms": med, "min_ms": lo, "max_ms": hi})
        print(f"{name:10s} threads {threads:3d}: {med:9.1f} ms (min {lo:.1f}, max {hi:.1f})", flush=True)

    ours = exporace.sample("sglang-0.5", logprobs, seeds, pos).token
    counts = [t for t in (1, 2, 4, 8, 16, 32, 64) if t <= cores]
    for t in counts:
        row("exporace", t, lambda t=t: exporace.sample("sglang-0.5", logprobs, seeds, pos, threads=t))
    row("numpy", 1, lambda: sglang_numpy(logprobs, seeds, pos))
    agree = {"numpy": float(np.mean(sglang_numpy(logprobs, seeds, pos) == ours))}
    try:
        import torch
    except ImportError:
        torch = None
        print("torch is not installed: its rows are left out")
    if torch is not None:
        lp = torch.from_numpy(logprobs)
        for t in counts:
            torch.set_num_threads(t)
            row("torch", t, lambda: sglang_torch(torch, lp, seeds, pos))
        agree["torch"] = float(np.mean(sglang_torch(torch, lp, seeds, pos) == ours))
    result = {
        "workload": f"sample sglang-0.5, {B} x {V} fp64 log-probabilities",
        "machine": cpu_model(),
        "cpus": cores,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": None if torch is None else torch.__version__,
        "repeats": args.repeats,
        "tokens": B * V,
        "rows": rows,
        "ids_equal_share": agree,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
