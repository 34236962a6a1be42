// Garbage in: every bad call throws an Error whose message names the problem,
// and the module keeps working afterwards (no trap, no poisoned state).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as ex from "exporace";
import { declarations } from "./declarations.mjs";

const dir = process.env.EXPORACE_GOLDEN;
const json = (f) => JSON.parse(readFileSync(`${dir}/${f}`, "utf8"));
const f32 = (...x) => new Float32Array(x);
const f64 = (...x) => new Float64Array(x);
const i32 = (...x) => new Int32Array(x);
const batch = (over = {}) => ({
  vocabSize: 2,
  cuNumDraftTokens: i32(1),
  draftTokenIds: i32(0),
  targetProbs: f32(0.5, 0.5),
  ...over,
});
const throwing = new Proxy({}, {
  get() { throw new RangeError("boom"); },
  ownKeys() { return ["vocabSize"]; },
  getOwnPropertyDescriptor() { return { enumerable: true, configurable: true, value: 1 }; },
});

// Listing its keys throws.
const unlisted = new Proxy(batch(), { ownKeys() { throw new RangeError("boom"); } });
// Named like a WasmArray, with an id that is no number or whose getter throws.
const fakeArray = (id, throws = false) => ({
  constructor: { name: "WasmArray" },
  get exporaceArrayId() {
    if (throws) throw new Error("null pointer passed to rust");
    return id;
  },
});
// Reading its constructor throws: not a WasmArray.
const noConstructor = { get constructor() { throw new RangeError("boom"); } };

// [call, a fragment the message must contain]
const garbage = [
  [() => ex.raceMul(), "weights must be a Float32Array, got undefined"],
  [() => ex.raceMul("weights", f64(1)), "got string"],
  [() => ex.raceMul([1, 2], f64(1, 1)), "got Array"],
  [() => ex.raceMul(f64(1), f64(1)), "got Float64Array"],
  [() => ex.raceMul(f32(1), i32(1)), "invQ must be a Float32Array or a Float64Array, got Int32Array"],
  [() => ex.raceMul(f32(), f64()), "vocabulary size is 0"],
  [() => ex.raceMul(f32(1, 2), f64(1, 2, 3)), "expected 2, got 3"],
  [() => ex.raceMul(f32(1, NaN), f64(1, 1)), "NaN value NaN in weights at index 1"],
  [() => ex.raceMul(f32(1, -2), f64(1, 1)), "negative value -2 in weights at index 1"],
  [() => ex.raceMul(f32(Infinity), f64(1)), "infinite value inf in weights"],
  [() => ex.raceDiv(f32(1, 1), f32(1, -1)), "negative value -1 in q at index 1"],
  [() => ex.raceMul(f32(0, 1), f64(Infinity, 1), { nanPolicy: "reject" }), "NaN score at token 0"],
  [() => ex.raceMul(f32(1), f64(1), 7), "options must be an object, got number"],
  [() => ex.raceMul(f32(1), f64(1), { nanPolicy: "sometimes" }), "unknown variant `sometimes`"],
  [() => ex.raceMul(f32(1), f64(1), { nan_policy: "reject" }), "options has an unknown field \"nan_policy\""],
  [() => ex.randint(-1n, 0n), "seed must lie in [0, 2^64), got -1"],
  [() => ex.randint(2n ** 64n, 0n), "seed must lie in [0, 2^64)"],
  [() => ex.randint(1.5, 0), "seed must be a non-negative integer"],
  [() => ex.randint(2 ** 60, 0), "a bigint above 2^53"],
  [() => ex.rand(0n, "0"), "offset must be a bigint or a non-negative integer, got string"],
  [() => ex.randint4x(0n, NaN), "offset must be a non-negative integer"],
  [() => ex.fillInvQ(1n, "nope", 0n, f64(0)), "stream \"nope\" is not one of"],
  [() => ex.fillInvQ(1n, "race", -1, f64(0)), "row must be a non-negative integer"],
  [() => ex.fillInvQ(1n, "race", 0n, [0, 0]), "out must be a Float32Array or a Float64Array, got Array"],
  [() => ex.fillUniform(1n, "accept", 0n, f32(0)), "out must be a Float64Array, got Float32Array"],
  [() => ex.recoverTokens(null, f64(1, 1)), "batch must be an object, got null"],
  [() => ex.recoverTokens([], f64(1, 1)), "batch must be an object, got Array"],
  [() => ex.recoverTokens(batch({ vocab: 2 }), f64(1, 1)), "batch has an unknown field \"vocab\""],
  [() => ex.recoverTokens(batch({ vocabSize: -3 }), f64(1, 1)), "batch.vocabSize must be a non-negative integer"],
  [() => ex.recoverTokens(batch({ vocabSize: 2 ** 40 }), f64(1, 1)), "batch.vocabSize is 1099511627776, over the limit"],
  [() => ex.recoverTokens(batch({ vocabSize: "2" }), f64(1, 1)), "got string"],
  [() => ex.recoverTokens(batch({ cuNumDraftTokens: i32(2, 1) }), f64(1, 1)), "cu_num_draft_tokens must be non-decreasing"],
  [() => ex.recoverTokens(batch({ draftTokenIds: i32(9) }), f64(1, 1)), "draft_token_ids[0] = 9 is outside [0, 2)"],
  [() => ex.recoverTokens(batch({ targetProbs: f32(0.5) }), f64(1, 1)), "length mismatch for target_probs"],
  [() => ex.recoverTokens(batch({ targetProbs: f32(0.5, NaN) }), f64(1, 1)), "NaN value NaN in target_probs at index 1 (row 0, token 1)"],
  [() => ex.recoverTokens(batch(), f64(1, 1, 1)), "length mismatch for inv_q (B*V)"],
  [() => ex.recoverTokens(throwing, f64(1, 1)), "reading batch.vocabSize threw an exception"],
  [() => ex.recoverTokens(unlisted, f64(1, 1)), "listing the fields of batch threw an exception"],
  [() => ex.recoverTokens(batch({ targetProbs: fakeArray("x") }), f64(1, 1)), "the WasmArray was freed"],
  [() => ex.recoverTokens(batch({ targetProbs: fakeArray(undefined, true) }), f64(1, 1)), "the WasmArray was freed"],
  [() => ex.recoverTokens(batch({ targetProbs: noConstructor }), f64(1, 1)), "batch.targetProbs must be a Float32Array"],
  [() => ex.rejectionSample({ batch: batch(), invQ: f64(1, 1), uniform: f64(0.5) }), "give either bonusTokenIds"],
  [() => ex.rejectionSample({ batch: batch(), invQ: f64(1, 1), uniform: f64(1.5), bonusTokenIds: i32(0) }), "outside [0, 1] value 1.5 in uniform"],
  [() => ex.rejectionSample({ batch: batch(), invQ: f64(1, 1), uniform: f64(0.5), bonusProbs: f32(1, 1), bonusInvQ: f32(1, 1) }), "inputs.bonusInvQ must be a Float64Array like invQ"],
  [() => ex.rejectionSample({ batch: batch(), invQ: f64(1, 1), uniform: f64(0.5), bonusTokenIds: i32(0), greedy: [1] }), "inputs.greedy[0] must be a boolean, got number"],
  [() => {
    // 50,000 requests, all drafts in the last one: the output would be 50,000 x 50,001 ids.
    const n = 50000;
    const cu = new Int32Array(n); cu[n - 1] = n;
    return ex.rejectionSample({
      batch: { vocabSize: 1, cuNumDraftTokens: cu, draftTokenIds: new Int32Array(n), targetProbs: new Float32Array(n) },
      invQ: new Float64Array(n), uniform: new Float64Array(n), bonusTokenIds: new Int32Array(n),
    });
  }, "more than wasm memory can hold"],
  [() => ex.run(5), "scenario must be an object or JSON text, got number"],
  [() => ex.run(null), "scenario must be an object or JSON text, got null"],
  [() => ex.run("{ not json"), "invalid JSON"],
  [() => ex.run({}), "scenario"],
  [() => ex.run({ exporace: 2, op: "race", precision: "f32", weights: [1] }), "format version 2 is not supported"],
  [() => ex.run({ exporace: 1, op: "race", precision: "f16", weights: [1] }), "f16"],
  [() => ex.run({ exporace: 1, op: "race", precision: "f32", weights: [1], wieghts: [2] }), "wieghts"],
  [() => ex.run({ exporace: 1, op: "race", precision: "f32", seed: -1n, weights: [1] }), "scenario"],
  [() => ex.run({ exporace: 1, op: "race", precision: "f32", weights: [1], noise: ["x"] }), "not a number"],
  [() => ex.run({ exporace: 1, op: "recover", precision: "f64", seed: 1, vocab_size: 2 ** 20,
    cu_num_draft_tokens: new Array(100).fill(0), draft_token_ids: [], target_probs: [] }), "over the limit"],
  [() => {
    let deep = { exporace: 1, op: "race", precision: "f32", weights: [1] };
    for (let i = 0; i < 4000; i++) deep = { x: deep };
    return ex.run(deep);
  }, "scenario: it nests deeper than 100 levels"],
  [() => {
    const cyclic = { exporace: 1, op: "race", precision: "f32", weights: [1] };
    cyclic.self = cyclic;
    return ex.run(cyclic);
  }, "scenario: it nests deeper than 100 levels"],
  [() => ex.readNpy(42, new Uint8Array(8)), "name must be a string, got number"],
  [() => ex.readNpy(null, new Uint8Array(8)), "name must be a string, got null"],
  [() => ex.readNpy("t", 42), "bytes must be a Uint8Array, got number"],
  [() => ex.readNpyTensor({}, new Uint8Array(8)), "name must be a string, got Object"],
  [() => ex.readSafetensors(null), "bytes must be a Uint8Array, got null"],
  [() => new ex.WasmArray(4), "dtype must be a string, got number"],
  [() => new ex.WasmArray(null, 4), "dtype must be a string, got null"],
  [() => ex.winProbabilities({}, f64(1), f64(1)), "model must be a string, got Object"],
  [() => ex.compareOf(null, "ideal", f32(1, 0.5), 1, 0), "modelA must be a string, got null"],
  [() => ex.compareOf("ideal", 3, f32(1, 0.5), 1, 0), "modelB must be a string, got number"],
  [() => ex.compareOf("ideal", "nope", f32(1, 0.5), 1, 0), "unknown model \"nope\""],
  [() => ex.compareOf("ideal", "ideal", f32(1, NaN), 1, 0), "NaN value NaN in weights at index 1"],
  [() => ex.compareOf("ideal", "ideal", [1, 0.5], 1, 0), "weights must be"],
  [() => ex.compareOf("ideal", "ideal", f32(1, 0.5), -1, 0), "seed must be a non-negative integer"],
  [() => ex.compareOf("ideal", "ideal", f32(1, 0.5), 1, 2 ** 64), "row must be a non-negative integer"],
  [() => ex.compareOf("ideal", "ideal", f32(1, 0.5), 1, 0, { nanPolicy: "maybe" }), "unknown variant `maybe`"],
  [() => ex.compareOf("ideal", "ideal", f32(1, 0.5), 1, 0, { nanPolcy: "reject" }), "nanPolcy"],
  [() => ex.deadZoneOf(null, f32(1, 0.5)), "model must be a string, got null"],
  [() => ex.deadZoneOf("nope", f32(1, 0.5)), "unknown model \"nope\""],
  [() => ex.deadZoneOf("ideal", f32(1, NaN)), "NaN value NaN in weights at index 1"],
  [() => ex.deadZoneOf("ideal", "1 2"), "weights must be"],
  [() => ex.deadZoneOf("ideal", f32(1, 0.5), "f16"), "precision must be \"f32\" or \"f64\", got \"f16\""],
  [() => ex.weightGroups([1, 2]), "weights must be"],
  [() => ex.weightGroups(f64(1, 2)), "weights must be"],
  [() => ex.weightGroups(null), "weights must be"],
  [() => ex.deadZoneOfGroups(null, f64(1), f64(1)), "model must be a string, got null"],
  [() => ex.deadZoneOfGroups("nope", f64(1), f64(1)), "unknown model \"nope\""],
  [() => ex.deadZoneOfGroups("ideal", f64(1, NaN), f64(1, 1)), "NaN value NaN in group weights at index 1"],
  [() => ex.deadZoneOfGroups("ideal", f64(1, -2), f64(1, 1)), "group weights at index 1"],
  [() => ex.deadZoneOfGroups("ideal", "1 2", f64(1, 1)), "weights must be"],
  [() => ex.deadZoneOfGroups("ideal", f64(1, 0.5), f64(1)), "length mismatch for counts"],
  [() => ex.deadZoneOfGroups("ideal", f64(1, 0.5), f64(1, 0)), "counts[1] must be a whole number in [1, 2^53], got 0"],
  [() => ex.deadZoneOfGroups("ideal", f64(1, 0.5), f64(1, 1.5)), "counts[1] must be a whole number"],
  [() => ex.deadZoneOfGroups("ideal", f64(1, 0.5), f64(1, 2 ** 31)), "over the limit of 2147483647"],
  [() => ex.deadZoneOfGroups("ideal", f64(0, 0), f64(1, 1)), "every weight is zero"],
  [() => ex.deadZoneOfGroups("ideal", f64(1), f64(1), "f16"), "precision must be \"f32\" or \"f64\", got \"f16\""],
  [() => ex.runExperiment(7, f32(1), null, { trials: 1 }), "model must be a string, got number"],
  [() => ex.runExperiment("ideal", f32(1), null, { trials: 1 }, 5), "onProgress must be a function, got number"],
  [() => ex.transformUniform(null, "f32", { raw: 0n }), "model must be a string, got null"],
  [() => ex.writeSafetensors([{ name: "__metadata__", data: f32(1) }]), "reserved by the safetensors format"],
  [() => ex.runExperiment("ideal", f32(1, 1), null, { sampler: "race", trials: 2 ** 53 }), "trials is 9007199254740992, over the limit of 4294967296"],
  [() => ex.winProbabilities("ideal", Float64Array.from({ length: 100000 }, (_, i) => i + 1), new Float64Array(100000).fill(1)), "exact work (groups^2 x max_nodes"],
];

// The codes the declarations list for ExporaceError.
const root = createRequire(import.meta.url).resolve("exporace/package.json").replace(/package\.json$/, "");
const dts = declarations(root);
const codes = [...dts.slice(dts.indexOf("export type ErrorCode"), dts.indexOf("export class ExporaceError")).matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]);

const golden = () => {
  const s = json("race_f32.scenario.json");
  const invQ = new Float32Array(s.weights.length);
  ex.fillInvQ(BigInt(s.seed), "race", 0n, invQ);
  return ex.raceMul(new Float32Array(s.weights), invQ).winner.bits;
};

test("every garbage call throws an Error naming the problem, and a normal call still works", () => {
  const expected = json("race_f32.result.json").result.winner.bits;
  assert.equal(golden(), expected);
  for (const [i, [call, fragment]] of garbage.entries()) {
    let error = null;
    try {
      call();
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof ex.ExporaceError, `case ${i} (${fragment}): threw ${error}`);
    assert.ok(error instanceof Error && error.name === "ExporaceError", `case ${i}`);
    assert.ok(codes.includes(error.code), `case ${i}: code ${error.code} is not declared`);
    assert.ok(error.message.includes(fragment), `case ${i}: "${error.message}" lacks "${fragment}"`);
    assert.equal(golden(), expected, `case ${i} left the module broken`);
  }
});

test("thousands of failing calls leave the module usable", () => {
  for (let i = 0; i < 5000; i++) {
    assert.throws(() => ex.recoverTokens(batch({ draftTokenIds: i32(9) }), f64(1, 1)));
    assert.throws(() => ex.randint(-1n, 0n));
  }
  assert.equal(golden(), json("race_f32.result.json").result.winner.bits);
});

test("symbol keys are not fields; a field name is matched whole", () => {
  const tagged = { ...batch(), [Symbol("tag")]: 1 };
  assert.equal(ex.recoverTokens(tagged, f64(1, 1))[0].winner.token, 1, "the draft token 0 is zeroed");
  assert.throws(() => ex.recoverTokens(batch({ vocabSiz: 2 }), f64(1, 1)), /unknown field "vocabSiz"/);
  assert.throws(() => ex.raceMul(f32(1), f64(1), { nanPolicyX: "reject" }), /unknown field "nanPolicyX"/);
});

test("calls cut short by JavaScript's stack limit leave the module working", () => {
  // Each frame on the way back up from the deepest one calls the module, so
  // the stack runs out at many different points inside and around the calls.
  const calls = [
    () => ex.recoverTokens(batch(), f64(1, 1), { nanPolicy: "first_nan_wins" }),
    () => ex.raceMul(f32(1, 2), f64(1, 1), { nanPolicy: "first_nan_wins" }),
    () => ex.run({ exporace: 1, op: "race", precision: "f32", seed: 1n, weights: [1, 2] }),
    () => ex.runExperiment("ideal", f32(1, 1), null, { trials: 10 }, () => {}),
  ];
  let cut = 0;
  for (let round = 0; round < 10; round++) {
    let budget = 300;
    const dive = (d) => {
      try {
        dive(d + 1);
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
      }
      if (budget-- > 0) {
        for (const call of calls) {
          try {
            call();
          } catch {
            cut++;
          }
        }
      }
    };
    dive(0);
  }
  assert.ok(cut > 0, "some calls ran out of stack");
  assert.equal(golden(), json("race_f32.result.json").result.winner.bits);
  assert.equal(ex.recoverTokens(batch(), f64(1, 1))[0].winner.token, 1);
  assert.equal(ex.raceMul(f32(1, 2), f64(1, 1), { nanPolicy: "reject" }).winner.token, 1);
  assert.equal(ex.run({ exporace: 1, op: "race", precision: "f32", seed: 1n, weights: [1, 2] }).op, "race");
});

test("errors carry a stable code for their kind", () => {
  const code = (call) => {
    try {
      call();
    } catch (e) {
      return e.code;
    }
    return null;
  };
  assert.ok(codes.length >= 18, codes.join());
  assert.equal(code(() => ex.raceMul("weights", f64(1))), "BAD_TYPE");
  assert.equal(code(() => ex.raceMul(f32(1, NaN), f64(1, 1))), "BAD_VALUE");
  assert.equal(code(() => ex.raceMul(f32(1, 2), f64(1, 2, 3))), "LENGTH_MISMATCH");
  assert.equal(code(() => ex.raceMul(f32(), f64())), "EMPTY_VOCAB");
  assert.equal(code(() => ex.raceMul(f32(1), f64(1), { nan_policy: "reject" })), "UNKNOWN_FIELD");
  assert.equal(code(() => ex.raceMul(f32(0, 1), f64(Infinity, 1), { nanPolicy: "reject" })), "NAN_SCORE");
  assert.equal(code(() => ex.recoverTokens(batch({ draftTokenIds: i32(9) }), f64(1, 1))), "OUT_OF_RANGE");
  assert.equal(code(() => ex.recoverTokens(batch({ cuNumDraftTokens: i32(2, 1) }), f64(1, 1))), "BAD_LAYOUT");
  assert.equal(code(() => ex.recoverTokens(throwing, f64(1, 1))), "THREW");
  assert.equal(code(() => ex.recoverTokens(batch({ targetProbs: fakeArray("x") }), f64(1, 1))), "FREED_ARRAY");
  assert.equal(code(() => ex.readNpy("t", new Uint8Array(8))), "BAD_FILE");
  assert.equal(code(() => ex.run("{ not json")), "SCENARIO");
  assert.equal(code(() => ex.runExperiment("ideal", f32(1, 1), null, { sampler: "race", trials: 2 ** 53 })), "TOO_LARGE");
});

/** The ExporaceError a call throws (the test fails if it returns or throws anything else). */
function refusal(call, label) {
  try {
    call();
  } catch (e) {
    assert.ok(e instanceof ex.ExporaceError, `${label}: threw ${e}`);
    assert.ok(codes.includes(e.code), `${label}: code ${e.code} is not declared`);
    return e;
  }
  assert.fail(`${label}: returned instead of throwing`);
}

test("scenario objects refuse values JSON cannot write, naming the field, where they meant a fresh seed or seeded noise", () => {
  const expected = json("race_f32.result.json").result.winner.bits;
  const race = (over) => ({ exporace: 1, op: "race", precision: "f32", seed: 1, weights: [1, 2], ...over });
  const cases = [
    [() => ex.run(race({ seed: NaN })), 'field "seed" is NaN'],
    [() => ex.run(race({ seed: Infinity })), 'field "seed" is Infinity'],
    [() => ex.run(race({ seed: undefined })), 'field "seed" is undefined'],
    [() => ex.runText(race({ seed: -Infinity })), 'field "seed" is -Infinity'],
    [() => ex.run(race({ noise: NaN })), 'field "noise" is NaN'],
    [() => ex.run(race({ noise: [1, NaN] })), 'field "noise[1]" is NaN'],
    [() => ex.run(race({ noise: new Float64Array([1, Infinity]) })), 'field "noise[1]" is Infinity'],
    [() => ex.run(race({ weights: [1, , 2] })), 'field "weights[1]" is undefined (or a hole)'],
    [() => ex.run(race({ weights: [1, undefined] })), 'field "weights[1]" is undefined'],
    [() => ex.run(race({ tag: () => 1 })), 'field "tag" is a function'],
    [() => ex.run(race({ tag: Symbol("t") })), 'field "tag" is a symbol'],
    [() => ex.noise({ model: "ideal", count: 1, seed: Infinity }), 'noise: field "seed" is Infinity'],
    [() => ex.noise({ model: "ideal", count: 1, seed: NaN }), 'noise: field "seed" is NaN'],
    [() => ex.compare({ weights: [1, 0.5], models: ["ideal", "ideal"], seed: NaN }), 'compare: field "seed" is NaN'],
    [() => ex.compare({ weights: [1, 0.5], models: [{ model: "ideal", precision: undefined }, "ideal"], seed: 1 }), 'field "models[0].precision" is undefined'],
    [() => ex.deadZone({ weights: [1, -Infinity], model: "ideal" }), 'field "weights[1]" is -Infinity'],
    [() => ex.overflow({ weights: [1, 0.5], noise: [NaN, 1] }), 'field "noise[0]" is NaN'],
  ];
  for (const [call, fragment] of cases) {
    const e = refusal(call, fragment);
    assert.equal(e.code, "SCENARIO", fragment);
    assert.ok(e.message.includes(fragment), `"${e.message}" lacks "${fragment}"`);
    assert.equal(golden(), expected, `${fragment} left the module broken`);
  }
  assert.match(refusal(() => ex.run(race({ seed: NaN })), "advice").message, /write "nan", "inf" or "-inf" as strings/);
  // A getter that throws inside a scenario: THREW, naming the field.
  const e = refusal(() => ex.noise({ model: "ideal", count: 1, get seed() { throw new Error("mine"); } }), "getter");
  assert.equal(e.code, "THREW");
  assert.match(e.message, /reading field "seed" threw: mine/);
  // The strings the format takes for non-finite tensor values still work; -0 reaches the reader as -0.
  assert.equal(ex.run(race({ weights: [1, 2], noise: ["inf", 1] })).result.winner.score, "inf");
  assert.equal(refusal(() => ex.run(race({ form: "div", weights: [1, 2], noise: [-0, 1] })), "-0").code, "BAD_VALUE");
  assert.equal(ex.run(race({ form: "div", weights: [1, 2], noise: [0, 1] })).result.winner.score, "inf");
  assert.equal(golden(), expected);
});

test("huge arrays in scenario objects are refused from their length, before anything is written", () => {
  const cases = [
    () => ex.run({ exporace: 1, op: "race", precision: "f32", weights: new Array(1e8) }),
    () => ex.runText({ exporace: 1, op: "race", precision: "f32", weights: new Float32Array(2 ** 23 + 1) }),
    () => ex.compare({ weights: new Array(1e8), models: ["ideal", "ideal"], seed: 1 }),
    () => ex.deadZone({ weights: new Array(2 ** 23 + 1), model: "ideal" }),
    () => ex.overflow({ weights: [1], noise: { deeper: [new Array(1e9)] } }),
  ];
  for (const [i, call] of cases.entries()) {
    const t0 = performance.now();
    const e = refusal(call, `case ${i}`);
    assert.equal(e.code, "TOO_LARGE", `case ${i}: ${e.message}`);
    assert.match(e.message, /entries, over the limit of 8388608 values/, `case ${i}`);
    assert.ok(performance.now() - t0 < 1000, `case ${i} took ${performance.now() - t0} ms`);
  }
  assert.equal(golden(), json("race_f32.result.json").result.winner.bits);
});

test("runExperiment refuses too many trials and too long a target or draft before copying them", () => {
  const big = new Float32Array(2 ** 23 + 1);
  const cases = [
    [() => ex.runExperiment("ideal", big, null, { sampler: "race", trials: 10 }), "target has 8388609 values, over the limit of 8388608"],
    [() => ex.runExperiment("ideal", f32(1, 1), big, { sampler: "recovered", trials: 10 }), "draft has 8388609 values, over the limit"],
    [() => ex.runExperiment("ideal", big, null, { sampler: "race", trials: 2 ** 40 }), "options.trials is 1099511627776, over the limit of 4294967296"],
  ];
  const held = ex.WasmArray.from(big);
  cases.push([() => ex.runExperiment("ideal", held, null, { sampler: "race", trials: 10 }), "target has 8388609 values"]);
  for (const [call, fragment] of cases) {
    const t0 = performance.now();
    const e = refusal(call, fragment);
    assert.equal(e.code, "TOO_LARGE", e.message);
    assert.ok(e.message.includes(fragment), `"${e.message}" lacks "${fragment}"`);
    assert.ok(performance.now() - t0 < 1000, `${fragment}: took ${performance.now() - t0} ms`);
  }
  held.free();
  assert.equal(ex.runExperiment("ideal", f32(1, 1), null, { sampler: "race", trials: 10 }).trials, 10);
});

test("detached and proxied typed arrays, and getters that throw inside options, are ExporaceErrors", () => {
  const expected = json("race_f32.result.json").result.winner.bits;
  const detached = (Arr) => {
    const a = new Arr(4);
    structuredClone(a.buffer, { transfer: [a.buffer] });
    return a;
  };
  const throwing = (field) => ({ get [field]() { throw new Error("mine"); } });
  const cases = [
    [() => ex.raceMul(detached(Float32Array), f64()), "BAD_ARGUMENT", "weights: its ArrayBuffer was detached"],
    [() => ex.raceMul(f32(1), detached(Float64Array)), "BAD_ARGUMENT", "invQ: its ArrayBuffer was detached"],
    [() => ex.fillInvQ(1n, "race", 0n, detached(Float32Array)), "BAD_ARGUMENT", "out: its ArrayBuffer was detached"],
    [() => ex.recoverTokens(batch({ draftTokenIds: detached(Int32Array) }), f64(1, 1)), "BAD_ARGUMENT", "batch.draftTokenIds: its ArrayBuffer was detached"],
    [() => ex.readNpy("t", detached(Uint8Array)), "BAD_ARGUMENT", "bytes: its ArrayBuffer was detached"],
    [() => ex.WasmArray.from(detached(Float64Array)), "BAD_ARGUMENT", "array: its ArrayBuffer was detached"],
    [() => ex.writeNpy({ data: detached(BigInt64Array) }), "BAD_ARGUMENT", "tensor.data: its ArrayBuffer was detached"],
    [() => ex.raceMul(new Proxy(f32(1, 2, 3), {}), f64(1, 1, 1)), "BAD_TYPE", "weights must be a Float32Array, got an object whose typed-array length cannot be read"],
    [() => ex.fillQ(1n, "race", 0n, new Proxy(new Float64Array(3), {})), "BAD_TYPE", "out must be a Float64Array"],
    [() => ex.raceMul(f32(1), f64(1), throwing("nanPolicy")), "THREW", "reading options.nanPolicy threw an exception: mine"],
    [() => ex.raceSeeded(f32(1), 1n, "race", 0n, throwing("form")), "THREW", "reading options.form threw an exception: mine"],
    [() => ex.compareOf("ideal", "ideal", f32(1, 0.5), 1, 0, throwing("nanPolicy")), "THREW", "reading options.nanPolicy threw"],
    [() => ex.runExperiment("ideal", f32(1, 1), null, Object.assign(throwing("trials"), { sampler: "race" })), "THREW", "reading options.trials threw an exception: mine"],
    [() => ex.raceMul(f32(1), f64(1), { nanPolicy: { toString() { return "reject"; } } }), "BAD_TYPE", "options.nanPolicy must be a string, a number or a boolean, got Object"],
    [() => ex.writeNpy({ data: f32(1, 2), shape: [1, {}] }), "BAD_ARGUMENT", "tensor.shape[1] must be a whole number"],
    [() => ex.writeNpy({ data: f32(1, 2), shape: Object.defineProperty([1, 2], 1, { get() { throw new Error("mine"); } }) }), "THREW", "reading tensor.shape[1] threw an exception: mine"],
    [() => ex.writeSafetensors(Object.defineProperty([], 0, { get() { throw new Error("mine"); }, enumerable: true })), "THREW", "reading tensors[0] threw an exception: mine"],
  ];
  for (const [call, code, fragment] of cases) {
    const e = refusal(call, fragment);
    assert.equal(e.code, code, `${fragment}: ${e.message}`);
    assert.ok(e.message.includes(fragment), `"${e.message}" lacks "${fragment}"`);
    assert.equal(golden(), expected, `${fragment} left the module broken`);
  }
  // An empty typed array that was never detached is still an empty argument.
  assert.equal(refusal(() => ex.raceMul(f32(), f64()), "empty").code, "EMPTY_VOCAB");
});
