/** Exact win probabilities and Monte Carlo experiments. */

import type { NanPolicy } from "./values.js";

/** The win probability of one group of tokens that share a weight. */
export interface GroupProbability {
  /** The group's weight. */
  weight: number;
  /** Its number of tokens. */
  count: number;
  /** The probability that one of its tokens wins (the estimate). */
  probability: number;
  /** The exact probability is at least this. */
  lower: number;
  /** The exact probability is at most this. */
  upper: number;
  /** The mean probability of one of its tokens. */
  perToken: number;
}

/** Exact win probabilities under one noise model. */
export interface WinProbabilities {
  /** The model's catalogue name. */
  model: string;
  /** The precision the model ran at. */
  precision: "f32" | "f64";
  /** One entry per group, in the order given. */
  groups: GroupProbability[];
  /** Probability of the events not modelled (a zero weight meeting E = 0; every positive weight at E = inf), inside every bracket. */
  excluded: number;
  /** The largest distance from an estimate to its exact probability. */
  maxBound: number;
  /** Points placed on the groups' ranges. */
  nodes: number;
}

/**
 * Exact win probabilities (computed, not sampled) of tokens grouped by weight
 * under a catalogue noise model (see `run({exporace: 1, op: "models"})`), with
 * the model's lattice and floor taken into account: `counts[g]` tokens of weight
 * `weights[g]`, groups in token-id order (ties go to the smallest id).
 * @param precision Run the recipe at `"f32"` or `"f64"`; the model's own precision when absent.
 * @throws Error on an unknown model, mismatched lengths, bad weights or counts.
 */
export function winProbabilities(
  model: string,
  weights: Float64Array,
  counts: Float64Array,
  precision?: "f32" | "f64",
): WinProbabilities;

/** One category of an experiment: a run of tokens with equal weights. */
export interface ExperimentCategory {
  /** Its first token. */
  first: number;
  /** Its number of tokens. */
  tokens: number;
  /** Expected probability. */
  expected: number;
  /** Expected count: `expected` times the trials. */
  expectedCount: number;
  /** Observed count. */
  observed: number;
  /** `(observed - n p) / sqrt(n p (1 - p))`; infinite when an impossible category was seen. */
  z: number;
}

/** How an experiment's counts fit their expectation: in {@link ExperimentReport}, and as `fit` in {@link ExperimentScenarioReport}. */
export interface ExperimentFit {
  /** Number of trials. */
  trials: number;
  /** Pearson's chi-square over the categories of positive expectation. */
  chiSquare: number;
  /** Its degrees of freedom. */
  df: number;
  /** Upper-tail p-value of `chiSquare`. */
  pValue: number;
  /** Total variation distance between the observed frequencies and the expectation. */
  tvDistance: number;
  /** The largest `|z|`. */
  maxAbsZ: number;
  /** Whether a category of expected probability 0 was observed. */
  impossibleSeen: boolean;
}

/** The outcome of {@link runExperiment}. */
export interface ExperimentReport extends ExperimentFit {
  /** Per-token counts. */
  counts: number[];
  /** Per-token exact expectation under the model. */
  expected: number[];
  /** The counts pooled into categories, in token order. */
  categories: ExperimentCategory[];
  /** Total variation distance between the observed frequencies and the normalised target. */
  tvToTarget: number;
}

/**
 * A Monte Carlo experiment under a catalogue noise model, measured against the
 * exact expectation (chi-square, z, p-values). Trial t draws from addresses
 * keyed by t, so a seed gives the same counts everywhere.
 * @param target At most 2^23 tokens (`TOO_LARGE` from its length, before it is copied).
 * @param draft Draft probabilities, required by the `recovered` and `rejection*` samplers.
 * @param options `sampler`: `"race"`, `"recovered"`, `"rejection"` (draft on its own noise) or
 *   `"rejection_shared"` (draft on the recovery race's noise: the bias of vLLM #54282);
 *   `trials` at most 2^32.
 * @param onProgress Called with the fraction done after each chunk of 1024 trials. If it
 *   throws, the experiment stops and the call throws `THREW` with its message.
 */
export function runExperiment(
  model: string,
  target: Float32Array,
  draft: Float32Array | null,
  options: { sampler: "race" | "recovered" | "rejection" | "rejection_shared"; trials: number; seed?: number; nanPolicy?: NanPolicy },
  onProgress?: (fraction: number) => void,
): ExperimentReport;

/**
 * {@link runExperiment} in a worker (a module Web Worker in browsers,
 * `worker_threads` in Node), so the caller's thread stays free: `onProgress`
 * receives the fraction done (at most every 50 ms), and aborting `signal`
 * stops the worker and rejects with an {@link ExporaceError} of code
 * `CANCELLED`; an `onProgress` that throws stops it and rejects with `THREW`.
 * An argument that cannot be sent to a worker (a function or a symbol in it,
 * too deep a nesting) rejects naming it. Where no worker can start it runs in
 * the caller's thread. The same seed gives the same report as `runExperiment`.
 */
export function runExperimentAsync(
  model: string,
  target: Float32Array,
  draft: Float32Array | null,
  options: { sampler: "race" | "recovered" | "rejection" | "rejection_shared"; trials: number; seed?: number; nanPolicy?: NanPolicy },
  control?: { onProgress?: (fraction: number) => void; signal?: AbortSignal },
): Promise<ExperimentReport>;
