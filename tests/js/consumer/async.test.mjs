// runExperimentAsync in Node's worker_threads: the same report as the
// synchronous call for the same seed, progress while it runs, and an
// AbortSignal that stops a run of 2^31 trials at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as ex from "exporace";

const target = new Float32Array([0.3, 0.7]);
const options = { sampler: "race", trials: 20_000, seed: 3 };

test("the worker's report equals the synchronous one, with progress", async () => {
  const sync = ex.runExperiment("ideal", target, null, options);
  const fractions = [];
  const report = await ex.runExperimentAsync("ideal", target, null, options, { onProgress: (f) => fractions.push(f) });
  assert.deepEqual(report.counts, sync.counts);
  assert.equal(report.pValue, sync.pValue);
  assert.ok(fractions.length > 0 && fractions.at(-1) === 1, JSON.stringify(fractions));
});

test("an aborted signal stops the run and rejects with CANCELLED", async () => {
  const control = new AbortController();
  const started = Date.now();
  const run = ex.runExperimentAsync("ideal", target, null, { ...options, trials: 2 ** 31 }, {
    signal: control.signal,
    onProgress: () => control.abort(),
  });
  await assert.rejects(run, (e) => e instanceof ex.ExporaceError && e.code === "CANCELLED");
  assert.ok(Date.now() - started < 10_000, "stopped within seconds, not after 2^31 trials");
  const before = new AbortController();
  before.abort();
  await assert.rejects(
    ex.runExperimentAsync("ideal", target, null, options, { signal: before.signal }),
    (e) => e.code === "CANCELLED",
  );
});

test("errors in the worker arrive as ExporaceErrors with their code; CommonJS too", async () => {
  await assert.rejects(
    ex.runExperimentAsync("ideal", target, null, { ...options, trials: 2 ** 40 }),
    (e) => e instanceof ex.ExporaceError && e.code === "TOO_LARGE",
  );
  const cjs = createRequire(import.meta.url)("exporace");
  const report = await cjs.runExperimentAsync("ideal", target, null, options);
  assert.deepEqual(report.counts, ex.runExperiment("ideal", target, null, options).counts);
});
