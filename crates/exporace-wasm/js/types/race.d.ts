/** Races, recovers, rejection sampling and the seeded noise streams. */

import type { Float32Input, Float64Input, Int32Input, Noise, RaceOptions, RaceResult, U64 } from "./values.js";

/**
 * `argmax_i weights[i] * invQ[i]`: vLLM's recovered-token form.
 * @param weights Finite, non-negative weights (need not sum to 1).
 * @param invQ `1 / E` per token, `E ~ Exp(1)`; same length as `weights`, never negative.
 * @throws Error on empty or mismatched inputs, bad values, or a NaN score under `"reject"`.
 */
export function raceMul(weights: Float32Input, invQ: Noise, opts?: RaceOptions): RaceResult;

/**
 * `argmax_i weights[i] / q[i]`: vLLM V1 `random_sample` (`probs.div_(q).argmax()`).
 * @param weights Finite, non-negative weights.
 * @param q `E ~ Exp(1)` per token; same length as `weights`, never negative.
 */
export function raceDiv(weights: Float32Input, q: Noise, opts?: RaceOptions): RaceResult;

/** Options of {@link raceSeeded}. */
export interface SeededRaceOptions extends RaceOptions {
  /** `"mul"` (default): `w * (1 / E)`, as after {@link fillInvQ}; `"div"`: `w / E`, as after {@link fillQ}. */
  form?: "mul" | "div";
  /** Precision of the noise and the scores; default `"f32"`. */
  precision?: "f32" | "f64";
}

/**
 * The fused seeded race: Philox, the Exp(1) transform and the race in one pass,
 * without storing the noise. Gives the bits of {@link fillInvQ} (or {@link fillQ}
 * for `form: "div"`) at (seed, stream, row) followed by {@link raceMul} (or
 * {@link raceDiv}) at the same precision.
 * @param weights Finite, non-negative weights; at most 2^32 tokens.
 * @param seed The noise's seed (required: the race is replayable).
 * @throws Error on empty input, bad values, or a NaN score under `"reject"`.
 */
export function raceSeeded(
  weights: Float32Input,
  seed: U64,
  stream: Stream,
  row: U64,
  opts?: SeededRaceOptions,
): RaceResult;

/**
 * A batch of speculative-decoding inputs in vLLM's flattened layout: B
 * requests, T draft tokens in all, vocabulary V, matrices row-major.
 */
export interface SpecBatch {
  /** Vocabulary size V (at least 1). */
  vocabSize: number;
  /** Inclusive prefix sums of draft tokens per request, length B; ends at T. */
  cuNumDraftTokens: Int32Input;
  /** Draft token ids, length T; -1 is a placeholder that is always rejected. */
  draftTokenIds: Int32Input;
  /** Target probabilities, `[T, V]`. */
  targetProbs: Float32Input;
  /** Draft probabilities, `[T, V]`; omit for n-gram / one-hot drafts. */
  draftProbs?: Float32Input;
}

/**
 * vLLM's `sample_recovered_tokens`: for each draft position t of request r,
 * `argmax_v residual(t, v) * invQ[r, v]`, where the residual is
 * `max(p - d, 0)` (with draft probs) or `p` with the draft token zeroed.
 * @param invQ `[B, V]` noise, one row per request, shared by its positions.
 * @returns One race per draft token, in draft-token order.
 */
export function recoverTokens(batch: SpecBatch, invQ: Noise, opts?: RaceOptions): RaceResult[];

/** Inputs of one rejection-sampling step. Give either `bonusTokenIds`, or `bonusProbs` with `bonusInvQ`. */
export interface RejectionInputs {
  /** The drafts and distributions. */
  batch: SpecBatch;
  /** Recovery noise `[B, V]`; its type sets the precision. */
  invQ: Noise;
  /** One acceptance uniform per draft token, in [0, 1]. */
  uniform: Float64Input;
  /** Per request: greedy (temperature 0)? Omit for all random. */
  greedy?: boolean[] | Uint8Array;
  /** Bonus tokens given by the caller, one per request. */
  bonusTokenIds?: Int32Input;
  /** Bonus-position probabilities `[B, V]`, to sample bonus tokens by the race. */
  bonusProbs?: Float32Input;
  /** Bonus noise `[B, V]`, same array type as `invQ`. */
  bonusInvQ?: Noise;
}

/** What happened in one request of a rejection step. */
export interface RequestTrace {
  /** Whether the request was greedy. */
  greedy: boolean;
  /** Its number of draft tokens. */
  numDraft: number;
  /** Drafts accepted before the first rejection. */
  numAccepted: number;
  /** The recovery race at the first rejection of a random request, else `null`. */
  recovered: RaceResult | null;
  /** The bonus token when every draft was accepted, else `null`. */
  bonus: number | null;
  /** The bonus race when the bonus was sampled by the race, else `null`. */
  bonusRace: RaceResult | null;
}

/** The result of a rejection-sampling step. */
export interface RejectionResult {
  /** The longest draft in the batch. */
  maxSpecLen: number;
  /** `[B, maxSpecLen + 1]` row-major, -1 where nothing was emitted. */
  outputTokenIds: Int32Array;
  /** One trace per request. */
  requests: RequestTrace[];
}

/**
 * vLLM's `rejection_sample`: accept draft x at position t iff
 * `d(x) > 0 && p(x) / d(x) >= uniform[t]`, emit the recovered token at the
 * first rejection, and the bonus token when all drafts were accepted. Greedy
 * requests accept while the draft equals the target argmax.
 */
export function rejectionSample(inputs: RejectionInputs, opts?: RaceOptions): RejectionResult;

/** An independent random stream of one seed. */
export type Stream =
  /** Exp(1) noise of races (recovered tokens: row = request). */
  | "race"
  /** Acceptance uniforms of rejection sampling (row 0, token = draft position). */
  | "accept"
  /** Exp(1) noise of bonus-token races (row = request). */
  | "bonus"
  /** Noise for drawing draft tokens (row = trial). */
  | "draft";

/**
 * Fills `out` with `invQ = 1 / E`, `E ~ Exp(1)`, for tokens `0..out.length`
 * of one row, at `out`'s precision. Each value is one Philox4x32-10 block at
 * address (seed, stream, row, token): `E = -log1p(-u)` with a 53-bit uniform
 * `u`, computed in f64 and rounded once. Same seed, same bits, on every
 * platform and thread count.
 * @param seed A seed, or `null` / `undefined` for a fresh one from `crypto.getRandomValues`.
 * @returns The seed used, to replay the draw.
 */
export function fillInvQ(seed: U64 | null | undefined, stream: Stream, row: U64, out: Noise): bigint;

/** Fills `out` with `q = E ~ Exp(1)` (the noise of `raceDiv`). See {@link fillInvQ}. @returns The seed used. */
export function fillQ(seed: U64 | null | undefined, stream: Stream, row: U64, out: Noise): bigint;

/**
 * Fills `out` with uniforms `k * 2^-53` in [0, 1), one per token of the row.
 * The acceptance uniforms of a seeded `rejection` scenario are stream
 * `"accept"`, row 0. @returns The seed used.
 */
export function fillUniform(seed: U64 | null | undefined, stream: Stream, row: U64, out: Float64Input): bigint;

/** Triton's `tl.randint(seed, offset)`: the first word of the Philox4x32-10 block, as an unsigned 32-bit number. */
export function randint(seed: U64, offset: U64): number;

/** Triton's `tl.randint4x(seed, offset)`: the four words of the Philox4x32-10 block. */
export function randint4x(seed: U64, offset: U64): Uint32Array;

/** Triton's `tl.rand(seed, offset)`: `randint` folded to 31 bits times 4.6566127342e-10 in fp32; in [0, 1]. */
export function rand(seed: U64, offset: U64): number;

/** One draw of a catalogue model, as listed by a `noise` scenario. */
export interface ModelDraw {
  /** Token (or offset) index; 0 for {@link transformUniform}. */
  token: number;
  /** The model's lattice integer, as a decimal string. */
  raw: string;
  /** The uniform as the engine held it, widened exactly to a JS number. */
  uniform: number;
  /** E (exponential recipes) or G (Gumbel recipes) in the model's precision. */
  value: number | "inf" | "-inf" | "nan";
  /** IEEE bits of `value` in the model's precision. */
  bits: string;
  /** E (for Gumbel recipes the intermediate `-ln u` or `-ln_1p(-u)`). */
  e: number | "inf" | "-inf" | "nan";
  /** The race multiplier `1 / E` (or `e^G`) in the model's precision. */
  invQ: number | "inf" | "-inf" | "nan";
  /** The transform's branch. */
  branch: "normal" | "clamped" | "zero" | "infinite";
}

/**
 * The draw a catalogue model makes from one point of its uniform lattice:
 * `{ raw }` (the integer the model reads from the random words, a bigint,
 * number or decimal string) or `{ uniform }` (the lattice point whose uniform
 * is nearest, ties to the smaller integer). The transform is the model's own
 * (`NoiseModel::transform`), so E and `invQ` are the bits the engine computes
 * from that uniform.
 * @param model A catalogue name, as in `run({ op: "models" })`.
 * @param precision `"f32"` or `"f64"` to run the recipe at that precision; `null` for the engine's.
 * @returns `{ model, draws: [draw] }`, the answer of a `noise` scenario with one draw.
 * @throws Error on an unknown model, a raw integer off the lattice or a uniform outside [0, 1].
 */
export function transformUniform(
  model: string,
  precision: "f32" | "f64" | null | undefined,
  point: { raw: U64 | string } | { uniform: number },
): { model: Record<string, unknown>; draws: [ModelDraw] };

/**
 * The weights of the recovered token's race at draft position `position` (a
 * flat index into `draftTokenIds`): `max(p - d, 0)` over the vocabulary with
 * draft probs, else `p` with the draft token zeroed, in f32.
 * @throws Error on an invalid batch or a position past the last draft token.
 */
export function residualWeights(batch: SpecBatch, position: number): Float32Array;
