// The end-to-end rows of a native benchmark file (its `end_to_end` key): what
// users run (a Monte Carlo trial, a sweep, a fill, an audit) against the
// kernel floor timed in the same run. Pure: no DOM, no wasm, so Node tests it.
//
// The file's shape: `{ end_to_end: { cases: [{ case, vocab, floor,
// functions: { <name>: { median_ns, ratio_to_floor, ratio_to_seeded_f32,
// ratio_to_seeded_f64 } } }], notes } }`. Files of the older schema have no
// `floor` nor `ratio_to_floor`: their floor is seeded-f32, their ratio
// ratio_to_seeded_f32.

/** The floor of a case that names none (the older schema). */
export const DEFAULT_FLOOR = "seeded-f32";

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const isNumber = (v) => typeof v === "number" && Number.isFinite(v);

/**
 * One row per function of each end-to-end case that is not the case's floor:
 * `{ workload, fn, medianNs, floor, ratio }`, in the file's order.
 * `workload` is the case name without its `end-to-end/` prefix; `ratio` is
 * the median over the floor's median in the same run (`ratio_to_floor`, else
 * `ratio_to_seeded_f32|f64` for a seeded floor, else formed from the two
 * medians), or null when the file gives no way to form it. Anything malformed
 * (no `end_to_end` object, `cases` not an array, a case or function not an
 * object, a median that is not a finite number of at least 0) is skipped, so
 * a corrupt file gives fewer rows or none, never an exception.
 */
export function e2eRows(bench) {
  const e2e = isObject(bench) ? bench.end_to_end : undefined;
  if (!isObject(e2e) || !Array.isArray(e2e.cases)) return [];
  const rows = [];
  for (const c of e2e.cases) {
    if (!isObject(c) || typeof c.case !== "string" || !isObject(c.functions)) continue;
    if (c.floor !== undefined && typeof c.floor !== "string") continue;
    const floor = c.floor ?? DEFAULT_FLOOR;
    const workload = c.case.replace(/^end-to-end\//, "");
    const floorMedian = isObject(c.functions[floor]) ? c.functions[floor].median_ns : undefined;
    for (const [fn, f] of Object.entries(c.functions)) {
      if (fn === floor || !isObject(f) || !isNumber(f.median_ns) || f.median_ns < 0) continue;
      let ratio = null;
      if (isNumber(f.ratio_to_floor)) ratio = f.ratio_to_floor;
      else if (/^seeded-f(32|64)$/.test(floor) && isNumber(f[`ratio_to_${floor.replace("-", "_")}`])) {
        ratio = f[`ratio_to_${floor.replace("-", "_")}`];
      } else if (isNumber(floorMedian) && floorMedian > 0) ratio = f.median_ns / floorMedian;
      rows.push({ workload, fn, medianNs: f.median_ns, floor, ratio });
    }
  }
  return rows;
}

/** A duration in ns as µs, ms or s, to 3 significant digits ("1.03 ms"). */
export function fmtNs(ns) {
  if (!isNumber(ns)) return String(ns);
  const units = [
    [1e3, "µs"],
    [1e6, "ms"],
    [1e9, "s"],
  ];
  for (const [k, [scale, unit]] of units.entries()) {
    const digits = (ns / scale).toPrecision(3);
    // 999.7 µs rounds to 1000: that is 1.00 ms. Past 999 s, whole seconds ("1230 s", not "1.23e+3 s").
    if (Math.abs(Number(digits)) < 1000) return `${digits} ${unit}`;
    if (k === units.length - 1) return `${Number(digits)} ${unit}`;
  }
}
