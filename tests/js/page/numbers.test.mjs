// The key numbers of every preset against arithmetic done here, and a flip on
// the lines of representable fp32 and fp64 values.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildPreset } from "../../../web/presets.mjs";
import { PARAMS, choose, coloursOn, core, open, pressed, redrawn, seeded, shots, text, usePage } from "./setup.mjs";

usePage();

test("every preset renders its key numbers, checked against arithmetic done here", async () => {
  const { page, errors } = await open(false);
  const cells = async (sel) => (await page.locator(`${sel} tr`).allInnerTexts()).map((r) => r.split("\t"));

  // Many-tail: 1 head and N = 262144 tails of weight w = exp(-20.5) in f32. The ideal race gives the tails
  // N w / (1 + N w); fp32 torch CUDA noise gives them exactly 0, fp64 the ideal value.
  await page.waitForSelector("#exact-table", { timeout: 120000 });
  const n = 262144, w = Math.fround(Math.exp(-20.5)), ideal = (n * w) / (1 + n * w);
  assert.ok(Math.abs(ideal - 3.2761e-4) < 1e-7);
  // The page prints the digits the bracket (half-width about 1.7e-7) supports.
  assert.ok(Math.abs(Number(await text(page, "#exact-1-0")) - ideal) < 1e-7, "ideal");
  assert.equal(await text(page, "#exact-1-1"), "0", "torch-cuda-f32");
  assert.ok(Math.abs(Number(await text(page, "#exact-1-2")) - ideal) < 1e-7, "torch-cuda-f64");
  assert.equal(await text(page, "#exact-0-1"), "1", "fp32: the head always wins");
  assert.equal(await text(page, "#dead-count-a"), String(n));
  assert.ok(Math.abs(Number(await text(page, "#dead-mass-a")) - (n * w) / (1 + n * w)) < 1e-9, "lost mass: the tails' share of the weight");
  assert.equal(await text(page, "#slider-out-1"), String(Math.fround(Math.exp(-20.5)).toExponential(6)));
  // The weights chart is drawn by exporace-viz: the weights' blue and the dead zone's red are on the canvas.
  const colours = (id, wanted) => coloursOn(page, id, wanted);
  assert.deepEqual(await colours("prob-chart", ["31,95,191", "192,57,43"]), ["31,95,191", "192,57,43"]);
  // drawBars refuses a malformed chart with an Error naming the field, and draws the next good one.
  const refusals = await page.evaluate(async () => {
    const ex = await import("/pkg/web/index.js");
    const canvas = document.createElement("canvas");
    canvas.width = 300;
    canvas.height = 200;
    const base = { title: "t", xLabel: "x", yLabel: "y", series: [{ name: "s", color: [1, 2, 3], values: [1, 2] }] };
    const messages = [];
    for (const bad of [{ ...base, labels: ["a"] }, { ...base, logFloor: -1 }, { ...base, series: "no" }, { ...base, highlight: [7] }]) {
      try {
        ex.drawBars(canvas, bad);
        messages.push("drawn");
      } catch (e) {
        messages.push(e.message);
      }
    }
    ex.drawBars(canvas, { ...base, series: [{ ...base.series[0], values: Float32Array.of(1, Infinity) }] });
    messages.push("drawn");
    return messages;
  });
  assert.deepEqual(refusals, [
    "drawBars: 1 labels for 2 categories",
    "drawBars: log_floor must be positive and finite, got -1",
    "drawBars: chart.series must be an array, got string",
    "drawBars: highlighted category 7 of 2",
    "drawn",
  ]);

  // Uniform: 32000 weights exp(0) = 1; one group that always wins, no dead token.
  await choose(page, "preset", "uniform");
  assert.equal(await text(page, "#slider-out-0"), "1");
  assert.match(await text(page, "#prob-summary"), /^32000 tokens; pipeline A kills 0 of them \(mass 0\)/);
  await page.waitForSelector("#exact-table", { timeout: 120000 });
  assert.deepEqual((await cells("#exact-table"))[1].slice(0, 3), ["0 .. 31999", "1", "32000"]);

  // Zipf: w_k = (k + 1)^-1.1 in f32 (to within the last bit of exp).
  await choose(page, "preset", "zipf");
  for (const k of [0, 1, 2, 5]) {
    const want = Math.fround((k + 1) ** -1.1);
    const got = Number(await text(page, `#slider-out-${k}`));
    assert.ok(Math.abs(got - want) <= 2 ** -22 * want, `zipf weight ${k}: ${got} against ${want}`);
  }

  // Near-tie: inv_q = 1 + 1e-12 rounds in f64 to 1 + k 2^-52 with k = round(1e-12 2^52) = 4504, so at weight
  // 0.25 the f64 scores are 4504 ulps apart; the f32 cast makes both 1 and the tie goes to token 0.
  await choose(page, "preset", "near-tie");
  const k = Math.round(1e-12 * 2 ** 52);
  assert.equal(k, 4504);
  const rows = (await cells("#compare-table")).slice(1);
  assert.deepEqual([rows[0][1], rows[0][4], rows[0][5]], ["token 1", "0", String(k)], "f64: token 1 by 4504 ulps");
  assert.equal(rows[0][2], String(0.25 * (1 + k * 2 ** -52)));
  assert.deepEqual([rows[1][1], rows[1][2], rows[1][4], rows[1][5]], ["token 0", "0.25", "1", "0"], "f32: a tie, token 0");
  assert.equal(await page.locator("#flip").getAttribute("data-flipped"), "true");
  assert.equal(await text(page, "#exact-winner"), "1");

  // q = 0 overflow: weight 0 times inv_q = inf is NaN (token 1), 0.2 times inf is inf (token 3); marked rows.
  await choose(page, "preset", "overflow");
  assert.deepEqual(await colours("score-chart", ["31,95,191", "192,57,43"]), ["31,95,191", "192,57,43"]);
  assert.equal(await page.locator("#overflow-entries tr.nan").count(), 1);
  assert.equal(await page.locator("#overflow-entries tr.inf").count(), 1);
  assert.match(await text(page, "#overflow-entries tr.nan"), /^1\t0\tinf\tscore NaN/);
  assert.match(await text(page, "#overflow-entries tr.inf"), /^3\t0\.2\tinf\tscore inf/);
  const picks = Object.fromEntries((await cells("#overflow-picks")).map(([policy, what]) => [policy, what]));
  assert.match(picks.first_nan_wins, /^token 1 /, "torch.argmax: the first NaN wins");
  assert.match(picks.nan_never_wins, /^token 3 /, "vLLM's C++ kernel: the infinite score wins");
  assert.match(picks.reject, /NaN score at token 1/);

  // The speculative step: each trace row follows the acceptance rule p(x) / d(x) >= u, checked here.
  await choose(page, "preset", "spec");
  const trace = (await cells("#spec-trace")).slice(1);
  assert.equal(trace.length, 4);
  let previous = null;
  for (const [b, j, , p, d, u, outcome] of trace) {
    if (j === "0") previous = "accepted";
    const want = previous !== "accepted" ? "not reached" : Number(p) / Number(d) >= Number(u) ? "accepted" : "rejected: recovered token";
    assert.equal(outcome, want, `request ${b} position ${j}: p ${p}, d ${d}, u ${u}`);
    previous = outcome;
  }
  const output = JSON.parse(await text(page, "#spec-output"));
  trace.filter((r) => r[6] === "accepted").forEach(([b, j, x]) => assert.equal(output[Number(b)][Number(j)], Number(x), "an accepted draft is emitted"));
  // Hand-set uniforms, by keyboard: they start from the seeded ones; u = 0.99 at request 0, position 0 rejects
  // its draft (p / d = 0.5 / 0.8 = 0.625 < 0.99) and position 1 is not reached.
  await page.getByLabel("Set the acceptance uniforms u by hand (else they are seeded)").focus();
  await pressed(page, "Space");
  const us = await page.locator('input[data-field="uniform"]').evaluateAll((els) => els.map((e) => Number(e.value)));
  assert.deepEqual(us.map((u) => u.toPrecision(6)), trace.map((r) => Number(r[5]).toPrecision(6)));
  await page.getByLabel("request 0 position 0: uniform u", { exact: true }).focus();
  await page.keyboard.press("Control+A");
  await page.keyboard.type("0.99");
  await pressed(page, "Tab");
  const handSet = (await cells("#spec-trace")).slice(1);
  assert.deepEqual([handSet[0][5], handSet[0][6]], ["0.99", "rejected: recovered token"]);
  assert.equal(handSet[1][6], "not reached");
  // A batch of 5 positions over 1000 tokens (11000 probabilities) is too large for a link: named, not dropped silently.
  const row = Array.from({ length: 1000 }, () => 0.001);
  const wide = { cu_num_draft_tokens: [5], draft_token_ids: [0, 1, 2, 3, 4], target_probs: Array(5).fill(row), draft_probs: Array(5).fill(row), bonus_probs: [row] };
  await page.click("#spec-json summary");
  await page.fill("#spec-batch", JSON.stringify(wide));
  await redrawn(page, () => page.click("#spec-apply"));
  assert.equal(await text(page, "#spec-error"), "");
  await page.click("#share");
  await page.waitForFunction(() => /Not in the link: the speculative batch \(11000 probabilities; its JSON is under "Advanced"/.test(document.getElementById("share-note").textContent));
  assert.ok(await page.locator("#share-export").isVisible());
  assert.deepEqual(errors, []);
});

test("a flip in ulps: both scores on the lines of representable fp32 and fp64 values, from the core", async () => {
  const { page, errors } = await open(false);
  const rowsOf = async () => (await page.locator("#ulp-table tr[data-token]").allInnerTexts()).map((r) => r.split("\t"));
  // Near-tie: fp64 noise [1, 1 + 1e-12] raced against its fp32 cast; the core's own answer is the golden one.
  await choose(page, "preset", "near-tie");
  const c = core.run({ exporace: 1, op: "compare", weights: [0.25, 0.25], noise: ["1", "1.000000000001"] }).result;
  assert.equal(c.flipped, true);
  assert.equal(c.a.marginUlps, 4504);
  const rows = await rowsOf();
  const next = (bits, precision, way) => core.inspectFloat(bits)[precision][way].bits;
  // [pipeline, token, score, bits, ulps, next down, next up, wins, exact]
  const want = [
    [c.a.runnerUp, 0, "f64", "no", "no"],
    [c.a.winner, c.a.marginUlps, "f64", "yes", "yes"],
    [c.b.winner, 0, "f32", "yes", "no"],
    [c.b.runnerUp, 0, "f32", "no", "yes"],
  ];
  assert.equal(rows.length, 4, rows.join("\n"));
  want.forEach(([contender, ulps, precision, wins, exact], i) => {
    const [, token, , bits, offset, down, up, w, e] = rows[i];
    assert.equal(token, String(contender.token), `row ${i}`);
    assert.equal(bits, contender.bits, `row ${i}`);
    assert.equal(offset, String(ulps), `row ${i}`);
    assert.equal(down, next(contender.bits, precision, "nextDown"), `row ${i}: next value down`);
    assert.equal(up, next(contender.bits, precision, "nextUp"), `row ${i}: next value up`);
    assert.deepEqual([w, e], [wins, exact], `row ${i}`);
  });
  assert.equal(rows[2][3], rows[3][3], "fp32: the same bits, a tie");
  assert.equal(await page.getAttribute("#ulp-chart", "data-drawn"), "f64:4504 f32:0");
  assert.match(await text(page, "#ulp-summary"), /4504 ulps apart; token 1 wins\..*a tie, and ties go to the smaller id, token 0\. Exact winner: token 1\./);
  // Drawn in the precisions' colours: fp32 blue, fp64 red.
  const colours = await coloursOn(page, "ulp-chart", ["31,95,191", "192,57,43"]);
  assert.deepEqual(colours, ["31,95,191", "192,57,43"]);
  for (const width of [390, 1366, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await choose(page, "nan-policy", width === 1366 ? "nan_never_wins" : "first_nan_wins");
    await page.locator("#race").screenshot({ path: join(shots, `ulp-line-${width}.png`) });
    await page.locator("#ulp-chart").screenshot({ path: join(shots, `ulp-chart-${width}.png`) });
  }
  // No flip (many-tail, seed 7): the winner and pipeline A's runner-up, as far apart as the core's margin says.
  await choose(page, "preset", "many-tail");
  const seededRace = seeded(buildPreset(core, "many-tail", PARAMS).weights);
  const [a] = await rowsOf();
  assert.equal(a[1], String(seededRace.a.runnerUp.token));
  const [, high] = await rowsOf();
  assert.equal(high[1], String(seededRace.a.winner.token));
  assert.equal(high[4], String(seededRace.a.marginUlps));
  // The fp64 line's scores are more than 2^53 ulps apart: a number rounds the count, so the row says
  // "about", and each score's neighbours are still its own (the core's next values of its bits).
  const rows64 = (await rowsOf()).slice(2);
  const count = core.inspectFloat(rows64[0][3], rows64[1][3]).f64.ulpsToOther;
  assert.ok(count > 2 ** 53, `${count} ulps`);
  assert.deepEqual(rows64.map((r) => r[4]), ["0", `about ${count}`]);
  for (const r of rows64) {
    assert.deepEqual([r[5], r[6]], [next(r[3], "f64", "nextDown"), next(r[3], "f64", "nextUp")], `token ${r[1]}`);
  }
  assert.match(await text(page, "#ulp-summary"), new RegExp(`about ${count} ulps apart`));
  assert.deepEqual(errors, []);
});
