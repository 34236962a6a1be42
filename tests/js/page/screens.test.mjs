// The page on phone and laptop screens: no horizontal scrolling, and the lead
// figure on the first screen, drawn at the width it has.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { launchChromium } from "../chromium.mjs";
import { PARAMS, choose, core, open, pressed, shots, text, usePage } from "./setup.mjs";

usePage();

for (const [width, height] of [[1366, 768], [1280, 800], [390, 844]]) {
  test(`${width < 700 ? "phone" : "laptop"} screen ${width}x${height}: no horizontal scrolling in any preset`, async () => {
    const { page, errors } = await open(false);
    await page.setViewportSize({ width, height });
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await page.waitForSelector("#exact-table", { timeout: 120000 });
    await page.screenshot({ path: join(shots, `laptop-${width}x${height}-top.png`) });
    assert.equal(await overflow(), 0, "many-tail");
    for (const preset of ["uniform", "zipf", "near-tie", "overflow", "spec"]) {
      await choose(page, "preset", preset);
      assert.equal(await overflow(), 0, preset);
    }
    await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
    assert.equal(await overflow(), 0, "with every details open");
    await page.screenshot({ path: join(shots, `laptop-${width}x${height}-spec.png`), fullPage: true });
    assert.deepEqual(errors, []);
  });
}

test("the first screen leads with the live figure: P(a tail wins) against the gap, exact, fp32 and fp64, fine at the dead-zone edge", async () => {
  const { page, errors } = await open(false);
  await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
  for (const [width, height] of [[1366, 768], [1920, 1080], [390, 844]]) {
    await page.setViewportSize({ width, height });
    // The figure is the page's first chart and stands on the first screen, whole.
    const box = await page.locator("#exact-chart").boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= height, `${width}x${height}: the figure spans ${box.y} to ${box.y + box.height}`);
    assert.equal(await page.evaluate(() => document.querySelector("canvas").id), "exact-chart");
    await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
    // Charts take the width they have: after the resize each drawn chart is drawn again at its new CSS width
    // (the ulp lines at the device's pixel ratio), not scaled with its text.
    await page.waitForFunction(() => [...document.querySelectorAll("canvas[data-drawn-width]")]
      .filter((c) => c.clientWidth > 0)
      .every((c) => c.dataset.drawnWidth === String(c.clientWidth) && c.width % c.clientWidth === 0 && c.width >= c.clientWidth), null, { timeout: 30000 });
    const lead = await page.evaluate(() => [document.getElementById("exact-chart").width, document.getElementById("exact-chart").clientWidth]);
    assert.equal(lead[0], lead[1], `${width}x${height}: the lead figure is drawn ${lead[0]} px wide in a ${lead[1]} px box`);
    await page.screenshot({ path: join(shots, `lead-${width}x${height}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  // Ideal, fp64 and the engines' fp32 curves, in grey, red and blues.
  const head = await page.locator("#exact-chart-data tr").first().innerText();
  assert.equal(head, "gap (nats)\tideal\ttorch-cuda-f64\ttorch-cuda-f32\ttriton-flipped\tvllm-0.33-f32");
  // Sampled every twentieth of a nat within half a nat of fp32's dead-zone edge (the gap where a tail's weight
  // reaches the core's threshold); each value is the core's exact probability at that gap.
  const { threshold } = core.run({ exporace: 1, op: "dead_zone", model: "torch-cuda-f32", weights: [1, 0] }).result;
  const edge = -Math.log(threshold);
  const rows = (await page.locator("#exact-chart-data tr[data-gap]").allInnerTexts()).map((r) => r.split("\t").map(Number));
  const near = rows.filter(([g]) => Math.abs(g - edge) <= 0.5);
  assert.ok(near.length >= 20, `${near.length} points within half a nat of ${edge}`);
  for (const [g, , f64, f32] of near) {
    const groups = (model) => core.winProbabilities(model, Float64Array.from(core.weightsFromLogits(Float64Array.of(0, -g), 1)), Float64Array.of(1, PARAMS.tails)).groups[1].probability;
    const want32 = groups("torch-cuda-f32"), want64 = groups("torch-cuda-f64");
    assert.ok(Math.abs(f32 - want32) <= 1e-6 * want32, `gap ${g}: fp32 ${f32} against the core's ${want32}`);
    assert.ok(Math.abs(f64 - want64) <= 1e-6 * want64, `gap ${g}: fp64 ${f64} against the core's ${want64}`);
  }
  // The edge shows in the data: fp32 positive just below it, exactly 0 just above, fp64 positive on both sides.
  assert.ok(near.some(([g, , , f32]) => g < edge && f32 > 0) && near.some(([g, , , f32]) => g > edge && f32 === 0));
  assert.ok(near.every(([, , f64]) => f64 > 0));
  assert.match(await text(page, "#exact-chart-summary"), /torch-cuda-f32: .* exactly 0 from \d+(\.\d+)? nats on\./);
  // Live: the slider moves the marker and the guide's numbers with it.
  await page.locator("#gap-slider").focus();
  await pressed(page, "ArrowLeft");
  assert.equal(await text(page, "#gap-slider-out"), "20 nats");
  await page.waitForFunction(() => !document.getElementById("guide-f64").textContent.startsWith("…"), null, { timeout: 120000 });
  assert.match(await text(page, "#exact-chart-summary"), /the marker stands at 20 nats/);
  assert.match(await text(page, "#lead-readout"), new RegExp(`^At 20 nats, P\\(one of 262144 tails wins\\) is exactly ` +
    `${await text(page, "#guide-f32")} with torch CUDA's fp32 noise, .* and ${await text(page, "#guide-f64")} with fp64 noise\\.$`));
  const at20 = core.winProbabilities("torch-cuda-f64", Float64Array.from(core.weightsFromLogits(Float64Array.of(0, -20), 1)), Float64Array.of(1, PARAMS.tails)).groups[1];
  assert.ok(Math.abs(Number(await text(page, "#guide-f64")) - at20.probability) <= Math.max(at20.upper - at20.probability, at20.probability - at20.lower));
  assert.deepEqual(errors, []);
  await page.close();
});

/**
 * The legend box of the lead figure in device pixels (found by its border, plotters' 30% black over white: the
 * first long horizontal run from the top, then down its right end's column, each line going on across the gaps
 * that gridlines and curves crossing it make) and how many pixels inside it are a curve's colour seen through
 * the box's pale background: a tint, neither white nor grey.
 */
const legendOverCurves = (page) =>
  page.evaluate(() => {
    const c = document.getElementById("exact-chart");
    const { data } = c.getContext("2d").getImageData(0, 0, c.width, c.height);
    const px = (x, y) => data.subarray(4 * (y * c.width + x), 4 * (y * c.width + x) + 3);
    const border = (x, y) => {
      const [r, g, b] = px(x, y);
      return r === g && g === b && r >= 176 && r <= 181;
    };
    // Runs of border pixels at least 60 px long, across gaps of up to 12 px.
    const runs = (y) => {
      const found = [];
      let start = -1, last = -1;
      for (let x = 0; x <= c.width; x++) {
        if (x < c.width && !border(x, y)) continue;
        if (start >= 0 && (x === c.width || x - last > 12)) {
          if (last - start >= 60) found.push([start, last]);
          start = -1;
        }
        if (x < c.width) [start, last] = [start < 0 ? x : start, x];
      }
      return found;
    };
    for (let y0 = 0; y0 < c.height; y0++) {
      for (const [x0, x1] of runs(y0)) {
        let y1 = y0;
        for (let y = y0 + 1; y < c.height && y - y1 <= 12; y++) if (border(x1, y)) y1 = y;
        if (y1 - y0 < 20) continue;
        let tinted = 0;
        for (let y = y0 + 3; y < y1 - 2; y++) {
          for (let x = x0 + 3; x < x1 - 2; x++) {
            const [r, g, b] = px(x, y);
            if (Math.min(r, g, b) >= 190 && Math.max(r, g, b) - Math.min(r, g, b) >= 12) tinted++;
          }
        }
        return { box: [x0, y0, x1, y1], tinted };
      }
    }
    return null;
  });

test("on a phone (390 px, pixel ratio 2): every chart drawn at the device's pixels, the lead legend clear of the curves", async () => {
  const phone = await launchChromium({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
  try {
    const { page, errors } = await open(false, phone.context);
    await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
    await choose(page, "preset", "spec");
    await choose(page, "preset", "many-tail");
    await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
    await page.waitForSelector("#perf-e2e-chart[data-drawn]", { timeout: 60000 });
    // Backing store = CSS size × devicePixelRatio, for each drawn canvas on show.
    const sizes = await page.evaluate(() => [...document.querySelectorAll("canvas")]
      .filter((c) => c.clientWidth > 0 && c.dataset.drawn !== undefined)
      .map((c) => ({ id: c.id, backing: [c.width, c.height], css: [c.clientWidth, c.clientHeight], ratio: devicePixelRatio })));
    assert.ok(sizes.length >= 5, sizes.map((s) => s.id).join(", "));
    for (const s of sizes) assert.deepEqual(s.backing, s.css.map((v) => v * 2), `${s.id} at ratio ${s.ratio}`);
    for (const id of ["exact-chart", "prob-chart", "score-chart", "ulp-chart", "perf-e2e-chart"]) {
      assert.ok(sizes.some((s) => s.id === id), `${id} was checked`);
    }
    // The lead legend gives the curves short names on a narrow canvas; no curve runs under its box.
    assert.equal(await page.getAttribute("#exact-chart", "data-legend"), "ideal, fp64, torch, v0.30, v0.33");
    const legend = await legendOverCurves(page);
    assert.ok(legend, "the legend box is found");
    assert.equal(legend.tinted, 0, `curve pixels under the legend box ${legend.box}`);
    await page.locator("#lead-figure").screenshot({ path: join(shots, "lead-390-dpr2.png") });
    assert.deepEqual(errors, []);
  } finally {
    await phone.close();
  }
});

test("the guide's steps have one numbering: the list's, none written into the links", async () => {
  const { page, errors } = await open(false);
  assert.equal(await page.evaluate(() => document.getElementById("guide-steps").tagName), "OL");
  const steps = await page.locator("#guide-steps > li").allInnerTexts();
  assert.equal(steps.length, 5);
  for (const step of steps) assert.doesNotMatch(step, /^\s*\d+\.\s/, step);
  assert.doesNotMatch(await page.locator("#guide-steps").innerText(), /\d\.\s+\d\./);
  assert.deepEqual(errors, []);
  await page.close();
});
