// The page by keyboard alone, with an accessible name for every control, no
// serious axe-core violation, and a summary and data table for every canvas.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildPreset } from "../../../web/presets.mjs";
import { le, safetensors } from "../files.mjs";
import { PARAMS, choose, core, open, pressed, shots, tabTo, text, usePage } from "./setup.mjs";

usePage();

test("keyboard only: the many-tail guide, the preset, the gap slider, an experiment started and cancelled", async () => {
  const { page, errors } = await open(false);
  await page.waitForSelector("#exact-table", { timeout: 120000 });
  // The guide's numbers come from the core (its own request to the theory
  // worker): fp32 loses every tail, fp64 keeps about 3.28e-4.
  await page.waitForFunction(() => !document.getElementById("guide-f64").textContent.startsWith("…"), null, { timeout: 120000 });
  assert.equal(await text(page, "#guide-f32"), "0");
  const guided = Number(await text(page, "#guide-f64"));
  assert.ok(Math.abs(guided - 3.2761e-4) < 1e-7, `guide fp64 ${guided}`);
  assert.equal(await text(page, "#guide-f64"), await text(page, "#exact-1-2"));
  assert.equal(await text(page, "#guide-gap"), "20.5");
  // The dead zone's edge the guide names is the one the theory view's table gives for torch-cuda-f32.
  assert.equal(await text(page, "#guide-threshold"), (await page.locator("#dead-zone tr").nth(1).locator("td").nth(2).innerText()));
  // The smallest E of fp32 torch CUDA noise is 2^-24 (u clamped below 1 - 2^-24), exactly.
  assert.equal(Number(await text(page, "#guide-emin")), Number((2 ** -24).toExponential(6)));
  assert.equal(await text(page, "#guide-emax"), (await page.locator("#dead-zone tr").nth(1).locator("td").nth(4).innerText()));
  assert.ok(await page.locator("#guide-other").isHidden());

  // The preset by arrow keys: away and back to the many-tail race.
  await tabTo(page, "#preset");
  await pressed(page, "ArrowDown");
  assert.equal(await page.inputValue("#preset"), "uniform");
  assert.ok(await page.locator("#guide-other").isVisible(), "away from many-tail the guide offers the way back");
  await pressed(page, "ArrowUp");
  assert.equal(await page.inputValue("#preset"), "many-tail");

  // The gap slider by arrow keys: one step of 0.5 nats to 21; the ideal tail probability follows
  // N w / (1 + N w) with w = exp(-21) in f32, computed here independently of the core.
  await tabTo(page, "#gap-slider", { back: true });
  await pressed(page, "ArrowRight");
  assert.equal(await page.inputValue("#gap"), "21");
  await page.waitForFunction(() => document.getElementById("guide-gap").textContent === "21");
  assert.equal(await text(page, "#gap-slider-out"), "21 nats");
  await page.waitForFunction(() => document.getElementById("exact-1-0"), null, { timeout: 120000 });
  const w = Math.fround(Math.exp(-21)), n = 262144;
  await page.waitForFunction(
    (want) => Math.abs(Number(document.getElementById("exact-1-0")?.textContent) - want) < 1e-7,
    (n * w) / (1 + n * w),
    { timeout: 120000 },
  );
  assert.equal(await text(page, "#exact-1-1"), "0");
  await pressed(page, "ArrowLeft");
  assert.equal(await page.inputValue("#gap"), "20.5");

  // An experiment, by keyboard: the recovered-token sampler, a long run cancelled, then a short one to the end.
  await tabTo(page, "#exp-sampler");
  await page.keyboard.press("ArrowDown");
  assert.equal(await page.inputValue("#exp-sampler"), "recovered");
  await tabTo(page, "#exp-trials");
  await page.keyboard.press("Control+A");
  await page.keyboard.type("10000000");
  await tabTo(page, "#exp-run");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("exp-status").textContent.startsWith("Running"));
  assert.equal(await page.evaluate(() => document.activeElement.id), "exp-cancel", "focus moves to Cancel");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("exp-status").textContent.startsWith("Cancelled at"));
  assert.equal(await page.evaluate(() => document.activeElement.id), "exp-run", "focus returns to Run");
  await tabTo(page, "#exp-trials", { back: true });
  await page.keyboard.press("Control+A");
  await page.keyboard.type("4096");
  await tabTo(page, "#exp-run");
  await page.keyboard.press("Space");
  await page.waitForFunction(() => document.getElementById("exp-status").textContent.startsWith("Done: 4096 trials"), null, { timeout: 120000 });
  assert.equal(await page.locator("#exp-summary tr").count(), 2);
  // The guide shows 20.5 nats' numbers again (after the slider went to 21 and back).
  await page.waitForFunction(() => !document.getElementById("guide-f64").textContent.startsWith("…"), null, { timeout: 120000 });
  assert.equal(await text(page, "#guide-f64"), await text(page, "#exact-1-2"));
  assert.equal(await text(page, "#guide-gap"), "20.5");
  await page.locator("#guide").screenshot({ path: join(shots, "guide.png") });
  assert.deepEqual(errors, []);
});

test("every control has an accessible name (Chromium's accessibility tree), in every section", async () => {
  const { page, errors } = await open(false);
  await choose(page, "preset", "spec");
  // Open what is folded and show what is hidden until used, so that its controls are checked too.
  await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
  await page.setInputFiles("#st-file", {
    name: "dump.safetensors",
    mimeType: "application/octet-stream",
    buffer: safetensors([["target_probs", "F32", [1, 3], le(Float32Array, [0.2, 0.3, 0.5])]]),
  });
  await page.waitForSelector("#st-choose:not([hidden])");
  const cdp = await page.context().newCDPSession(page);
  const { root } = await cdp.send("DOM.getDocument", { depth: -1 });
  const { nodeIds } = await cdp.send("DOM.querySelectorAll", { nodeId: root.nodeId, selector: "input, select, button, textarea" });
  const nameless = [];
  let checked = 0;
  for (const nodeId of nodeIds) {
    const { nodes } = await cdp.send("Accessibility.getPartialAXTree", { nodeId, fetchRelatives: false });
    const node = nodes[0];
    if (!node || node.ignored) continue;
    checked++;
    if (!node.name?.value?.trim()) {
      const { outerHTML } = await cdp.send("DOM.getOuterHTML", { nodeId });
      nameless.push(outerHTML.slice(0, 160));
    }
  }
  assert.ok(checked > 100, `only ${checked} controls checked`);
  assert.deepEqual(nameless, []);
  assert.deepEqual(errors, []);
});

test("axe-core: no serious or critical accessibility violation, in any preset; a skip link; canvases are images", async () => {
  const { page, errors } = await open(false);
  await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
  const axeScript = join(new URL("../../..", import.meta.url).pathname, "node_modules/axe-core/axe.min.js");
  const check = async (where) => {
    await page.addScriptTag({ path: axeScript });
    const violations = await page.evaluate(async () =>
      (await window.axe.run(document, { resultTypes: ["violations"] })).violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`),
    );
    assert.deepEqual(violations, [], where);
  };
  await check("many-tail");
  for (const preset of ["near-tie", "overflow", "spec"]) {
    await choose(page, "preset", preset);
    await check(preset);
  }
  await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
  await check("every details open");
  for (const canvas of await page.locator("canvas").all()) {
    assert.equal(await canvas.getAttribute("role"), "img", await canvas.getAttribute("id"));
    assert.ok(await canvas.getAttribute("aria-label"), await canvas.getAttribute("id"));
  }
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.className), "skip-link");
  assert.deepEqual(errors, []);
  await page.close();
});

test("every canvas has a text summary and a data table for screen readers", async () => {
  const { page, errors } = await open(false);
  await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
  /** The drawn canvases on show, each with the texts of what it names in aria-describedby. */
  const described = () =>
    page.evaluate(() =>
      [...document.querySelectorAll("canvas")]
        .filter((c) => !c.hidden && c.dataset.drawn !== undefined && c.closest("[hidden]") === null)
        .map((c) => {
          const parts = (c.getAttribute("aria-describedby") ?? "").split(/\s+/).filter(Boolean).map((id) => document.getElementById(id));
          return {
            id: c.id,
            missing: parts.filter((p) => !p).length,
            summary: parts.filter((p) => p && p.tagName !== "TABLE").map((p) => p.textContent.trim()).join(" "),
            rows: parts.filter((p) => p?.tagName === "TABLE").map((t) => t.querySelectorAll("tr").length),
          };
        }),
    );
  const seen = new Set();
  const check = async (where) => {
    for (const c of await described()) {
      seen.add(c.id);
      assert.equal(c.missing, 0, `${where}: ${c.id} names an element that is not there`);
      assert.ok(c.summary.length > 20, `${where}: ${c.id} has no summary`);
      assert.ok(c.rows.length === 1 && c.rows[0] >= 2, `${where}: ${c.id} has no data table (${c.rows})`);
    }
  };
  await check("many-tail");
  // The weights chart's table holds the core's weights (f32 shortest decimals).
  const weights = buildPreset(core, "many-tail", PARAMS).weights;
  assert.equal(await page.locator("#prob-chart-data tr").nth(2).locator("td").nth(1).innerText(), String(Math.fround(weights[1]).toExponential(6)));
  for (const preset of ["near-tie", "spec"]) {
    await choose(page, "preset", preset);
    await check(preset);
  }
  await page.fill("#exp-trials", "1024");
  await page.click("#exp-run");
  await page.waitForSelector("#exp-chart[data-drawn]", { timeout: 120000 });
  await page.click("#perf-run");
  await page.waitForSelector("#perf-live-chart[data-drawn]", { timeout: 120000 });
  await check("after an experiment and a live timing");
  // Thread counts and "this page against native" are not precisions: neither is drawn in fp32's blue or fp64's red.
  for (const id of ["perf-native-chart", "perf-live-chart"]) {
    const colours = JSON.parse(await page.getAttribute(`#${id}`, "data-colors")).map(([, c]) => c.join(","));
    assert.deepEqual(colours.filter((c) => c === "31,95,191" || c === "192,57,43"), [], id);
  }
  for (const id of ["exact-chart", "prob-chart", "score-chart", "ulp-chart", "exp-chart", "spec-chart-0", "spec-bonus-chart-0", "perf-native-chart", "perf-live-chart"]) {
    assert.ok(seen.has(id), `${id} was checked (checked: ${[...seen].join(", ")})`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
