// The page (web/) in headless Debian Chromium, served by the server of
// `npm start`: with COOP/COEP it must run threaded in a worker pool, without
// them on one thread and say why; the presets must show the core's numbers.
// Screenshots go to $EXPORACE_SCREENSHOTS (default: a fresh temp directory).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../../web/server.mjs";
import { launchChromium } from "./chromium.mjs";

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
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => ["threaded", "single", "error"].includes(document.getElementById("thread-status").dataset.mode), null, {
    timeout: 120000,
  });
  return { page, errors };
}

/** Changes a select and waits until the page has redrawn. */
async function choose(page, id, value) {
  const before = await page.evaluate(() => Number(document.body.dataset.ready || 0));
  await page.selectOption(`#${id}`, value);
  await page.waitForFunction((n) => Number(document.body.dataset.ready || 0) > n, before, { timeout: 60000 });
}

const text = (page, sel) => page.locator(sel).innerText();

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
  assert.equal(await page.locator("#spec-trace tr").count(), 4);
  assert.equal(await text(page, "#spec-output"), "[[1,1,-1],[2,-1,-1]]");
  assert.match(await text(page, "#spec-trace"), /0\t0\t1\t0\.5\t0\.8\t0\.4950397946340347\taccepted/);
  assert.equal(await page.locator("#score-chart").isHidden(), true, "no scores to draw when the race refuses");
  await choose(page, "nan-policy", "nan_never_wins");
  assert.equal(await page.locator("#score-chart").isHidden(), false);
  await page.waitForSelector("#exact-table", { timeout: 120000 });
  await page.screenshot({ path: join(shots, "overflow.png"), fullPage: true });
  assert.deepEqual(errors, []);
});

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
  assert.deepEqual(errors, []);
});

test("experiment in a worker: runs to completion against the exact expectation, cancels, measures the shared-noise bias", async () => {
  const { page, errors } = await open(true);
  await page.selectOption("#exp-sampler", "race");
  await page.click("#exp-run");
  assert.match(await text(page, "#exp-status"), /runs on up to 4096 tokens; this race has 262145/);

  // Five pasted weights, four distinct: four categories.
  await page.click("#paste-box summary");
  await page.fill("#paste", "0.5 0.25 0.125 0.0625 0.0625");
  const before = await page.evaluate(() => Number(document.body.dataset.ready));
  await page.click("#apply-paste");
  await page.waitForFunction((n) => Number(document.body.dataset.ready) > n, before);
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
});

test("without COOP/COEP: one thread, and the page says why", async () => {
  const { page, errors } = await open(false);
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), false);
  assert.equal(await page.locator("#thread-status").getAttribute("data-mode"), "single");
  assert.match(await text(page, "#thread-status"), /one thread: the page is not cross-origin isolated/);
  assert.equal(await text(page, "#dead-count-a"), "262144", "the single-threaded core gives the same answer");
  assert.deepEqual(errors, []);
});
