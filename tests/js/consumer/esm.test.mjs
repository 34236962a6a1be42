// The packed package imported as an ES module from a separate project,
// checked bit for bit against the natively generated goldens.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import init, * as ex from "exporace";
import { SCENARIOS, allBits, camelKeys, largeBatch, sameBits } from "./golden.mjs";

const dir = process.env.EXPORACE_GOLDEN;
const text = (f) => readFileSync(`${dir}/${f}`, "utf8");
const json = (f) => JSON.parse(text(f));
const flat = (rows) => new Float32Array(rows.flat());
/** The typed-array batch of a recover or rejection scenario with row-form matrices. */
const specBatch = (s) => ({
  vocabSize: s.target_probs[0].length,
  cuNumDraftTokens: new Int32Array(s.cu_num_draft_tokens),
  draftTokenIds: new Int32Array(s.draft_token_ids),
  targetProbs: flat(s.target_probs),
  draftProbs: s.draft_probs ? flat(s.draft_probs) : undefined,
});

test("init() resolves in Node and the module is ready", async () => {
  await init();
  assert.equal(ex.randint(0n, 0n), ex.randint4x(0n, 0n)[0]);
});

for (const name of SCENARIOS) {
  test(`run(${name}) gives the golden report, from text and from an object`, () => {
    const golden = camelKeys(json(`${name}.result.json`));
    const fromText = ex.run(text(`${name}.scenario.json`));
    const fromObject = ex.run(json(`${name}.scenario.json`));
    sameBits(name, allBits(fromText), allBits(golden));
    assert.deepEqual(fromText, golden);
    assert.deepEqual(fromObject, golden);
  });
}

test("raceSeeded equals fillInvQ / fillQ then raceMul / raceDiv, both precisions", () => {
  const w = Float32Array.from({ length: 70000 }, (_, i) => ((i * 2654435761) % 1000) / 1000);
  for (const [Arr, precision] of [[Float32Array, "f32"], [Float64Array, "f64"]]) {
    for (const form of ["mul", "div"]) {
      const q = new Arr(w.length);
      (form === "mul" ? ex.fillInvQ : ex.fillQ)(77n, "bonus", 5n, q);
      const unfused = (form === "mul" ? ex.raceMul : ex.raceDiv)(w, q);
      assert.deepEqual(ex.raceSeeded(w, 77n, "bonus", 5n, { form, precision }), unfused, `${form} ${precision}`);
    }
  }
  assert.throws(() => ex.raceSeeded(w, 1n, "race", 0n, { form: "add" }), /options/);
});

test("sampleHashed picks the sample operation's token, from typed arrays and WasmArrays", () => {
  // 40 nats of logits over 5000 tokens, ties on a grid, a -inf and a NaN-free row.
  const f32 = Float32Array.from({ length: 5000 }, (_, i) => -(((i * 2654435761) >>> 0) % 4000) / 100);
  f32[17] = -Infinity;
  const f64 = Float64Array.from(f32);
  const cases = [
    ["vllm-0.33-f32", f32, { pos: 9n, temperature: 0.7 }],
    ["vllm-0.33-f64", f32, { pos: 9n, temperature: 1, draft: true }],
    ["sglang-0.5", f64, { pos: 9n }],
    ["vllm-cpu-0.32", f32, undefined],
  ];
  for (const [model, logits, options] of cases) {
    for (const seed of [0n, 7n, 12345678901234n]) {
      const json = Array.from(logits, (x) => (x === -Infinity ? "-inf" : x));
      const want = ex.sample({ model, logits: json, seed: seed.toString(), ...options }).result.token;
      assert.equal(ex.sampleHashed(model, logits, seed, options), want, `${model} seed ${seed}`);
      const resident = ex.WasmArray.from(logits);
      assert.equal(ex.sampleHashed(model, resident, seed, options), want, `${model} seed ${seed} WasmArray`);
      resident.free();
    }
  }
  assert.throws(() => ex.sampleHashed("vllm-cpu-0.32", f32, 1n, { pos: 1n }), /takes no "pos"/);
  assert.throws(() => ex.sampleHashed("vllm-0.33-f32", f32, 1n, { pos: 1n }), /needs "temperature"/);
  assert.throws(() => ex.sampleHashed("sglang-0.5", f32, 1n, { pos: 1n }), /logits/);
  assert.throws(() => ex.sampleHashed("vllm-0.33-f32", f32, 1n, { pos: 1n, temperature: 1, posx: 1 }), /unknown field/);
  assert.throws(() => ex.sampleHashed("torch-cpu", f32, 1n), /no sampler here/);
});

test("seeded raceMul (f32) equals the golden race", () => {
  const s = json("race_f32.scenario.json");
  const g = json("race_f32.result.json").result;
  const invQ = new Float32Array(s.weights.length);
  assert.equal(ex.fillInvQ(BigInt(s.seed), "race", 0n, invQ), BigInt(s.seed));
  const r = ex.raceMul(new Float32Array(s.weights), invQ);
  assert.equal(r.winner.token, g.winner.token);
  assert.equal(r.winner.bits, g.winner.bits);
  assert.equal(r.runnerUp.bits, g.runner_up.bits);
  assert.equal(r.marginUlps, g.margin_ulps);
});

test("bits spell every hex digit, zeros, subnormals, infinity and the largest values", () => {
  // Each score is w * invQ with w = 1 (exact), so its bits are invQ's, set
  // here through a DataView.
  const f32Of = (bits) => { const v = new DataView(new ArrayBuffer(4)); v.setUint32(0, bits); return v.getFloat32(0); };
  const f64Of = (hi, lo) => { const v = new DataView(new ArrayBuffer(8)); v.setUint32(0, hi); v.setUint32(4, lo); return v.getFloat64(0); };
  const f32Cases = [
    [[0x3fabcdef, 0x01234567], ["0x3fabcdef", "0x01234567"]],
    [[0x7f7fffff, 0x00000001], ["0x7f7fffff", "0x00000001"]],
    [[0x7f800000, 0x00000000], ["0x7f800000", "0x00000000"]],
    [[0x00800000, 0x007fffff], ["0x00800000", "0x007fffff"]],
  ];
  for (const [[a, b], want] of f32Cases) {
    const r = ex.raceMul(new Float32Array([1, 1]), new Float32Array([f32Of(a), f32Of(b)]));
    assert.deepEqual([r.winner.bits, r.runnerUp.bits], want);
  }
  const f64Cases = [
    [[[0x3ff00000, 0x00abcdef], [0x3fe98765, 0x43210fed]], ["0x3ff0000000abcdef", "0x3fe9876543210fed"]],
    [[[0x7fefffff, 0xffffffff], [0x00000000, 0x00000001]], ["0x7fefffffffffffff", "0x0000000000000001"]],
    [[[0x7ff00000, 0x00000000], [0x00000000, 0x00000000]], ["0x7ff0000000000000", "0x0000000000000000"]],
  ];
  for (const [[a, b], want] of f64Cases) {
    const r = ex.raceMul(new Float32Array([1, 1]), new Float64Array([f64Of(...a), f64Of(...b)]));
    assert.deepEqual([r.winner.bits, r.runnerUp.bits], want);
  }
});

test("a race result is { winner, runnerUp, marginUlps }, null where there is no runner-up", () => {
  // 0.25 * 4 = 1 beats 0.5 * 1 = 0.5, exactly, 2^23 fp32 ulps apart.
  const two = ex.raceMul(new Float32Array([0.5, 0.25]), new Float32Array([1, 4]));
  assert.equal(JSON.stringify(two), JSON.stringify({
    winner: { token: 1, score: 1, bits: "0x3f800000" },
    runnerUp: { token: 0, score: 0.5, bits: "0x3f000000" },
    marginUlps: 8388608,
  }));
  const one = ex.raceDiv(new Float32Array([0.75]), new Float64Array([0.5]));
  assert.deepEqual(one, { winner: { token: 0, score: 1.5, bits: "0x3ff8000000000000" }, runnerUp: null, marginUlps: null });
  const batch = ex.recoverTokens(
    { vocabSize: 2, cuNumDraftTokens: new Int32Array([1]), draftTokenIds: new Int32Array([0]), targetProbs: new Float32Array([0.5, 0.25]) },
    new Float32Array([1, 4]),
  );
  assert.ok(Array.isArray(batch) && batch.length === 1);
  assert.deepEqual(batch[0].winner, two.winner);
});

test("seeded raceDiv (f64, row 3) equals the golden race", () => {
  const s = json("race_f64_div.scenario.json");
  const g = json("race_f64_div.result.json").result;
  const q = new Float64Array(s.weights.length);
  ex.fillQ(BigInt(s.seed), "race", BigInt(s.row), q);
  const r = ex.raceDiv(new Float32Array(s.weights), q, { nanPolicy: "reject" });
  sameBits("race_f64_div", allBits([r]), allBits(g));
});

test("recoverTokens with draft probs equals the golden recover", () => {
  const s = json("recover_f32_draft.scenario.json");
  const g = json("recover_f32_draft.result.json").result.positions;
  const v = s.target_probs[0].length;
  const b = s.cu_num_draft_tokens.length;
  const invQ = new Float32Array(b * v);
  for (let r = 0; r < b; r++) ex.fillInvQ(s.seed, "race", r, invQ.subarray(r * v, (r + 1) * v));
  const out = ex.recoverTokens(
    specBatch(s),
    invQ,
  );
  assert.deepEqual(out.map((x) => x.winner.token), g.map((x) => x.winner.token));
  sameBits("recover_f32_draft", allBits(out), allBits(g));
});

test("recoverTokens on the synthetic batch equals the golden", () => {
  const params = json("recover_large.params.json");
  const { batch, invQ } = largeBatch(params, ex.fillInvQ);
  const out = ex.recoverTokens(batch, invQ);
  const n = sameBits("recover_large", allBits(out), allBits(json("recover_large.result.json")));
  assert.equal(n, 2 * params.requests * params.drafts_per_request);
});

test("rejectionSample with seeded uniforms and bonus races equals the golden", () => {
  const s = json("rejection_f64.scenario.json");
  const g = json("rejection_f64.result.json").result;
  const v = s.target_probs[0].length;
  const b = s.cu_num_draft_tokens.length;
  const seed = BigInt(s.seed);
  const invQ = new Float64Array(b * v);
  const bonusInvQ = new Float64Array(b * v);
  for (let r = 0; r < b; r++) {
    ex.fillInvQ(seed, "race", BigInt(r), invQ.subarray(r * v, (r + 1) * v));
    ex.fillInvQ(seed, "bonus", BigInt(r), bonusInvQ.subarray(r * v, (r + 1) * v));
  }
  const uniform = new Float64Array(s.draft_token_ids.length);
  ex.fillUniform(seed, "accept", 0n, uniform);
  assert.deepEqual(Array.from(uniform), g.uniform);
  const out = ex.rejectionSample({
    batch: specBatch(s),
    invQ,
    uniform,
    greedy: s.greedy,
    bonusProbs: flat(s.bonus_probs),
    bonusInvQ,
  });
  assert.equal(out.maxSpecLen, g.max_spec_len);
  assert.deepEqual(Array.from(out.outputTokenIds), g.output_token_ids.flat());
  sameBits("rejection_f64", allBits(out.requests), allBits(g.requests));
  assert.deepEqual(
    out.requests.map((q) => [q.numAccepted, q.bonus]),
    g.requests.map((q) => [q.num_accepted, q.bonus]),
  );
  // raceMul builds its result object field by field, the traces through
  // serde: the same fields in the same order, the same values.
  let bonusRaces = 0;
  out.requests.forEach((q, r) => {
    if (!q.bonusRace) return;
    const row = (a) => a.subarray(r * v, (r + 1) * v);
    const direct = ex.raceMul(row(flat(s.bonus_probs)), row(bonusInvQ));
    assert.deepEqual(direct, q.bonusRace, `request ${r}`);
    assert.equal(JSON.stringify(direct), JSON.stringify(q.bonusRace), `request ${r}`);
    bonusRaces += 1;
  });
  assert.equal(bonusRaces, 2);
});

test("Triton Philox: randint is the first word of randint4x, rand is in [0, 1]", () => {
  for (const [seed, offset] of [[0n, 0n], [0x0123456789abcdefn, 2n ** 40n + 3n], [2n ** 64n - 1n, 2n ** 64n - 1n]]) {
    const w = ex.randint4x(seed, offset);
    assert.equal(w.length, 4);
    assert.equal(ex.randint(seed, offset), w[0]);
    const u = ex.rand(seed, offset);
    assert.ok(u >= 0 && u <= 1, `rand = ${u}`);
    assert.equal(Math.fround(u), u, "rand is an fp32 value");
  }
  assert.equal(ex.randint(12345, 0), ex.randint(12345n, 0n));
});

test("a call without a seed reports the seed it drew, and replaying it gives the same bits", () => {
  const a = new Float64Array(64);
  const seed = ex.fillInvQ(undefined, "race", 0n, a);
  assert.equal(typeof seed, "bigint");
  const b = new Float64Array(64);
  assert.equal(ex.fillInvQ(seed, "race", 0n, b), seed);
  assert.deepEqual(b, a);
  const report = ex.run({ exporace: 1, op: "race", precision: "f32", weights: [1, 2, 3] });
  const again = ex.run({ exporace: 1, op: "race", precision: "f32", weights: [1, 2, 3], seed: BigInt(report.seed) });
  assert.deepEqual(again, report);
});
