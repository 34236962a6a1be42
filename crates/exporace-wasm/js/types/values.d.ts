/** The values every call shares: NaN policies, races' results, errors, WebAssembly-memory arrays. */

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
