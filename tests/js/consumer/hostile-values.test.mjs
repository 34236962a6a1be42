// Every export, every argument and every field of its option objects, given
// each hostile value in turn; then, from a fixed seed, calls with two of them
// at once. Each call returns or throws an ExporaceError with a declared code,
// and a known race works after it.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as ex from "exporace";
import { known, rng } from "./fuzzing.mjs";

/** A fresh Float32Array whose buffer was transferred away. */
const detached = (Arr) => {
  const a = new Arr(4);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
};
/** Objects nested `n` deep. */
const nested = (n, make) => {
  let v = 1;
  for (let i = 0; i < n; i++) v = make(v);
  return v;
};
const THROWS = new Error("hostile getter");
const trap = () => {
  throw THROWS;
};
/** Every trap throws. */
const throwingProxy = () => new Proxy({}, { get: trap, has: trap, ownKeys: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap });
/** A getter that throws, in place of a field (a value for a whole argument: a proxy that throws). */
const GETTER = Symbol("a getter that throws");

const HOSTILE = [
  ["NaN", () => NaN], ["Infinity", () => Infinity], ["-Infinity", () => -Infinity], ["-0", () => -0],
  ["2^53", () => 2 ** 53], ["1e300", () => 1e300], ["-1", () => -1], ["1.5", () => 1.5], ["2^31", () => 2 ** 31],
  ["2^64n", () => 2n ** 64n], ["-1n", () => -1n], ["2^200n", () => 2n ** 200n],
  ["a string", () => "x"], ["an empty string", () => ""], ["true", () => true], ["null", () => null],
  ["undefined", () => undefined], ["a symbol", () => Symbol("s")], ["a function", () => () => 1],
  ["an object", () => ({})], ["an array", () => [1]], ["a null-prototype object", () => Object.create(null)],
  ["a sparse array of 10^8", () => new Array(1e8)],
  ["a Float32Array", () => new Float32Array([1, 2, 3])], ["a Float64Array", () => new Float64Array([1, 2, 3])],
  ["an Int32Array", () => new Int32Array([0, 1, 2])], ["a Uint8Array", () => new Uint8Array(8)],
  ["a BigInt64Array", () => new BigInt64Array(3)], ["a DataView", () => new DataView(new ArrayBuffer(8))],
  ["a proxy around a Float32Array", () => new Proxy(new Float32Array(3), {})],
  ["a proxy around a Float64Array", () => new Proxy(new Float64Array(3), {})],
  ["a detached Float32Array", () => detached(Float32Array)], ["a detached Float64Array", () => detached(Float64Array)],
  ["a detached Int32Array", () => detached(Int32Array)], ["a detached Uint8Array", () => detached(Uint8Array)],
  ["a freed WasmArray", () => {
    const w = new ex.WasmArray("float32", 3);
    w.free();
    return w;
  }],
  ["a proxy that throws", throwingProxy], ["a getter that throws", () => GETTER],
  ["objects nested 10^4 deep", () => nested(10_000, (v) => ({ x: v }))],
  ["arrays nested 10^4 deep", () => nested(10_000, (v) => [v])],
  ["a cycle", () => {
    const o = { x: 1 };
    o.self = o;
    return o;
  }],
];

const f32 = (...x) => new Float32Array(x);
const f64 = (...x) => new Float64Array(x);
const i32 = (...x) => new Int32Array(x);
/** A progress callback that stops a run after a second (a hostile trial count may ask for hours). */
const patient = () => {
  const start = performance.now();
  return () => {
    if (performance.now() - start > 1000) throw new Error("a second is enough");
  };
};
const goodBatch = () => ({ vocabSize: 2, cuNumDraftTokens: i32(1), draftTokenIds: i32(0), targetProbs: f32(0.5, 0.5) });

/** A well-formed call of every export. */
const GOOD = {
  raceMul: () => [f32(0.25, 0.75), f64(1, 1), { nanPolicy: "reject" }],
  raceDiv: () => [f32(0.25, 0.75), f32(1, 1), { nanPolicy: "nan_never_wins" }],
  raceSeeded: () => [f32(0.25, 0.75), 5n, "race", 0n, { form: "mul", precision: "f64", nanPolicy: "first_nan_wins" }],
  recoverTokens: () => [goodBatch(), f64(1, 1), { nanPolicy: "first_nan_wins" }],
  recoverTokensTraced: () => [goodBatch(), f64(1, 1), { nanPolicy: "first_nan_wins" }],
  rejectionSample: () => [{ batch: goodBatch(), invQ: f64(1, 1), uniform: f64(0.5), bonusTokenIds: i32(0) }, { nanPolicy: "reject" }],
  fillInvQ: () => [1n, "race", 0n, new Float64Array(3)],
  fillQ: () => [1n, "accept", 2, new Float32Array(3)],
  fillUniform: () => [1n, "accept", 0n, new Float64Array(3)],
  randint: () => [1n, 0n],
  randint4x: () => [1n, 4],
  rand: () => [1, 0n],
  transformUniform: () => ["torch-cuda-f32", "f32", { uniform: 0.5 }],
  residualWeights: () => [goodBatch(), 0],
  readNpy: () => ["t", ex.writeNpy({ data: f64(1, 2) })],
  readNpyTensor: () => ["t", ex.writeNpy({ data: f32(1, 2) })],
  readSafetensors: () => [ex.writeSafetensors([{ name: "p", data: f32(1, 2) }])],
  writeNpy: () => [{ data: f32(1, 2, 3, 4), shape: [2, 2], dtype: "f32" }],
  writeSafetensors: () => [[{ name: "p", data: f64(1, 2), shape: [2] }]],
  winProbabilities: () => ["ideal", f64(1, 0.5), f64(1, 3), "f32"],
  deadZoneOf: () => ["torch-cuda-f32", f32(1, 1e-9, 0.5), "f64"],
  deadZoneOfGroups: () => ["torch-cuda-f32", f64(1, 1e-9), f64(1, 3), "f32"],
  weightGroups: () => [f32(1, 1e-9, 1e-9)],
  compareOf: () => ["ideal", "torch-cuda-f32", f32(1, 1e-9, 0.5), 1n, 0, { nanPolicy: "reject" }],
  runExperiment: () => ["ideal", f32(0.3, 0.7), f32(0.5, 0.5), { sampler: "recovered", trials: 50, seed: 1, nanPolicy: "reject" }, patient()],
  inspectFloat: () => [1.5, "0x3f800000"],
  weightsFromLogits: () => [f64(-1, -2, -3), 0.5],
  compare: () => [{ weights: [1, 0.5], models: ["ideal", "torch-cuda-f32"], row: 1, seed: 3n, nanPolicy: "reject" }],
  noise: () => [{ model: "ideal", count: 2, start: 1, address: "exporace", row: 0, seed: "5" }],
  deadZone: () => [{ weights: [1, 1e-9], model: "torch-cuda-f32" }],
  sample: () => [{ model: "vllm-0.33-f32", logits: [0.5, 2, 1], seed: "5", pos: 3, temperature: 0.7, draft: true }],
  sampleHashed: () => ["vllm-0.33-f32", f32(0.5, 2, 1), 5n, { pos: 3n, temperature: 0.7, draft: true }],
  overflow: () => [{ weights: [1, 0.5], noise: [1, "inf"], form: "div", precision: "f64" }],
  models: () => [],
  run: () => [{ exporace: 1, op: "race", precision: "f32", nan_policy: "reject", seed: 1n, weights: [0.5, 0.25] }],
  runText: () => [{ exporace: 1, op: "race", precision: "f64", seed: "7", weights: [0.5, 0.25], noise: [1, 2] }],
  drawCurves: () => [{}, { series: [] }],
  drawBars: () => [{}, { categories: [] }],
  threadCount: () => [],
  initSync: () => [],
  "new WasmArray": () => ["float64", 3],
  "WasmArray.from": () => [f64(1, 2)],
};
/** The calls that answer with a promise. */
const ASYNC = {
  runExperimentAsync: () => ["ideal", f32(0.3, 0.7), null, { sampler: "race", trials: 20, seed: 1 }, { onProgress: patient(), signal: new AbortController().signal }],
  default: () => [{ threads: 1 }],
};

/** Runs the call named `name` with `args`. */
function call(name, args) {
  if (name === "new WasmArray") return new ex.WasmArray(...args);
  if (name === "WasmArray.from") return ex.WasmArray.from(...args);
  return ex[name](...args);
}

const isPlain = (v) => v !== null && typeof v === "object" && !ArrayBuffer.isView(v) && !(v instanceof AbortSignal);

/** The places a hostile value can go: each argument, and each field or entry of a plain object or array in it. */
function places(args) {
  const out = [];
  const walk = (v, path) => {
    if (!isPlain(v)) return;
    for (const k of Object.keys(v)) {
      out.push([...path, k]);
      walk(v[k], [...path, k]);
    }
  };
  args.forEach((a, i) => {
    out.push([i]);
    walk(a, [i]);
  });
  // One argument past the last: extra arguments are ignored or refused.
  out.push([args.length]);
  return out;
}

/** `args` with `value` put at `path` (a getter that throws where GETTER is asked). */
function put(args, path, value) {
  const parent = path.slice(0, -1).reduce((v, k) => v[k], args);
  const key = path.at(-1);
  if (value !== GETTER) parent[key] = value;
  else if (parent === args) parent[key] = throwingProxy();
  else Object.defineProperty(parent, key, { get: trap, enumerable: true, configurable: true });
  return args;
}

const declared = new Set(["EMPTY_VOCAB", "LENGTH_MISMATCH", "BAD_VALUE", "NAN_SCORE", "BAD_LAYOUT", "OUT_OF_RANGE",
  "TOO_LARGE", "ALL_ZERO", "CANCELLED", "BAD_ARGUMENT", "ENTROPY", "SCENARIO", "BAD_TYPE", "UNKNOWN_FIELD", "THREW",
  "FREED_ARRAY", "FOREIGN_ARRAY", "BAD_FILE"]);

/** Checks one outcome: returned, or threw an ExporaceError with a declared code; and the module still answers. */
function judge(label, thrown, took) {
  if (thrown !== undefined) {
    assert.ok(
      thrown instanceof ex.ExporaceError && declared.has(thrown.code),
      `${label}: threw ${thrown?.constructor?.name} ${thrown?.code}: ${thrown?.message}`,
    );
  }
  assert.ok(took < 5000, `${label}: took ${took} ms`);
  assert.equal(known(), 1, `${label}: left the module broken`);
}

test("every export, argument and option field takes each hostile value: a result or an ExporaceError", async () => {
  const exported = Object.keys(ex).filter((n) => typeof ex[n] === "function" && !["ExporaceError", "WasmArray"].includes(n));
  const covered = new Set([...Object.keys(GOOD), ...Object.keys(ASYNC)]);
  assert.deepEqual(exported.filter((n) => !covered.has(n)), [], "every exported function has a well-formed call");
  let cases = 0;
  const tally = { returned: 0, refused: 0 };
  /** Runs one case (awaiting a promise it gives) and judges it. */
  const attempt = async (label, run) => {
    const t0 = performance.now();
    let thrown;
    try {
      await run();
      tally.returned++;
    } catch (e) {
      thrown = e;
      tally.refused++;
    }
    judge(label, thrown, performance.now() - t0);
    cases++;
  };
  for (const [name, good, run] of [
    ...Object.entries(GOOD).map(([n, g]) => [n, g, (args) => call(n, args)]),
    ...Object.entries(ASYNC).map(([n, g]) => [n, g, (args) => ex[n](...args)]),
  ]) {
    for (const path of places(good())) {
      for (const [what, make] of HOSTILE) {
        const args = put(good(), path, make());
        await attempt(`${name} with ${what} at ${path.join(".")}`, () => run(args));
      }
    }
  }
  // Two hostile values at once, from a fixed seed. runExperiment's progress
  // callback may be replaced too, leaving its run unbounded: left out.
  const r = rng(52);
  const names = Object.keys(GOOD).filter((n) => n !== "runExperiment");
  for (let i = 0; i < 3000; i++) {
    const name = names[Math.floor(r() * names.length)];
    let args = GOOD[name]();
    const spots = places(args);
    const chosen = [];
    for (let k = 0; k < 2; k++) {
      const path = spots[Math.floor(r() * spots.length)];
      const [what, make] = HOSTILE[Math.floor(r() * HOSTILE.length)];
      chosen.push(`${what} at ${path.join(".")}`);
      try {
        args = put(args, path, make());
      } catch {
        // The first value replaced an object the second path went into.
      }
    }
    await attempt(`seeded call ${i}: ${name} with ${chosen.join(" and ")}`, () => call(name, args));
  }
  console.log(`hostile cases: ${cases} (${tally.returned} returned, ${tally.refused} refused)`);
  assert.ok(cases > 10_000, `${cases} cases`);
  assert.ok(tally.returned > 100 && tally.refused > 5000, JSON.stringify(tally));
});
