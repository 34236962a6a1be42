/** Floats at fp32 and fp64, and weights from logits. */

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
