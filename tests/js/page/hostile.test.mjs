// Hostile values: fields out of range, refused seeds and pastes, trials and
// corrupt share links change nothing and say why.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildPreset } from "../../../web/presets.mjs";
import { collectErrors } from "../chromium.mjs";
import { PARAMS, assertCompare, choose, compareRows, context, core, open, redrawn, serveOnce, text, usePage } from "./setup.mjs";

usePage();

test("hostile values: gap 0, seeds, fields out of range, refused pastes, trials, corrupt share links", async () => {
  const { page, errors } = await open(false);
  // Estimates are printed with the digits their bracket supports (the ideal
  // tails' half-width is about 1.7e-7): 5 significant digits, not 16.
  await page.waitForSelector("#exact-table", { timeout: 120000 });
  const idealText = await text(page, "#exact-1-0");
  assert.equal(idealText.replace(/^[0.]+|e.*$/g, "").replace(".", "").length, 5, idealText);
  assert.ok(Math.abs(Number(idealText) - 3.2761e-4) < 1e-7, idealText);
  // The curve is sampled finely where it bends: at 18.5 nats its table row
  // holds the core's exact tail probability for that gap.
  await page.waitForSelector('#exact-chart-data tr[data-gap="18.5"]', { timeout: 120000 });
  assert.ok((await page.locator("#exact-chart-data tr[data-gap]").count()) >= 60);
  const at = core.winProbabilities("ideal", new Float64Array([1, Math.fround(Math.exp(-18.5))]), new Float64Array([1, PARAMS.tails])).groups[1].probability;
  const row = (await page.locator('#exact-chart-data tr[data-gap="18.5"]').innerText()).split("\t");
  assert.ok(Math.abs(Number(row[1]) - at) <= 1e-6 * at, `${row} against ${at}`);
  // fp32 is blue and fp64 red in every view: the seeded pipelines (A fp32,
  // B fp64) and the near-tie preset's inline noise (A fp64, B its fp32 cast).
  const colorsOf = async (p, sel) => JSON.parse(await p.getAttribute(sel, "data-colors"));
  const BLUE = [31, 95, 191], RED = [192, 57, 43];
  await page.waitForSelector("#score-chart[data-colors]", { timeout: 60000 });
  assert.deepEqual((await colorsOf(page, "#score-chart")).map(([, c]) => c), [BLUE, RED], "seeded: A fp32, B fp64");
  await choose(page, "preset", "near-tie");
  const nearTie = await colorsOf(page, "#score-chart");
  assert.match(nearTie[0][0], /f64/);
  assert.deepEqual(nearTie.map(([, c]) => c), [RED, BLUE], "near-tie: fp64 red, fp32 blue");
  await choose(page, "preset", "many-tail");
  await page.waitForSelector("#exact-table", { timeout: 120000 });
  // Each curve's floor is explained from the model's facts.
  const ideal = core.models().result.models.find((m) => m.name === "ideal");
  await page.waitForFunction(() => document.getElementById("curve-floors").textContent !== "", null, { timeout: 120000 });
  const floors = await text(page, "#curve-floors");
  assert.match(floors, new RegExp(`ideal levels off far down: .* probability ${String(ideal.pZero.toExponential(6)).replace(/[.+]/g, "\\$&")}`));
  assert.match(floors, /torch-cuda-f32 drops to 0 once even its smallest E/);
  // The guide's words follow the state: at 20.5 nats the tails are dead in fp32.
  assert.match(await text(page, "#guide-where"), /every tail sits in the shaded dead zone/);
  assert.equal(await text(page, "#guide-gap-intro"), "20.5");
  // Gap 0: head and tails weigh the same; the theory view and the guide still answer.
  await redrawn(page, async () => {
    await page.fill("#gap", "0");
    await page.locator("#gap").dispatchEvent("change");
  });
  await page.waitForSelector("#exact-table", { timeout: 60000 });
  const tails = core.winProbabilities(
    "torch-cuda-f32",
    new Float64Array([1, 1]),
    new Float64Array([1, PARAMS.tails]),
  ).groups[1];
  await page.waitForFunction(() => !document.getElementById("guide-f32").textContent.includes("…"), null, { timeout: 60000 });
  assert.match(await text(page, "#guide-where"), /at this gap the tails sit above the dead zone/);
  assert.equal(await text(page, "#guide-gap-intro"), "0");
  assert.match(await text(page, "#guide-verdict"), /Both precisions give the tails a share here/);
  const halfWidth = Math.max(tails.upper - tails.probability, tails.probability - tails.lower);
  const shown = Number(await text(page, "#guide-f32"));
  assert.ok(Math.abs(shown - tails.probability) <= halfWidth, `the guide reads the core's tail probability: ${shown}`);
  // A seed that is not one changes nothing and says why; a hex seed is a seed.
  const before = await compareRows(page);
  for (const bad of ["abc", "-5", "1e3", "", "18446744073709551616"]) {
    await page.fill("#seed", bad);
    await page.locator("#seed").dispatchEvent("change");
    assert.match(await text(page, "#seed-error"), /is not a seed/, bad);
    assert.equal(await page.getAttribute("#seed", "aria-invalid"), "true");
    assert.deepEqual(await compareRows(page), before, `${bad} left the views alone`);
  }
  await redrawn(page, async () => {
    await page.fill("#seed", "0x10");
    await page.locator("#seed").dispatchEvent("change");
  });
  assert.equal(await text(page, "#seed-error"), "");
  const sixteen = core.run({ exporace: 1, op: "compare", weights: Array.from(buildPreset(core, "many-tail", { ...PARAMS, gap: 0 }).weights), models: ["torch-cuda-f32", "torch-cuda-f64"], seed: "16", row: 0 }).result;
  await assertCompare(page, sixteen);
  // Fields outside their range, and pasted numbers the core refuses, change nothing and say why.
  const views = await compareRows(page);
  const about = await text(page, "#about");
  for (const [id, value, message] of [
    ["tails", "-5", /Tails N must be a whole number from 1 to 262144 \(got -5\)/],
    ["tails", "1e9", /Tails N must be a whole number/],
    ["gap", "-3", /Gap \(nats\) must be a number from 0 to 40 \(got -3\)/],
    ["temperature", "0", /Temperature must be a number from 0.05 to 10/],
  ]) {
    await page.fill(`#${id}`, value);
    await page.locator(`#${id}`).dispatchEvent("change");
    assert.match(await text(page, "#preset-error"), message, `${id} ${value}`);
    assert.equal(await page.getAttribute(`#${id}`, "aria-invalid"), "true");
    assert.deepEqual(await compareRows(page), views, `${id} ${value} left the views alone`);
  }
  await page.fill("#tails", String(PARAMS.tails));
  await page.fill("#temperature", "1");
  await page.click("#paste-box summary");
  for (const [paste, message] of [["0.5 -0.1 0.6", /negative value -0\.1\d* in weights at index 1/], ["1e39 1", /beyond the largest f32/]]) {
    await page.fill("#paste", paste);
    await page.click("#apply-paste");
    assert.match(await text(page, "#paste-error"), message, paste);
    assert.equal(await text(page, "#about"), about, `${paste}: the race stays the preset's`);
    assert.deepEqual(await compareRows(page), views, `${paste} left the views alone`);
  }
  for (const trials of ["0", "", "1e12", "1500.5"]) {
    await page.fill("#exp-trials", trials);
    await page.click("#exp-run");
    assert.match(await text(page, "#exp-status"), /Trials must be a whole number from 1024 to 10000000/, trials);
  }
  // A corrupt link opens the default state and says the link could not be read.
  const url = await serveOnce(false);
  for (const hash of ["#s=AAAAgarbage", "#s=%%%", "#s="]) {
    const p = await context.newPage();
    const pageErrors = collectErrors(p);
    await p.goto(url + hash);
    await p.waitForFunction(() => ["threaded", "single", "error"].includes(document.getElementById("thread-status").dataset.mode), null, { timeout: 120000 });
    assert.notEqual(await p.getAttribute("#thread-status", "data-mode"), "error", hash);
    assert.match(await p.locator("#share-note").innerText(), /could not be read/, hash);
    await p.waitForSelector("#compare-table", { timeout: 60000 });
    assert.deepEqual(pageErrors, [], hash);
    await p.close();
  }
  assert.deepEqual(errors, []);
  await page.close();
});
