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

test("an onProgress that throws stops the run: runExperiment throws THREW, runExperimentAsync rejects with it", async () => {
  let calls = 0;
  const boom = () => {
    calls++;
    throw new Error("stop here");
  };
  const started = Date.now();
  assert.throws(
    () => ex.runExperiment("ideal", target, null, { ...options, trials: 2 ** 31 }, boom),
    (e) => e instanceof ex.ExporaceError && e.code === "THREW" && /onProgress threw: stop here/.test(e.message),
  );
  assert.equal(calls, 1, "the run stopped at the first throw");
  assert.ok(Date.now() - started < 10_000, "stopped within seconds, not after 2^31 trials");
  await assert.rejects(
    ex.runExperimentAsync("ideal", target, null, { ...options, trials: 2 ** 31 }, { onProgress: boom }),
    (e) => e instanceof ex.ExporaceError && e.code === "THREW" && /onProgress threw: stop here/.test(e.message),
  );
  assert.ok(Date.now() - started < 20_000, "the worker stopped too");
  // A string thrown is a message too; the module and the worker path still answer.
  assert.throws(() => ex.runExperiment("ideal", target, null, options, () => { throw "plain"; }), /onProgress threw: plain/);
  assert.equal(ex.runExperiment("ideal", target, null, options).trials, 20_000);
  assert.equal((await ex.runExperimentAsync("ideal", target, null, options)).trials, 20_000);
});

test("runExperimentAsync refuses a bad control object and arguments no worker can take, naming them", async () => {
  let deep = { sampler: "race", trials: 10 };
  for (let i = 0; i < 100_000; i++) deep = { x: deep };
  const cases = [
    [[options, null], "BAD_TYPE", "control must be an object"],
    [[options, 5], "BAD_TYPE", "control must be an object"],
    [[options, { onProgress: 5 }], "BAD_TYPE", "control.onProgress must be a function"],
    [[options, { signal: {} }], "BAD_TYPE", "control.signal must be an AbortSignal"],
    [[options, { onProgres() {} }], "UNKNOWN_FIELD", "control has an unknown field \"onProgres\""],
    [[options, { get signal() { throw new Error("mine"); } }], "THREW", "reading control threw: mine"],
    [[{ ...options, f() {} }], "BAD_TYPE", "options cannot be sent to a worker"],
    [[{ ...options, seed: Symbol("s") }], "BAD_TYPE", "options cannot be sent to a worker"],
    [[{ ...options, get trials() { throw new Error("mine"); } }], "THREW", "reading options threw: mine"],
    [[deep], "BAD_ARGUMENT", "options cannot be sent to a worker (it nests too deeply)"],
  ];
  for (const [[opts, control], code, fragment] of cases) {
    await assert.rejects(
      ex.runExperimentAsync("ideal", target, null, opts, control),
      (e) => e instanceof ex.ExporaceError && e.code === code && e.message.includes(fragment),
      fragment,
    );
  }
  await assert.rejects(
    ex.runExperimentAsync(Symbol("m"), target, null, options),
    (e) => e.code === "BAD_TYPE" && e.message.includes("model cannot be sent to a worker"),
  );
  await assert.rejects(
    ex.runExperimentAsync("ideal", new Proxy(target, {}), null, options),
    (e) => e.code === "BAD_TYPE" && e.message.includes("target cannot be sent to a worker"),
  );
  assert.equal((await ex.runExperimentAsync("ideal", target, null, options, { onProgress: null })).trials, 20_000);
});
