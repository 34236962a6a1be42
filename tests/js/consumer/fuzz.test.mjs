// Random calls with random arguments, from fixed seeds: every call returns or
// throws an ExporaceError (never a trap or another error), no call takes
// longer than 5 s, and the module answers a known race correctly after every
// failure. 10^5 calls in all; then each export, argument and option field
// given each hostile value of a fixed list (over 12,000 calls).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as ex from "exporace";

/** xorshift64*, the fuzzer's own generator. */
function rng(seed) {
  let s = BigInt(seed) | 1n;
  const M = (1n << 64n) - 1n;
  return () => {
    s ^= s >> 12n;
    s ^= (s << 25n) & M;
    s ^= s >> 27n;
    return Number(((s * 2685821657736338717n) & M) >> 11n) / 2 ** 53;
  };
}

const FUNCTIONS = [
  "raceMul", "raceDiv", "raceSeeded", "recoverTokens", "rejectionSample", "fillInvQ", "fillQ",
  "fillUniform", "randint", "randint4x", "rand", "transformUniform", "residualWeights", "readNpy",
  "readSafetensors", "readNpyTensor", "writeNpy", "writeSafetensors", "winProbabilities", "deadZoneOf", "deadZoneOfGroups", "weightGroups", "compareOf",
  "runExperiment", "inspectFloat", "weightsFromLogits", "run", "sampleHashed",
];
const SLOW = ["runExperiment", "winProbabilities"];
const MODELS = ["ideal", "torch-cuda-f32", "triton-flipped", "u64-f64-classic", "nope"];
const STRINGS = ["race", "accept", "f32", "f64", "float32", "int32", "mul", "div", "reject", "", "x".repeat(300), "\u0000"];
const NUMBERS = [0, 1, -1, 0.5, 2, 3, 7, 1e-40, 2 ** 31, 2 ** 40, 2 ** 53, -0, NaN, Infinity, -Infinity, 1.5];

function value(r, depth = 0) {
  const pick = (a) => a[Math.floor(r() * a.length)];
  const len = () => pick([0, 1, 2, 3, 5, 8, 17]);
  const k = Math.floor(r() * 17);
  switch (k) {
    case 0: return undefined;
    case 1: return null;
    case 2: return pick(NUMBERS);
    case 3: return BigInt(Math.floor(r() * 2 ** 20)) * pick([1n, -1n, 2n ** 44n]);
    case 4: return pick(STRINGS.concat(MODELS));
    case 5: return Float32Array.from({ length: len() }, () => pick(NUMBERS));
    case 6: return Float64Array.from({ length: len() }, () => pick(NUMBERS));
    case 7: return Int32Array.from({ length: len() }, () => Math.floor(r() * 6) - 1);
    case 8: return Uint8Array.from({ length: len() * 8 }, () => Math.floor(r() * 256));
    case 9: return Array.from({ length: len() }, () => (depth < 3 ? value(r, depth + 1) : 1));
    case 10: {
      const o = {};
      for (const key of ["vocabSize", "cuNumDraftTokens", "draftTokenIds", "targetProbs", "draftProbs",
        "nanPolicy", "form", "precision", "sampler", "trials", "seed", "batch", "invQ", "uniform",
        "bonusTokenIds", "raw", "uniformValue", "exporace", "op", "weights", "data", "shape", "name"]) {
        // Trials below the cap run for as long as they take (with progress):
        // the fuzzer asks for few, or for more than the cap.
        if (key === "trials") o[key] = pick([0, 1, 10, -1, 1.5, NaN, 2 ** 33, 2 ** 53, 1e300]);
        else if (r() < 0.3) o[key] = depth < 3 ? value(r, depth + 1) : pick(NUMBERS);
      }
      return o;
    }
    case 11: return { exporace: 1, op: pick(["race", "recover", "noise", "models", "exact", "compare"]), precision: pick(["f32", "f64"]), seed: pick([1, 2n, "3"]), weights: [0.5, 0.25, 0.25], model: pick(MODELS), count: pick([1, 3, 2 ** 30]), start: pick([0, 2 ** 53]) };
    case 12: return new Proxy({}, { get() { throw new RangeError("boom"); }, ownKeys() { throw new TypeError("keys"); } });
    case 13: return Object.create(null);
    case 14: return () => {};
    case 15: return Symbol("s");
    default: return { vocabSize: 2, cuNumDraftTokens: new Int32Array([1]), draftTokenIds: new Int32Array([pick([0, 1, 2, -1])]), targetProbs: new Float32Array([pick(NUMBERS), 0.5]) };
  }
}

/** A well-formed call of each function, from which one argument may be replaced. */
function wellFormed(r, name) {
  const pick = (a) => a[Math.floor(r() * a.length)];
  const n = pick([1, 2, 3, 16, 64]);
  const probs = () => Float32Array.from({ length: n }, () => r());
  const batch = () => ({
    vocabSize: n,
    cuNumDraftTokens: new Int32Array([1, 2]),
    draftTokenIds: new Int32Array([Math.floor(r() * n), 0]),
    targetProbs: Float32Array.from({ length: 2 * n }, () => r()),
  });
  const noise = (len) => (r() < 0.5 ? new Float32Array(len) : new Float64Array(len)).fill(1 + r());
  const opts = () => pick([undefined, null, { nanPolicy: pick(["first_nan_wins", "nan_never_wins", "reject"]) }]);
  const seed = () => pick([0n, 1n, 2n ** 63n, 7, 12345]);
  switch (name) {
    case "raceMul":
    case "raceDiv": return [probs(), noise(n), opts()];
    case "raceSeeded": return [probs(), seed(), pick(["race", "bonus"]), pick([0, 1n]), { form: pick(["mul", "div"]), precision: pick(["f32", "f64"]) }];
    case "recoverTokens": return [batch(), noise(2 * n), opts()];
    case "rejectionSample": return [{ batch: batch(), invQ: new Float64Array(2 * n).fill(1), uniform: new Float64Array([r(), r()]), bonusTokenIds: new Int32Array([0, 0]) }, opts()];
    case "fillInvQ":
    case "fillQ": return [seed(), pick(["race", "accept", "draft"]), pick([0, 3n]), noise(n)];
    case "fillUniform": return [seed(), "accept", 0n, new Float64Array(n)];
    case "randint":
    case "randint4x":
    case "rand": return [seed(), pick([0, 1n, 2n ** 40n])];
    case "transformUniform": return [pick(MODELS.slice(0, 4)), pick(["f32", "f64", undefined]), pick([{ raw: 5n }, { uniform: r() }])];
    case "residualWeights": return [batch(), pick([0, 1])];
    case "inspectFloat": return [pick([1.5, "0x3f800000", 1e-40]), pick([undefined, 2])];
    case "weightsFromLogits": return [Float64Array.from({ length: n }, () => -10 * r()), pick([0.5, 1, 2])];
    case "deadZoneOf": return [pick(MODELS), new Float32Array([1, 1e-9, 0.5])];
    case "deadZoneOfGroups": return [pick(MODELS), new Float64Array([1, 1e-9]), new Float64Array([1, 3])];
    case "weightGroups": return [new Float32Array([1, 1e-9, 1e-9])];
    case "compareOf": return [pick(MODELS), pick(MODELS), new Float32Array([1, 1e-9, 0.5]), pick([1, 2n ** 64n - 1n]), pick([0, 5])];
    case "winProbabilities": return [pick(MODELS.slice(0, 4)), new Float64Array([1, 0.5]), new Float64Array([1, 3])];
    case "runExperiment": return [pick(MODELS.slice(0, 4)), new Float32Array([r(), r(), 0.5]), null, { sampler: "race", trials: pick([1, 10, 100]), seed: 1 }];
    case "writeNpy": return [{ data: probs() }];
    case "writeSafetensors": return [[{ name: "p", data: probs() }]];
    case "run": return [{ exporace: 1, op: "race", precision: pick(["f32", "f64"]), seed: seed(), weights: Array.from(probs()) }];
    case "sampleHashed": {
      const model = pick(["vllm-0.33-f32", "vllm-0.33-f64", "sglang-0.5", "vllm-cpu-0.32"]);
      const logits = Float32Array.from({ length: n }, () => -10 * r());
      if (model === "sglang-0.5") return [model, Float64Array.from(logits), seed(), { pos: pick([0, 3n]) }];
      if (model === "vllm-cpu-0.32") return [model, logits, seed()];
      return [model, logits, seed(), { pos: pick([0, 3n]), temperature: pick([0, 0.7, 1]), draft: r() < 0.5 }];
    }
    default: return [value(r), value(r)];
  }
}

const known = () => ex.raceMul(new Float32Array([0.25, 0.75]), new Float64Array([1, 1])).winner.token;

test("10^5 random calls: no trap, no other error, no hang, never a broken module", () => {
  assert.equal(known(), 1);
  const tally = { returned: 0, refused: 0 };
  let slowest = 0;
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
    const r = rng(seed);
    for (let i = 0; i < 10_000; i++) {
      // The exact computations cost milliseconds a call: a tenth as often.
      let name = FUNCTIONS[Math.floor(r() * FUNCTIONS.length)];
      while (SLOW.includes(name) && r() < 0.9) name = FUNCTIONS[Math.floor(r() * FUNCTIONS.length)];
      // Half the calls are well formed but for at most one argument.
      let args;
      if (r() < 0.5) {
        args = wellFormed(r, name);
        if (r() < 0.5) args[Math.floor(r() * args.length)] = value(r);
      } else {
        args = Array.from({ length: Math.floor(r() * 6) }, () => value(r));
      }
      const t0 = performance.now();
      try {
        ex[name](...args);
        tally.returned++;
      } catch (e) {
        assert.ok(
          e instanceof ex.ExporaceError,
          `seed ${seed} call ${i}: ${name} threw ${e && e.constructor && e.constructor.name}: ${e && e.message}`,
        );
        tally.refused++;
        assert.equal(known(), 1, `seed ${seed} call ${i}: ${name} left the module broken`);
      }
      const took = performance.now() - t0;
      slowest = Math.max(slowest, took);
      assert.ok(took < 5000, `seed ${seed} call ${i}: ${name} took ${took} ms`);
    }
  }
  assert.equal(tally.returned + tally.refused, 100_000);
  assert.ok(tally.returned > 20_000 && tally.refused > 20_000, JSON.stringify(tally));
  assert.equal(known(), 1);
});

// Every export, every argument and every field of its option objects, given
// each hostile value in turn; then, from a fixed seed, calls with two of them
// at once. Each call returns or throws an ExporaceError with a declared code,
// and a known race works after it.

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
