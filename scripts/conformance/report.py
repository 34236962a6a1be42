"""The report a conformance run writes: its counts and cases, then how many
times exporace was asked and how long the run took, as indented JSON."""

from __future__ import annotations

import json
import time
from pathlib import Path


def write(out: str, report: dict, calls: int, t0: float) -> dict:
    """Adds exporace's call count and the seconds since `t0` to `report`,
    writes it to `out` (making its folder) and returns it."""
    report["exporace_calls"] = calls
    report["seconds"] = round(time.time() - t0, 1)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(report, indent=1) + "\n")
    return report
