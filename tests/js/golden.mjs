// Helpers shared by the Node and browser tests: golden names, key casing, the
// synthetic recover batch, and bit-for-bit comparison.

/** Scenario goldens under tests/golden/ (`<name>.scenario.json` + `<name>.result.json`). */
export const SCENARIOS = [
  "race_f32",
  "race_f64_div",
  "recover_f32_draft",
  "recover_f64_ngram",
  "rejection_f64",
];

const camel = (k) => k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/** A JSON document with every object key in camelCase, as `run` returns it. */
export function camelKeys(v) {
  if (Array.isArray(v)) return v.map(camelKeys);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [camel(k), camelKeys(x)]));
  }
  return v;
}

/**
 * Every `bits` string in a document, visiting object keys in sorted order (as
 * the Rust side does), so that key order and casing do not matter.
 */
export function allBits(v, out = []) {
  if (Array.isArray(v)) v.forEach((x) => allBits(x, out));
  else if (v && typeof v === "object") {
    const entries = Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [k, x] of entries) {
      if (k === "bits" && typeof x === "string") out.push(x);
      else allBits(x, out);
    }
  }
  return out;
}

/**
 * The synthetic batch of recover_large.params.json, as typed arrays, with its
 * noise drawn by `fillInvQ` (one row per request, stream "race"). The same
 * batch as `large_scenario` in crates/exporace-wasm/tests/common/mod.rs.
 */
export function largeBatch(params, fillInvQ) {
  const b = params.requests, k = params.drafts_per_request, v = params.vocab_size;
  const t = b * k;
  const cu = new Int32Array(b).map((_, r) => (r + 1) * k);
  const drafts = new Int32Array(t).map((_, i) => (13 * i) % v);
  const probs = new Float32Array(t * v);
  for (let i = 0; i < t; i++) {
    for (let j = 0; j < v; j++) probs[i * v + j] = (31 * i + 17 * j) % 97;
  }
  const Noise = params.precision === "f32" ? Float32Array : Float64Array;
  const invQ = new Noise(b * v);
  const seed = BigInt(params.seed);
  for (let r = 0; r < b; r++) fillInvQ(seed, "race", BigInt(r), invQ.subarray(r * v, (r + 1) * v));
  return {
    batch: { vocabSize: v, cuNumDraftTokens: cu, draftTokenIds: drafts, targetProbs: probs },
    invQ,
  };
}

/** Throws unless two bit lists are equal, naming the first difference. */
export function sameBits(what, actual, expected) {
  if (expected.length === 0) throw new Error(`${what}: no golden bits`);
  if (actual.length !== expected.length) {
    throw new Error(`${what}: ${actual.length} bits, golden has ${expected.length}`);
  }
  const i = actual.findIndex((x, n) => x !== expected[n]);
  if (i >= 0) throw new Error(`${what}: bits[${i}] = ${actual[i]}, golden ${expected[i]}`);
  return actual.length;
}
