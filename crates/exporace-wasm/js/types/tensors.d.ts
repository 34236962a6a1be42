/** Reading and writing `.npy` and safetensors tensors. */

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
