"""exporace's side: the CLI run on scenario text, and arrays written as the
scenario format reads them."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import numpy as np

F32 = np.float32


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
