// Inputs for the page's presets. These only build inputs (weights, inline
// noise, speculative-decoding batches); every result on the page is computed
// by the wasm core.

/** The largest many-tail vocabulary (Gemma 3's 262144 tails plus the head). */
export const MAX_TAILS = 262144;

/** The presets built from parameters (the others are pasted, imported or read from a file). */
export const PRESETS = ["many-tail", "uniform", "zipf", "near-tie", "overflow", "spec"];

/** Each parameter's range, and whether it is a whole number: the fields' min, max and step follow these. */
export const PARAM_LIMITS = {
  tails: { min: 1, max: MAX_TAILS, whole: true },
  gap: { min: 0, max: 40, whole: false },
  vocab: { min: 1, max: 262144, whole: true },
  zipf: { min: 0, max: 4, whole: false },
  temperature: { min: 0.05, max: 10, whole: false },
};

/** The parameters the page opens with. */
export const DEFAULT_PARAMS = { tails: 262144, gap: 20.5, vocab: 32000, zipf: 1.1, temperature: 1 };

/** Checks every parameter against its range; throws naming the first that is outside. */
export function checkParams(params) {
  for (const [name, { min, max, whole }] of Object.entries(PARAM_LIMITS)) {
    const v = params?.[name];
    if (typeof v !== "number" || !(v >= min && v <= max) || (whole && !Number.isInteger(v))) {
      throw new Error(`${name} must be ${whole ? "a whole number" : "a number"} from ${min} to ${max} (got ${JSON.stringify(v)})`);
    }
  }
}

/**
 * Weights from logits and a temperature, computed by the core (`core` is the
 * npm package, web or Node build): exp((l - max l) / T) rounded to f32.
 */
export function fromLogits(core, logits, temperature) {
  return core.weightsFromLogits(Float64Array.from(logits), temperature);
}

/**
 * Every preset: `weights` (Float32Array), optional inline `noise` (fp64 inv_q,
 * raced against its fp32 cast), an optional `spec` scenario, and the text
 * shown beside the views. `core` (the npm package) turns logits into weights.
 */
export function buildPreset(core, name, p) {
  switch (name) {
    case "uniform": {
      const logits = new Float64Array(p.vocab);
      return { weights: fromLogits(core, logits, p.temperature), about: `${p.vocab} equal logits.` };
    }
    case "zipf": {
      const logits = Float64Array.from({ length: p.vocab }, (_, k) => -p.zipf * Math.log(k + 1));
      return {
        weights: fromLogits(core, logits, p.temperature),
        about: `Zipf: logit_k = -${p.zipf} ln(k + 1) over ${p.vocab} tokens.`,
      };
    }
    case "many-tail": {
      // Each weight is exp((logit - largest logit) / T), not normalised: the
      // core's two weights, laid out as the head and its tails.
      const [head, tail] = fromLogits(core, [0, -p.gap], p.temperature);
      const weights = new Float32Array(p.tails + 1).fill(tail);
      weights[0] = head;
      return {
        weights,
        about:
          `vLLM #43150: one head and ${p.tails} tails ${p.gap} nats below it. ` +
          "In fp32 (torch CUDA) no tail can ever win: the smallest E is 2^-24, so a tail's best score " +
          "stays below the head's worst. In fp64 the tails keep their share.",
      };
    }
    case "near-tie":
      return {
        weights: Float32Array.of(0.25, 0.25),
        noise: ["1", "1.000000000001"],
        about:
          "Two equal weights, inline noise inv_q = [1, 1 + 1e-12] in fp64. The fp32 cast rounds both " +
          "scores to 0.25 and the tie goes to token 0; fp64 and exact arithmetic pick token 1.",
      };
    case "overflow":
      return {
        weights: Float32Array.of(0.5, 0, 0.3, 0.2),
        noise: ["1", "inf", "2", "inf"],
        about:
          "q = 0 (inv_q = inf) at tokens 1 and 3: weight 0 times inf is NaN, weight 0.2 times inf is inf. " +
          "What wins depends on the NaN policy.",
      };
    case "spec":
      return {
        weights: Float32Array.of(0.1, 0.5, 0.4),
        spec: SPEC_STEP,
        about:
          "One speculative-decoding step (vLLM rejection_sample): three requests, drafts accepted while " +
          "p(x) / d(x) >= u, the recovered token at the first rejection, the bonus token otherwise.",
      };
    default:
      throw new Error(`unknown preset ${name}`);
  }
}

/** The many-tail race as groups of the exact computation: the head, then `tails` equal tails. */
export function manyTailGroups(core, tails, gap, temperature) {
  return { weights: Float64Array.from(fromLogits(core, [0, -gap], temperature)), counts: Float64Array.of(1, tails) };
}

/**
 * The experiment's speculative position: a draft that puts most of its mass on
 * token 2, which the target mostly rejects, so the recovered token decides
 * often and shared noise (#54282) shows.
 */
export const EXPERIMENT_STEP = { target: [0.4, 0.4, 0.2], draft: [0.1, 0.2, 0.7] };

/**
 * The speculative-decoding preset: three random requests, seeded uniforms and
 * noise. Request 2's position is the experiment's step (two unequal residual
 * entries, so shared noise biases it); the residuals of the other positions
 * have one entry or two equal ones.
 */
export const SPEC_STEP = {
  exporace: 1,
  op: "rejection",
  precision: "f32",
  seed: 7,
  cu_num_draft_tokens: [2, 3, 4],
  draft_token_ids: [1, 2, 0, 2],
  target_probs: [
    [0.1, 0.5, 0.4],
    [0.3, 0.3, 0.4],
    [0.2, 0.2, 0.6],
    EXPERIMENT_STEP.target,
  ],
  draft_probs: [
    [0.1, 0.8, 0.1],
    [0.1, 0.1, 0.8],
    [0.7, 0.2, 0.1],
    EXPERIMENT_STEP.draft,
  ],
  bonus_probs: [
    [0.2, 0.3, 0.5],
    [0.6, 0.3, 0.1],
    [0.3, 0.3, 0.4],
  ],
};

/** The speculative-decoding preset as the npm package's `SpecBatch` (typed arrays). */
export function specBatch(step = SPEC_STEP) {
  return {
    vocabSize: step.target_probs[0].length,
    cuNumDraftTokens: Int32Array.from(step.cu_num_draft_tokens),
    draftTokenIds: Int32Array.from(step.draft_token_ids),
    targetProbs: Float32Array.from(step.target_probs.flat()),
    draftProbs: Float32Array.from(step.draft_probs.flat()),
  };
}

/** Parses pasted numbers (commas, spaces or new lines). */
export function parseNumbers(text) {
  const parts = text.split(/[\s,;\[\]]+/).filter(Boolean);
  const values = parts.map(Number);
  const bad = parts.findIndex((s, i) => !Number.isFinite(values[i]));
  if (bad >= 0) throw new Error(`not a number: "${parts[bad]}" (entry ${bad})`);
  if (!values.length) throw new Error("no numbers pasted");
  return values;
}
