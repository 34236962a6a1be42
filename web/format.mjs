// Numbers as the page prints them: f64 values, f32 values in their shortest
// decimal, estimates with the digits their bracket supports, and Monte
// Carlo statistics to 4 digits.

/** A number: plain between 1e-3 and 1e6, else with 7 significant digits in exponent form. */
export const fmt = (v) =>
  typeof v === "number" ? ((Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6) || v === 0 ? String(v) : v.toExponential(6)) : String(v);

/** An f32 value (weights, fp32 scores) in its shortest decimal form, as the core prints f32 numbers. */
export const fmt32 = (v) => {
  if (typeof v !== "number" || !Number.isFinite(v) || v === 0) return fmt(v);
  for (let digits = 1; digits <= 9; digits++) {
    const s = v.toPrecision(digits);
    if (Math.fround(Number(s)) === v) return fmt(Number(s));
  }
  return fmt(v);
};

/**
 * An estimate with the significant digits its bracket [lower, upper]
 * supports: one more than the bracket's half-width leaves certain; every
 * digit when the value is exact. Plain or in exponent form where `fmt` is.
 */
export const fmtBounded = (p, lower, upper) => {
  const halfWidth = Math.max(upper - p, p - lower);
  if (!(halfWidth > 0) || p === 0) return fmt(p);
  const digits = Math.min(17, Math.max(1, Math.ceil(Math.log10(Math.abs(p) / halfWidth)) + 1));
  const rounded = Number(p.toPrecision(digits));
  return Math.abs(rounded) >= 1e-3 && Math.abs(rounded) < 1e6 ? String(rounded) : rounded.toExponential(digits - 1);
};

/**
 * A statistic of a Monte Carlo run (chi-square, p-value, z, a distance) to 4
 * significant digits: its sampling error is far larger than a 5th digit.
 */
export const fmtStat = (v) => {
  if (typeof v !== "number" || !Number.isFinite(v)) return fmt(v);
  return v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e6) ? v.toExponential(3) : String(Number(v.toPrecision(4)));
};
