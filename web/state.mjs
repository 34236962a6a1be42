// The page's one state: the race's inputs that every view reads (preset and
// parameters, weights and their edits, noise and its edits, pipelines, seed,
// row, NaN policy, the speculative batch). It changes only through
// `update`: the change is made on a copy, the copy is checked and its
// weights and noise derived, and only then does it become the state and the
// views redraw. A change that throws changes nothing.
import { ask, ex, modelFacts } from "./core.mjs";
import { DEFAULT_PARAMS, PRESETS, SPEC_STEP, buildPreset, checkParams } from "./presets.mjs";

/** The largest vocabulary whose seeded noise is turned into inline noise for editing. */
export const MAX_EDITED_VOCAB = 4096;

export const NAN_POLICIES = ["first_nan_wins", "nan_never_wins", "reject"];

/** What the lead figure draws: the engines' noise (vLLM 0.31–0.34, vLLM 0.30, torch CUDA) or pipelines A and B. */
export const LEAD_CHOICES = ["engines", "pipelines"];

/**
 * preset: a name of PRESETS, or "pasted", "file", "imported"; params: the
 * presets' parameters; baseWeights (Float32Array), baseNoise (inline inv_q or
 * null for seeded), about: the preset's, pasted or imported race;
 * weightEdits: [[token, weight]] set by the sliders; edits: [[token, inv_q,
 * note?]] set in the noise view; npyNoise: baseNoise came from a file.
 * lead: one of LEAD_CHOICES. weights and noise are derived.
 */
export let state = Object.freeze({
  preset: null,
  params: DEFAULT_PARAMS,
  about: "",
  baseWeights: null,
  baseNoise: null,
  npyNoise: false,
  weightEdits: [],
  edits: [],
  seed: "7",
  row: 0,
  models: ["torch-cuda-f32", "torch-cuda-f64"],
  lead: "engines",
  nanPolicy: "first_nan_wins",
  spec: SPEC_STEP,
  weights: null,
  noise: null,
});

const listeners = [];

/** Calls `f(how)` after each update (`how`: the update's options). */
export function onChange(f) {
  listeners.push(f);
}

/**
 * Applies `change(draft)` to a copy of the state, checks the copy and derives
 * its weights and noise; throws, leaving the state as it was, when the change
 * or the check does. `how` reaches the listeners ({ soon } coalesces redraws,
 * { sync } rewrites the controls from the state).
 */
export function update(change, how = {}) {
  const draft = { ...state };
  change(draft);
  derive(draft, state);
  state = Object.freeze(draft);
  for (const f of listeners) f(how);
}

/** The seed in `text` (decimal or `0x` hex, below 2^64) as a decimal string; throws when it is not one. */
export function seedOf(text) {
  const s = String(text).trim();
  if (!/^(\d+|0x[0-9a-fA-F]+)$/.test(s) || BigInt(s) >= 2n ** 64n) {
    throw new Error(`"${text}" is not a seed: give a whole number from 0 to 2^64 - 1, in decimal or 0x hex`);
  }
  return String(BigInt(s));
}

/** New base weights (and inline noise or null): every edit goes. */
export function withWeights(d, weights, noise, preset, about) {
  d.baseWeights = weights;
  d.baseNoise = noise;
  d.preset = preset;
  d.about = about;
  d.npyNoise = false;
  d.edits = [];
  d.weightEdits = [];
}

/** A named preset with its parameters: its weights are built by `derive`, every edit goes. */
export function withPreset(d, preset, params) {
  withWeights(d, null, null, preset, "");
  d.params = params;
}

/** Checks a draft and derives what follows from it; throws on the first value that is not valid. */
function derive(d, prev) {
  d.seed = seedOf(d.seed);
  if (!Number.isInteger(d.row) || d.row < 0) throw new Error(`the row must be a whole number from 0 up (got ${d.row})`);
  if (!Array.isArray(d.models) || d.models.length !== 2) throw new Error("two pipelines are needed");
  for (const m of d.models) if (!modelFacts(m)) throw new Error(`${JSON.stringify(m)} is not a model of the catalogue`);
  if (!LEAD_CHOICES.includes(d.lead)) throw new Error(`the lead figure draws one of ${LEAD_CHOICES.join(", ")}`);
  if (!NAN_POLICIES.includes(d.nanPolicy)) throw new Error(`the NaN policy is one of ${NAN_POLICIES.join(", ")}`);
  if (d.params !== prev.params) checkParams(d.params);
  if (PRESETS.includes(d.preset) && (!d.baseWeights || d.preset !== prev.preset || d.params !== prev.params)) {
    const p = buildPreset(ex, d.preset, d.params);
    d.baseWeights = p.weights;
    d.baseNoise = p.noise ?? null;
    d.about = p.about;
  }
  if (!(d.baseWeights instanceof Float32Array) || d.baseWeights.length === 0) throw new Error("the race needs at least one weight");
  // The core's race refuses what it cannot race (NaN, negative or infinite weights).
  if (d.baseWeights !== prev.baseWeights) ex.raceMul(d.baseWeights, new Float32Array(d.baseWeights.length).fill(1));
  for (const [t, w] of d.weightEdits) {
    if (!Number.isInteger(t) || t < 0 || t >= d.baseWeights.length) throw new Error(`a slider's token ${t} is not in [0, ${d.baseWeights.length})`);
    if (!(w >= 0 && w < Infinity)) throw new Error(`a slider's weight ${w} is not a finite weight`);
  }
  if (d.baseWeights !== prev.baseWeights || d.weightEdits !== prev.weightEdits || !d.weights) {
    const w = d.baseWeights.slice();
    for (const [t, v] of d.weightEdits) w[t] = v;
    d.weights = w;
  }
  d.noise = effectiveNoise(d);
  // The speculative batch: the core's rejection step must accept it.
  if (d.spec !== prev.spec || d.seed !== prev.seed) ask({ ...d.spec, seed: d.seed });
}

/**
 * The noise the views race: the base inline noise, or with edits, that noise
 * (or pipeline B's seeded draws, from the core) with the edited entries.
 */
function effectiveNoise(d) {
  const n = d.weights.length;
  if (d.baseNoise && d.baseNoise.length !== n) throw new Error(`the noise has ${d.baseNoise.length} entries; the race has ${n} weights`);
  if (!d.edits.length) return d.baseNoise;
  let noise = d.baseNoise;
  if (!noise) {
    if (n > MAX_EDITED_VOCAB) throw new Error(`draws can be edited for up to ${MAX_EDITED_VOCAB} tokens; this race has ${n}`);
    noise = ask({ op: "noise", model: d.models[1], seed: d.seed, row: d.row, start: 0, count: n }).result.draws.map((x) => x.invQ);
  }
  noise = noise.slice();
  for (const [token, value] of d.edits) {
    if (!Number.isInteger(token) || token < 0 || token >= n) throw new Error(`token must be in [0, ${n})`);
    noise[token] = value;
  }
  // The core reads every entry (a number, inf, nan or IEEE bits), or refuses.
  for (const [token, value] of d.edits) if (typeof value !== "number") ex.inspectFloat(value);
  return noise;
}

/**
 * The compare scenario of the race on show: inline noise against its fp32
 * cast, or the two pipelines' seeded noise. With `typed` the weights stay a
 * Float32Array (for a worker, which makes them an array).
 */
export function compareScenario(s = state, { typed = false } = {}) {
  const weights = typed ? s.weights : Array.from(s.weights);
  return s.noise
    ? { op: "compare", nan_policy: s.nanPolicy, weights, noise: s.noise }
    : { op: "compare", nan_policy: s.nanPolicy, weights, models: s.models, seed: s.seed, row: s.row };
}
