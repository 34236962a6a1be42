// The page in headless Chromium with and without COOP/COEP: with them it runs
// threaded in a worker pool (the many-tail dead zone, the near-tie flip, the
// overflow under each NaN policy), without them on one thread and says why.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { choose, coloursOn, open, shots, text, usePage } from "./setup.mjs";

usePage();

test("with COOP/COEP: threaded pool, many-tail dead zone, near-tie flip, overflow under each NaN policy", async () => {
  const { page, errors } = await open(true);
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
  const status = await text(page, "#thread-status");
  assert.equal(await page.locator("#thread-status").getAttribute("data-mode"), "threaded", status);
  const threads = Number(await page.locator("#thread-status").getAttribute("data-threads"));
  assert.ok(threads >= 2, status);
  assert.match(status, new RegExp(`pool of ${threads} workers`));

  // The guided first example: 1 head + 262144 tails at 20.5 nats.
  assert.equal(await page.inputValue("#preset"), "many-tail");
  assert.equal(await text(page, "#dead-count-a"), "262144", "torch-cuda-f32 kills every tail");
  assert.equal(await text(page, "#dead-count-b"), "0", "torch-cuda-f64 kills none");
  const mass = Number(await text(page, "#dead-mass-a"));
  assert.ok(Math.abs(mass - 3.276e-4) < 1e-6, `lost mass ${mass}`);
  assert.match(await text(page, "#prob-summary"), /^262145 tokens; pipeline A kills 262144/);
  assert.match(await text(page, "#model-facts"), /curand: fp32\(x\) \* 2\^-32/);
  assert.equal(await page.locator("#draws tr[data-i]").count(), 8);
  // Exact win probabilities of the tails: ideal, torch CUDA fp32 (dead), fp64.
  await page.waitForSelector("#exact-table", { timeout: 120000 });
  const ideal = Number(await text(page, "#exact-1-0"));
  assert.ok(Math.abs(ideal - 3.2761e-4) < 1e-7, `ideal tail probability ${ideal}`);
  assert.equal(await text(page, "#exact-1-1"), "0", "fp32 torch CUDA: tails never win");
  const f64 = Number(await text(page, "#exact-1-2"));
  assert.ok(Math.abs(f64 - 3.2761e-4) < 1e-7, `fp64 torch CUDA tail probability ${f64}`);
  assert.ok(Math.abs(Number(await text(page, "#exact-0-1")) - 1) < 1e-12, "fp32: the head always wins");
  await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
  // The curve chart is drawn by plotters (exporace-viz) on the canvas: the three series' colours are there.
  const colours = await coloursOn(page, "exact-chart", ["85,85,85", "31,95,191", "192,57,43"]);
  assert.deepEqual(colours, ["85,85,85", "31,95,191", "192,57,43"]);
  await page.screenshot({ path: join(shots, "many-tail.png"), fullPage: true });

  // Near-tie: fp64 noise [1, 1 + 1e-12] against its fp32 cast.
  await choose(page, "preset", "near-tie");
  assert.equal(await page.locator("#flip").getAttribute("data-flipped"), "true");
  assert.equal(await text(page, "#exact-winner"), "1");
  const compare = await text(page, "#compare-table");
  assert.match(compare, /inline noise at f64\ttoken 1\t0\.25000000000025\t0x3fd0000000001198\t0\t4504/);
  assert.match(compare, /inline noise cast to f32\ttoken 0\t0\.25\t0x3e800000\t1\t0/);
  const draws = await text(page, "#draws");
  assert.match(draws, /0\t1\t0x3ff0000000000000\t0x3f800000/);
  assert.match(draws, /1\t1\.000000000001\t0x3ff0000000001198\t0x3f800000/);
  await page.screenshot({ path: join(shots, "near-tie.png"), fullPage: true });

  // q = 0: token 1 scores NaN (0 x inf), token 3 inf.
  await choose(page, "preset", "overflow");
  const entries = await text(page, "#overflow-entries");
  assert.match(entries, /1\t0\tinf\tscore NaN/);
  assert.match(entries, /3\t0\.2\tinf\tscore inf/);
  assert.equal(await text(page, "#policy-pick"), "Under first_nan_wins: token 1 wins.");
  await choose(page, "nan-policy", "nan_never_wins");
  assert.equal(await text(page, "#policy-pick"), "Under nan_never_wins: token 3 wins.");
  await choose(page, "nan-policy", "reject");
  assert.match(await text(page, "#policy-pick"), /^Under reject: NaN score at token 1/);

  // The speculative-decoding step (seed 7 of the page).
  assert.equal(await page.locator("#spec-trace tr").count(), 5);
  assert.equal(await text(page, "#spec-output"), "[[1,1,-1],[2,-1,-1],[2,2,-1]]");
  assert.match(await text(page, "#spec-trace"), /0\t0\t1\t0\.5\t0\.8\t0\.4950397946340347\taccepted/);
  assert.equal(await page.locator("#score-chart").isHidden(), true, "no scores to draw when the race refuses");
  await choose(page, "nan-policy", "nan_never_wins");
  assert.equal(await page.locator("#score-chart").isHidden(), false);
  await page.waitForSelector("#exact-table", { timeout: 120000 });
  await page.screenshot({ path: join(shots, "overflow.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("without COOP/COEP: one thread, and the page says why", async () => {
  const { page, errors } = await open(false);
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), false);
  assert.equal(await page.locator("#thread-status").getAttribute("data-mode"), "single");
  assert.match(await text(page, "#thread-status"), /one thread: the page is not cross-origin isolated/);
  assert.equal(await text(page, "#dead-count-a"), "262144", "the single-threaded core gives the same answer");
  assert.deepEqual(errors, []);
});
