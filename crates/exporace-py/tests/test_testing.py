"""exporace.testing: the assertions pass on the recipe's answers and fail
with a message that names the first differing row or token."""

from __future__ import annotations

import numpy as np
import pytest

import exporace
from exporace.testing import assert_same_noise, assert_same_tokens


def batch():
    rng = np.random.default_rng(11)
    return rng.normal(size=(6, 3000)).astype(np.float32), np.arange(100, 106), np.arange(6)


def test_the_recipes_own_tokens_pass():
    logits, seeds, pos = batch()
    s = exporace.sample("vllm-0.33-f32", logits, seeds, pos, temperature=0.9)
    assert_same_tokens(s.token, model="vllm-0.33-f32", logits=logits, seeds=seeds, pos=pos,
                       temperature=0.9)


def test_a_wrong_token_names_the_row_both_tokens_scores_and_ulps():
    logits, seeds, pos = batch()
    s = exporace.sample("vllm-0.33-f32", logits, seeds, pos, temperature=0.9)
    ids = s.token.copy()
    ids[4] = s.runner_up[4]
    with pytest.raises(AssertionError) as e:
        assert_same_tokens(ids, model="vllm-0.33-f32", logits=logits, seeds=seeds, pos=pos,
                           temperature=0.9)
    msg = str(e.value)
    assert msg.startswith("1 of 6 rows differ from vllm-0.33-f32; first row 4:")
    assert f"the ids say {ids[4]}" in msg and f"the recipe picks {s.token[4]}" in msg
    # The runner-up's score is the recipe's margin below the winner's.
    assert f"{s.margin_ulps[4]} ulps below the winner's" in msg
    assert repr(np.float32(s.runner_up_score[4])) in msg


def test_a_token_outside_the_vocabulary_is_named():
    logits, seeds, pos = batch()
    s = exporace.sample("vllm-0.33-f32", logits, seeds, pos, temperature=0.9)
    ids = s.token.copy()
    ids[0] = 5000
    with pytest.raises(AssertionError, match="not a token of a 3000-token vocabulary"):
        assert_same_tokens(ids, model="vllm-0.33-f32", logits=logits, seeds=seeds, pos=pos,
                           temperature=0.9)


def test_noise_assertion_names_the_first_differing_token():
    g = exporace.noise("vllm-0.33-f32", seed=9, pos=2, tokens=range(10, 60))
    assert_same_noise(g, model="vllm-0.33-f32", seed=9, pos=2, tokens=range(10, 60))
    bad = g.copy()
    bad[7] = np.nextafter(bad[7], np.float32(np.inf))
    with pytest.raises(AssertionError, match=r"first at token 17: .* 1 ulps apart"):
        assert_same_noise(bad, model="vllm-0.33-f32", seed=9, pos=2, tokens=range(10, 60))
    with pytest.raises(AssertionError, match="values are float64"):
        assert_same_noise(g.astype(np.float64), model="vllm-0.33-f32", seed=9, pos=2,
                          tokens=range(10, 60))
