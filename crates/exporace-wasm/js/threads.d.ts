/**
 * exporace, threaded web build: the same API as the default entry, with
 * recover batches spread over a pool of Web Workers (rayon). Results are the
 * same bits as with one thread.
 *
 * Needs cross-origin isolation: serve the page with
 * `Cross-Origin-Opener-Policy: same-origin` and
 * `Cross-Origin-Embedder-Policy: require-corp` (then `crossOriginIsolated` is
 * true). Without it, use the default entry `exporace`. Call the functions from
 * a Web Worker: the browser's main thread may not block on the pool.
 */

export * from "./exporace.js";
export { default } from "./exporace.js";

/**
 * Starts `numThreads` pool workers (for example `navigator.hardwareConcurrency`).
 * Await it once after `init()` and before any parallel call.
 */
export function initThreadPool(numThreads: number): Promise<void>;

/** The number of threads in the pool (1 before {@link initThreadPool}). */
export function threadCount(): number;

/** The result of {@link recoverTokensTraced}. */
export interface TracedRecover {
  /** One race per draft token, equal to `recoverTokens`. */
  results: import("./exporace.js").RaceResult[];
  /** The distinct pool thread indices that ran at least one request, ascending. */
  threadIndices: number[];
}

/**
 * `recoverTokens` with the requests spread over the pool, reporting which
 * pool threads did the work: a way to see that the pool is in use.
 */
export function recoverTokensTraced(
  batch: import("./exporace.js").SpecBatch,
  invQ: import("./exporace.js").Noise,
  opts?: import("./exporace.js").RaceOptions,
): TracedRecover;
