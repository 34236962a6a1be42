"""The engines that key their noise with the seed (JAX, MLX) in
:func:`exporace.sample` and :func:`exporace.noise`: their arguments checked,
each refusal naming the argument."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _args, _core
from .errors import ExporaceValueError

#: The models whose engines key Threefry with the seed and draw the noise of
#: a whole call at once: JAX's ``jax.random.categorical`` / ``gumbel`` on
#: the CPU and on an NVIDIA GPU, in ``mode="low"`` and ``mode="high"``, and
#: MLX's ``mx.random.categorical`` / ``gumbel`` on a Linux CPU.
KEYED_MODELS: tuple[str, ...] = (
    "jax-0.11-cpu",
    "jax-0.11-gpu",
    "jax-0.11-cpu-high",
    "jax-0.11-gpu-high",
    "mlx-0.32-cpu",
)

#: The most elements a keyed request may have (JAX's ``mode="high"`` draws
#: two words per element, below 2^64).
MAX_SIZE = 1 << 63


def sample_columns(
    model: str,
    logits: np.ndarray,
    seed: Any,
    rows: Any,
    row: Any,
    unused: dict[str, bool],
    threads: int | None,
    progress: Any,
) -> tuple[np.ndarray, ...]:
    """The standings of a keyed model's ``categorical`` on float32
    ``logits`` ``[B, V]``: row ``r`` is row ``row[r]`` of a call of
    ``rows[r]`` rows under ``key(seed[r])`` (by default the batch is one
    call). ``unused`` tells which of the other engines' arguments were
    given: each is refused."""
    for name, given in unused.items():
        if given:
            raise ExporaceValueError(
                f"{model} takes no {name}: its engine keys the noise with the seed and "
                "places each row in its call (rows, row)",
                name,
            )
    b = logits.shape[0]
    return _core.keyed_sample(
        model,
        logits,
        _args.seeds(seed, b),
        _args.unsigned(b if rows is None else rows, "rows", b),
        _args.unsigned(np.arange(b, dtype=np.uint64) if row is None else row, "row", b),
        threads,
        progress,
    )


def no_rows(model: str, rows: Any, row: Any) -> None:
    """Refuses ``rows`` and ``row`` for a model that does not key its noise."""
    for name, v in (("rows", rows), ("row", row)):
        if v is not None:
            raise ExporaceValueError(
                f"{model} takes no {name}: only JAX and MLX draw a whole call's noise under one key",
                name,
            )


def size(model: str, size: Any, start: int, n: int, counted: bool) -> int:
    """The request's number of elements for the keyed address: ``size``, or
    the count of ``tokens`` when they were given as a count from 0
    (``counted``), at least ``start + n``."""
    if size is None:
        if not counted:
            raise ExporaceValueError(
                f"{model}'s keyed noise depends on the request's number of elements: "
                "give size with a range of tokens",
                "size",
            )
        return n
    total = _args.integer(size, "size", 1, MAX_SIZE + 1)
    if start + n > total:
        raise ExporaceValueError(
            f"tokens {start} to {start + n - 1} lie past the request's {total} elements", "size"
        )
    return total
