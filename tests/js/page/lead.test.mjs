// The lead figure's noise: vLLM 0.31–0.34's fp32 Gumbel noise (vllm-0.33-f32)
// beside vLLM 0.30's (triton-flipped) and torch CUDA's, drawn torch CUDA's
// first and each engine's after, the story's numbers the core's facts, every
// pipeline menu the core's catalogue, and the figure on a laptop and on a
// phone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fmt, fmtBounded } from "../../../web/format.mjs";
import { collectErrors, launchChromium } from "../chromium.mjs";
import { PARAMS, choose, coloursOn, context, core, open, serveOnce, shots, text, usePage } from "./setup.mjs";

usePage();

/** The fp32 engines of the story, by catalogue name. */
const ENGINES = ["torch-cuda-f32", "triton-flipped", "vllm-0.33-f32"];
const CURVES = ["ideal", "torch-cuda-f64", ...ENGINES];
const facts = Object.fromEntries(core.models().result.models.map((m) => [m.name, m]));
const header = (names) => ["gap (nats)", ...names].join("\t");
/** The core's exact P(one of the tails wins) at `gap` under `model`. */
const tailsWin = (model, gap) =>
  core.winProbabilities(model, Float64Array.from(core.weightsFromLogits(Float64Array.of(0, -gap), 1)), Float64Array.of(1, PARAMS.tails)).groups[1];

test("the lead figure offers vllm-0.33-f32 beside triton-flipped and torch-cuda-f32; the story's numbers equal the core's facts", async () => {
  const page = await context.newPage();
  const errors = collectErrors(page);
  // Each drawing of the figure: its legend, and whether the canvas is marked as drawn.
  await page.addInitScript(() => {
    window.__drawings = [];
    document.addEventListener("DOMContentLoaded", () => {
      const c = document.getElementById("exact-chart");
      new MutationObserver(() => {
        const now = `${c.dataset.legend}|${"drawn" in c.dataset}`;
        if (c.dataset.legend && window.__drawings.at(-1) !== now) window.__drawings.push(now);
      }).observe(c, { attributes: true, attributeFilter: ["data-legend", "data-drawn"] });
    });
  });
  await page.goto(await serveOnce(false));
  await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
  // Torch CUDA's curves come first, then each engine's in an answer of its own; the canvas is marked as drawn
  // once all five are there.
  assert.deepEqual(await page.evaluate(() => window.__drawings), [
    ...[3, 4, 5].map((n) => `${CURVES.slice(0, n).join(", ")}|false`),
    `${CURVES.join(", ")}|true`,
  ]);
  // The figure opens on the engines' noise: its curves are the core's models, vllm-0.33-f32 among them.
  assert.equal(await page.inputValue("#lead-noise"), "engines");
  assert.equal(await page.locator("#exact-chart-data tr").first().innerText(), header(CURVES));
  assert.equal(await page.getAttribute("#exact-chart", "data-legend"), CURVES.join(", "));
  assert.match(await page.getAttribute("#exact-chart", "aria-label"), /vllm-0\.33-f32/);
  // Three fp32 curves in three blues, fp64 in red.
  const blues = ["31,95,191", "16,42,110", "74,163,223"];
  assert.deepEqual(await coloursOn(page, "exact-chart", [...blues, "192,57,43"]), [...blues, "192,57,43"]);
  // Each fp32 curve is the core's exact probability; past torch CUDA's edge only vLLM's noise leaves the tails a share.
  const rows = (await page.locator("#exact-chart-data tr[data-gap]").allInnerTexts()).map((r) => r.split("\t").map(Number));
  for (const gap of [18, 20.5, 23, 26]) {
    const row = rows.find(([g]) => g === gap);
    assert.ok(row, `the curve is sampled at ${gap} nats`);
    CURVES.forEach((model, i) => {
      const want = tailsWin(model, gap).probability;
      assert.ok(Math.abs(row[i + 1] - want) <= 1e-6 * want, `${model} at ${gap} nats: ${row[i + 1]} against the core's ${want}`);
    });
  }
  // The story says which version is which, its numbers read from the catalogue's facts.
  const story = await text(page, "#lead-versions");
  const words = {
    "torch-cuda-f32": "torch CUDA (torch-cuda-f32, versions 2.11) draws fp32 exponential noise (curand)",
    "triton-flipped": "vLLM 0.30 (triton-flipped, versions ≤0.30, fp32 default from #45996) draws fp32 Gumbel noise from Triton's tl.rand (Philox)",
    "vllm-0.33-f32": "vLLM 0.31–0.34 (vllm-0.33-f32, versions 0.31–0.34) draws fp32 Gumbel noise from a Murmur3 hash (Model Runner V2)",
  };
  for (const model of ENGINES) {
    const f = facts[model];
    const g = page.locator(`#lead-versions [data-model="${model}"][data-fact="maxFiniteGumbel"]`);
    assert.equal(Number(await g.getAttribute("data-value")), f.maxFiniteGumbel, `${model}: largest G`);
    assert.equal(await g.innerText(), f.maxFiniteGumbel.toFixed(2), `${model}: largest G as printed`);
    const v = page.locator(`#lead-versions [data-model="${model}"][data-fact="versions"]`);
    assert.equal(await v.getAttribute("data-value"), f.versions, `${model}: versions`);
    const { threshold } = core.run({ exporace: 1, op: "dead_zone", model, weights: [1, 0] }).result;
    assert.ok(
      story.includes(`${words[model]}; its largest G is ${f.maxFiniteGumbel.toFixed(2)}, so no tail under ${fmt(threshold)} of the head's weight wins.`),
      `${model} in: ${story}`,
    );
  }
  // The readout gives each engine's exact share at the gap on show, as the core computes it.
  await page.waitForFunction(() => document.getElementById("lead-readout").textContent.startsWith("At 20.5 nats"), null, { timeout: 120000 });
  const readout = await text(page, "#lead-readout");
  for (const [model, name] of [["torch-cuda-f32", "torch CUDA"], ["triton-flipped", "vLLM 0.30"], ["vllm-0.33-f32", "vLLM 0.31–0.34"]]) {
    const m = readout.match(new RegExp(`(\\S+) with ${name}'s fp32 noise`));
    assert.ok(m, `${name} in: ${readout}`);
    const want = tailsWin(model, PARAMS.gap);
    assert.equal(m[1], fmtBounded(want.probability, want.lower, want.upper), model);
  }
  await page.locator("#lead-figure").screenshot({ path: join(shots, "lead-engines-1280.png") });
  // Every pipeline menu offers the core's whole catalogue; the figure's other choice draws pipelines A and B.
  const catalogue = core.models().result.models.map((m) => m.name);
  for (const id of ["model-a", "model-b"]) {
    assert.deepEqual(await page.locator(`#${id} option`).evaluateAll((os) => os.map((o) => o.value)), catalogue, id);
  }
  for (const model of ["vllm-0.33-f32", "vllm-0.33-f64", "sglang-0.5", "vllm-cpu-0.32"]) assert.ok(catalogue.includes(model), model);
  await choose(page, "lead-noise", "pipelines");
  await page.waitForFunction((h) => document.querySelector("#exact-chart-data tr")?.innerText === h, header(["ideal", "torch-cuda-f32", "torch-cuda-f64"]), { timeout: 120000 });
  await choose(page, "model-a", "vllm-0.33-f32");
  await page.waitForFunction((h) => document.querySelector("#exact-chart-data tr")?.innerText === h, header(["ideal", "vllm-0.33-f32", "torch-cuda-f64"]), { timeout: 120000 });
  await choose(page, "lead-noise", "engines");
  await page.waitForFunction((h) => document.querySelector("#exact-chart-data tr")?.innerText === h, header(CURVES), { timeout: 120000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("on a phone (390 px, pixel ratio 2) the lead figure names the engines shortly and stays on the first screen", async () => {
  const phone = await launchChromium({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
  try {
    const { page, errors } = await open(false, phone.context);
    await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
    assert.equal(await page.getAttribute("#exact-chart", "data-legend"), "ideal, fp64, torch, v0.30, v0.33");
    const box = await page.locator("#exact-chart").boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= 844, `the figure spans ${box.y} to ${box.y + box.height}`);
    await page.waitForFunction(() => document.getElementById("lead-readout").textContent.startsWith("At "), null, { timeout: 120000 });
    await page.locator("#lead-figure").screenshot({ path: join(shots, "lead-engines-390-dpr2.png") });
    assert.deepEqual(errors, []);
  } finally {
    await phone.close();
  }
});
