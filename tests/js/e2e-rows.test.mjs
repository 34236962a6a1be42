// The performance view's end-to-end rows (web/e2e-rows.mjs), in Node: no wasm,
// no browser. Both schemas of benches/results.json's end_to_end key, the
// committed files themselves, and corrupt inputs (fewer rows or none, never
// an exception).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { e2eRows, fmtNs } from "../../web/e2e-rows.mjs";

const fn = (median_ns, extra = {}) => ({ median_ns, ...extra });
/** A benchmark file holding only these end-to-end cases (and notes). */
const withCases = (cases, notes) => ({ end_to_end: notes === undefined ? { cases } : { cases, notes } });

test("the older schema: no floor nor ratio_to_floor, so the floor is seeded-f32 and the ratio ratio_to_seeded_f32", () => {
  const bench = withCases([
    {
      case: "end-to-end/many-tail/V262145",
      vocab: 262145,
      functions: {
        "seeded-f32": fn(479179.8, { ratio_to_seeded_f32: 1, ratio_to_seeded_f64: 1.0015 }),
        "seeded-f64": fn(478461.4, { ratio_to_seeded_f32: 0.9985, ratio_to_seeded_f64: 1 }),
        "trial-ideal": fn(1034279.7, { ratio_to_seeded_f32: 2.1584, ratio_to_seeded_f64: 2.1617 }),
      },
    },
  ]);
  assert.deepEqual(e2eRows(bench), [
    { workload: "many-tail/V262145", fn: "seeded-f64", medianNs: 478461.4, floor: "seeded-f32", ratio: 0.9985 },
    { workload: "many-tail/V262145", fn: "trial-ideal", medianNs: 1034279.7, floor: "seeded-f32", ratio: 2.1584 },
  ]);
});

test("the newer schema: each case names its floor and ratio_to_floor, the audit's floor is read", () => {
  const bench = withCases([
    {
      case: "end-to-end/fill/V152064",
      vocab: 152064,
      floor: "seeded-f32",
      functions: {
        "seeded-f32": fn(300000, { ratio_to_floor: 1, ratio_to_seeded_f32: 1, ratio_to_seeded_f64: 0.9 }),
        "fill-q-f32": fn(450000, { ratio_to_floor: 1.5, ratio_to_seeded_f32: 1.5, ratio_to_seeded_f64: 1.4 }),
      },
    },
    {
      case: "end-to-end/audit/B64x4xV152064",
      vocab: 152064,
      floor: "read",
      functions: {
        read: fn(2e6, { ratio_to_floor: 1 }),
        "audit-f32": fn(8e6, { ratio_to_floor: 4 }),
        "audit-f64": fn(1.2e7, { ratio_to_floor: 6 }),
      },
    },
  ], "one thread");
  assert.deepEqual(
    e2eRows(bench).map((r) => [r.workload, r.fn, r.floor, r.ratio]),
    [
      ["fill/V152064", "fill-q-f32", "seeded-f32", 1.5],
      ["audit/B64x4xV152064", "audit-f32", "read", 4],
      ["audit/B64x4xV152064", "audit-f64", "read", 6],
    ],
  );
  // A floor named but no ratio given: formed from the two medians of the same run.
  const formed = e2eRows({ end_to_end: { cases: [{ case: "end-to-end/audit/x", floor: "read", functions: { read: fn(2), audit: fn(5) } }] } });
  assert.deepEqual(formed, [{ workload: "audit/x", fn: "audit", medianNs: 5, floor: "read", ratio: 2.5 }]);
  // Neither a ratio nor the floor's median: no ratio.
  assert.equal(e2eRows({ end_to_end: { cases: [{ case: "c", floor: "read", functions: { audit: fn(5) } }] } })[0].ratio, null);
});

test("corrupt inputs give fewer rows or none, never an exception", () => {
  const good = { case: "end-to-end/w", functions: { "seeded-f32": fn(1), other: fn(2, { ratio_to_seeded_f32: 2 }) } };
  for (const bench of [
    undefined,
    null,
    42,
    "end_to_end",
    [],
    {},
    { end_to_end: null },
    { end_to_end: "cases" },
    { end_to_end: [good] },
    { end_to_end: { cases: null } },
    { end_to_end: { cases: { 0: good } } },
    { end_to_end: { cases: "[]" } },
    { end_to_end: { cases: [null, 3, "x", [], { case: 5, functions: good.functions }, { case: "c" }, { case: "c", functions: [fn(1)] }] } },
    { end_to_end: { cases: [{ ...good, floor: 7 }] } },
    { end_to_end: { cases: [{ case: "c", functions: { a: null, b: "1", c: fn("1"), d: fn(NaN), e: fn(Infinity), f: fn(-1), g: fn(null), h: {} } }] } },
  ]) {
    assert.deepEqual(e2eRows(bench), [], JSON.stringify(bench) ?? String(bench));
  }
  // The good rows of a file with bad ones are kept; a ratio that is not a number falls back to the medians.
  const mixed = { end_to_end: { cases: [null, good, { case: "end-to-end/v", functions: { "seeded-f32": fn(4), x: fn(6, { ratio_to_seeded_f32: "1.5" }), y: fn("6") } }] } };
  assert.deepEqual(e2eRows(mixed), [
    { workload: "w", fn: "other", medianNs: 2, floor: "seeded-f32", ratio: 2 },
    { workload: "v", fn: "x", medianNs: 6, floor: "seeded-f32", ratio: 1.5 },
  ]);
  // Names are returned as given (the view escapes them).
  const hostile = e2eRows({ end_to_end: { cases: [{ case: "end-to-end/<b>", functions: { "<img src=x>": fn(1, { ratio_to_seeded_f32: 1 }) } }] } });
  assert.deepEqual(hostile.map((r) => [r.workload, r.fn]), [["<b>", "<img src=x>"]]);
});

test("the committed files: results.json's rows are its non-floor functions; xeon and avx2 have none", () => {
  const read = (f) => {
    const url = new URL(`../../benches/${f}`, import.meta.url);
    return existsSync(url) ? JSON.parse(readFileSync(url, "utf8")) : null;
  };
  const bench = read("results.json");
  if (bench?.end_to_end) {
    const want = bench.end_to_end.cases.flatMap((c) => Object.keys(c.functions).filter((f) => f !== (c.floor ?? "seeded-f32")));
    const rows = e2eRows(bench);
    assert.deepEqual(rows.map((r) => r.fn), want);
    assert.ok(rows.every((r) => typeof r.ratio === "number" && r.ratio > 0 && !r.workload.startsWith("end-to-end/")));
  }
  for (const f of ["xeon/results.json", "avx2/results.json"]) {
    const other = read(f);
    if (other && !other.end_to_end) assert.deepEqual(e2eRows(other), [], f);
  }
});

test("a median in ns as µs, ms or s to 3 significant digits", () => {
  assert.equal(fmtNs(1034279.7788), "1.03 ms");
  assert.equal(fmtNs(479179.8), "479 µs");
  assert.equal(fmtNs(999.6), "1.00 µs");
  assert.equal(fmtNs(12.34), "0.0123 µs");
  assert.equal(fmtNs(999700), "1.00 ms", "999.7 µs rounds to 1.00 ms");
  assert.equal(fmtNs(999_700_000), "1.00 s");
  assert.equal(fmtNs(2.5e9), "2.50 s");
  assert.equal(fmtNs(1.234e12), "1230 s");
  assert.equal(fmtNs(0), "0.00 µs");
});
