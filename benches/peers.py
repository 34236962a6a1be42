#!/usr/bin/env python3
"""The Python peers of the exporace benchmarks, timed in one run with
exporace's native kernels (`bench-native`), so every figure is a ratio
measured on the same machine at the same time.

Peers, as in the benchmark README's table:
- torch reference ops on one thread (`torch.set_num_threads(1)`): the
  recovered token as `argmax((p with the draft token zeroed) * inv_q)`, and
  Exp(1) noise as `q.exponential_()` then `torch.reciprocal`;
- numpy with preallocated outputs: `np.multiply(..., out=)`, `argmax`, and
  `Generator.standard_exponential(out=)` then `np.reciprocal(out=)`.

The inputs have the distributions of `crates/exporace-bench`'s cases (B
requests x 4 draft positions x V, one noise row per request, uniform
probabilities divided by V); the exporace side runs `bench-native` on its own
cases of those names.

Usage (after `cargo build --release -p exporace-bench --bin bench-native` with
RUSTFLAGS="-C target-cpu=native" and CARGO_TARGET_DIR=target/native):

    python3 benches/peers.py [--out benches/peers.json] [--rounds 3]

Each case runs in rounds (exporace, then torch, then numpy, again and
again), each ratio is formed within its round, and the figures are the
medians over the rounds, with their ranges; `rounds_raw` keeps every
round's times. On a shared machine a slow minute then moves one round's
ratio, not the figure.

Needs torch and numpy (`pip install torch==2.15.0 numpy==2.4.6`).
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np
import torch

DRAFTS = 4
V = 152_064
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NATIVE = os.environ.get("EXPORACE_BENCH_NATIVE") or os.path.join(ROOT, "target", "native", "release", "bench-native")


def timed(fn, budget_s=1.5):
    """Median seconds of at least 5 calls after a warm-up, more while the
    budget lasts (at most 50)."""
    fn()
    samples = []
    start = time.perf_counter()
    while len(samples) < 5 or (len(samples) < 50 and time.perf_counter() - start < budget_s):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    samples.sort()
    n = len(samples)
    return samples[n // 2] if n % 2 else 0.5 * (samples[n // 2 - 1] + samples[n // 2])


def recover_inputs(b, noise_dtype):
    rng = np.random.default_rng(7)
    t = b * DRAFTS
    target = (rng.random((t, V), dtype=np.float32) / V).astype(np.float32)
    inv_q = (1.0 / rng.standard_exponential((b, V))).astype(noise_dtype)
    drafts = (np.arange(t) * 7919) % V
    return target, inv_q, drafts


def torch_recover(b, noise_dtype):
    target, inv_q, drafts = recover_inputs(b, noise_dtype)
    p = torch.from_numpy(target).view(b, DRAFTS, V)
    q = torch.from_numpy(inv_q).view(b, 1, V)
    rows = torch.arange(b * DRAFTS)
    d = torch.from_numpy(drafts)

    def run():
        scores = p.to(q.dtype) * q if q.dtype != p.dtype else p * q
        scores = scores.view(b * DRAFTS, V)
        scores[rows, d] = 0
        return scores.argmax(dim=-1)

    return run


def numpy_recover(b, noise_dtype):
    target, inv_q, drafts = recover_inputs(b, noise_dtype)
    p = target.reshape(b, DRAFTS, V)
    q = inv_q.reshape(b, 1, V)
    out = np.empty((b, DRAFTS, V), dtype=noise_dtype)
    flat = out.reshape(b * DRAFTS, V)
    rows = np.arange(b * DRAFTS)

    def run():
        np.multiply(p, q, out=out)
        flat[rows, drafts] = 0
        return flat.argmax(axis=-1)

    return run


def torch_noise(dtype):
    q = torch.empty(V, dtype=dtype)
    inv = torch.empty(V, dtype=dtype)

    def run():
        q.exponential_()
        torch.reciprocal(q, out=inv)

    return run


def numpy_noise(dtype):
    rng = np.random.default_rng(3)
    q = np.empty(V, dtype=dtype)
    inv = np.empty(V, dtype=dtype)

    def run():
        rng.standard_exponential(out=q, dtype=dtype)
        # An f32 exponential can be 0: 1 / 0 is inf, as in torch.
        with np.errstate(divide="ignore"):
            np.reciprocal(q, out=inv)

    return run


def torch_noise_race(dtype):
    w = torch.from_numpy(recover_inputs(1, np.float32)[0][0].copy())
    q = torch.empty(V, dtype=dtype)

    def run():
        q.exponential_()
        return (w.to(dtype) / q).argmax()

    return run


def numpy_noise_race(dtype):
    rng = np.random.default_rng(5)
    w = recover_inputs(1, np.float32)[0][0].astype(dtype)
    q = np.empty(V, dtype=dtype)
    s = np.empty(V, dtype=dtype)

    def run():
        rng.standard_exponential(out=q, dtype=dtype)
        # An f32 exponential can be 0: w / 0 is inf, as in torch.
        with np.errstate(divide="ignore"):
            np.divide(w, q, out=s)
        return s.argmax()

    return run


# (exporace case, elements, torch peer, numpy peer)
CASES = [
    ("recover/f32/B1/V152064", DRAFTS * V, lambda: torch_recover(1, np.float32), lambda: numpy_recover(1, np.float32)),
    ("recover/f32/B64/V152064", 64 * DRAFTS * V, lambda: torch_recover(64, np.float32), lambda: numpy_recover(64, np.float32)),
    ("recover/f64/B64/V152064", 64 * DRAFTS * V, lambda: torch_recover(64, np.float64), lambda: numpy_recover(64, np.float64)),
    ("noise/f32/V152064", V, lambda: torch_noise(torch.float32), lambda: numpy_noise(np.float32)),
    ("noise/f64/V152064", V, lambda: torch_noise(torch.float64), lambda: numpy_noise(np.float64)),
    ("seeded/f32/V152064", V, lambda: torch_noise_race(torch.float32), lambda: numpy_noise_race(np.float32)),
    ("seeded/f64/V152064", V, lambda: torch_noise_race(torch.float64), lambda: numpy_noise_race(np.float64)),
]


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return [float(x) for x in f.read().split()[:3]]
    except OSError:
        return None


def native(case):
    """exporace's median ns per call of `case` by thread count ("1", "2")."""
    threads = "1" if case.startswith("noise/") else "1,2"
    out = subprocess.run([NATIVE, "--threads", threads, case], check=True, capture_output=True, text=True).stdout
    return {str(r["threads"]): r["median_ms"] * 1e6 for r in (json.loads(l) for l in out.splitlines() if l.strip())}


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "benches", "peers.json"))
    ap.add_argument("--rounds", type=int, default=3, help="rounds per case (default 3)")
    args = ap.parse_args()
    if args.rounds < 1:
        sys.exit("peers.py: --rounds takes a count from 1 up")
    if not os.access(NATIVE, os.X_OK):
        sys.exit(f"peers.py: build {NATIVE} first (see the docstring)")
    torch.set_num_threads(1)
    rows = []
    print(f"{'case':<26} {'exporace 1t':>12} {'2t':>8} {'torch 1t':>10} {'numpy':>8} {'vs torch':>9} {'vs numpy':>9}  (ns/element, medians of {args.rounds} rounds)")
    for case, elements, make_torch, make_numpy in CASES:
        load = load_average()
        run_torch, run_numpy = make_torch(), make_numpy()
        raw = []
        for _ in range(args.rounds):
            ours = native(case)
            raw.append({
                "exporace_ns": {str(k): v for k, v in ours.items()},
                "torch_ns": timed(run_torch) * 1e9,
                "numpy_ns": timed(run_numpy) * 1e9,
            })
        vs_torch = [r["torch_ns"] / r["exporace_ns"]["1"] for r in raw]
        vs_numpy = [r["numpy_ns"] / r["exporace_ns"]["1"] for r in raw]
        o1 = median([r["exporace_ns"]["1"] for r in raw]) / elements
        o2 = median([r["exporace_ns"]["2"] for r in raw]) / elements if "2" in raw[0]["exporace_ns"] else None
        row = {
            "case": case,
            "elements": elements,
            "exporace_ns_per_element": {"1": o1, "2": o2},
            "torch_ns_per_element": median([r["torch_ns"] for r in raw]) / elements,
            "numpy_ns_per_element": median([r["numpy_ns"] for r in raw]) / elements,
            "speedup_vs_torch": median(vs_torch),
            "speedup_vs_torch_range": [min(vs_torch), max(vs_torch)],
            "speedup_vs_numpy": median(vs_numpy),
            "speedup_vs_numpy_range": [min(vs_numpy), max(vs_numpy)],
            "load_average": load,
            "rounds_raw": raw,
        }
        rows.append(row)
        two = f"{o2:>8.3f}" if o2 is not None else f"{'-':>8}"
        print(f"{case:<26} {o1:>12.3f} {two} {row['torch_ns_per_element']:>10.3f} {row['numpy_ns_per_element']:>8.3f} "
              f"{row['speedup_vs_torch']:>8.1f}x {row['speedup_vs_numpy']:>8.1f}x  "
              f"(vs torch {min(vs_torch):.1f}x to {max(vs_torch):.1f}x)")
    report = {
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()},
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "rounds": args.rounds,
        "notes": "medians over the rounds (each ratio formed within its round, with its range); exporace from "
        "bench-native (1 and 2 rayon threads; noise is one thread), torch on 1 thread, "
        "numpy single-threaded with preallocated outputs; speedup = peer time / exporace 1-thread time. "
        "recover: argmax((p with the draft token zeroed) * inv_q), inv_q shared by a request's 4 positions; "
        "noise: Exp(1) then 1/q; seeded: exporace's fused seeded race against the peers' noise then w / q then argmax.",
        "cases": rows,
    }
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
