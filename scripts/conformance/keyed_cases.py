"""What the JAX and MLX conformance runs share: the generated logit rows and
request shapes, exporace's keyed draws and categorical picks through the CLI,
the comparison of each request and each categorical case, and the command
line that writes the report. Each engine module gives its seeds, its values
for a request, its exporace values, its categorical call and its versions."""

from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from .exporace import Exporace, enc
from .report import write as write_report

VOCABS = [1, 7, 1000, 32000, 151936]
# Request shapes for the noise checks; at most WINDOW elements of each end
# of a request are compared.
SHAPES = [(1,), (7,), (3, 5), (2, 8192), (1000,), (4, 1000), (3, 32001), (1, 151936)]
WINDOW = 8192


def logit_rows(rng: np.random.Generator, rows: int, v: int) -> list[tuple[str, np.ndarray]]:
    """Named float32 logit arrays of shape (rows, v)."""
    shape = (rows, v)
    out = [
        ("flat", np.zeros(shape, np.float32)),
        ("gaussian", (rng.standard_normal(shape) * 3).astype(np.float32)),
    ]
    dom = rng.standard_normal(shape).astype(np.float32)
    dom[np.arange(rows), rng.integers(v, size=rows)] = 40.0
    out.append(("one dominant token", dom))
    masked = (rng.standard_normal(shape) * 2).astype(np.float32)
    keep = rng.random(shape) < 0.02
    keep[np.arange(rows), rng.integers(v, size=rows)] = True
    masked[~keep] = -np.inf
    out.append(("masked (top 2%)", masked))
    if v > 1:
        tied = np.full(shape, -5.0, np.float32)
        for r in range(rows):
            tied[r, rng.choice(v, size=min(v, 4), replace=False)] = 1.0
        out.append(("four tied leaders", tied))
        odd = rng.standard_normal(shape).astype(np.float32)
        for r in range(rows):
            odd[r, rng.integers(v)] = np.nan
            odd[r, rng.integers(v)] = np.inf
        out.append(("NaN and inf", odd))
    out.append(("every token masked", np.full(shape, -np.inf, np.float32)))
    return out


def draws(ex: Exporace, model: str, seed: int, size: int, start: int, count: int) -> list[dict]:
    """exporace's keyed draws: flat elements start .. start + count of a
    request of `size` elements under key(seed)."""
    text = json.dumps(
        {
            "exporace": 1,
            "op": "noise",
            "seed": str(seed),
            "model": model,
            "address": "keyed",
            "size": size,
            "start": start,
            "count": count,
        }
    )
    return ex.run(text)["draws"]


def windows(n: int) -> list[tuple[int, int]]:
    """(start, count) of the elements compared in a request of n: all of a
    small one, else the first and the last WINDOW."""
    if n <= 2 * WINDOW:
        return [(0, n)]
    return [(0, WINDOW), (n - WINDOW, WINDOW)]


def f32_bits(values) -> np.ndarray:
    """Float values (exactly float32, widened) as their float32 bits."""
    return np.asarray(values, dtype=np.float64).astype(np.float32).view(np.uint32)


def draw_bits(ds: list[dict]) -> np.ndarray:
    return np.array([int(d["bits"], 16) for d in ds], dtype=np.uint64)


def draw_raws(ds: list[dict]) -> np.ndarray:
    return np.array([int(d["raw"]) for d in ds], dtype=np.uint64)


def draw_uniforms(ds: list[dict]) -> np.ndarray:
    return f32_bits([d["uniform"] for d in ds]).astype(np.uint64)


def sample(ex: Exporace, model: str, seed: int, row: np.ndarray, rows: int, r: int) -> int:
    """exporace's `sample` for row r of a call with `rows` rows."""
    head = json.dumps(
        {"exporace": 1, "op": "sample", "seed": str(seed), "model": model, "rows": rows, "row": r}
    )
    return ex.run(head[:-1] + f', "logits": {enc(row)}}}')["token"]


def compare(name: str, got: np.ndarray, want: np.ndarray, mismatches: dict) -> tuple[int, int]:
    """(values, equal); the first differing places go to `mismatches`."""
    got, want = np.asarray(got, np.uint64), np.asarray(want, np.uint64)
    bad = np.flatnonzero(got != want)
    if bad.size:
        mismatches[name] = [
            {"at": int(i), "exporace": int(got[i]), "engine": int(want[i])} for i in bad[:5]
        ]
    return int(got.size), int(got.size - bad.size)


def noise_case(
    ex: Exporace,
    seed: int,
    shape: tuple[int, ...],
    engine: Callable[[int, tuple[int, ...]], dict],
    ours: Callable[[Exporace, int, int, int, int], dict],
) -> dict:
    """One request compared: `engine(seed, shape)` gives each quantity's
    values over the whole request (flat), `ours(ex, seed, n, start, count)`
    exporace's over a window of it."""
    n = size_of(shape)
    want = engine(seed, shape)
    case = {"seed": seed, "shape": list(shape), "elements": 0}
    mismatches: dict = {}
    counts: dict = {}
    for start, count in windows(n):
        got = ours(ex, seed, n, start, count)
        for q, values in got.items():
            if want.get(q) is None:
                continue
            v, e = compare(q, values, want[q][start : start + count], mismatches)
            c = counts.setdefault(q, [0, 0])
            c[0] += v
            c[1] += e
        case["elements"] += count
    case.update(counts)
    if mismatches:
        case["mismatch"] = mismatches
    return case


def categorical_cases(
    ex: Exporace,
    rng: np.random.Generator,
    seeds: Callable[[np.random.Generator, int], list[int]],
    modes: list[tuple[str | None, str]],
    engine: Callable[[np.ndarray, int, str | None], list[int]],
    ours_seed: Callable[[int], int],
) -> list[dict]:
    """Every vocabulary, row count, logit row and mode: the engine's ids
    (`engine(logits, seed, mode)`) against exporace's `sample` of each row
    with the model of the mode."""
    out = []
    for v in VOCABS:
        for rows in [1, 3] if v <= 32000 else [1]:
            n_seeds = 6 if v <= 32000 else 3
            for name, logits in logit_rows(rng, rows, v):
                for mode, model in modes:
                    equal, ids, bad = 0, 0, []
                    for seed in seeds(rng, n_seeds):
                        got = engine(logits, seed, mode)
                        mine = [
                            sample(ex, model, ours_seed(seed), logits[r], rows, r)
                            for r in range(rows)
                        ]
                        ids += rows
                        same = sum(int(a == b) for a, b in zip(got, mine))
                        equal += same
                        if same != rows:
                            bad.append({"seed": seed, "engine": got, "exporace": mine})
                    case = {"vocab": v, "rows": rows, "logits": name, "ids": ids, "equal": equal}
                    if mode is not None:
                        case["mode"] = mode
                    if bad:
                        case["mismatch"] = bad[:3]
                    out.append(case)
                    print(
                        f"categorical V {v:<7} rows {rows} {name:<20} {mode or '':<5} ids {equal}/{ids}",
                        flush=True,
                    )
    return out


def tally(cases: list[dict], keys: list[str]) -> dict:
    """Sums of the per-case counts `keys` ((values, equal) pairs)."""
    out = {}
    for k in keys:
        values = sum(c[k][0] for c in cases if k in c)
        equal = sum(c[k][1] for c in cases if k in c)
        out[k] = {"values": values, "equal": equal}
    out["values"] = sum(out[k]["values"] for k in keys)
    out["equal"] = sum(out[k]["equal"] for k in keys)
    return out


def machine() -> dict:
    """The CPU the engine ran on: its model and the features its code paths
    choose by (FMA, AVX2, AVX-512F)."""
    info = {"arch": platform.machine()}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return info
    for line in text.splitlines():
        if line.startswith("model name"):
            info["cpu"] = line.split(":", 1)[1].strip()
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            info["features"] = [f for f in ("fma", "avx2", "avx512f") if f in flags]
            break
    return info


def git_head() -> str | None:
    r = subprocess.run(
        ["git", "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent,
    )
    return r.stdout.strip() if r.returncode == 0 else None


def size_of(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


def main(doc: str, engine) -> None:
    """The command line of an engine module, which gives QUANTITIES,
    seeds(rng, n), values(seed, shape), ours(ex, seed, n, start, count),
    categorical(ex, rng), versions() and setup() (run first; what it returns
    goes into the report)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--exporace", required=True, help="the exporace binary")
    ap.add_argument("--out", required=True, help="the JSON report")
    ap.add_argument("--seed", type=int, default=20261206)
    args = ap.parse_args()
    t0 = time.time()
    setup = engine.setup()
    ex = Exporace(args.exporace)
    rng = np.random.default_rng(args.seed)
    noise = []
    for shape in SHAPES:
        for seed in engine.seeds(rng, 4):
            noise.append(noise_case(ex, seed, shape, engine.values, engine.ours))
            c = noise[-1]
            line = "  ".join(f"{q} {c[q][1]}/{c[q][0]}" for q in engine.QUANTITIES if q in c)
            print(f"noise {str(shape):<12} seed {seed:<22} {line}", flush=True)
    cats = engine.categorical(ex, rng)
    report = {
        "versions": {
            **engine.versions(),
            "numpy": np.__version__,
            "python": platform.python_version(),
            "exporace": ex.version,
            "exporace_commit": git_head(),
        },
        "machine": machine(),
        **setup,
        "seed": args.seed,
        "noise": {"cases": len(noise), **tally(noise, engine.QUANTITIES)},
        "categorical": {
            "cases": len(cats),
            "ids": sum(c["ids"] for c in cats),
            "equal": sum(c["equal"] for c in cats),
        },
        "noise_cases": noise,
        "categorical_cases": cats,
    }
    write_report(args.out, report, ex.calls, t0)
    n, k = report["noise"], report["categorical"]
    print(
        f"\nnoise values equal {n['equal']}/{n['values']} in {n['cases']} requests; "
        f"categorical ids equal {k['equal']}/{k['ids']} in {k['cases']} cases; {report['seconds']} s"
    )
    if n["equal"] != n["values"] or k["equal"] != k["ids"]:
        sys.exit(1)
