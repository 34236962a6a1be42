"""What the conformance tests share: the generated logit rows, and the
counts of ids and values each engine's tests compared (every one through
an `exporace.testing` assertion), printed at the end of the run."""

from __future__ import annotations

from collections import Counter

import numpy as np

#: Values and ids compared, by what they are ("jax-0.11-cpu gumbel").
COUNTS: Counter = Counter()


def logit_rows(rng: np.random.Generator, rows: int, v: int) -> dict[str, np.ndarray]:
    """Named float32 logits of shape (rows, v): flat, Gaussian, one
    dominant token, masked but for 2%, four tied leaders, NaN and inf,
    every token masked."""
    shape = (rows, v)
    gauss = (rng.standard_normal(shape) * 3).astype(np.float32)
    dominant = rng.standard_normal(shape).astype(np.float32)
    dominant[np.arange(rows), rng.integers(v, size=rows)] = 40.0
    masked = np.where(rng.random(shape) < 0.02, gauss, -np.inf).astype(np.float32)
    masked[np.arange(rows), rng.integers(v, size=rows)] = 0.0
    tied = np.full(shape, -5.0, np.float32)
    for r in range(rows):
        tied[r, rng.choice(v, size=min(v, 4), replace=False)] = 1.0
    odd = rng.standard_normal(shape).astype(np.float32)
    for r in range(rows):
        odd[r, rng.integers(v)] = np.nan
        odd[r, rng.integers(v)] = np.inf
    return {"flat": np.zeros(shape, np.float32), "gaussian": gauss, "one dominant": dominant,
            "masked": masked, "tied": tied, "nan and inf": odd,
            "every token masked": np.full(shape, -np.inf, np.float32)}


def pytest_terminal_summary(terminalreporter):
    for what, n in sorted(COUNTS.items()):
        terminalreporter.write_line(f"compared through exporace.testing: {n} {what}")
