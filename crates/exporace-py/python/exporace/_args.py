"""Arguments in: array-likes to numpy arrays of the dtype the engine reads,
integers checked for range, every refusal naming the argument."""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np

from .errors import ExporaceTypeError, ExporaceValueError

U64 = 1 << 64
I64_MIN = -(1 << 63)


def describe(x: Any) -> str:
    """A short name of what ``x`` is, for messages."""
    if isinstance(x, np.ndarray):
        return f"a {x.ndim}-D {x.dtype} array"
    return type(x).__name__


def to_numpy(x: Any, name: str, default_dtype: Any) -> np.ndarray:
    """``x`` as a numpy array without copying where it can: numpy arrays as
    they are, objects with ``__array__`` (torch CPU tensors) or DLPack on
    the CPU through numpy, and sequences of numbers at ``default_dtype``."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (str, bytes, dict, set)) or x is None or isinstance(x, numbers.Number):
        raise ExporaceTypeError(f"{name} must be an array, got {describe(x)}", name)
    try:
        if hasattr(x, "__array__"):
            return np.asarray(x)
        if hasattr(x, "__dlpack__"):
            return np.from_dlpack(x)
        if isinstance(x, (list, tuple)):
            return np.asarray(x, dtype=default_dtype)
    except (TypeError, ValueError, RuntimeError, BufferError, OverflowError) as e:
        raise ExporaceTypeError(
            f"{name} must be an array on the CPU that numpy can read: {e}", name
        ) from None
    raise ExporaceTypeError(f"{name} must be an array, got {describe(x)}", name)


def array(
    x: Any,
    name: str,
    dtypes: Sequence[Any],
    ndim: int | Sequence[int],
    why: str,
) -> np.ndarray:
    """``x`` as a C-contiguous numpy array of one of ``dtypes`` with ``ndim``
    dimensions. Arrays of another dtype are refused (``why`` says which the
    engine reads), never cast; non-contiguous or negative-stride arrays are
    copied once into C order."""
    a = to_numpy(x, name, dtypes[0])
    if a.dtype not in [np.dtype(d) for d in dtypes]:
        wanted = " or ".join(np.dtype(d).name for d in dtypes)
        raise ExporaceTypeError(f"{name} must be {wanted} ({why}), got {a.dtype}", name)
    dims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if a.ndim not in dims:
        wanted = " or ".join(f"{d}-D" for d in dims)
        raise ExporaceValueError(
            f"{name} must be {wanted}, got shape {tuple(a.shape)}", name
        )
    if a.size == 0:
        raise ExporaceValueError(f"{name} is empty", name)
    return np.ascontiguousarray(a)


def integer(x: Any, name: str, low: int, high: int) -> int:
    """A Python or numpy integer (not a bool) in ``[low, high)``."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise ExporaceTypeError(f"{name} must be an integer, got {describe(x)}", name)
    v = int(x)
    if not low <= v < high:
        raise ExporaceValueError(
            f"{name} is {v}: it must lie in [{low}, {high})", name
        )
    return v


def count(x: Any, name: str, high: int = U64) -> int:
    """A non-negative integer below ``high``."""
    return integer(x, name, 0, high)


def seed_bits(x: Any, name: str = "seed") -> int:
    """A seed as the engine holds it: an int64 (negative values as their
    two's-complement bits) or a uint64."""
    return integer(x, name, I64_MIN, U64) % U64


def per_row(x: Any, name: str, rows: int, one: Any, dtype: Any) -> np.ndarray:
    """One value per row: a scalar given to every row (checked by ``one``),
    or a 1-D array with one entry per row."""
    if isinstance(x, numbers.Number) or isinstance(x, np.generic):
        return np.full(rows, one(x, name), dtype=dtype)
    # A sequence keeps the dtype numpy infers (int64, or object for integers
    # past it), checked by the caller.
    a = to_numpy(x, name, None)
    if a.ndim != 1 or a.shape[0] != rows:
        raise ExporaceValueError(
            f"{name} must be a scalar or have one entry per row ({rows}), got shape {tuple(a.shape)}",
            name,
        )
    return a


def seeds(x: Any, rows: int) -> np.ndarray:
    """Per-row seeds as uint64 bits: int64 arrays keep their bits, uint64
    arrays are read as they are, Python integers are checked."""
    a = per_row(x, "seed", rows, seed_bits, np.uint64)
    if a.dtype == np.int64:
        return np.ascontiguousarray(a).view(np.uint64)
    if a.dtype in (np.uint64, np.uint32, np.int32):
        if a.dtype == np.int32:
            return np.ascontiguousarray(a.astype(np.int64)).view(np.uint64)
        return np.ascontiguousarray(a.astype(np.uint64))
    if a.dtype == object:
        return np.array([seed_bits(v) for v in a], dtype=np.uint64)
    raise ExporaceTypeError(f"seed must hold integers, got {a.dtype}", "seed")


def unsigned(x: Any, name: str, rows: int) -> np.ndarray:
    """Per-row non-negative integers as uint64."""
    a = per_row(x, name, rows, count, np.uint64)
    if a.dtype.kind == "i":
        if (a < 0).any():
            i = int(np.argmax(a < 0))
            raise ExporaceValueError(f"{name}[{i}] is {int(a[i])}: it is not negative", name)
        return np.ascontiguousarray(a.astype(np.uint64))
    if a.dtype.kind == "u":
        return np.ascontiguousarray(a.astype(np.uint64))
    if a.dtype == object:
        return np.array([count(v, name) for v in a], dtype=np.uint64)
    raise ExporaceTypeError(f"{name} must hold integers, got {a.dtype}", name)


def positions(x: Any, rows: int) -> np.ndarray:
    """Per-row positions as uint64, none negative."""
    return unsigned(x, "pos", rows)


def real(x: Any, name: str) -> float:
    """A finite real number (not a bool)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise ExporaceTypeError(f"{name} must be a number, got {describe(x)}", name)
    v = float(x)
    if not math.isfinite(v):
        raise ExporaceValueError(f"{name} is {v}: it must be finite", name)
    return v


def temperatures(x: Any, rows: int) -> np.ndarray:
    """Per-row temperatures as float32, as the engine holds them."""
    a = per_row(x, "temperature", rows, real, np.float32)
    if a.dtype.kind != "f":
        raise ExporaceTypeError(f"temperature must hold floats, got {a.dtype}", "temperature")
    return np.ascontiguousarray(a.astype(np.float32))


def choice(x: Any, name: str, options: Sequence[str]) -> str:
    """One of ``options``, by name."""
    if not isinstance(x, str) or x not in options:
        listed = ", ".join(repr(o) for o in options)
        raise ExporaceValueError(f"{name} must be one of {listed}, got {x!r}", name)
    return x


def flag(x: Any, name: str) -> bool:
    """A bool (numpy's included), nothing else."""
    if not isinstance(x, (bool, np.bool_)):
        raise ExporaceTypeError(f"{name} must be True or False, got {describe(x)}", name)
    return bool(x)


def threads(x: Any) -> int | None:
    """A thread count from 1 to 1024, or ``None`` for every core."""
    if x is None:
        return None
    return integer(x, "threads", 1, 1025)


def callback(x: Any, name: str = "progress") -> Any:
    """A callable, or ``None``."""
    if x is not None and not callable(x):
        raise ExporaceTypeError(f"{name} must be callable, got {describe(x)}", name)
    return x
