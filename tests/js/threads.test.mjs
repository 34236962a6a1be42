// The package in real headless Chromium, served with COOP/COEP from a local
// server: the one entry on the page (one thread: the main thread may not wait
// for a pool) and in a worker with init({ threads: 4 }) must both give the
// golden bits, and more than one pool thread must have done work.
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { collectErrors, launchChromium } from "./chromium.mjs";
import { serve as serveDir } from "./serve.mjs";

const root = resolve(new URL("../..", import.meta.url).pathname);
const serve = () =>
  serveDir(root, {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
  });

test("threaded and single-threaded web builds give the golden bits; several workers did the work", async () => {
  const server = await serve();
  const browser = await launchChromium();
  const { context } = browser;
  try {
    const page = await context.newPage();
    const logs = [];
    page.on("console", (m) => logs.push(m.text()));
    page.on("pageerror", (e) => logs.push(String(e)));
    const { port } = server.address();
    await page.goto(`http://127.0.0.1:${port}/tests/js/page/threads.html`);
    await page.waitForFunction(() => window.__result, null, { timeout: 120000 });
    const result = await page.evaluate(() => window.__result);
    console.log(JSON.stringify(result));
    assert.equal(result.error, undefined, `${result.error}\n${logs.join("\n")}`);
    assert.equal(result.isolated, true, "the page is cross-origin isolated");
    assert.ok(result.singleBits > 0, "the single-threaded build checked golden bits");
    assert.equal(result.mainThread.threads, 1);
    assert.equal(result.mainThread.requested, 4);
    assert.match(result.mainThread.reason, /main thread may not wait for a pool/);
    assert.equal(result.threads.ok, true, `${result.threads.error}\n${logs.join("\n")}`);
    const r = result.threads.report;
    assert.deepEqual(r.started, { threads: 4, requested: 4, reason: null });
    assert.equal(r.poolSize, 4);
    assert.equal(r.scenarioBits, result.singleBits, "threaded run() checked the same bits");
    assert.equal(r.largeBits, 256);
    assert.equal(r.residentBits, 256, "WasmArrays in shared memory give the same bits");
    assert.ok(r.threadIndices.length > 1, `pool threads seen: ${r.threadIndices}`);
  } finally {
    await browser.close();
    server.close();
  }
});

test("runExperimentAsync in a module Web Worker: the synchronous counts, progress, abort", async () => {
  const server = await serve();
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    const { port } = server.address();
    await page.goto(`http://127.0.0.1:${port}/pkg/package.json`);
    const result = await page.evaluate(async () => {
      const ex = await import("/pkg/web/index.js");
      await ex.default();
      const target = new Float32Array([0.3, 0.7]);
      const options = { sampler: "race", trials: 20000, seed: 3 };
      const sync = ex.runExperiment("ideal", target, null, options);
      const fractions = [];
      const report = await ex.runExperimentAsync("ideal", target, null, options, { onProgress: (f) => fractions.push(f) });
      const control = new AbortController();
      const started = performance.now();
      let code = null;
      try {
        await ex.runExperimentAsync("ideal", target, null, { ...options, trials: 2 ** 31 }, {
          signal: control.signal,
          onProgress: () => control.abort(),
        });
      } catch (e) {
        code = e instanceof ex.ExporaceError ? e.code : String(e);
      }
      return {
        same: JSON.stringify(report.counts) === JSON.stringify(sync.counts),
        lastFraction: fractions.at(-1),
        code,
        abortMs: performance.now() - started,
      };
    });
    assert.deepEqual(errors, []);
    assert.equal(result.same, true);
    assert.equal(result.lastFraction, 1);
    assert.equal(result.code, "CANCELLED");
    assert.ok(result.abortMs < 10000, `aborted after ${result.abortMs} ms`);
  } finally {
    await browser.close();
    server.close();
  }
});
