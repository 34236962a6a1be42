// The page (web/) in headless Debian Chromium, served by the server of
// `npm start`: with COOP/COEP it must run threaded in a worker pool, without
// them on one thread and say why; the presets must show the core's numbers.
// Screenshots go to $EXPORACE_SCREENSHOTS (default: a fresh temp directory).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { startServer } from "../../web/server.mjs";
import { collectErrors, launchChromium } from "./chromium.mjs";
import { le, npy, safetensors } from "./files.mjs";
import { findCycle, importGraph } from "./page/imports.mjs";
import { staticHost } from "./page/static-host.mjs";
import { SPEC_STEP, buildPreset, specBatch } from "../../web/presets.mjs";

// The same core in Node: the numbers the page must show.
const core = createRequire(import.meta.url)("../../pkg/node/index.cjs");

let browser, context, shots;
const servers = [];

before(async () => {
  shots = process.env.EXPORACE_SCREENSHOTS || (await mkdtemp(join(tmpdir(), "exporace-page-shots-")));
  await mkdir(shots, { recursive: true });
  browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
  context = browser.context;
});

after(async () => {
  await browser?.close();
  servers.forEach((s) => s.close());
  console.log(`screenshots in ${shots}`);
});

async function open(isolate) {
  const { server, url } = await startServer({ port: 0, isolate });
  servers.push(server);
  const page = await context.newPage();
  // Any console.error is a failure too, like an uncaught exception.
  const errors = collectErrors(page);
  await page.goto(url);
  await page.waitForFunction(() => ["threaded", "single", "error"].includes(document.getElementById("thread-status").dataset.mode), null, {
    timeout: 120000,
  });
  // The first state drawn, the views whose work runs in workers included.
  if ((await page.getAttribute("#thread-status", "data-mode")) !== "error") {
    await page.waitForFunction(() => Number(document.body.dataset.ready) > 0, null, { timeout: 120000 });
  }
  return { page, errors };
}

/** Changes a select and waits until the page has redrawn. */
async function choose(page, id, value) {
  const before = await page.evaluate(() => Number(document.body.dataset.ready || 0));
  await page.selectOption(`#${id}`, value);
  await page.waitForFunction((n) => Number(document.body.dataset.ready || 0) > n, before, { timeout: 60000 });
}

const text = (page, sel) => page.locator(sel).innerText();

/** Runs `action` and waits until the page has redrawn. */
async function redrawn(page, action) {
  const before = await page.evaluate(() => Number(document.body.dataset.ready || 0));
  await action();
  await page.waitForFunction((n) => Number(document.body.dataset.ready || 0) > n, before, { timeout: 60000 });
}

/** A compare table's rows as [pipeline, winner, score, bits, runner-up, margin]. */
async function compareRows(page, sel = "#compare-table") {
  return (await page.locator(`${sel} tr`).allInnerTexts()).slice(1).map((r) => r.split("\t"));
}

/** Asserts that a compare table shows the core's races: winners, bits, runner-ups and margins. */
async function assertCompare(page, expected, sel = "#compare-table") {
  const rows = await compareRows(page, sel);
  const races = [[expected.aName, expected.a], [expected.bName, expected.b]];
  assert.equal(rows.length, 2);
  races.forEach(([name, race], i) => {
    const [n, winner, , bits, runnerUp, margin] = rows[i];
    assert.equal(n, name);
    assert.equal(winner, `token ${race.winner.token}`);
    assert.equal(bits, race.winner.bits);
    assert.equal(runnerUp, race.runnerUp ? String(race.runnerUp.token) : "none");
    assert.equal(margin, race.marginUlps === null ? "n/a" : String(race.marginUlps));
  });
}

const PARAMS = { vocab: 32000, zipf: 1.1, tails: 262144, gap: 20.5, temperature: 1 };
const seeded = (weights) =>
  core.run({ exporace: 1, op: "compare", weights: Array.from(weights), models: ["torch-cuda-f32", "torch-cuda-f64"], seed: "7", row: 0 }).result;
const deadCount = (weights, model) => String(core.run({ exporace: 1, op: "dead_zone", model, weights: Array.from(weights) }).result.count);

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
  const colours = await page.evaluate(() => {
    const c = document.getElementById("exact-chart");
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return ["85,85,85", "31,95,191", "192,57,43"].filter((k) => seen.has(k));
  });
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

/**
 * The performance view's end-to-end table of a native benchmark file: first (before the kernel table) and open, one
 * row per function of each end-to-end case but the case's floor (seeded-f32 in the older schema); or, for a file
 * without end-to-end figures, the sentence saying so.
 */
async function assertEndToEnd(page, bench, file) {
  if (!bench.end_to_end) {
    assert.match(await text(page, "#perf-e2e-none"), /has no end-to-end figures/, file);
    assert.equal(await page.locator("#perf-e2e-table").count(), 0, file);
    return;
  }
  const want = bench.end_to_end.cases.flatMap((c) =>
    Object.keys(c.functions).filter((f) => f !== (c.floor ?? "seeded-f32")).map((f) => [c.case.replace(/^end-to-end\//, ""), f]));
  const table = page.locator("#perf-e2e-table");
  assert.equal(await table.isVisible(), true, `${file}: the end-to-end table is shown, not folded`);
  assert.match(await text(page, "#perf-e2e-table caption"), /^What users run, against the kernel floor in the same run$/);
  const rows = (await page.locator("#perf-e2e-table tr").allInnerTexts()).map((r) => r.split("\t"));
  assert.equal(rows.length, want.length + 1, file);
  assert.deepEqual(rows[0], ["workload", "function", "median", "floor", "× floor"]);
  assert.deepEqual(rows.slice(1).map((r) => r.slice(0, 2)), want, file);
  for (const r of rows.slice(1)) {
    assert.match(r[2], /^\d[\d.]* (µs|ms|s)$/, `${file}: ${r.join(" ")}`);
    assert.match(r[4], /^\d+\.\d\d$/, `${file}: ${r.join(" ")}`);
  }
  const order = await page.evaluate(() =>
    document.getElementById("perf-e2e-table").compareDocumentPosition(document.getElementById("perf-native-table")));
  assert.ok(order & 4, `${file}: the end-to-end table comes before the kernel table`);
}

test("edit a draw to E = 0, share the link, reload to the same state; performance view", async () => {
  const { page, errors } = await open(true);
  // Seeded noise of 262145 tokens is not turned into inline noise.
  await page.click("#edit-zero");
  assert.match(await text(page, "#edit-error"), /up to 4096 tokens; this race has 262145/);

  await choose(page, "preset", "near-tie");
  await page.fill("#edit-token", "0");
  const before = await page.evaluate(() => Number(document.body.dataset.ready));
  await page.click("#edit-zero");
  await page.waitForFunction((n) => Number(document.body.dataset.ready) > n, before);
  assert.equal(await text(page, "#edits"), "Edited draws (raced as fp64 inline noise against its fp32 cast): token 0: inv_q = inf");
  assert.match(await text(page, "#overflow-entries"), /0\t0\.25\tinf\tscore inf/);
  await choose(page, "nan-policy", "nan_never_wins");
  assert.equal(await text(page, "#policy-pick"), "Under nan_never_wins: token 0 wins.");
  assert.equal(await page.locator("#flip").getAttribute("data-flipped"), "false");
  assert.equal(await text(page, "#exact-winner"), "0");

  await page.click("#share");
  await page.waitForFunction(() => document.getElementById("share-url").value !== "");
  const link = await page.inputValue("#share-url");
  assert.match(link, /#s=[A-Za-z0-9_-]+$/);
  await page.click("#export-fixture");
  const fixture = JSON.parse(await page.inputValue("#fixture"));
  assert.equal(fixture.scenario.op, "compare");
  assert.equal(fixture.scenario.noise[0], "inf");
  assert.equal(fixture.expected.result.exactWinner, 0);

  const again = await context.newPage();
  await again.goto(link);
  await again.waitForFunction(() => Number(document.body.dataset.ready) > 0);
  assert.equal(await again.inputValue("#preset"), "near-tie");
  assert.equal(await again.inputValue("#nan-policy"), "nan_never_wins");
  assert.equal(await text(again, "#edits"), await text(page, "#edits"));
  assert.equal(await text(again, "#policy-pick"), "Under nan_never_wins: token 0 wins.");
  assert.equal(await text(again, "#compare-table"), await text(page, "#compare-table"));

  // Native numbers only when committed; live timing on one thread and the pool.
  const benchFile = new URL("../../benches/results.json", import.meta.url);
  const bench = existsSync(benchFile) ? JSON.parse(readFileSync(benchFile, "utf8")) : null;
  if (bench) {
    assert.ok((await text(page, "#perf-machine")).includes(bench.machine.cpu));
    assert.equal(await page.locator("#perf-native-table tr").count(), bench.cases.length + 1);
    await assertEndToEnd(page, bench, "results.json");
  } else {
    assert.match(await text(page, "#perf-none"), /No native benchmark numbers are committed yet/);
  }
  assert.equal(await page.inputValue("#perf-v"), "32000");
  await page.click("#perf-run");
  await page.waitForSelector("#perf-live-table", { timeout: 120000 });
  const threads = Number(await page.locator("#thread-status").getAttribute("data-threads"));
  const rows = (await page.locator("#perf-live-table tr").allInnerTexts()).map((r) => r.split("\t"));
  assert.equal(rows.length, 3, rows.join("\n"));
  assert.equal(rows[1][0], "1");
  assert.equal(rows[2][0], String(threads));
  assert.ok(Number(rows[1][2]) > 0 && Number(rows[2][2]) > 0, "page timings");
  assert.equal(rows[1][4], rows[2][4], "same first winner on 1 and N threads");
  for (const row of rows.slice(1)) {
    const c = bench?.cases.find((c) => c.case === "recover/f32/B8/V32000" && c.threads === Number(row[0]));
    assert.equal(row[3], c ? c.ns_per_element.toFixed(3) : "-", "the native figure of the same case");
  }
  assert.match(await text(page, "#perf-live"), /Same winners on every thread count/);
  await page.screenshot({ path: join(shots, "edited-shared-perf.png"), fullPage: true });

  // The other committed machines: each file's figures, in the native table and beside the live timing (the AVX2
  // machine last, which the residual case below reads).
  let avx2 = null;
  for (const [file, shot] of [
    ["xeon/results.json", "perf-xeon.png"],
    ["avx2/results.json", "perf-other-machine.png"],
  ]) {
    const url = new URL(`../../benches/${file}`, import.meta.url);
    const other = existsSync(url) ? JSON.parse(readFileSync(url, "utf8")) : null;
    await page.selectOption("#perf-machine-file", file);
    if (other) {
      await page.waitForFunction((date) => document.querySelector("#perf-machine")?.textContent.includes(date), other.date);
      assert.equal((await text(page, "#perf-machine")).includes("AVX-512"), other.machine.avx512f, file);
      assert.equal(await page.locator("#perf-native-table tr").count(), other.cases.length + 1, file);
      await assertEndToEnd(page, other, file);
    } else {
      await page.waitForSelector("#perf-none");
    }
    const again2 = (await page.locator("#perf-live-table tr").allInnerTexts()).map((r) => r.split("\t"));
    for (const row of again2.slice(1)) {
      const c = other?.cases.find((c) => c.case === "recover/f32/B8/V32000" && c.threads === Number(row[0]));
      assert.equal(row[3], c ? c.ns_per_element.toFixed(3) : "-", `${file}: the other machine's figure of the same case`);
    }
    assert.equal(again2[1][2], rows[1][2], "the live timing itself is kept");
    await page.locator("#perf").screenshot({ path: join(shots, shot) });
    avx2 = other;
  }

  // With draft probabilities: the live run times the residual case, next to its native figure.
  await page.selectOption("#perf-kind", "residual");
  await page.fill("#perf-b", "1");
  await page.fill("#perf-v", "152064");
  await page.click("#perf-run");
  await page.waitForFunction(() => document.querySelector("#perf-live")?.textContent.startsWith("residual/f32/B1/V152064"), null, {
    timeout: 120000,
  });
  const residual = (await page.locator("#perf-live-table tr").allInnerTexts()).map((r) => r.split("\t"));
  assert.equal(residual.length, rows.length);
  assert.equal(residual[1][4], residual[2][4], "same first winner on 1 and N threads");
  for (const row of residual.slice(1)) {
    const c = avx2?.cases.find((c) => c.case === "residual/f32/B1/V152064" && c.threads === Number(row[0]));
    assert.equal(row[3], c ? c.ns_per_element.toFixed(3) : "-", "the native figure of the residual case");
  }
  assert.deepEqual(errors, []);
  await page.close();
});

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

test("without COOP/COEP: one thread, and the page says why", async () => {
  const { page, errors } = await open(false);
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), false);
  assert.equal(await page.locator("#thread-status").getAttribute("data-mode"), "single");
  assert.match(await text(page, "#thread-status"), /one thread: the page is not cross-origin isolated/);
  assert.equal(await text(page, "#dead-count-a"), "262144", "the single-threaded core gives the same answer");
  assert.deepEqual(errors, []);
});

test("presets, sliders, JSON import, u editing, addresses, the speculative step's races and losslessness", async () => {
  const { page, errors } = await open(true);

  // Uniform and Zipf: the core's seeded races and dead zones, rendered.
  for (const name of ["uniform", "zipf"]) {
    await choose(page, "preset", name);
    const weights = buildPreset(core, name, PARAMS).weights;
    await assertCompare(page, seeded(weights));
    assert.equal(await text(page, "#dead-count-a"), deadCount(weights, "torch-cuda-f32"), name);
    assert.equal(await text(page, "#dead-count-b"), deadCount(weights, "torch-cuda-f64"), name);
    assert.match(await text(page, "#prob-summary"), /^32000 tokens; pipeline A kills 0 of them/);
    assert.equal(await page.locator("#sliders input[type=range]").count(), 6);
    if (name === "uniform") {
      await page.waitForSelector("#exact-table", { timeout: 120000 });
      for (const i of [0, 1, 2]) assert.equal(await text(page, `#exact-0-${i}`), "1", "one group of equal weights always wins");
    } else {
      assert.match(await text(page, "#exact-out"), /up to 8 distinct weights; this race has 32000/);
    }
    await page.screenshot({ path: join(shots, `${name}.png`) });
  }

  // A slider sets token 1 of the near-tie to 0.1: the flip is gone, both pick token 0.
  await choose(page, "preset", "near-tie");
  assert.equal(await page.locator("#flip").getAttribute("data-flipped"), "true");
  await redrawn(page, () => page.locator("#slider-1").fill("-1"));
  assert.equal(await text(page, "#slider-out-1"), "0.1");
  assert.equal(await text(page, "#weight-edits"), "Weights set by the sliders: token 1 = 0.1");
  assert.equal(await page.locator("#flip").getAttribute("data-flipped"), "false");
  assert.equal(await text(page, "#exact-winner"), "0");
  const slid = core.run({ exporace: 1, op: "compare", weights: [0.25, Math.fround(0.1)], noise: ["1", "1.000000000001"] }).result;
  await assertCompare(page, slid);
  // By keyboard: one step left lowers the weight again.
  await page.focus("#slider-1");
  await redrawn(page, () => page.keyboard.press("ArrowLeft"));
  assert.equal(Number(await page.inputValue("#slider-1")), -1.01);

  // Export the state as a fixture, load another preset, import the fixture: the same race.
  await page.click("#export-fixture");
  const fixture = await page.inputValue("#fixture");
  const before = await compareRows(page);
  await choose(page, "preset", "uniform");
  await page.fill("#import-json", fixture);
  await redrawn(page, () => page.click("#import"));
  assert.equal(await text(page, "#import-error"), "");
  assert.deepEqual(await compareRows(page), before);
  assert.match(await text(page, "#import-note"), /^Imported: 2 weights with inline noise/);
  // A hand-written scenario with seeded pipelines, and one the core refuses.
  await page.fill("#import-json", JSON.stringify({ exporace: 1, op: "compare", weights: [0.5, 0.3, 0.2], models: ["triton-classic", "torch-cuda-f64"], seed: 11, row: 2 }));
  await redrawn(page, () => page.click("#import"));
  assert.equal(await page.inputValue("#model-a"), "triton-classic");
  assert.equal(await page.inputValue("#seed"), "11");
  await assertCompare(page, core.run({ exporace: 1, op: "compare", weights: [0.5, 0.3, 0.2], models: ["triton-classic", "torch-cuda-f64"], seed: 11, row: 2 }).result);
  await page.fill("#import-json", '{"exporace": 1, "op": "race", "precision": "f32", "wieghts": [1]}');
  await page.click("#import");
  assert.match(await text(page, "#import-error"), /unknown field .wieghts./);
  await page.locator("#probs").screenshot({ path: join(shots, "probabilities-sliders-import.png") });

  // The address of the draws shown: MRV2 (draft position 17), then torch CPU, which needs its own model.
  await page.selectOption("#model-a", "torch-cuda-f32");
  await page.selectOption("#address", "mrv2");
  await page.fill("#mrv2-pos", "17");
  await page.locator("#mrv2-pos").dispatchEvent("change");
  await page.check("#mrv2-draft");
  const mrv2 = core.run({ exporace: 1, op: "noise", model: "torch-cuda-f32", seed: "11", address: "mrv2", pos: 17, draft: true, start: 0, count: 3 });
  await page.waitForFunction(() => /MRV2 position 17 \(draft/.test(document.getElementById("draws").innerText));
  const drawRows = (await page.locator("#draws tr[data-i]").allInnerTexts()).map((r) => r.split("\t"));
  assert.deepEqual(drawRows.map((r) => r[1]), mrv2.result.draws.map((d) => d.raw));
  await page.selectOption("#address", "torch_cpu");
  assert.match(await text(page, "#draws"), /address torch_cpu replays torch's generator and needs model torch-cpu/);
  await page.selectOption("#model-a", "torch-cpu");
  await page.locator("#model-a").dispatchEvent("change");
  await page.waitForFunction(() => /torch CPU generator after 0/.test(document.getElementById("draws").innerText));
  const cpu = core.run({ exporace: 1, op: "noise", model: "torch-cpu", seed: "11", address: "torch_cpu", start: 0, count: 8 });
  assert.deepEqual((await page.locator("#draws tr[data-i]").allInnerTexts()).map((r) => r.split("\t")[1]), cpu.result.draws.map((d) => d.raw));
  await page.selectOption("#address", "exporace");

  // Set u of token 2 under pipeline B (torch-cuda-f64): the core puts it on the lattice and computes E.
  await page.fill("#edit-token", "2");
  await page.fill("#edit-u", "0.5");
  await redrawn(page, () => page.click("#edit-set-u"));
  const half = core.transformUniform("torch-cuda-f64", null, { uniform: 0.5 }).draws[0];
  assert.equal(await text(page, "#u-e"), String(half.e));
  assert.equal(await text(page, "#u-branch"), "normal");
  assert.match(await text(page, "#edits"), new RegExp(`token 2: inv_q = ${half.invQ} \\(u = 0\\.5 under torch-cuda-f64: E = ${half.e}, normal\\)`));
  await page.fill("#edit-u", "1");
  await redrawn(page, () => page.click("#edit-set-u"));
  assert.equal(await text(page, "#u-branch"), "clamped");
  assert.equal(await text(page, "#u-e"), "1.110223e-16", "u = 1 is clamped to E = 2^-53");
  assert.equal(await text(page, "#exact-winner"), "2", "E = 2^-53 makes token 2 win");
  await page.fill("#edit-u", "2");
  await page.click("#edit-set-u");
  assert.match(await text(page, "#edit-error"), /point\.uniform must be a number in \[0, 1\], got 2/);
  // Set E of token 2: the core's division race gives inv_q, and the race follows.
  await page.fill("#edit-e", "1e6");
  await redrawn(page, () => page.click("#edit-set-e"));
  assert.notEqual(await text(page, "#exact-winner"), "2", "E = 1e6 makes token 2 lose");
  assert.match(await text(page, "#edits"), /token 2: inv_q = 0\.000001 \(E = 1e6: inv_q bits 0x3eb0c6f7a0b5ed8d\)/);
  await page.fill("#edit-e", "0x3c90000000000000");
  await redrawn(page, () => page.click("#edit-set-e"));
  assert.equal(await text(page, "#exact-winner"), "2", "E = 2^-54 makes token 2 win");
  assert.match(await text(page, "#edits"), /token 2: inv_q = 18014398509481984 \(E = 0x3c90000000000000: inv_q bits 0x4350000000000000\)/);
  await page.fill("#edit-e", "-1");
  await page.click("#edit-set-e");
  assert.notEqual(await text(page, "#edit-error"), "");
  await page.locator("#noise").screenshot({ path: join(shots, "noise-u-edit.png") });

  // The speculative-decoding step: recovered-token races through compare, bonus races, losslessness.
  await choose(page, "preset", "spec");
  await page.selectOption("#model-a", "torch-cuda-f32");
  const step = core.run({ ...SPEC_STEP, seed: "11" }).result;
  assert.equal(await text(page, "#spec-output"), JSON.stringify(step.outputTokenIds));
  const batch = specBatch();
  for (const [b, req] of step.requests.entries()) {
    if (req.recovered) {
      assert.equal(await text(page, `#spec-recovered-${b}`), String(req.recovered.winner.token), `request ${b}`);
      const t = SPEC_STEP.cu_num_draft_tokens[b] - req.numDraft + req.numAccepted;
      const weights = Array.from(core.residualWeights(batch, t));
      const models = [{ model: "ideal", precision: "f32" }, { model: "ideal", precision: "f64" }];
      await assertCompare(page, core.run({ exporace: 1, op: "compare", weights, models, seed: "11", row: b }).result, `#compare-table-spec-${b}`);
      assert.equal(await page.locator(`#spec-race-${b} tr`).count(), 4);
    }
    if (req.bonus !== null) assert.equal(await text(page, `#spec-bonus-${b}`), String(req.bonus));
  }
  // Edit the batch: target p(draft) = 0 at position 0 of request 0, and given uniforms; the core recomputes the trace.
  const edited = {
    cu_num_draft_tokens: SPEC_STEP.cu_num_draft_tokens,
    draft_token_ids: SPEC_STEP.draft_token_ids,
    target_probs: [[0.1, 0, 0.9], ...SPEC_STEP.target_probs.slice(1)],
    draft_probs: SPEC_STEP.draft_probs,
    bonus_probs: SPEC_STEP.bonus_probs,
    uniform: [0.5, 0.5, 0.5, 0.5],
  };
  await page.click("#spec-json summary");
  await page.fill("#spec-batch", JSON.stringify(edited));
  await redrawn(page, () => page.click("#spec-apply"));
  const editedStep = core.run({ ...SPEC_STEP, ...edited, seed: "11" }).result;
  assert.notEqual(JSON.stringify(editedStep.outputTokenIds), JSON.stringify(step.outputTokenIds));
  assert.equal(await text(page, "#spec-output"), JSON.stringify(editedStep.outputTokenIds));
  assert.match((await page.locator("#spec-trace tr").allInnerTexts())[1], /^0\t0\t1\t0\t0\.8\t0\.5\trejected: recovered token$/);
  assert.equal(await text(page, "#spec-recovered-0"), String(editedStep.requests[0].recovered.winner.token));
  const editedWeights = Array.from(core.residualWeights(specBatch({ ...SPEC_STEP, ...edited }), 0));
  const models = [{ model: "ideal", precision: "f32" }, { model: "ideal", precision: "f64" }];
  await assertCompare(page, core.run({ exporace: 1, op: "compare", weights: editedWeights, models, seed: "11", row: 0 }).result, "#compare-table-spec-0");
  await page.locator("#spec").screenshot({ path: join(shots, "speculative-edited.png") });
  await page.fill("#spec-batch", '{"draft_token_ids": [1, 2, 0, 7]}');
  await page.click("#spec-apply");
  assert.notEqual(await text(page, "#spec-error"), "");
  await redrawn(page, () => page.click("#spec-reset"));
  assert.equal(await text(page, "#spec-output"), JSON.stringify(step.outputTokenIds));
  // The structured form, by keyboard only: p(1) at request 0, position 0 set to 0 (the draft there is token 1).
  await page.getByLabel("request 0 position 0: target p(1)", { exact: true }).focus();
  await page.keyboard.press("Control+A");
  await page.keyboard.type("0");
  await redrawn(page, () => page.keyboard.press("Tab"));
  const formBatch = structuredClone(SPEC_STEP);
  formBatch.target_probs[0][1] = 0;
  const formStep = core.run({ ...formBatch, seed: "11" }).result;
  assert.equal(await text(page, "#spec-output"), JSON.stringify(formStep.outputTokenIds));
  assert.match((await page.locator("#spec-trace tr").allInnerTexts())[1], /^0\t0\t1\t0\t0\.8\t/);
  assert.match(await page.inputValue("#spec-batch"), /"target_probs": \[\[0\.1,0,0\.4\]/);
  // Add a draft to request 1 (a copy of its last position), by keyboard; focus stays on the button.
  await page.getByRole("button", { name: "Add a draft to request 1" }).focus();
  await redrawn(page, () => page.keyboard.press("Enter"));
  assert.equal(await page.locator('fieldset.spec-request[data-b="1"] legend').innerText(), "Request 1: 2 drafts");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Add a draft to request 1");
  const grown = structuredClone(formBatch);
  grown.cu_num_draft_tokens = [2, 4, 5];
  grown.draft_token_ids.splice(3, 0, 0);
  grown.target_probs.splice(3, 0, [0.2, 0.2, 0.6]);
  grown.draft_probs.splice(3, 0, [0.7, 0.2, 0.1]);
  assert.equal(await text(page, "#spec-output"), JSON.stringify(core.run({ ...grown, seed: "11" }).result.outputTokenIds));
  assert.equal(await page.locator("#spec-trace tr").count(), 1 + 5);
  // A draft id outside the vocabulary is refused with the core's message; the batch stays.
  await page.getByLabel("request 2 position 0: draft token id", { exact: true }).fill("7");
  await page.keyboard.press("Tab");
  await page.waitForFunction(() => /outside \[0, 3\)/.test(document.getElementById("spec-error").textContent));
  assert.equal(await page.getByLabel("request 2 position 0: draft token id", { exact: true }).getAttribute("aria-invalid"), "true");
  assert.equal(await text(page, "#spec-output"), JSON.stringify(core.run({ ...grown, seed: "11" }).result.outputTokenIds));
  await page.locator("#spec-form").screenshot({ path: join(shots, "speculative-form.png") });
  await redrawn(page, () => page.click("#spec-reset"));
  assert.equal(await text(page, "#spec-output"), JSON.stringify(step.outputTokenIds));
  await page.fill("#spec-trials", "20480");
  const verdicts = async (label) => {
    await page.waitForFunction((l) => document.getElementById("spec-status").textContent.startsWith(`Done: ${l}`), label, { timeout: 60000 });
    const rows = (await page.locator("#spec-lossless-table tr").allInnerTexts()).slice(1).map((r) => r.split("\t"));
    assert.equal(rows.length, SPEC_STEP.draft_token_ids.length);
    return rows.map((r) => ({ p: Number(r[7]), tv: Number(r[8]), verdict: r[9] }));
  };
  await page.click("#spec-run");
  const salted = await verdicts("rejection_salted");
  // Timed before it started: the estimate for every position, then how long it took.
  assert.match(await text(page, "#spec-estimate"), /^Estimated: about \d+ (s|min) here \(timed on \d+ trials first\)\. It took \d+ (s|min)\.$/);
  assert.ok(salted.every((r) => r.verdict === "consistent with p" && r.p > 1e-4), JSON.stringify(salted));
  await page.check("#spec-shared");
  const shared = await verdicts("rejection_shared");
  assert.equal(shared[3].verdict, "biased: the output is not p");
  assert.ok(shared[3].p < 1e-6 && shared[3].tv > 2 * salted[3].tv, JSON.stringify(shared));
  await page.locator("#spec").screenshot({ path: join(shots, "speculative.png") });

  // The sliders, the import and the noise address travel in the link.
  await page.selectOption("#address", "triton");
  await page.locator("#slider-2").fill("-2");
  await page.waitForFunction(() => /token 2 = 0\.01/.test(document.getElementById("weight-edits").textContent));
  await page.click("#share");
  await page.waitForFunction(() => document.getElementById("share-url").value !== "");
  const again = await context.newPage();
  await again.goto(await page.inputValue("#share-url"));
  await again.waitForFunction(() => Number(document.body.dataset.ready) > 0);
  assert.equal(await text(again, "#weight-edits"), await text(page, "#weight-edits"));
  assert.equal(await again.inputValue("#address"), "triton");
  assert.deepEqual(await compareRows(again), await compareRows(page));

  // .npy import: p, then q (E per weight), then d, each read by the core's reader.
  await page.setInputFiles("#npy-file", { name: "p.npy", mimeType: "application/octet-stream", buffer: npy("<f4", [3], Float32Array.of(0.2, 0.3, 0.5)) });
  await page.waitForFunction(() => /Read p\.npy as p/.test(document.getElementById("npy-note").textContent));
  assert.match(await text(page, "#about"), /^3 weights from p\.npy/);
  await page.selectOption("#npy-role", "q");
  await page.setInputFiles("#npy-file", { name: "q.npy", mimeType: "application/octet-stream", buffer: npy("<f8", [3], Float64Array.of(1, 1e-30, 1)) });
  await page.waitForFunction(() => /Read q\.npy as q/.test(document.getElementById("npy-note").textContent));
  // The views redraw in tasks of their own after the note: wait for the race's.
  await page
    .waitForFunction(() => document.getElementById("exact-winner").textContent === "1", null, { timeout: 15000 })
    .catch(() => {});
  assert.equal(await text(page, "#exact-winner"), "1", "q = 1e-30 makes token 1 win");
  // Imported p and q travel in the link.
  await page.click("#share");
  await page.waitForFunction(() => /Link (ready|copied)/.test(document.getElementById("share-note").textContent));
  const npyPage = await context.newPage();
  await npyPage.goto(await page.inputValue("#share-url"));
  await npyPage.waitForFunction(() => Number(document.body.dataset.ready) > 0);
  assert.match(await text(npyPage, "#about"), /^3 weights imported from a file/);
  assert.equal(await text(npyPage, "#exact-winner"), "1");
  assert.equal(await text(npyPage, "#compare-table"), await text(page, "#compare-table"));
  await npyPage.close();
  // A p too large for a link is named beside the button, with the scenario export offered; the link's page says so too.
  await page.selectOption("#npy-role", "p");
  const big = Float32Array.from({ length: 5000 }, (_, i) => 1 / (i + 1));
  await page.setInputFiles("#npy-file", { name: "big.npy", mimeType: "application/octet-stream", buffer: npy("<f4", [5000], big) });
  await page.waitForFunction(() => /Read big\.npy as p/.test(document.getElementById("npy-note").textContent));
  await page.click("#share");
  await page.waitForFunction(() => /Not in the link: imported p \(5000 entries\)/.test(document.getElementById("share-note").textContent));
  assert.ok(await page.locator("#share-export").isVisible());
  await page.click("#share-export");
  assert.equal(JSON.parse(await page.inputValue("#fixture")).scenario.weights.length, 5000);
  const bigPage = await context.newPage();
  await bigPage.goto(await page.inputValue("#share-url"));
  await bigPage.waitForFunction(() => Number(document.body.dataset.ready) > 0);
  assert.match(await text(bigPage, "#share-note"), /made without imported p \(5000 entries\)/);
  await bigPage.close();
  // Back to the three weights and q for what follows.
  await page.setInputFiles("#npy-file", { name: "p.npy", mimeType: "application/octet-stream", buffer: npy("<f4", [3], Float32Array.of(0.2, 0.3, 0.5)) });
  await page.waitForFunction(() => /Read p\.npy as p/.test(document.getElementById("npy-note").textContent));
  const d = SPEC_STEP.draft_probs.map(() => [0.2, 0.2, 0.6]);
  await page.selectOption("#npy-role", "d");
  await page.setInputFiles("#npy-file", { name: "d.npy", mimeType: "application/octet-stream", buffer: npy("<f4", [d.length, 3], Float32Array.from(d.flat())) });
  await page.waitForFunction(() => /Read d\.npy as d/.test(document.getElementById("npy-note").textContent));
  const fromD = core.run({ ...SPEC_STEP, draft_probs: Array.from(d, (r) => Array.from(Float32Array.from(r))), seed: "11" }).result;
  assert.equal(await text(page, "#spec-output"), JSON.stringify(fromD.outputTokenIds));
  await page.setInputFiles("#npy-file", { name: "bad.npy", mimeType: "application/octet-stream", buffer: Buffer.from("not a npy file") });
  await page.waitForFunction(() => document.getElementById("npy-error").textContent !== "");
  // A [2, 3] matrix as p is refused, not flattened into a 6-token race.
  await page.selectOption("#npy-role", "p");
  const aboutBefore = await text(page, "#about");
  await page.setInputFiles("#npy-file", { name: "m.npy", mimeType: "application/octet-stream", buffer: npy("<f4", [2, 3], Float32Array.of(1, 2, 3, 4, 5, 6)) });
  await page.waitForFunction(() => /holds a f32 \[2, 3\] array/.test(document.getElementById("npy-error").textContent));
  assert.equal(await text(page, "#about"), aboutBefore, "the race did not change");
  // safetensors: an engine's dump with vLLM's names, which preselect p, inv_q and d.
  const tp = [[0.25, 0.25, 0.5], [0.5, 0.25, 0.25]];
  const dumpInvQ = [1, 4, 1];
  const dRows = SPEC_STEP.draft_probs.map(() => [0.5, 0.25, 0.25]);
  const dump = safetensors([
    ["target_probs", "F32", [2, 3], le(Float32Array, tp.flat())],
    ["inv_q", "F64", [1, 3], le(Float64Array, dumpInvQ)],
    ["draft_probs", "F32", [dRows.length, 3], le(Float32Array, dRows.flat())],
    ["draft_token_ids", "I64", [2], le(BigInt64Array, [1n, 2n])],
  ]);
  await page.setInputFiles("#st-file", { name: "dump.safetensors", mimeType: "application/octet-stream", buffer: dump });
  await page.waitForSelector("#st-choose:not([hidden])");
  assert.match(await text(page, "#st-note"), /^dump\.safetensors: 4 tensors \(draft_probs f32 \[4, 3\]; draft_token_ids i64 \[2\]; inv_q f64 \[1, 3\]; target_probs f32 \[2, 3\]\)/);
  assert.equal(await page.inputValue("#st-p"), "target_probs");
  assert.equal(await page.inputValue("#st-q"), "inv_q");
  assert.equal(await page.inputValue("#st-d"), "draft_probs");
  await redrawn(page, () => page.click("#st-use"));
  assert.equal(await text(page, "#st-note"), "Using p = target_probs, inv_q = inv_q, d = draft_probs from dump.safetensors.");
  assert.match(await text(page, "#about"), /^3 weights from dump\.safetensors: target_probs row 0/);
  const policy = await page.inputValue("#nan-policy");
  const fromDump = core.run({ exporace: 1, op: "compare", nan_policy: policy, weights: tp[0], noise: dumpInvQ }).result;
  assert.equal(fromDump.exactWinner, 1, "inv_q = 4 at token 1: score 1 against 0.25 and 0.5");
  await assertCompare(page, fromDump);
  assert.equal(await text(page, "#exact-winner"), "1");
  const dumpStep = core.run({ ...SPEC_STEP, draft_probs: dRows, seed: "11" }).result;
  assert.equal(await text(page, "#spec-output"), JSON.stringify(dumpStep.outputTokenIds));
  // Row 1 of target_probs as p; a row past the end is refused.
  await page.fill("#st-p-row", "1");
  await page.selectOption("#st-q", "");
  await page.selectOption("#st-d", "");
  await redrawn(page, () => page.click("#st-use"));
  assert.match(await text(page, "#about"), /^3 weights from dump\.safetensors: target_probs row 1/);
  await page.fill("#st-p-row", "2");
  await page.click("#st-use");
  await page.waitForFunction(() => /target_probs has 2 rows; row 2 does not exist/.test(document.getElementById("st-error").textContent));
  await page.locator("#share-box").screenshot({ path: join(shots, "safetensors-import.png") });
  await page.setInputFiles("#st-file", { name: "bad.safetensors", mimeType: "application/octet-stream", buffer: Buffer.from("not a safetensors file") });
  await page.waitForFunction(() => /safetensors/.test(document.getElementById("st-error").textContent));
  assert.ok(await page.locator("#st-choose").isHidden());
  await page.locator("#share-box").screenshot({ path: join(shots, "npy-import.png") });
  assert.deepEqual(errors, []);
});


/** Presses Tab (Shift+Tab with `back`) until the focused element matches `selector`. */
async function tabTo(page, selector, { back = false, max = 800 } = {}) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => Boolean(document.activeElement?.matches(s)), selector)) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(`the keyboard never reached ${selector}`);
}

/** Runs `press` (a key press) and waits until the page has redrawn. */
const pressed = (page, key) => redrawn(page, () => page.keyboard.press(key));

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
  const colours = (id, wanted) =>
    page.evaluate(([id, wanted]) => {
      const c = document.getElementById(id);
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < d.length; i += 4) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
      return wanted.filter((k) => seen.has(k));
    }, [id, wanted]);
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
  const { url } = await startServer({ port: 0, isolate: false }).then(({ server, url }) => (servers.push(server), { url }));
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

test("transfer budget: the first load at most 3 MB, a reload at most 100 kB", async () => {
  const { server, url } = await startServer({ port: 0, isolate: false });
  servers.push(server);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  let bytes = 0;
  cdp.on("Network.loadingFinished", (e) => (bytes += e.encodedDataLength));
  const wasmFetches = [];
  page.on("request", (r) => r.url().endsWith(".wasm") && wasmFetches.push(r.url()));
  await page.goto(url);
  await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
  const first = bytes;
  // The wasm is fetched and compiled once: the theory and experiment workers get the module.
  await choose(page, "preset", "near-tie");
  await page.fill("#exp-trials", "1024");
  await page.click("#exp-run");
  await page.waitForFunction(() => document.getElementById("exp-status").textContent.startsWith("Done"), null, { timeout: 120000 });
  assert.equal(wasmFetches.length, 1, wasmFetches.join(", "));
  bytes = 0;
  bytes = 0;
  await page.reload();
  await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
  console.log(`transferred: first load ${first} bytes, reload ${bytes} bytes`);
  assert.ok(first <= 3e6, `first load ${first} bytes`);
  assert.ok(bytes <= 1e5, `reload ${bytes} bytes`);
  const wasm = await fetch(new URL("pkg/web/exporace_bg.wasm", url), { headers: { "Accept-Encoding": "br, gzip" } });
  assert.equal(wasm.headers.get("content-encoding"), "br");
  assert.ok(wasm.headers.get("etag"));
  await page.close();
});

test("axe-core: no serious or critical accessibility violation, in any preset; a skip link; canvases are images", async () => {
  const { page, errors } = await open(false);
  await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
  const axeScript = join(new URL("../..", import.meta.url).pathname, "node_modules/axe-core/axe.min.js");
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

test("views are modules over one state: no view imports another, no cycle, nothing from benches/; a refused change changes nothing; a change redraws only its views", async () => {
  const web = new URL("../../web", import.meta.url).pathname;
  const graph = importGraph(web);
  const views = Object.keys(graph).filter((m) => m.startsWith("views/"));
  assert.ok(views.length >= 8, views.join(", "));
  for (const [module, imports] of Object.entries(graph)) {
    if (module === "server.mjs") continue;
    assert.deepEqual(imports.filter((i) => i.startsWith("outside:")), [], `${module} imports from outside web/`);
    assert.ok(!imports.includes("app.mjs"), `${module} imports app.mjs`);
    if (module !== "app.mjs") assert.deepEqual(imports.filter((i) => i.startsWith("views/")), [], `${module} imports a view`);
  }
  assert.equal(findCycle(graph), null);
  // No one file holds the page: the largest module is a fraction of the 85 kB the page once was.
  for (const module of Object.keys(graph)) {
    assert.ok(readFileSync(join(web, module)).length < 24000, `${module} is ${readFileSync(join(web, module)).length} bytes`);
  }

  const { server, url } = await startServer({ port: 0, isolate: false });
  servers.push(server);
  const page = await context.newPage();
  const errors = collectErrors(page);
  const scripts = [];
  page.on("request", (r) => /\.(m?js)$/.test(new URL(r.url()).pathname) && scripts.push(new URL(r.url()).pathname));
  await page.goto(url);
  await page.waitForFunction(() => Number(document.body.dataset.ready) > 0, null, { timeout: 120000 });
  await page.waitForFunction(() => document.getElementById("thread-status").dataset.mode, null, { timeout: 120000 });
  assert.deepEqual(scripts.filter((p) => p.startsWith("/benches/")), [], "the page imports nothing from benches/");
  assert.ok(scripts.includes("/state.mjs") && scripts.includes("/views/race.mjs"), scripts.join(" "));

  // Every refused change leaves the very same state object, and nothing is redrawn.
  const outcome = await page.evaluate(async () => {
    const s = await import("/state.mjs");
    const before = s.state;
    const ready = document.body.dataset.ready;
    const refused = {};
    const changes = {
      seed: (d) => (d.seed = "abc"),
      "seed past 2^64": (d) => (d.seed = "18446744073709551616"),
      row: (d) => (d.row = -1),
      model: (d) => (d.models = ["torch-cuda-f32", "no-such-model"]),
      "nan policy": (d) => (d.nanPolicy = "sometimes"),
      tails: (d) => (d.params = { ...d.params, tails: 0 }),
      "weights with NaN": (d) => s.withWeights(d, Float32Array.of(0.5, NaN), null, "pasted", "x"),
      "negative weight": (d) => s.withWeights(d, Float32Array.of(0.5, -0.1), null, "pasted", "x"),
      "slider past the end": (d) => (d.weightEdits = [[d.baseWeights.length, 0.5]]),
      "edit of 262145 seeded draws": (d) => (d.edits = [[0, "inf"]]),
      "speculative batch": (d) => (d.spec = { ...d.spec, cu_num_draft_tokens: [9, 9, 9] }),
      "half applied, then refused": (d) => {
        d.seed = "99";
        d.row = 1.5;
      },
    };
    for (const [name, change] of Object.entries(changes)) {
      try {
        s.update(change);
        refused[name] = "accepted";
      } catch (e) {
        refused[name] = s.state === before ? e.message : "refused, but the state changed";
      }
    }
    const same = s.state === before && document.body.dataset.ready === ready;
    s.update((d) => (d.seed = "0x10"));
    return { refused, same, seed: s.state.seed, ready };
  });
  await page.waitForFunction((n) => document.body.dataset.ready !== n, outcome.ready, { timeout: 60000 });
  for (const [name, message] of Object.entries(outcome.refused)) {
    assert.ok(message !== "accepted" && !message.startsWith("refused, but"), `${name}: ${message}`);
  }
  assert.match(outcome.refused.seed, /"abc" is not a seed/);
  assert.match(outcome.refused.model, /"no-such-model" is not a model of the catalogue/);
  assert.match(outcome.refused["edit of 262145 seeded draws"], /up to 4096 tokens; this race has 262145/);
  assert.match(outcome.refused.tails, /tails must be a whole number from 1 to 262144/);
  assert.equal(outcome.same, true);
  assert.equal(outcome.seed, "16", "a valid change is applied, and the views redraw");
  assert.equal(await page.inputValue("#seed"), "7", "the seed field is the user's; only a sync rewrites it");

  // Only what changed is redrawn: each change, then how many times the weights chart and the race's scores were drawn.
  const draws = () => page.evaluate(() => ["prob-chart", "score-chart"].map((id) => Number(document.getElementById(id).dataset.draws || 0)));
  const change = async (body) => {
    const before = await page.evaluate(() => document.body.dataset.ready);
    await page.evaluate(body);
    await page.waitForFunction((n) => document.body.dataset.ready !== n, before, { timeout: 60000 });
    return draws();
  };
  const start = await draws();
  assert.ok(start[0] > 0 && start[1] > 0, `both charts drawn: ${start}`);
  const spec = await change(async () => {
    const s = await import("/state.mjs");
    s.update((d) => (d.spec = { ...d.spec, draft_token_ids: [2, 2, 0, 2] }));
  });
  assert.deepEqual(spec, start, "a speculative batch redraws neither the weights nor the race");
  const policy = await change(async () => {
    const s = await import("/state.mjs");
    s.update((d) => (d.nanPolicy = "nan_never_wins"));
  });
  assert.deepEqual(policy, [start[0], start[1] + 1], "a NaN policy redraws the race alone");
  const pipelineA = await change(async () => {
    const s = await import("/state.mjs");
    s.update((d) => (d.models = ["torch-cuda-f64", d.models[1]]));
  });
  assert.deepEqual(pipelineA, [start[0] + 1, start[1] + 2], "pipeline A redraws both");
  assert.deepEqual(errors, []);
  await page.close();
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
  const colours = await page.evaluate(() => {
    const c = document.getElementById("ulp-chart");
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return ["31,95,191", "192,57,43"].filter((k) => seen.has(k));
  });
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

test("dist/ on a static host without COOP/COEP, in a subfolder: isolated by its service worker, threaded; one thread said where it cannot", async () => {
  const root = new URL("../..", import.meta.url).pathname;
  execFileSync(process.execPath, [join(root, "scripts/build-site.mjs")], { stdio: "pipe" });
  // Served from /exporace/, as a project's GitHub Pages site is: every path of the page must be relative.
  const host = await mkdtemp(join(tmpdir(), "exporace-site-"));
  symlinkSync(join(root, "dist"), join(host, "exporace"));
  const { server, url } = await staticHost(host);
  servers.push(server);
  const site = `${url}exporace/`;
  const plain = await fetch(site);
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get("cross-origin-opener-policy"), null, "the host sends no COOP");
  assert.equal(plain.headers.get("cross-origin-embedder-policy"), null, "the host sends no COEP");

  const page = await context.newPage();
  const errors = collectErrors(page);
  const outside = [];
  page.on("request", (r) => r.url().startsWith(url) && !r.url().startsWith(site) && outside.push(r.url()));
  await page.goto(site);
  await page.waitForFunction(() => document.getElementById("thread-status").dataset.mode === "threaded", null, { timeout: 120000 });
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
  assert.equal(await page.evaluate(() => Boolean(navigator.serviceWorker.controller)), true);
  assert.match(await text(page, "#thread-status"), /^Threaded: a pool of \d+ workers .* through its service worker\)\.$/);
  // The same numbers as `npm start`: the many-tail race's dead zone, the exact tail probability.
  await page.waitForSelector("#exact-table", { timeout: 120000 });
  assert.equal(await text(page, "#dead-count-a"), "262144");
  assert.equal(await text(page, "#exact-1-1"), "0");
  // The pool runs, and the committed native figures came along.
  await page.click("#perf-run");
  await page.waitForSelector("#perf-live-table", { timeout: 120000 });
  const rows = (await page.locator("#perf-live-table tr").allInnerTexts()).map((r) => r.split("\t"));
  assert.equal(rows.length, 3, rows.join("\n"));
  assert.equal(rows[1][4], rows[2][4], "same first winner on 1 and N threads");
  const bench = JSON.parse(readFileSync(join(root, "benches/results.json"), "utf8"));
  const native = bench.cases.find((c) => c.case === "recover/f32/B8/V32000" && c.threads === 1);
  assert.equal(rows[1][3], native ? native.ns_per_element.toFixed(3) : "-");
  assert.deepEqual(outside, [], "nothing is fetched outside the site's folder");
  await page.screenshot({ path: join(shots, "dist-threaded.png") });
  assert.deepEqual(errors, []);
  await page.close();

  // Where service workers cannot run, the page runs on one thread and says why.
  const blocked = await launchChromium({ viewport: { width: 1280, height: 900 }, serviceWorkers: "block" });
  try {
    const single = await blocked.context.newPage();
    const singleErrors = collectErrors(single);
    await single.goto(site);
    await single.waitForFunction(() => ["threaded", "single", "error"].includes(document.getElementById("thread-status").dataset.mode), null, { timeout: 120000 });
    assert.equal(await single.getAttribute("#thread-status", "data-mode"), "single");
    assert.match(await text(single, "#thread-status"), /one thread: the page is not cross-origin isolated .* its service worker, which adds them, (cannot run here|did not take over the page)/);
    await single.waitForSelector("#exact-table", { timeout: 120000 });
    assert.equal(await text(single, "#dead-count-a"), "262144");
    assert.deepEqual(singleErrors, []);
  } finally {
    await blocked.close();
  }
});

test("long tasks and latency: no main-thread task over 50 ms; the first view follows a drag within 100 ms, at 262145 tokens", async (t) => {
  const { server, url } = await startServer({ port: 0, isolate: true });
  servers.push(server);
  // On a busy 2-core machine a task can be stretched by other processes: a figure over its bound is measured
  // again in a fresh page, and the test fails only when both measurements are over.
  const measureAll = async () => {
    const page = await context.newPage();
    const errors = collectErrors(page);
    // Every long task (over 50 ms) of the main thread, from the first script on.
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: "longtask", buffered: true });
    });
    await page.goto(url);
    await page.waitForSelector("#exact-chart[data-drawn]", { timeout: 120000 });
    await page.waitForSelector("#exact-table", { timeout: 120000 });
    await page.waitForFunction(() => Number(document.body.dataset.ready) > 0, null, { timeout: 120000 });
    await page.waitForTimeout(500);
    const since = () => page.evaluate(() => performance.now());
    const longest = (from) => page.evaluate((f) => Math.max(0, ...window.__longTasks.filter((e) => e.start >= f).map((e) => e.duration)), from);
    const tasks = { "first load": await longest(0) };
    const latency = {};
    const measure = async (name, action) => {
      const from = await since();
      await redrawn(page, action);
      await page.waitForTimeout(300);
      tasks[name] = await longest(from);
    };
    // The gap slider moved by a step: the time until the lead figure's readout (the exact probabilities,
    // from the theory worker) shows the new gap; the marker is drawn before it.
    await measure("gap slider", async () => {
      latency["gap slider to the lead figure"] = await page.evaluate(() => new Promise((ok) => {
        const slider = document.getElementById("gap-slider");
        const want = String(Number(slider.value) + 0.5);
        const readout = document.getElementById("lead-readout");
        const t0 = performance.now();
        const seen = new MutationObserver(() => {
          if (readout.textContent.startsWith(`At ${want} nats,`)) {
            seen.disconnect();
            ok(performance.now() - t0);
          }
        });
        seen.observe(readout, { childList: true, characterData: true, subtree: true });
        slider.value = want;
        slider.dispatchEvent(new Event("input"));
        slider.dispatchEvent(new Event("change"));
      }));
    });
    // A weight slider moved: the time until the weights chart (the view the slider belongs to) is redrawn.
    await measure("weight slider drag", async () => {
      latency["weight slider to its chart"] = await page.evaluate(() => new Promise((ok) => {
        const chart = document.getElementById("prob-chart");
        const draws = chart.dataset.draws;
        const t0 = performance.now();
        const seen = new MutationObserver(() => {
          if (chart.dataset.draws !== draws) {
            seen.disconnect();
            ok(performance.now() - t0);
          }
        });
        seen.observe(chart, { attributes: true, attributeFilter: ["data-draws"] });
        const slider = document.getElementById("slider-1");
        slider.value = "-8";
        slider.dispatchEvent(new Event("input"));
      }));
    });
    await measure("seed change", async () => {
      await page.fill("#seed", "8");
      await page.locator("#seed").dispatchEvent("change");
    });
    await measure("preset to near-tie", () => page.selectOption("#preset", "near-tie"));
    await measure("preset to uniform (32000 tokens)", () => page.selectOption("#preset", "uniform"));
    await measure("preset back to many-tail", () => page.selectOption("#preset", "many-tail"));
    assert.deepEqual(errors, []);
    await page.close();
    return { tasks, latency };
  };
  const report = ({ tasks, latency }) =>
    Object.entries(tasks).map(([k, v]) => `${k}: ${Math.round(v)} ms`).join("; ") +
    " | " + Object.entries(latency).map(([k, v]) => `${k}: ${Math.round(v)} ms`).join("; ");
  const over = ({ tasks, latency }) => [
    ...Object.entries(tasks).filter(([, v]) => v > 50).map(([k]) => `a ${k} task`),
    ...Object.entries(latency).filter(([, v]) => v > 100).map(([k]) => k),
  ];
  const first = await measureAll();
  t.diagnostic(`longest main-thread task per interaction (0: none over 50 ms), then latencies: ${report(first)}`);
  console.log(`long tasks and latency: ${report(first)}`);
  if (over(first).length === 0) return;
  const second = await measureAll();
  t.diagnostic(`measured again: ${report(second)}`);
  console.log(`long tasks and latency, measured again: ${report(second)}`);
  const both = over(first).filter((k) => over(second).includes(k));
  assert.deepEqual(both, [], `over the bound twice: ${both.join(", ")} (${report(first)}; then ${report(second)})`);
});

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
  // Ideal, fp32 and fp64 curves, in grey, blue and red.
  const head = await page.locator("#exact-chart-data tr").first().innerText();
  assert.equal(head, "gap (nats)\tideal\ttorch-cuda-f32\ttorch-cuda-f64");
  // Sampled every twentieth of a nat within half a nat of fp32's dead-zone edge (the gap where a tail's weight
  // reaches the core's threshold); each value is the core's exact probability at that gap.
  const { threshold } = core.run({ exporace: 1, op: "dead_zone", model: "torch-cuda-f32", weights: [1, 0] }).result;
  const edge = -Math.log(threshold);
  const rows = (await page.locator("#exact-chart-data tr[data-gap]").allInnerTexts()).map((r) => r.split("\t").map(Number));
  const near = rows.filter(([g]) => Math.abs(g - edge) <= 0.5);
  assert.ok(near.length >= 20, `${near.length} points within half a nat of ${edge}`);
  for (const [g, , f32, f64] of near) {
    const groups = (model) => core.winProbabilities(model, Float64Array.from(core.weightsFromLogits(Float64Array.of(0, -g), 1)), Float64Array.of(1, PARAMS.tails)).groups[1].probability;
    const want32 = groups("torch-cuda-f32"), want64 = groups("torch-cuda-f64");
    assert.ok(Math.abs(f32 - want32) <= 1e-6 * want32, `gap ${g}: fp32 ${f32} against the core's ${want32}`);
    assert.ok(Math.abs(f64 - want64) <= 1e-6 * want64, `gap ${g}: fp64 ${f64} against the core's ${want64}`);
  }
  // The edge shows in the data: fp32 positive just below it, exactly 0 just above, fp64 positive on both sides.
  assert.ok(near.some(([g, , f32]) => g < edge && f32 > 0) && near.some(([g, , f32]) => g > edge && f32 === 0));
  assert.ok(near.every(([, , , f64]) => f64 > 0));
  assert.match(await text(page, "#exact-chart-summary"), /torch-cuda-f32: .* exactly 0 from \d+(\.\d+)? nats on\./);
  // Live: the slider moves the marker and the guide's numbers with it.
  await page.locator("#gap-slider").focus();
  await pressed(page, "ArrowLeft");
  assert.equal(await text(page, "#gap-slider-out"), "20 nats");
  await page.waitForFunction(() => !document.getElementById("guide-f64").textContent.startsWith("…"), null, { timeout: 120000 });
  assert.match(await text(page, "#exact-chart-summary"), /the marker stands at 20 nats/);
  assert.equal(await text(page, "#lead-readout"),
    `At 20 nats, P(one of 262144 tails wins) is exactly ${await text(page, "#guide-f32")} with fp32 noise (torch CUDA) and ${await text(page, "#guide-f64")} with fp64 noise.`);
  const at20 = core.winProbabilities("torch-cuda-f64", Float64Array.from(core.weightsFromLogits(Float64Array.of(0, -20), 1)), Float64Array.of(1, PARAMS.tails)).groups[1];
  assert.ok(Math.abs(Number(await text(page, "#guide-f64")) - at20.probability) <= Math.max(at20.upper - at20.probability, at20.probability - at20.lower));
  assert.deepEqual(errors, []);
  await page.close();
});
