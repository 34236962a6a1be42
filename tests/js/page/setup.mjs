// What every page test file shares: one headless Debian Chromium per file,
// the page served by the server of `npm start` (web/server.mjs), the core in
// Node for the numbers the page must show, and the steps that wait for the
// page to redraw. Screenshots go to $EXPORACE_SCREENSHOTS (default: a fresh
// temp directory).
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { startServer } from "../../../web/server.mjs";
import { collectErrors, launchChromium } from "../chromium.mjs";

// The same core in Node: the numbers the page must show.
export const core = createRequire(import.meta.url)("../../../pkg/node/index.cjs");

/** The browser context of the file's Chromium, the screenshot folder and the servers to close (set by `usePage`). */
export let context, shots;
export const servers = [];

/** Starts Chromium before the file's tests and closes it and every server after them. */
export function usePage() {
  let browser;
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
}

/** Serves the page (with COOP/COEP when `isolate`); resolves to its URL. The server is closed after the file's tests. */
export async function serveOnce(isolate) {
  const { server, url } = await startServer({ port: 0, isolate });
  servers.push(server);
  return url;
}

/** Opens the page in a new tab of `ctx` and waits until its first state is drawn; any console.error is collected. */
export async function open(isolate, ctx = context) {
  const url = await serveOnce(isolate);
  const page = await ctx.newPage();
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
export async function choose(page, id, value) {
  const before = await page.evaluate(() => Number(document.body.dataset.ready || 0));
  await page.selectOption(`#${id}`, value);
  await page.waitForFunction((n) => Number(document.body.dataset.ready || 0) > n, before, { timeout: 60000 });
}

export const text = (page, sel) => page.locator(sel).innerText();

/** Runs `action` and waits until the page has redrawn. */
export async function redrawn(page, action) {
  const before = await page.evaluate(() => Number(document.body.dataset.ready || 0));
  await action();
  await page.waitForFunction((n) => Number(document.body.dataset.ready || 0) > n, before, { timeout: 60000 });
}

/** Runs `press` (a key press) and waits until the page has redrawn. */
export const pressed = (page, key) => redrawn(page, () => page.keyboard.press(key));

/** Presses Tab (Shift+Tab with `back`) until the focused element matches `selector`. */
export async function tabTo(page, selector, { back = false, max = 800 } = {}) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => Boolean(document.activeElement?.matches(s)), selector)) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(`the keyboard never reached ${selector}`);
}

/** A compare table's rows as [pipeline, winner, score, bits, runner-up, margin]. */
export async function compareRows(page, sel = "#compare-table") {
  return (await page.locator(`${sel} tr`).allInnerTexts()).slice(1).map((r) => r.split("\t"));
}

/** Asserts that a compare table shows the core's races: winners, bits, runner-ups and margins. */
export async function assertCompare(page, expected, sel = "#compare-table") {
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

/** Which of the colours `wanted` ("r,g,b") canvas `id` holds, in the order given. */
export const coloursOn = (page, id, wanted) =>
  page.evaluate(([id, wanted]) => {
    const c = document.getElementById(id);
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return wanted.filter((k) => seen.has(k));
  }, [id, wanted]);

/** The many-tail preset's parameters. */
export const PARAMS = { vocab: 32000, zipf: 1.1, tails: 262144, gap: 20.5, temperature: 1 };
/** The core's seeded races of `weights` under the page's default pipelines and seed. */
export const seeded = (weights) =>
  core.run({ exporace: 1, op: "compare", weights: Array.from(weights), models: ["torch-cuda-f32", "torch-cuda-f64"], seed: "7", row: 0 }).result;
/** The core's count of dead tokens of `weights` under `model`, as the page prints it. */
export const deadCount = (weights, model) => String(core.run({ exporace: 1, op: "dead_zone", model, weights: Array.from(weights) }).result.count);
