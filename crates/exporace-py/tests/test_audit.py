"""audit: the hand-made dump of docs/examples/dump.md (its planted flip is
worked out there in exact arithmetic), from its file and from its tensors."""

from __future__ import annotations

import numpy as np
import pytest

import exporace
from conftest import REPO

DUMP = REPO / "docs/examples/dump.safetensors"
TENSORS = {
    "cu_num_draft_tokens": np.array([2, 3], np.int32),
    "draft_token_ids": np.array([7, 6, 5], np.int32),
    "target_probs": np.array([
        [0.1, 0.3, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05],
        [0.4, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05, 0],
        [0.05, 0.05, 0.1, 0.2, 0.3, 0.1, 0.1, 0.1],
    ], np.float32),
    "inv_q": np.array([[3, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
                       [1, 2, 0.25, 4, 0.5, 1, 2, 1]], np.float32),
}


@pytest.mark.parametrize("dump", [DUMP, str(DUMP), TENSORS])
def test_the_planted_flip_is_found(dump):
    seen = []
    r = exporace.audit(dump, nan_policy="first_nan_wins", progress=lambda d, t: seen.append(d))
    p = r["positions"]
    assert [(x["token_f32"], x["token_f64"]) for x in p] == [(0, 1), (0, 0), (3, 3)]
    assert p[0]["flipped"] and p[0]["margin_ulps_f32"] == 0 and p[0]["margin_ulps_f64"] == 1 << 27
    assert r["summary"]["flips"] == 1 and r["num_tokens"] == 3 and r["vocab_size"] == 8
    assert seen[-1] == 3


def test_a_bad_dump_is_refused_by_name(tmp_path):
    bad = tmp_path / "cut.safetensors"
    bad.write_bytes(DUMP.read_bytes()[:100])
    with pytest.raises(exporace.ExporaceValueError) as e:
        exporace.audit(bad, nan_policy="reject")
    assert e.value.argument == "dump"
    with pytest.raises(exporace.ExporaceValueError) as e:
        exporace.audit(tmp_path / "missing.safetensors", nan_policy="reject")
    assert e.value.argument == "dump"
    with pytest.raises(exporace.ExporaceValueError, match="unknown model") as e:
        exporace.audit(DUMP, nan_policy="reject", model="nope")
    assert e.value.argument == "model"
    missing = dict(TENSORS)
    del missing["inv_q"]
    with pytest.raises(exporace.ExporaceValueError, match="inv_q") as e:
        exporace.audit(missing, nan_policy="reject")
    with pytest.raises(exporace.ExporaceValueError, match="a dump's tensors are"):
        exporace.audit({**TENSORS, "x": np.zeros(1)}, nan_policy="reject")
    with pytest.raises(exporace.ExporaceTypeError) as e:
        exporace.audit({**TENSORS, "inv_q": TENSORS["inv_q"].astype(np.float16)}, nan_policy="reject")
    assert e.value.argument == "inv_q"
    with pytest.raises(exporace.ExporaceTypeError):
        exporace.audit(42, nan_policy="reject")
    cut = {**TENSORS, "draft_token_ids": np.array([7, 6], np.int32)}
    with pytest.raises(exporace.ExporaceValueError) as e:
        exporace.audit(cut, nan_policy="reject")
    assert "draft_token_ids" in str(e.value)
