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

export * from "./types/values.js";
export * from "./types/race.js";
export * from "./types/tensors.js";
export * from "./types/study.js";
export * from "./types/charts.js";
export * from "./types/floats.js";
export * from "./types/reports.js";
export * from "./types/scenario.js";

import type { SpecBatch } from "./types/race.js";
import type { Noise, RaceOptions, RaceResult } from "./types/values.js";

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
