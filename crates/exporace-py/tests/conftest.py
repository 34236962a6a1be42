"""Shared fixtures of the Python suite: where the known answers are, and the
names the docstring examples use."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import exporace

REPO = pathlib.Path(__file__).resolve().parents[3]
#: The committed subset of the engines' rows (see its README).
HASHED_ROWS = REPO / "crates/exporace-study/tests/fixtures/engines_2026_12_hashed_rows.npz"
#: The committed subset of JAX's elements and ids from the same host.
JAX_ROWS = REPO / "crates/exporace-study/tests/fixtures/engines_2026_12_jax_rows.npz"
#: The full fixture, beside the checkout where the shared folder is.
SHARED_ROWS = REPO.parent / "shared/fixtures/engines-2026-12/gpu_rows_vllm_sglang.npz"
SHARED_FLASHINFER = REPO.parent / "shared/fixtures/engines-2026-12/gpu_rows_flashinfer_jax.npz"


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    doctest_namespace["np"] = np
    doctest_namespace["exporace"] = exporace


def _load(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


@pytest.fixture(scope="session")
def hashed_rows():
    return _load(HASHED_ROWS)


@pytest.fixture(scope="session")
def jax_rows():
    return _load(JAX_ROWS)


def _shared(path):
    if not path.exists():
        pytest.skip(f"{path} is not beside the checkout")
    return _load(path)


@pytest.fixture(scope="session")
def shared_rows():
    return _shared(SHARED_ROWS)


@pytest.fixture(scope="session")
def shared_flashinfer():
    return _shared(SHARED_FLASHINFER)
