/** The scenario calls: compare, sample, noise, dead zones, overflows, `run`. */

import type { CompareReport, DeadZoneReport, ModelsReport, NoiseReport, OverflowReport, Report, SampleReport } from "./reports.js";
import type { Float32Input, NanPolicy, U64, WasmArray } from "./values.js";

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
 * row in the call's logits, and FlashInfer's `sampling_from_logits`
 * (`flashinfer-0.7`: `row`, the CUDA block, and `offset`, curand's; a row
 * whose token the GPU's approximate logs leave open is refused with the
 * tokens that can win). A field the engine does not read is refused. */
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
    | "mlx-0.32-cpu"
    | "flashinfer-0.7";
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
  /** This row's index among them (JAX and MLX; default 0), or its CUDA
   * block (FlashInfer; default 0). */
  row?: U64;
  /** curand's offset (`flashinfer-0.7` only; default 0). */
  offset?: U64;
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

/** A model's draws at an address; the same report as `run` with `op: "noise"`. */
export function noise(options: {
  model: ModelChoice;
  count: number;
  start?: U64;
  address?: "exporace" | "triton" | "mrv2" | "torch_cpu" | "hashed" | "keyed" | "flashinfer";
  row?: U64;
  /** The token's position: required with `address: "mrv2"`, refused with
   * the others; at most `2^63 - 1 - 2^30` (int64 positions, salted by 2^30
   * for drafts). */
  pos?: U64;
  /** A draft token's noise (`address: "mrv2"` only). */
  draft?: boolean;
  /** The request's number of elements: required with `address: "keyed"`
   * (JAX and MLX, whose key is made of the seed and whose `start + i` is a
   * flat element), refused with the others; 1 to 2^63. With
   * `address: "flashinfer"` (`flashinfer-0.7`), required too: the row's
   * vocabulary, 1 to 2^32 - 1, whose token `start + i` of row `row` is drawn. */
  size?: U64;
  /** curand's offset (`address: "flashinfer"` only; default 0). */
  offset?: U64;
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
