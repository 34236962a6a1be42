/**
 * exporace: exponential-race (Gumbel-max) sampling exactly as LLM inference
 * engines (vLLM) do it, compiled from the Rust core to WebAssembly.
 *
 * Precision follows the noise: a `Float32Array` of noise gives f32 scores, a
 * `Float64Array` gives f64 scores. Weights and probabilities are always
 * `Float32Array`, as engines hold them. Every error is thrown as an `Error`
 * whose message names the argument, tensor, index and value at fault; after an
 * error the module stays usable.
 *
 * In the browser, call the default export `init()` once before anything else;
 * `init({ threads: n })` spreads recover batches over a pool of `n` Web
 * Workers where the context allows one, with the same bits as one thread.
 * In Node the module is ready on import and runs on one thread (`init()`
 * checks its options and reports that).
 */

/** What a NaN score does in an argmax. */
export type NanPolicy =
  /** The first NaN wins, as `torch.argmax` (the default). */
  | "first_nan_wins"
  /** A NaN never wins, as vLLM's CPU C++ kernel; an all-NaN row gives token 0. */
  | "nan_never_wins"
  /** A NaN score throws an `Error`. */
  | "reject";

/** Options of every race. */
export interface RaceOptions {
  /** The NaN rule; `"first_nan_wins"` when absent. */
  nanPolicy?: NanPolicy;
}

/** A token and its score in one race. */
export interface Contender {
  /** Token id, in [0, V). */
  token: number;
  /** The score `w * invQ` (or `w / q`) widened exactly to a number; may be `Infinity` or `NaN`. */
  score: number;
  /** The score's IEEE bits in its own precision: `"0x"` + 8 hex digits (f32) or 16 (f64). */
  bits: string;
}

/** The outcome of one race. */
export interface RaceResult {
  /** The token chosen. Ties go to the smallest id. */
  winner: Contender;
  /** The best of the rest under the same rule; `null` when V = 1. */
  runnerUp: Contender | null;
  /** Units in the last place between the winner's and the runner-up's score;
   * `null` without a runner-up or when a score is NaN. Exact up to 2^53. */
  marginUlps: number | null;
}

/**
 * A typed array that lives in wasm memory. A typed array passed to a function
 * is copied into wasm memory on every call; a `WasmArray` is written once
 * (through {@link WasmArray.view}) and read in place by `raceMul`, `raceDiv`,
 * `raceSeeded` and `recoverTokens`, and filled in place by `fillQ`,
 * `fillInvQ` and `fillUniform`. Every other function that takes a typed array
 * takes a `WasmArray` of the same element type too, and copies it.
 *
 * Release it with `free()` when done; its memory is not garbage-collected.
 */
/** The stable codes of {@link ExporaceError}. */
export type ErrorCode =
  /** No tokens: a race needs at least one. */
  | "EMPTY_VOCAB"
  /** Two arrays that must agree in length do not. */
  | "LENGTH_MISMATCH"
  /** A NaN, infinite, negative or out-of-range value (its tensor and index are named). */
  | "BAD_VALUE"
  /** A NaN score under the `reject` NaN policy. */
  | "NAN_SCORE"
  /** `cuNumDraftTokens` is not a valid layout. */
  | "BAD_LAYOUT"
  /** A token id outside the vocabulary. */
  | "OUT_OF_RANGE"
  /**
   * A size over a documented cap, or more than wasm memory can hold; an
   * array's is read from its `length`, before any of it is copied.
   */
  | "TOO_LARGE"
  /** Every weight is zero. */
  | "ALL_ZERO"
  /** A long call was cancelled. */
  | "CANCELLED"
  /** An argument's value is not one the function takes. */
  | "BAD_ARGUMENT"
  /** The system's entropy source failed while choosing a seed. */
  | "ENTROPY"
  /**
   * A scenario could not be read or answered, or a scenario object holds a
   * value JSON cannot write (NaN, an infinity, `undefined`, a hole, a function,
   * a symbol): the message names the field.
   */
  | "SCENARIO"
  /** An argument has the wrong type. */
  | "BAD_TYPE"
  /** An options or batch object has a field the function does not know. */
  | "UNKNOWN_FIELD"
  /**
   * Reading an argument threw (a getter or a Proxy), or a callback threw
   * (`onProgress`, which stops the experiment); the message includes what it threw.
   */
  | "THREW"
  /**
   * A `WasmArray` that was freed (passed to a function, or its `view`,
   * `length` or `dtype` used), or made before the instance restarted.
   */
  | "FREED_ARRAY"
  /** A `WasmArray` of another copy of the module. */
  | "FOREIGN_ARRAY"
  /** A `.npy` or safetensors file that cannot be read or written. */
  | "BAD_FILE";

/**
 * Every error the package throws: an `Error` whose `code` says what kind of
 * problem it is and whose message names the argument, index and value.
 */
export class ExporaceError extends Error {
  readonly name: "ExporaceError";
  readonly code: ErrorCode;
  private constructor();
}

export class WasmArray {
  /** `length` zeros of `dtype`. Throws if wasm memory cannot hold them. */
  constructor(dtype: "float32" | "float64" | "int32", length: number);
  /** A copy of a typed array, with its element type. */
  static from(array: Float32Array | Float64Array | Int32Array): WasmArray;
  /** The element type. */
  readonly dtype: "float32" | "float64" | "int32";
  /** The number of elements. */
  readonly length: number;
  /** The id that names this array to the functions it is passed to. */
  readonly exporaceArrayId: number;
  /**
   * The copy of the module that holds the array: a `WasmArray` of another
   * copy (another version of the package on the page, or the single-threaded
   * instance's arrays after a pool started) is refused, never read in the
   * wrong memory.
   */
  readonly exporaceModule: object;
  /**
   * A typed array over this array's memory: what is written into it is what
   * the next call reads, without a copy. Take a fresh view right before
   * writing: any call into the module may grow wasm memory, which empties
   * earlier views (their `length` becomes 0) in the single-threaded builds.
   */
  view(): Float32Array | Float64Array | Int32Array;
  /**
   * Releases the memory; afterwards the array's methods and the functions it
   * is passed to throw `FREED_ARRAY`, and a second `free()` does nothing.
   */
  free(): void;
}

/** A `Float32Array`, or a {@link WasmArray} of dtype `"float32"`. */
export type Float32Input = Float32Array | WasmArray;
/** A `Float64Array`, or a {@link WasmArray} of dtype `"float64"`. */
export type Float64Input = Float64Array | WasmArray;
/** An `Int32Array`, or a {@link WasmArray} of dtype `"int32"`. */
export type Int32Input = Int32Array | WasmArray;

/** Noise `q` or `invQ`; its array type (or dtype) picks the precision of the scores. */
export type Noise = Float32Array | Float64Array | WasmArray;

/** A seed or an offset: a `bigint` in [0, 2^64), or a non-negative safe integer. */
export type U64 = bigint | number;

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

/**
 * Reads a float `.npy` file with exporace-io's reader: its shape, dtype and
 * values widened exactly to f64 (f16, bf16, f32 or f64 files).
 * @param name Names the tensor in error messages.
 * @throws Error on a malformed or hostile file, or an integer dtype.
 */
export function readNpy(name: string, bytes: Uint8Array): { shape: number[]; dtype: string; values: Float64Array };

/** One tensor of a safetensors file, from {@link readSafetensors}. */
export type SafetensorsTensor =
  | { name: string; dtype: "f16" | "bf16" | "f32"; shape: number[]; data: Float32Array }
  | { name: string; dtype: "f64"; shape: number[]; data: Float64Array }
  | { name: string; dtype: "i32"; shape: number[]; data: Int32Array }
  | { name: string; dtype: "i64"; shape: number[]; data: BigInt64Array };

/**
 * Reads every tensor of a safetensors file with exporace-io's reader, in name
 * order. f16 and bf16 are widened exactly to f32.
 * @throws Error on a truncated or inconsistent file (header length, offsets,
 * shapes) or a dtype other than f16, bf16, f32, f64, i32 and i64.
 */
export function readSafetensors(bytes: Uint8Array): SafetensorsTensor[];

/** A tensor: {@link SafetensorsTensor}, the shape every reader and writer uses. */
export type Tensor = SafetensorsTensor;

/**
 * Reads a `.npy` file of any dtype (f16, bf16, f32, f64, i32, i64) with
 * exporace-io's reader as a {@link Tensor} named `name`: the typed array that
 * holds its values exactly (f16 and bf16 widened exactly to f32).
 * @throws Error on a malformed or hostile file, or another dtype.
 */
export function readNpyTensor(name: string, bytes: Uint8Array): Tensor;

/** A tensor to write: `shape` defaults to `[data.length]`; `dtype`, if given, must be the data's. */
export interface TensorInput {
  name?: string;
  dtype?: "f32" | "f64" | "i32" | "i64";
  shape?: number[];
  data: Float32Array | Float64Array | Int32Array | BigInt64Array;
}

/**
 * Writes one tensor as a `.npy` file (format 1.0, C order, little endian).
 * @throws Error when the shape does not hold the data's length, the dtype
 * names another type than the data's, or `data` is not one of the four arrays.
 */
export function writeNpy(tensor: TensorInput): Uint8Array;

/**
 * Writes named tensors as one safetensors file, readable by the
 * `safetensors` library and by {@link readSafetensors}.
 * @throws Error as {@link writeNpy}, and for a missing or repeated name.
 */
export function writeSafetensors(tensors: (TensorInput & { name: string })[]): Uint8Array;

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

/** One line of a {@link CurveChart}. */
export interface CurveSeries {
  /** The legend's label. */
  name: string;
  /** Red, green, blue, each 0..255. */
  color: [number, number, number];
  /** Dashed rather than solid. */
  dashed?: boolean;
  /** `[x, y]` points in x order; a `y` at or below the floor is drawn on it. */
  points: [number, number][];
}

/** Lines on a logarithmic y axis against a linear x axis. */
export interface CurveChart {
  title: string;
  xLabel: string;
  yLabel: string;
  /** The bottom of the y axis, in (0, 1), e.g. `1e-12`. */
  yFloor: number;
  /** An x drawn as a vertical guide line. */
  marker?: number | null;
  series: CurveSeries[];
}

/**
 * Draws a chart of the `exporace-viz` crate (plotters) on a canvas, at the
 * canvas's pixel size: the same chart code renders SVG natively.
 * @throws Error on a malformed chart or a canvas without a 2D context.
 */
export function drawCurves(canvas: HTMLCanvasElement, chart: CurveChart): void;

/** One series of a {@link BarChart}: one value per category. */
export interface BarSeries {
  /** The legend's label. */
  name: string;
  /** Red, green, blue, each 0..255. */
  color: [number, number, number];
  /**
   * One value per category. `Infinity` (an overflowed score) and `NaN` are
   * drawn as full-height pale bars labelled `inf` and `NaN`; values at or
   * below the axis' bottom draw no bar.
   */
  values: Float64Array | Float32Array | number[];
  /** The winning category, marked with a star. */
  winner?: number | null;
}

/**
 * Bars per category for one or more series. More categories than pixels are
 * drawn one pixel column per group, at the group's largest value.
 */
export interface BarChart {
  title: string;
  xLabel: string;
  yLabel: string;
  /** One label per category (written under the bars up to 48 categories); omitted: `0, 1, ...`. */
  labels?: string[];
  series: BarSeries[];
  /** A logarithmic y axis from this positive floor up; omitted: linear from 0. */
  logFloor?: number | null;
  /** One expected value per category, drawn as a black tick. */
  expected?: number[];
  /** The legend's label for the ticks. */
  expectedLabel?: string | null;
  /** Categories drawn on a yellow background (e.g. flipped tokens). */
  highlight?: number[];
  highlightLabel?: string | null;
  /** A dashed line with the area below shaded and the bars below it in red (e.g. a dead zone). */
  threshold?: { value: number; label: string } | null;
}

/**
 * Draws a bar chart of the `exporace-viz` crate on a canvas, at the canvas's
 * pixel size; natively the same code renders SVG (`bars_svg`).
 * @throws Error naming the field when lengths disagree or an index is out of range.
 */
export function drawBars(canvas: HTMLCanvasElement, chart: BarChart): void;

/** One value at one precision, from {@link inspectFloat}. */
export interface FloatView {
  /** The value, widened exactly to a number. */
  value: number;
  /** IEEE bits, `0x` + 8 or 16 hex digits. */
  bits: string;
  /** The sign bit, `"0"` or `"1"`. */
  sign: string;
  /** The exponent field in binary (8 or 11 digits). */
  exponent: string;
  /** The mantissa field in binary (23 or 52 digits). */
  mantissa: string;
  /** The next representable value towards +inf. */
  nextUp: { value: number; bits: string };
  /** The next representable value towards -inf. */
  nextDown: { value: number; bits: string };
  /** Representable steps to `other`; `null` without it or when either is NaN. */
  ulpsToOther: number | null;
}

/**
 * A value at fp32 and fp64: its bits and fields, its neighbours one
 * representable step up and down, and the distance in ulps to `other`.
 * Values are numbers or strings of the scenario format (a decimal, `"inf"`,
 * `"-inf"`, `"nan"`, or IEEE bits: 8 hex digits are an f32, widened exactly;
 * 16 are an f64, rounded for the fp32 view).
 * @throws Error when a string is none of these.
 */
export function inspectFloat(value: number | string, other?: number | string | null): { f32: FloatView; f64: FloatView };

/**
 * Weights from logits and a temperature: `exp((l_i - max l) / temperature)`
 * per logit in f64 (libm), rounded to f32, as engines form them.
 * @throws Error naming the index of a NaN or `+inf` logit, when every logit is
 * `-inf`, or when the temperature is not positive and finite.
 */
export function weightsFromLogits(logits: Float64Array, temperature: number): Float32Array;

/** A contender in a {@link Report}: scores that JSON cannot hold are the strings `"inf"`, `"-inf"`, `"nan"`. */
export interface ReportContender {
  token: number;
  score: number | "inf" | "-inf" | "nan";
  bits: string;
}

/** A race in a {@link Report}. */
export interface ReportRace {
  winner: ReportContender;
  runnerUp: ReportContender | null;
  marginUlps: number | null;
}

/** A recovered token in a `recover` report. */
export interface ReportPosition extends ReportRace {
  /** Request index. */
  request: number;
  /** Position within the request's drafts. */
  position: number;
  /** Flat index into `draftTokenIds`. */
  tokenIndex: number;
  /** The draft token at this position. */
  draftToken: number;
}

/** A request in a `rejection` report. */
export interface ReportRequest {
  greedy: boolean;
  numDraft: number;
  numAccepted: number;
  recovered: ReportRace | null;
  bonus: number | null;
  bonusRace: ReportRace | null;
}

/** A number in a {@link Report}: values JSON cannot hold are the strings `"inf"`, `"-inf"`, `"nan"`. */
export type ReportNumber = number | "inf" | "-inf" | "nan";

/** A catalogue model's documented facts, in a {@link Report}. */
export interface ReportModelFacts {
  name: string;
  /** The engine whose sampling the model replays (and its backend where it matters). */
  engine: string;
  /** The engine's versions the model covers, e.g. `"0.31–0.34"`. */
  versions: string;
  precision: "f32" | "f64";
  kind: "exponential" | "gumbel";
  lattice: string;
  transform: string;
  clamp: string;
  minPositiveE: number;
  maxFiniteGumbel: number;
  pZero: number;
  pInfinite: number;
  /** How the engine's argmax breaks ties between equal scores. */
  tieRule: string;
  source: string;
  stream: string;
}

/** A race with its precision, in `compare` and `overflow` reports. */
export interface ReportPrecisionRace extends ReportRace {
  precision: "f32" | "f64";
}

/** The fields every {@link Report} has. */
interface ReportHeader {
  /** Format version (1). */
  exporace: number;
  precision: "f32" | "f64";
  nanPolicy: NanPolicy;
  /** The seed used (given, or drawn from entropy) as a decimal string; `null` when nothing was seeded. */
  seed: string | null;
}

/** `op: "race"`: one race. */
export interface RaceReport extends ReportHeader {
  op: "race";
  result: ReportRace;
}

/** `op: "recover"`: the recovered token of every draft position. */
export interface RecoverReport extends ReportHeader {
  op: "recover";
  result: { positions: ReportPosition[] };
}

/** `op: "rejection"`: the whole rejection step. */
export interface RejectionReport extends ReportHeader {
  op: "rejection";
  result: {
    maxSpecLen: number;
    outputTokenIds: number[][];
    uniform: number[];
    requests: ReportRequest[];
  };
}

/** `op: "models"`: the catalogue. */
export interface ModelsReport extends ReportHeader {
  op: "models";
  result: { models: ReportModelFacts[] };
}

/** `op: "noise"`: a model's draws. */
export interface NoiseReport extends ReportHeader {
  op: "noise";
  result: {
    model: ReportModelFacts;
    draws: {
      token: number;
      /** The lattice integer, as a decimal string. */
      raw: string;
      uniform: number;
      value: ReportNumber;
      bits: string;
      e: ReportNumber;
      invQ: ReportNumber;
      branch: "normal" | "clamped" | "zero" | "infinite";
    }[];
  };
}

/** `op: "compare"`: one stream of noise through two pipelines. */
export interface CompareReport extends ReportHeader {
  op: "compare";
  result: {
    aName: string;
    bName: string;
    a: ReportPrecisionRace;
    b: ReportPrecisionRace;
    flipped: boolean;
    exactWinner: number;
    differing: { token: number; beatsInA: boolean; beatsInB: boolean; logGap: number }[];
  };
}

/** `op: "overflow"`: entries with `q = 0`, infinite or NaN scores, and each NaN policy's pick. */
export interface OverflowReport extends ReportHeader {
  op: "overflow";
  result: {
    entries: {
      token: number;
      weight: number;
      noise: ReportNumber;
      qZero: boolean;
      invQInf: boolean;
      scoreInf: boolean;
      scoreNan: boolean;
    }[];
    picks: { policy: NanPolicy; race: ReportPrecisionRace | null; error: string | null }[];
  };
}

/** `op: "dead_zone"`: tokens a model can never let win. */
export interface DeadZoneReport extends ReportHeader {
  op: "dead_zone";
  result: {
    model: ReportModelFacts;
    eMin: number;
    /** `"inf"` where the model's E can be infinite. */
    eMax: number | "inf";
    threshold: number | "inf";
    count: number;
    mass: number;
    tokens: number[];
  };
}

/** `op: "exact"`: win probabilities computed from the noise law. */
export interface ExactReport extends ReportHeader {
  op: "exact";
  result: {
    model: ReportModelFacts;
    probabilities: {
      model: string;
      groups: { weight: number; count: number; probability: number; lower: number; upper: number }[];
      excluded: number;
      nodes: number;
    };
  };
}

/** `op: "experiment"`: a Monte Carlo run against the exact expectation. */
export interface ExperimentScenarioReport extends ReportHeader {
  op: "experiment";
  result: {
    model: ReportModelFacts;
    report: {
      counts: number[];
      expected: number[];
      fit: ExperimentFit & { categories: Omit<ExperimentCategory, "expectedCount">[] };
      tvToTarget: number;
    };
  };
}

/**
 * The answer to a scenario: the document `exporace run` prints, with its keys
 * in camelCase, one variant per `op` (test `op` to narrow it).
 */
export type Report =
  | RaceReport
  | RecoverReport
  | RejectionReport
  | ModelsReport
  | NoiseReport
  | CompareReport
  | OverflowReport
  | DeadZoneReport
  | ExactReport
  | ExperimentScenarioReport
  | SampleReport;

/** A catalogue model by name, or a name at a chosen precision. */
export type ModelChoice = string | { model: string; precision?: "f32" | "f64" };

/** A number in an options object: values JSON cannot hold as the strings `"inf"`, `"-inf"`, `"nan"`, or bits as `"0x…"`. */
export type OptionNumber = number | string;

/**
 * One stream of noise through two pipelines: two models on the same bits
 * (`models`, at `row` of `seed`), or inline fp64 `noise` against its fp32
 * cast (`form` `mul` or `div`). The same report as `run` with `op: "compare"`.
 */
export function compare(options: {
  weights: OptionNumber[];
  models?: [ModelChoice, ModelChoice];
  noise?: OptionNumber[];
  form?: "mul" | "div";
  row?: number;
  seed?: U64 | string;
  nanPolicy?: NanPolicy;
}): CompareReport;

/**
 * The `result` of {@link compare} for two catalogue models on the same bits (row
 * `row` of `seed`), for weights read straight into f32 (a quarter of a million take
 * milliseconds, where `compare` reads each weight as a scenario number).
 */
export function compareOf(
  modelA: string,
  modelB: string,
  weights: Float32Input,
  seed: U64,
  row: U64,
  options?: { nanPolicy?: NanPolicy },
): CompareReport["result"];

/** The token an engine's sampler picks for one row of logits, replayed id
 * for id: vLLM 0.31+ `gumbel_sample` (`vllm-0.33-f32`, `vllm-0.33-f64`:
 * `pos` and `temperature` required, `draft` optional), SGLang's
 * `multinomial_with_seed` (`sglang-0.5`: fp64 log-probabilities, `pos`
 * required), SGLang's speculative `fast_sample` (`sglang-0.5-fast-sample`:
 * fp32 probabilities in `logits`, `pos` required, `step` optional), vLLM's CPU `fused_gumbel_argmax` (`vllm-cpu-0.32`: the row's
 * seed only), JAX's `jax.random.categorical` (`jax-0.11-*`) and MLX's
 * `mx.random.categorical` (`mlx-0.32-cpu`), whose `rows` and `row` place the
 * row in the call's logits. A field the engine does not read is refused. */
export function sample(options: {
  model:
    | "vllm-0.33-f32"
    | "vllm-0.33-f64"
    | "sglang-0.5"
    | "sglang-0.5-fast-sample"
    | "vllm-cpu-0.32"
    | "jax-0.11-cpu"
    | "jax-0.11-gpu"
    | "jax-0.11-cpu-high"
    | "jax-0.11-gpu-high"
    | "mlx-0.32-cpu";
  logits: ArrayLike<number | string> | Float32Array | Float64Array;
  seed?: U64 | string;
  pos?: U64;
  temperature?: number | string;
  draft?: boolean;
  /** The draft step (`sglang-0.5-fast-sample` only; default 0): its noise
   * reads hash columns `step * V + token`, at most 2^32 in all. */
  step?: U64;
  /** The call's number of rows of logits (JAX and MLX only; default 1). */
  rows?: U64;
  /** This row's index among them (JAX and MLX only; default 0). */
  row?: U64;
}): SampleReport;

/**
 * The token a hashing engine's sampler picks for one row already in a typed
 * array (or a `WasmArray`, read in place): the same token as {@link sample},
 * with the noise hashed, bounded and raced on SIMD128 lanes and never stored.
 * `vllm-0.33-f32` and `vllm-0.33-f64` take fp32 logits with `pos` and
 * `temperature` (and `draft`), `sglang-0.5` fp64 log-probabilities with
 * `pos`, `sglang-0.5-fast-sample` fp32 probabilities with `pos` (and
 * `step`), `vllm-cpu-0.32` fp32 logits alone; a field the engine does not
 * read is refused.
 * @param seed The request's seed (vLLM's CPU kernel: the row's seed).
 */
export function sampleHashed(
  model: "vllm-0.33-f32" | "vllm-0.33-f64" | "sglang-0.5" | "sglang-0.5-fast-sample" | "vllm-cpu-0.32",
  logits: Float32Array | Float64Array | WasmArray,
  seed: U64,
  options?: { pos?: U64; temperature?: number; draft?: boolean; step?: U64 },
): number;

/** `op: "sample"`: the engine's pick. */
export interface SampleReport extends ReportHeader {
  op: "sample";
  result: { model: string; token: number };
}

/** A model's draws at an address; the same report as `run` with `op: "noise"`. */
export function noise(options: {
  model: ModelChoice;
  count: number;
  start?: U64;
  address?: "exporace" | "triton" | "mrv2" | "torch_cpu" | "hashed" | "keyed";
  row?: U64;
  /** The token's position: required with `address: "mrv2"`, refused with
   * the others; at most `2^63 - 1 - 2^30` (int64 positions, salted by 2^30
   * for drafts). */
  pos?: U64;
  /** A draft token's noise (`address: "mrv2"` only). */
  draft?: boolean;
  /** The request's number of elements: required with `address: "keyed"`
   * (JAX and MLX, whose key is made of the seed and whose `start + i` is a
   * flat element), refused with the others; 1 to 2^63. */
  size?: U64;
  seed?: U64 | string;
}): NoiseReport;

/** The tokens `model` can never let win; the same report as `run` with `op: "dead_zone"`. */
export function deadZone(options: { weights: OptionNumber[]; model: ModelChoice }): DeadZoneReport;

/**
 * The `result` of {@link deadZone} for weights read straight into f32 (a quarter
 * of a million take milliseconds): `model` at its own precision or at `precision`.
 */
export function deadZoneOf(model: string, weights: Float32Input, precision?: "f32" | "f64" | null): DeadZoneReport["result"];

/**
 * The runs of equal weights in token order (equal bits: 0 and -0 are two runs),
 * as the groups {@link winProbabilities} and {@link deadZoneOfGroups} take:
 * `counts[g]` tokens of weight `weights[g]`. Their answers are the tokens'.
 * @throws ExporaceError when `weights` is not a Float32Array or f32 WasmArray.
 */
export function weightGroups(weights: Float32Input): { weights: Float64Array; counts: Float64Array };

/**
 * The `result` of {@link deadZoneOf} for tokens given as groups of equal weight
 * in token-id order, as {@link winProbabilities} takes them: `counts[g]` tokens of
 * weight `weights[g]`. One test per group, so any number of tokens takes
 * microseconds; the same answer as the tokens written out (the mass is summed
 * per group). At most 2^31 - 1 tokens in all.
 * @throws ExporaceError on an unknown model, mismatched lengths, bad weights or counts.
 */
export function deadZoneOfGroups(
  model: string,
  weights: Float64Array,
  counts: Float64Array,
  precision?: "f32" | "f64" | null,
): DeadZoneReport["result"];

/** Entries with `q = 0`, infinite or NaN scores, and each NaN policy's pick; as `run` with `op: "overflow"`. */
export function overflow(options: {
  weights: OptionNumber[];
  noise: OptionNumber[];
  form?: "mul" | "div";
  precision?: "f32" | "f64";
}): OverflowReport;

/** The noise catalogue with every model's facts; as `run` with `op: "models"`. */
export function models(): ModelsReport;

/**
 * Answers a scenario in the format of `exporace run` (see the package README):
 * JSON text, or the same document as an object (64-bit seeds may be bigints or
 * strings). Noise not given inline is drawn from `seed` (or from entropy, and
 * the seed is reported). An object is written as JSON first: a NaN or infinite
 * number, `undefined`, a hole, a function or a symbol in it is refused
 * (`SCENARIO`, naming the field; write `"nan"`, `"inf"` or `"-inf"` for such
 * tensor values), `-0` stays `-0`, and an array of more than 2^23 entries is
 * refused from its length (`TOO_LARGE`). The same holds for the options of
 * `compare`, `noise`, `deadZone` and `overflow`.
 */
export function run(scenario: string | object): Report;

/**
 * The same report as {@link run}, as indented JSON text: integers past 2^53
 * (a margin in ulps between far-apart scores) keep every digit, where a
 * JavaScript number would round them.
 */
export function runText(scenario: string | object): string;

/** Anything `init` accepts: the module's URL, a `Response`, bytes or a compiled module. */
export type InitInput = string | URL | Request | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module;

/** The options of {@link init}; an unknown field is an `UNKNOWN_FIELD` error. */
export interface InitOptions {
  /** Where the single-threaded wasm is (`exporace/exporace_bg.wasm`); next to the JS when absent. */
  module_or_path?: InitInput | Promise<InitInput>;
  /**
   * Threads to answer calls with, 1 to 128 (1 when absent). More than 1
   * starts a pool of Web Workers with shared memory, which needs a
   * cross-origin isolated context (`crossOriginIsolated`) and a Web Worker to
   * call from: the browser's main thread may not wait for a pool. Where that
   * is not so, the module runs on one thread and `init` says why.
   */
  threads?: number;
  /** Where the threaded wasm is (`exporace/exporace_threads_bg.wasm`); next to its JS when absent. */
  threadsModuleOrPath?: InitInput | Promise<InitInput>;
}

/** What {@link init} started. */
export interface InitResult {
  /** The threads that answer calls: the pool's size, or 1. */
  threads: number;
  /** The threads asked for (1 when not asked). */
  requested: number;
  /** Why fewer threads than asked for run, or `null`. */
  reason: string | null;
}

/**
 * Loads and instantiates the WebAssembly module. Call once and await it
 * before any other function; later calls give the same result, and asking
 * them for another thread count is a `BAD_ARGUMENT` error. In Node the module
 * is ready on import and this only checks the options.
 *
 * ```js
 * const { threads, reason } = await init({ threads: navigator.hardwareConcurrency });
 * if (reason) console.info(`exporace runs on ${threads} thread(s): ${reason}`);
 * ```
 */
export default function init(options?: InitOptions | InitInput | Promise<InitInput>): Promise<InitResult>;

/** The number of threads that answer calls: the pool's size after `init({ threads })`, or 1. */
export function threadCount(): number;

/** The result of {@link recoverTokensTraced}. */
export interface TracedRecover {
  /** One race per draft token, equal to `recoverTokens`. */
  results: RaceResult[];
  /** The distinct pool thread indices that ran at least one request, ascending; empty without a pool. */
  threadIndices: number[];
}

/**
 * `recoverTokens`, reporting which pool threads did the work: a way to see
 * that the pool is in use.
 */
export function recoverTokensTraced(batch: SpecBatch, invQ: Noise, opts?: RaceOptions): TracedRecover;

/** Instantiates the single-threaded module synchronously from bytes or a compiled module (browser). */
export function initSync(
  module: { module: ArrayBuffer | ArrayBufferView | WebAssembly.Module } | ArrayBuffer | ArrayBufferView | WebAssembly.Module,
): unknown;

// The browser types the signatures above name, declared for programs
// compiled without the `dom` lib; with it, these empty interfaces merge into
// the DOM's own.
declare global {
  interface AbortSignal {}
  interface HTMLCanvasElement {}
  interface Request {}
  interface Response {}
  interface URL {}
  namespace WebAssembly {
    interface Module {}
  }
}
