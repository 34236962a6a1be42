// benches/rounds.mjs: the medians over rounds that wasm-bench.mjs reports,
// checked on hand-made rounds whose medians and ranges are worked out here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { median, range, scalingOf, summarize } from "../../benches/rounds.mjs";

test("median: odd and even counts, nulls left out, none", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([null, 5, 1]), 3);
  assert.equal(median([]), null);
  assert.equal(median([null]), null);
});

test("range: lowest and highest, null when a value is missing", () => {
  assert.deepEqual(range([2, 0.5, 1]), [0.5, 2]);
  assert.equal(range([1, null]), null);
  assert.equal(range([]), null);
});

// Three rounds of one case: native at 1 and 2 threads, and a node row whose
// ratio is formed against its own round's native time.
const row = (round, build, threads, ms, nativeMs, winnerOk = true) => ({
  case: "seeded/f32/V10",
  round,
  where: build,
  build,
  threads,
  median_ms: ms,
  reps: 5,
  ns_per_element: ms * 1e5,
  copy_ms: null,
  timed_wall_ms: null,
  native_ms: build === "native" ? null : nativeMs,
  ratio_to_native: build === "native" ? null : ms / nativeMs,
  ratio_to_portable: null,
  winner_matches_native: build === "native" ? null : winnerOk,
  thread_cpu_ms: build === "native" ? [1] : null,
  load_average: [round, 0, 0],
});
const raw = [
  row(1, "native", 1, 1.0),
  row(1, "native", 2, 0.5),
  row(1, "node", 1, 3.0, 1.0),
  row(2, "native", 1, 2.0),
  row(2, "native", 2, 2.0),
  row(2, "node", 1, 3.0, 2.0),
  row(3, "native", 1, 1.0),
  row(3, "native", 2, 0.8),
  row(3, "node", 1, 2.0, 1.0, false),
];

test("summarize: medians over the rounds of each row, ratios from their own rounds", () => {
  const rows = summarize(raw);
  assert.deepEqual(
    rows.map((r) => [r.build, r.threads]),
    [
      ["native", 1],
      ["native", 2],
      ["node", 1],
    ],
  );
  const node = rows[2];
  assert.equal(node.rounds, 3);
  assert.equal(node.median_ms, 3.0);
  // Ratios 3, 1.5, 2: their median, not 3.0 ms over the native median 1.0.
  assert.equal(node.ratio_to_native, 2);
  assert.deepEqual(node.ratio_to_native_range, [1.5, 3]);
  assert.equal(node.native_ms, 1.0);
  assert.equal(node.winner_matches_native, false);
  assert.equal("round" in node, false);
  assert.equal("thread_cpu_ms" in rows[0], false);
  assert.equal(rows[0].winner_matches_native, null);
  assert.equal(rows[1].median_ms, 0.8);
  assert.deepEqual(rows[0].load_average, [1, 0, 0]);
});

test("scalingOf: speed-ups formed within rounds, their median and range", () => {
  const s = scalingOf(raw, ["seeded/f32/V10"], ["native", "node"], [2]);
  // Native: 1.0 / 0.5, 2.0 / 2.0, 1.0 / 0.8 = 2, 1, 1.25. Node has no 2-thread rows.
  assert.deepEqual(s, [{ case: "seeded/f32/V10", build: "native", threads: 2, speedup_over_1: 1.25, speedup_range: [1, 2] }]);
});
