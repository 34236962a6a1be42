"""The command line: runs every case and departure, prints one line per
case, and writes the JSON report."""

from __future__ import annotations

import argparse
import importlib.metadata
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

from . import __doc__ as DOC
from .cases import kernel_cases
from .exporace import Exporace
from .report import write as write_report
from .rejection_cases import rejection_cases
from . import gumbel_cpu
from .runner import Fixtures, run_kernel, run_rejection
from .vllm_cpu import Vllm, run_departures


def git_head() -> str | None:
    r = subprocess.run(
        ["git", "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent,
    )
    return r.stdout.strip() if r.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser(description=DOC.split("\n")[0])
    ap.add_argument("--exporace", required=True, help="the exporace binary")
    ap.add_argument("--out", required=True, help="the JSON report")
    ap.add_argument(
        "--fixture-dir", help="write failing or interesting small cases here as exporace fixtures"
    )
    ap.add_argument("--seed", type=int, default=20260145)
    args = ap.parse_args()
    t0 = time.time()
    vllm = Vllm()
    ex = Exporace(args.exporace)
    versions = {
        "vllm_cpu": importlib.metadata.version("vllm-cpu"),
        "torch": torch.__version__,
    }
    fixtures = Fixtures(Path(args.fixture_dir) if args.fixture_dir else None, ex, versions)
    rng = np.random.default_rng(args.seed)

    kernel = []
    for case in kernel_cases(rng, args.seed):
        kernel.append(run_kernel(vllm, ex, fixtures, case))
        k = kernel[-1]
        print(
            f"kernel    {k['name']:<34} ids {k['equal']}/{k['ids']}  fp64 vs shipped {k['fp64_vs_shipped']}",
            flush=True,
        )
    rejection = []
    for case in rejection_cases(rng, args.seed):
        rejection.append(run_rejection(vllm, ex, fixtures, case))
        r = rejection[-1]
        print(
            f"rejection {r['name']:<34} rows {r['equal_rows']}/{r['rows']}  ids {r['equal_ids']}/{r['ids']}  "
            f"fp64 rows {r.get('fp64_vs_shipped_rows', '-')}  f64 uniforms rows {r.get('f64_uniforms_vs_shipped_rows', '-')}",
            flush=True,
        )
    gumbel = gumbel_cpu.run(ex, rng)
    departures = run_departures(vllm, ex)
    for d in departures:
        print(f"departure {d['name']:<34} vLLM {d['vllm']}  exporace {d['exporace']}", flush=True)

    def total(items, key):
        return sum(i.get(key, 0) for i in items)

    kinds = sorted({k["kind"] for k in kernel})
    report = {
        "versions": {
            **versions,
            "numpy": np.__version__,
            "python": platform.python_version(),
            "exporace": ex.version,
            "exporace_commit": git_head(),
        },
        "machine": {"arch": platform.machine(), "library": f"vllm/{vllm.library}"},
        "seed": args.seed,
        "loaded": {
            "library": f"torch.ops.load_library(vllm/{vllm.library}), chosen as CpuPlatform.import_kernels does",
            "wrappers": "vllm/utils/cpu_triton_utils.py, loaded as a file",
            "rejection_sampler": {
                "import": vllm.import_probe or "imports",
                "defined_from_file": vllm.sampler_names,
                "called": [
                    "rejection_sample",
                    "generate_uniform_probs",
                    "sample_recovered_tokens",
                    "_rejection_greedy_sample",
                    "_rejection_random_sample",
                    "_sample_recovered_tokens",
                ],
                "not_run": [
                    "RejectionSampler (the nn.Module: logits processors, penalties, "
                    "top-k/top-p, logprobs)"
                ],
                "kernels": "each Triton kernel replaced by its cpu_triton_utils wrapper as "
                "vllm/platforms/cpu.py registers it, launched through vLLM's KernelOverride "
                "and _launch_binding_plan; the dispatcher's warmup layer is not run",
            },
        },
        "kernel": {
            "cases": len(kernel),
            "ids": total(kernel, "ids"),
            "equal": total(kernel, "equal"),
            "by_kind": {
                kind: {
                    "cases": sum(1 for k in kernel if k["kind"] == kind),
                    "ids": total([k for k in kernel if k["kind"] == kind], "ids"),
                    "equal": total([k for k in kernel if k["kind"] == kind], "equal"),
                    "fp64_vs_shipped": total(
                        [k for k in kernel if k["kind"] == kind], "fp64_vs_shipped"
                    ),
                }
                for kind in kinds
            },
        },
        "rejection": {
            "cases": len(rejection),
            "rows": total(rejection, "rows"),
            "equal_rows": total(rejection, "equal_rows"),
            "ids": total(rejection, "ids"),
            "equal_ids": total(rejection, "equal_ids"),
            "recovered_positions": total(rejection, "recovered_positions"),
            "recovered_equal": total(rejection, "recovered_equal"),
        },
        "fp64_vs_shipped": {
            "kernel_positions": total(kernel, "positions"),
            "kernel_positions_differing": total(kernel, "fp64_vs_shipped"),
            "kernel_cases_differing": sum(1 for k in kernel if k["fp64_vs_shipped"]),
            "rejection_rows": total([r for r in rejection if r["use_fp64_gumbel"]], "rows"),
            "rejection_rows_differing": total(rejection, "fp64_vs_shipped_rows"),
        },
        "f64_uniforms_vs_shipped": {
            "rows": total([r for r in rejection if "f64_uniforms_vs_shipped_rows" in r], "rows"),
            "rows_differing": total(rejection, "f64_uniforms_vs_shipped_rows"),
        },
        "fused_gumbel_argmax": {k: gumbel[k] for k in ("cases", "ids", "equal")},
        "departures": departures,
        "kernel_cases": kernel,
        "rejection_cases": rejection,
        "gumbel_cases": gumbel["rows"],
        "fixtures_written": fixtures.written,
    }
    write_report(args.out, report, ex.calls, t0)
    k, r = report["kernel"], report["rejection"]
    print(
        f"\nkernel ids equal {k['equal']}/{k['ids']} in {k['cases']} cases; "
        f"rejection rows equal {r['equal_rows']}/{r['rows']} (ids {r['equal_ids']}/{r['ids']}) in {r['cases']} cases; "
        f"fp64 vs shipped: {report['fp64_vs_shipped']['kernel_positions_differing']} positions, "
        f"{report['fp64_vs_shipped']['rejection_rows_differing']} rows; {report['seconds']} s"
    )
    print(f"fused_gumbel_argmax ids equal {gumbel['equal']}/{gumbel['ids']} in {gumbel['cases']} rows")
    if (
        gumbel["equal"] != gumbel["ids"]
        or k["equal"] != k["ids"]
        or r["equal_rows"] != r["rows"]
        or r["recovered_equal"] != r["recovered_positions"]
    ):
        sys.exit(1)
