"""Types of the extension module ``exporace._core`` (the Rust core through
PyO3). The package's functions check arguments before calling these."""

from typing import Any, Callable

import numpy as np
import numpy.typing as npt

__version__: str

Standings = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.uint64],
    npt.NDArray[np.bool_],
]

def models_json() -> str: ...
def run_json(text: str) -> str: ...
def noise(
    model: str,
    precision: str | None,
    seed: int,
    address: str,
    start: int,
    count: int,
    row: int,
    pos: int | None,
    draft: bool,
    size: int | None,
    offset: int | None,
) -> npt.NDArray[np.float32] | npt.NDArray[np.float64]: ...
def sample(
    model: str,
    logits: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    seeds: npt.NDArray[np.uint64],
    pos: npt.NDArray[np.uint64],
    temperature: npt.NDArray[np.float32],
    draft: bool,
    threads: int | None,
    progress: Callable[[int, int], Any] | None,
) -> Standings: ...
def keyed_sample(
    model: str,
    logits: npt.NDArray[np.float32],
    seeds: npt.NDArray[np.uint64],
    rows: npt.NDArray[np.uint64],
    row: npt.NDArray[np.uint64],
    threads: int | None,
    progress: Callable[[int, int], Any] | None,
) -> Standings: ...
def race(
    form: str,
    weights: npt.NDArray[np.float32],
    noise: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    nan_policy: str,
) -> tuple[int, float, int, float, int | None]: ...
#: (vocab_size, cu_num_draft_tokens, draft_token_ids, target_probs, draft_probs).
Batch = tuple[
    int,
    npt.NDArray[np.int32],
    npt.NDArray[np.int32],
    npt.NDArray[np.float32],
    npt.NDArray[np.float32] | None,
]

def recover(
    batch: Batch,
    inv_q: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    nan_policy: str,
) -> Standings: ...
def rejection(
    batch: Batch,
    greedy: npt.NDArray[np.bool_] | None,
    uniform: npt.NDArray[np.float64],
    inv_q: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    bonus_token_ids: npt.NDArray[np.int32] | None,
    bonus_probs: npt.NDArray[np.float32] | None,
    bonus_inv_q: npt.NDArray[np.float32] | npt.NDArray[np.float64] | None,
    nan_policy: str,
) -> tuple[npt.NDArray[np.int32], int, npt.NDArray[np.int64]]: ...
def audit(
    path: str | None,
    tensors: dict[str, np.ndarray] | None,
    precision: str,
    nan_policy: str,
    model: str,
    progress: Callable[[int, int], Any] | None,
) -> str: ...
def flashinfer(
    logits: npt.NDArray[np.float32],
    seeds: npt.NDArray[np.uint64],
    offsets: npt.NDArray[np.uint64],
    threads: int | None,
    progress: Callable[[int, int], Any] | None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], list[list[int]]]: ...
