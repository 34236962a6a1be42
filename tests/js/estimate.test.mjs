// The page's run estimate (web/estimate.mjs) and its printing of Monte Carlo
// statistics (web/format.mjs), in Node: no wasm, no browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_RUN_SECONDS, duration, judgeRun } from "../../web/estimate.mjs";
import { fmtBounded, fmtStat } from "../../web/format.mjs";

test("a run's estimate is the fixed cost plus the trials at the measured rate, per run", () => {
  const c = { fixedMs: 200, perTrialMs: 0.5, probe: 64 };
  const v = judgeRun(c, 1000);
  assert.equal(v.seconds, 0.7);
  assert.equal(v.ok, true);
  assert.equal(v.text, "Estimated: about 1 s here (timed on 64 trials first).");
  assert.equal(judgeRun(c, 1000, 3).seconds, 2.1);
});

test("a run over the limit is refused with the trials that fit, and the limit itself is allowed", () => {
  const c = { fixedMs: 0, perTrialMs: 1, probe: 16 };
  const limit = MAX_RUN_SECONDS * 1000;
  assert.equal(judgeRun(c, limit).ok, true);
  const over = judgeRun(c, limit + 1);
  assert.equal(over.ok, false);
  assert.equal(over.text,
    `Refused: ${limit + 1} trials would take about 61 min here (timed on 16 trials first); ` +
    `a run may take at most 60 min, about ${limit} trials. Nothing ran.`);
  // Over several positions the trials that fit are per position.
  const spec = judgeRun({ fixedMs: 1000, perTrialMs: 1, probe: 16 }, 10 ** 7, 4);
  assert.equal(spec.ok, false);
  assert.match(spec.text, /^Refused: 10000000 trials at each of 4 positions would take about 11\.1 h here .* about 899000 trials\. Nothing ran\.$/);
  // A rate too small to measure still gives a finite answer.
  assert.equal(judgeRun({ fixedMs: 5, perTrialMs: 0, probe: 4096 }, 10 ** 7).ok, true);
});

test("durations read in seconds, minutes or hours", () => {
  assert.deepEqual([0.01, 1.2, 89.5, 90, 5399, 5400, 40000].map(duration), ["1 s", "2 s", "90 s", "2 min", "90 min", "1.5 h", "11.1 h"]);
});

test("statistics print 4 significant digits; non-finite values as they are", () => {
  assert.deepEqual([0.03262000000000001, 513.685375, 2.848643e-112, 21.05611945888099, 0, 1e7, -0.000123456, NaN, Infinity].map(fmtStat),
    ["0.03262", "513.7", "2.849e-112", "21.06", "0", "1.000e+7", "-1.235e-4", "NaN", "Infinity"]);
});

test("an estimate keeps the digits its bracket supports, in the notation of the page's other numbers", () => {
  // Half-width 1e-9 around 3.2761234e-4: 6 digits are certain, 7 shown, in exponent form below 1e-3.
  assert.equal(fmtBounded(3.2761234e-4, 3.2761134e-4, 3.2761334e-4), "3.276123e-4");
  // The same bracket on a plain value: 0.012345678 +- 1e-7 keeps 7 digits.
  assert.equal(fmtBounded(0.012345678, 0.012345578, 0.012345778), "0.01234568");
  // Exact values (no width) and 0 print as fmt does.
  assert.equal(fmtBounded(3.544463e-4, 3.544463e-4, 3.544463e-4), "3.544463e-4");
  assert.equal(fmtBounded(0, 0, 1e-30), "0");
  // A bracket far wider than the value leaves one digit.
  assert.equal(fmtBounded(2.6e-7, 0, 1e-6), "3e-7");
});
