"""race, recover, rejection, the study functions and run: answers from exact
arithmetic, and the same answers as the scenario format."""

from __future__ import annotations

import numpy as np
import pytest

import exporace


def test_race_mul_and_div_by_exact_arithmetic():
    w = np.array([0.5, 0.25, 0.25], np.float32)
    r = exporace.race(w, np.array([1.0, 4.0, 0.5]), form="mul", nan_policy="reject")
    # 0.25 * 4 = 1.0 beats 0.5 * 1 = 0.5 beats 0.125.
    assert (r.winner, r.score, r.runner_up, r.runner_up_score) == (1, 1.0, 0, 0.5)
    # 1.0 and 0.5 are 2^52 binary64 steps apart (one binade).
    assert r.margin_ulps == 1 << 52
    d = exporace.race(w, np.array([1.0, 4.0, 0.5], np.float32), form="div", nan_policy="reject")
    # 0.5 / 1 beats 0.25 / 0.5 = 0.5 only by index; 0.25 / 4 last.
    assert (d.winner, d.runner_up, d.margin_ulps) == (0, 2, 0)


def test_nan_policies_differ_as_documented():
    w = np.array([1.0, 1.0], np.float32)
    n = np.array([1.0, np.nan], np.float32)
    assert exporace.race(w, n, form="mul", nan_policy="first_nan_wins").winner == 1
    assert exporace.race(w, n, form="mul", nan_policy="nan_never_wins").winner == 0
    with pytest.raises(exporace.ExporaceValueError):
        exporace.race(w, n, form="mul", nan_policy="reject")


def test_recover_and_rejection_equal_the_scenario_format():
    rng = np.random.default_rng(3)
    v, cu = 50, np.array([2, 3, 6], np.int32)
    t = int(cu[-1])
    target = rng.dirichlet(np.ones(v), size=t).astype(np.float32)
    draft = rng.dirichlet(np.ones(v), size=t).astype(np.float32)
    ids = rng.integers(0, v, size=t).astype(np.int32)
    inv_q = rng.exponential(size=(3, v)) ** -1
    r = exporace.recover(vocab_size=v, cu_num_draft_tokens=cu, draft_token_ids=ids,
                         target_probs=target, draft_probs=draft, inv_q=inv_q,
                         nan_policy="reject")
    scenario = {"exporace": 1, "op": "recover", "precision": "f64", "nan_policy": "reject",
                "vocab_size": v, "cu_num_draft_tokens": cu.tolist(),
                "draft_token_ids": ids.tolist(),
                "target_probs": target.tolist(), "draft_probs": draft.tolist(),
                "inv_q": inv_q.tolist()}
    rep = exporace.run(scenario)["result"]
    assert r.token.tolist() == [p["winner"]["token"] for p in rep["positions"]]
    u = rng.uniform(size=t)
    out = exporace.rejection(vocab_size=v, cu_num_draft_tokens=cu, draft_token_ids=ids,
                             target_probs=target, draft_probs=draft, uniform=u, inv_q=inv_q,
                             bonus_token_ids=np.array([7, 8, 9], np.int32), nan_policy="reject")
    scenario.update(op="rejection", uniform=u.tolist(), bonus_token_ids=[7, 8, 9])
    rep = exporace.run(scenario)["result"]
    assert out.output_token_ids.tolist() == rep["output_token_ids"]


def test_study_functions_answer_from_the_core():
    r = exporace.win_probability("ideal", [0.75, 0.25])
    p = [g["probability"] for g in r["probabilities"]["groups"]]
    assert abs(p[0] - 0.75) < 1e-12 and abs(p[1] - 0.25) < 1e-12
    # fp32 noise clamped at 2^-24: a weight 1e-9 next to 1.0 never wins.
    assert exporace.dead_zone("torch-cuda-f32", [1.0, 1e-9])["count"] == 1
    assert exporace.dead_zone("torch-cuda-f64", [1.0, 1e-9])["count"] == 0
    c = exporace.compare_models("triton-flipped", "u64-f64-classic", [0.5, 0.5], seed=1,
                                nan_policy="first_nan_wins")
    assert {"a", "b"} <= set(c)
