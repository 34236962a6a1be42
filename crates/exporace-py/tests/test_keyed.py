"""JAX's and MLX's models (their noise keyed by the seed): noise bits and
sampled ids through Python equal the core's answers through the scenario
format, JAX's own bits and ids from an H100 host (GPU and CPU), MLX's own
Gumbel values, and the ids JAX and MLX picked on a CPU."""

from __future__ import annotations

import numpy as np
import pytest

import exporace
from exporace.testing import assert_same_noise, assert_same_tokens

KEYED = list(exporace.KEYED_MODELS)
BACKENDS = [("gpu", "jax-0.11-gpu"), ("cpu", "jax-0.11-cpu")]


def core_bits(model, seed, size, start, count):
    """The bits of keyed draws from the scenario path (`exporace run`)."""
    r = exporace.run({"exporace": 1, "op": "noise", "seed": str(seed), "model": model,
                      "address": "keyed", "size": size, "start": start, "count": count})
    return np.array([int(d["bits"], 16) for d in r["result"]["draws"]], dtype=np.uint32)


def core_token(model, seed, logits, rows, row):
    """The id the scenario path's `sample` gives for one row of a call."""
    r = exporace.run({"exporace": 1, "op": "sample", "seed": str(seed), "model": model,
                      "rows": rows, "row": row,
                      "logits": [v if np.isfinite(v) else str(v) for v in logits.tolist()]})
    return r["result"]["token"]


@pytest.mark.parametrize("model", KEYED)
@pytest.mark.parametrize("size,start,count", [(1, 0, 1), (7, 0, 7), (16384, 8000, 400),
                                              (151936 * 3, 151936 * 2 - 5, 300)])
def test_noise_equals_the_core_bits(model, size, start, count):
    for seed in (0, 3, 2**32 - 1, 2**40 + 7, 2**64 - 1):
        got = exporace.noise(model, seed=seed, tokens=range(start, start + count), size=size)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.uint32), core_bits(model, seed, size, start, count))
    # A count from 0 is a request of exactly that many elements.
    whole = exporace.noise(model, seed=5, tokens=size if size < 2**20 else 300)
    n = whole.shape[0]
    np.testing.assert_array_equal(whole.view(np.uint32), core_bits(model, 5, n, 0, n))


def jax_values(z, backend, quantity):
    return z[f"jax/{backend}/{quantity}"]


def jax_compared(z, backend, model):
    """Checks every element (all of each request, or `jax/elements`) and
    every id the file holds for one backend: the numbers of values and ids
    compared."""
    values = 0
    for s, seed in enumerate(z["jax/seeds"]):
        for suffix, key in (("", "gumbel"), ("-high", "gumbel_high")):
            g = exporace.noise(model + suffix, seed=int(seed), tokens=2 * 8192).view(np.uint32)
            want = jax_values(z, backend, key)[s].ravel()
            if "jax/elements" in z:
                np.testing.assert_array_equal(g[z["jax/elements"][s]], want)
            else:
                # The engine's values as they come, through the assertion.
                assert_same_noise(want.view(np.float32), model=model + suffix, seed=int(seed))
            values += want.size
    ids = 0
    for s, logits in enumerate(z["jax/logits"]):
        want = jax_values(z, backend, "categorical")[s]
        seed = int(z["jax/seeds"][s])
        np.testing.assert_array_equal(exporace.sample(model, logits, seed=seed).token, want)
        assert_same_tokens(want, model=model, logits=logits, seeds=seed)
        ids += want.size
    return values, ids


@pytest.mark.parametrize("backend,model", BACKENDS)
def test_jax_equals_the_committed_gpu_host_elements_and_ids(jax_rows, backend, model):
    assert jax_compared(jax_rows, backend, model) == (4 * 2 * 288, 2)


@pytest.mark.parametrize("backend,model", BACKENDS)
def test_jax_equals_every_element_and_id_of_the_gpu_host(shared_flashinfer, backend, model):
    assert jax_compared(shared_flashinfer, backend, model) == (4 * 2 * 2 * 8192, 4 * 2)


def test_the_cpu_ids_jax_and_mlx_picked():
    # jax.random.categorical on JAX 0.11.2's CPU and mx.random.categorical on
    # MLX 0.32.4's Linux CPU, key(3), as crates/exporace-cli/tests/run.rs states.
    logits = np.array([[0.5, 2, -np.inf, 1, 3], [1, 1.5, 0.25, 2, -1]], np.float32)
    for model, ids in (("jax-0.11-cpu", [1, 0]), ("jax-0.11-cpu-high", [4, 1]),
                       ("mlx-0.32-cpu", [4, 2])):
        assert exporace.sample(model, logits, seed=3).token.tolist() == ids
        for r in range(2):
            assert exporace.sample(model, logits[r], seed=3, rows=2, row=r).token == ids[r]


#: mx.random.gumbel(shape=shape, key=mx.random.key(seed)) on MLX 0.32.4's
#: Linux CPU build (mlx-cpu, x86-64), flattened, as float32 bits.
MLX_GUMBEL = [
    (0, 7, [0x3EEC013F, 0xBD4AF9BF, 0xBD1F2DF3, 0x3F8F3BD9, 0xBF546495, 0x40820AA7,
            0xBEFB05AE]),
    (2**64 - 1, 15, [0x3FEDC265, 0xBF070362, 0x3CE40463, 0x402C6BCD, 0xBF9885C3, 0xBE85DEE2,
                     0xBECC5318, 0xBE474CFB, 0x3D58422B, 0x3FA467F5, 0x3ED994DB, 0x3FC33FB1,
                     0xBF6C691D, 0xBF07EF61, 0xBC5E5FEA]),
    (2**32 + 5, 6, [0x3F695113, 0xBEF074B6, 0xBDD11C2F, 0xBE039BF7, 0x3DF8C926, 0x3FAF3B06]),
]


def test_mlx_noise_equals_the_values_mlx_drew():
    for seed, size, bits in MLX_GUMBEL:
        want = np.array(bits, dtype=np.uint32)
        assert_same_noise(want.view(np.float32), model="mlx-0.32-cpu", seed=seed)
        # Each element alone, placed in its request by size.
        for i in range(size):
            g = exporace.noise("mlx-0.32-cpu", seed=seed, tokens=range(i, i + 1), size=size)
            assert int(g.view(np.uint32)[0]) == bits[i]


def logit_rows(rng, rows, v):
    """Float32 batches of every kind: Gaussian, tied, masked, NaN and inf,
    every token masked, flat."""
    gauss = (rng.standard_normal((rows, v)) * 3).astype(np.float32)
    tied = np.full((rows, v), -5.0, np.float32)
    tied[:, rng.choice(v, size=min(v, 3), replace=False)] = 1.0
    masked = np.where(rng.random((rows, v)) < 0.05, gauss, -np.inf).astype(np.float32)
    odd = gauss.copy()
    odd[:, rng.integers(v)] = np.nan
    odd[:, rng.integers(v)] = np.inf
    return {"gaussian": gauss, "tied": tied, "masked": masked, "nan and inf": odd,
            "all masked": np.full((rows, v), -np.inf, np.float32),
            "flat": np.zeros((rows, v), np.float32)}


@pytest.mark.parametrize("model", KEYED)
def test_ids_equal_the_scenario_formats_row_by_row(model):
    rng = np.random.default_rng(len(model))
    compared = 0
    for v in (1, 5, 1000):
        for name, logits in logit_rows(rng, 3, v).items():
            seed = int(rng.integers(0, 2**63))
            s = exporace.sample(model, logits, seed=seed)
            want = [core_token(model, seed, logits[r], 3, r) for r in range(3)]
            assert s.token.tolist() == want, (v, name)
            compared += 3
    assert compared == 3 * 6 * 3


def test_rows_are_placed_in_their_call_and_seeds_may_differ_by_row():
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((4, 700)).astype(np.float32)
    for model in KEYED:
        whole = exporace.sample(model, logits, seed=77)
        for r in range(4):
            one = exporace.sample(model, logits[r], seed=77, rows=4, row=r)
            assert (one.token, one.runner_up) == (whole.token[r], whole.runner_up[r])
        # Each row its own call of one row, under its own seed.
        seeds = [10, 11, 12, 13]
        apart = exporace.sample(model, logits, seed=seeds, rows=1, row=0)
        want = [exporace.sample(model, logits[r], seed=seeds[r]).token for r in range(4)]
        assert apart.token.tolist() == want


@pytest.mark.parametrize("model", KEYED)
def test_scores_runner_up_and_margin_follow_from_the_noise(model):
    rng = np.random.default_rng(9)
    logits = (rng.standard_normal((3, 2000)) * 2).astype(np.float32)
    s = exporace.sample(model, logits, seed=123)
    g = exporace.noise(model, seed=123, tokens=logits.size).reshape(logits.shape)
    scores = logits + g
    assert scores.dtype == np.float32
    for r in range(3):
        w = int(np.argmax(scores[r]))
        rest = scores[r].copy()
        rest[w] = -np.inf
        u = int(np.argmax(rest))
        assert (s.token[r], s.runner_up[r]) == (w, u)
        assert s.score[r] == scores[r, w] and s.runner_up_score[r] == scores[r, u]
        a, b = (int(np.float32(x).view(np.int32)) for x in (scores[r, w], scores[r, u]))
        if a > 0 and b > 0:
            assert s.margin_ulps[r] == a - b


def test_threads_and_progress_change_no_answer():
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((40, 3000)).astype(np.float32)
    seen = []
    a = exporace.sample("jax-0.11-cpu-high", logits, seed=1, threads=1,
                        progress=lambda done, total: seen.append((done, total)))
    b = exporace.sample("jax-0.11-cpu-high", logits, seed=1, threads=2)
    assert a.token.tolist() == b.token.tolist()
    assert seen and seen[-1] == (40, 40)


def test_the_assertions_name_a_keyed_rows_first_difference():
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((3, 1500)).astype(np.float32)
    for model in KEYED:
        s = exporace.sample(model, logits, seed=8)
        assert_same_tokens(s.token, model=model, logits=logits, seeds=8)
        ids = s.token.copy()
        ids[2] = s.runner_up[2]
        with pytest.raises(AssertionError) as e:
            assert_same_tokens(ids, model=model, logits=logits, seeds=8)
        msg = str(e.value)
        assert msg.startswith(f"1 of 3 rows differ from {model}; first row 2:")
        assert f"{s.margin_ulps[2]} ulps below the winner's" in msg, msg
        # The same row alone, placed in its call by rows and row.
        with pytest.raises(AssertionError) as e:
            assert_same_tokens([ids[2]], model=model, logits=logits[2:], seeds=8, rows=3, row=2)
        assert f"{s.margin_ulps[2]} ulps below the winner's" in str(e.value)
        g = exporace.noise(model, seed=8, tokens=range(100, 150), size=4500)
        assert_same_noise(g, model=model, seed=8, tokens=range(100, 150), size=4500)
        bad = g.copy()
        bad[3] = np.nextafter(bad[3], np.float32(np.inf))
        with pytest.raises(AssertionError, match=r"first at token 103: .* 1 ulps apart"):
            assert_same_noise(bad, model=model, seed=8, tokens=range(100, 150), size=4500)
