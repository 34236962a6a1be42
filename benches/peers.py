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

    python3 benches/peers.py [--out benches/peers.json]

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
    threads = "1" if case.startswith("noise/") else "1,2"
    out = subprocess.run([NATIVE, "--threads", threads, case], check=True, capture_output=True, text=True).stdout
    return {r["threads"]: r["median_ms"] * 1e6 for r in (json.loads(l) for l in out.splitlines() if l.strip())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "benches", "peers.json"))
    args = ap.parse_args()
    if not os.access(NATIVE, os.X_OK):
        sys.exit(f"peers.py: build {NATIVE} first (see the docstring)")
    torch.set_num_threads(1)
    rows = []
    print(f"{'case':<26} {'exporace 1t':>12} {'2t':>8} {'torch 1t':>10} {'numpy':>8} {'vs torch':>9} {'vs numpy':>9}  (ns/element)")
    for case, elements, make_torch, make_numpy in CASES:
        load = load_average()
        ours = native(case)
        t_ns = timed(make_torch()) * 1e9
        n_ns = timed(make_numpy()) * 1e9
        o1 = ours[1] / elements
        o2 = ours.get(2, float("nan")) / elements
        row = {
            "case": case,
            "elements": elements,
            "exporace_ns_per_element": {"1": o1, "2": None if o2 != o2 else o2},
            "torch_ns_per_element": t_ns / elements,
            "numpy_ns_per_element": n_ns / elements,
            "speedup_vs_torch": t_ns / ours[1],
            "speedup_vs_numpy": n_ns / ours[1],
            "load_average": load,
        }
        rows.append(row)
        print(f"{case:<26} {o1:>12.3f} {o2:>8.3f} {t_ns / elements:>10.3f} {n_ns / elements:>8.3f} {row['speedup_vs_torch']:>8.1f}x {row['speedup_vs_numpy']:>8.1f}x")
    report = {
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()},
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "notes": "medians; exporace from bench-native (1 and 2 rayon threads; noise is one thread), torch on 1 thread, "
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
