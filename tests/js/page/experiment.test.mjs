// The Monte Carlo experiment in its worker: refused when too long, run to the
// end against the core's exact expectation, cancelled, and the shared-noise bias.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { PARAMS, core, open, shots, text, usePage } from "./setup.mjs";

usePage();

test("experiment in a worker: runs to completion against the exact expectation, cancels, measures the shared-noise bias", async () => {
  const { page, errors } = await open(true);
  // The many-tail race itself: a run of hours is refused before it starts, with the trials that fit.
  await page.selectOption("#exp-sampler", "race");
  await page.fill("#exp-trials", "10000000");
  await page.click("#exp-run");
  await page.waitForFunction(() => /^Refused/.test(document.getElementById("exp-status").textContent), null, { timeout: 60000 });
  assert.match(await text(page, "#exp-status"),
    /^Refused: 10000000 trials would take about [\d.]+ h here \(timed on \d+ trials first\); a run may take at most 60 min, about \d+ trials\. Nothing ran\.$/);
  assert.equal(await page.locator("#exp-run").isDisabled(), false);
  assert.equal(await page.locator("#exp-progress").evaluate((p) => p.value), 0);
  // A run that fits says how long it will take before it starts, then counts the tails' wins: the exact
  // expectation of 1024 trials is the core's P(a tail wins) under fp32 noise times 1024.
  await page.fill("#exp-trials", "1024");
  await page.click("#exp-run");
  await page.waitForFunction(() => /^Estimated: about \d+ (s|min) here/.test(document.getElementById("exp-estimate").textContent), null, { timeout: 60000 });
  await page.waitForSelector("#exp-summary", { timeout: 300000 });
  assert.equal(await text(page, "#exp-status"), "Done: 1024 trials under torch-cuda-f32.");
  assert.match(await text(page, "#exp-estimate"), /^Estimated: about \d+ (s|min) here \(timed on \d+ trials first\)\. It took \d+ (s|min)\.$/);
  const tails = core.winProbabilities("torch-cuda-f32", Float64Array.from(core.weightsFromLogits(Float64Array.of(0, -PARAMS.gap), 1)),
    Float64Array.of(1, PARAMS.tails)).groups[1].probability;
  // The categories sit in a closed <details>: read their cells' text.
  const [, tailRow] = (await page.locator("#exp-categories tr").evaluateAll((rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)))).slice(1);
  assert.equal(tailRow[0], `1 .. ${PARAMS.tails}`);
  assert.ok(Math.abs(Number(tailRow[1]) - tails) <= 1e-6 * tails, `expected ${tailRow[1]} against the core's ${tails}`);
  // At 20.5 nats every tail is in fp32's dead zone: none can win, and none did.
  assert.equal(tails, 0);
  assert.equal(tailRow[2], "0");

  // Five pasted weights, four distinct: four categories.
  await page.click("#paste-box summary");
  await page.fill("#paste", "0.5 0.25 0.125 0.0625 0.0625");
  const before = await page.evaluate(() => Number(document.body.dataset.ready));
  await page.click("#apply-paste");
  await page.waitForFunction((n) => Number(document.body.dataset.ready) > n, before, { timeout: 120000 });
  await page.waitForSelector("#exact-table", { timeout: 120000 });
  assert.equal(await page.locator("#exact-table tr").count(), 5);
  await page.fill("#exp-trials", "20480");
  await page.click("#exp-run");
  await page.waitForSelector("#exp-summary", { timeout: 120000 });
  assert.equal(await page.locator("#exp-progress").evaluate((p) => p.value), 1);
  assert.equal(await text(page, "#exp-status"), "Done: 20480 trials under torch-cuda-f32.");
  const [, row] = (await page.locator("#exp-summary tr").allInnerTexts()).map((r) => r.split("\t"));
  assert.equal(row[0], "20480");
  assert.equal(row[2], "3", "four categories: three degrees of freedom");
  assert.ok(Number(row[3]) > 1e-4, `p-value ${row[3]}: the race samples the pasted weights`);
  assert.equal(row[7], "false");
  assert.equal(await page.locator("#exp-categories tr").count(), 5);

  // A long run, cancelled while it runs: the page answers clicks meanwhile.
  await page.fill("#exp-trials", "10000000");
  await page.click("#exp-run");
  await page.waitForFunction(() => document.getElementById("exp-progress").value > 0, null, { timeout: 60000 });
  assert.equal(await page.locator("#exp-run").isDisabled(), true);
  // While it runs it says how long it has left.
  await page.waitForFunction(() => / left\.$/.test(document.getElementById("exp-status").textContent), null, { timeout: 60000 });
  assert.match(await text(page, "#exp-status"), /^Running 10000000 trials under .*: \d+%, about \d+ (s|min) left\.$/);
  await page.click("#exp-cancel");
  assert.match(await text(page, "#exp-status"), /^Cancelled at \d+%\.$/);
  assert.equal(await page.locator("#exp-run").isDisabled(), false);
  assert.equal(await page.locator("#exp-summary").count(), 0);

  // #54282: the draft drawn on the recovery race's own noise biases the output.
  const tvToTarget = async (sampler) => {
    await page.selectOption("#exp-sampler", sampler);
    await page.fill("#exp-trials", "100000");
    await page.click("#exp-run");
    await page.waitForSelector("#exp-summary", { timeout: 120000 });
    const [, r] = (await page.locator("#exp-summary tr").allInnerTexts()).map((x) => x.split("\t"));
    return { tv: Number(r[6]), p: Number(r[3]) };
  };
  const salted = await tvToTarget("rejection");
  const shared = await tvToTarget("rejection_shared");
  assert.ok(salted.p > 1e-4, `independent noise fits the target: p = ${salted.p}`);
  assert.ok(shared.p < 1e-6, `shared noise is biased: p = ${shared.p}`);
  assert.ok(shared.tv > salted.tv, `bias ${shared.tv} against ${salted.tv}`);
  await page.locator("#experiment").screenshot({ path: join(shots, "experiment.png") });
  assert.deepEqual(errors, []);
  await page.close();
});
