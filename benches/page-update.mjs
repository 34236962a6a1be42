#!/usr/bin/env node
// The page's update at V = 262145 (the many-tail preset at its largest
// vocabulary: 262144 tails + 1 head), timed in headless Chromium against the
// kernel floor timed in the same page.
//
// What it measures. The page (web/, served by web/server.mjs with COOP/COEP
// as `npm start` serves it, so the pool of workers runs) is opened on the
// many-tail preset, which it then holds at MAX_TAILS tails (web/presets.mjs).
// Each round presses an arrow key on the lead figure's gap slider (a trusted
// input and change event, one step of 0.5 nats to a gap not shown before) and
// reads, with performance.now() inside the page, from the slider's input
// event (its event.timeStamp):
//   readout_ms        until #lead-readout says "At <new gap> nats, ..." (the
//                     exact tail probabilities of the new gap, from the
//                     theory worker): the answer the user is waiting for;
//   readout_frame_ms  until the animation frame after that write (the frame
//                     that paints it);
//   redraw_ms         until the page counts the redraw done (body's
//                     data-ready, the moment it writes #refresh-time);
//   page_views_ms     the page's own "Views recomputed in N ms (M ms of it on
//                     the main thread)" figure (web/app.mjs), N, and M as
//                     page_main_thread_ms. N starts when the redraw starts,
//                     after the change has built the new weights; redraw_ms
//                     includes that.
// Then, once the page is idle (the exact table and the guide's numbers
// shown), the kernel floor: the fused seeded race (raceSeeded, Philox, the
// transform and the race in one pass) at V = 262144 in the page's own wasm,
// on the main thread, by web/timing.mjs's timeCase("seeded/f32/V262144") with
// the options the performance view uses (inputs resident in wasm memory, a
// warm-up call, then 5 to 20 calls within 500 ms, their median). Each round's
// ratios update / floor are formed within that round; the report gives each
// figure's median over the rounds. One warm-up round runs first and is kept
// apart (the first update after load pays for compilation and allocation).
//
// Target: the update (readout_ms and redraw_ms) within 50 ms.
//
// Usage: node benches/page-update.mjs [--rounds 5] [--out benches/page-update.json] [--no-isolation]
//   --no-isolation  serve without COOP/COEP: the page runs on one thread.
// Needs pkg/ built (npm run build) and /usr/bin/chromium. No cargo. Takes
// about 10 s for 5 rounds on a 2-core machine (AMD EPYC): about 4 s to load
// the page and draw the first state, then about 1 s a round (the update, the
// page going idle, half a second's pause, the floor's 20 calls).
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../web/server.mjs";
import { MAX_TAILS } from "../web/presets.mjs";
import { prepare } from "../web/timing.mjs";
import { median } from "./rounds.mjs";
import { collectErrors, launchChromium } from "../tests/js/chromium.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const flag = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : process.argv[i + 1];
};
const rounds = Number(flag("rounds", "5"));
if (!(Number.isInteger(rounds) && rounds >= 1)) throw new Error(`--rounds wants a whole number from 1, got ${flag("rounds")}`);
const out = resolve(root, flag("out", "benches/page-update.json"));
const isolate = !process.argv.includes("--no-isolation");
for (const build of ["web/index.js", "web/exporace_bg.wasm", "node/index.mjs", ...(isolate ? ["threads/exporace.js"] : [])]) {
  if (!existsSync(join(root, "pkg", build))) {
    console.error(`page-update: pkg/${build} is missing; build the package first (npm run build)`);
    process.exit(1);
  }
}

/** The kernel floor: the case name of web/timing.mjs and the performance view's options for timeCase. */
const FLOOR_CASE = `seeded/f32/V${MAX_TAILS}`;
const FLOOR_OPTIONS = { resident: true, copy: false, budgetMs: 500, maxReps: 20 };
const TARGET_MS = 50;
const TIMEOUT_MS = 120000;
const load = () => loadavg().map((x) => Math.round(x * 100) / 100);
const started = performance.now();

// The floor's first winner in Node (pkg/node, the same inputs): the page's must be the same token.
const node = await import(join(root, "pkg/node/index.mjs"));
const nodeFloor = prepare(node, FLOOR_CASE, { resident: true });
const nodeWinner = nodeFloor.run();
nodeFloor.dispose();

const { server, url } = await startServer({ port: 0, isolate });
const browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
let report;
try {
  const page = await browser.context.newPage();
  const errors = collectErrors(page);
  await page.goto(url);
  await page.waitForFunction(() => ["threaded", "single", "error"].includes(document.getElementById("thread-status").dataset.mode), null, {
    timeout: TIMEOUT_MS,
  });
  const threadStatus = await page.evaluate(() => {
    const s = document.getElementById("thread-status");
    return { mode: s.dataset.mode, threads: Number(s.dataset.threads) || 1, text: s.textContent, isolated: self.crossOriginIsolated };
  });
  if (threadStatus.mode === "error") throw new Error(`the page did not start: ${threadStatus.text}`);
  await page.waitForFunction(() => Number(document.body.dataset.ready) > 0, null, { timeout: TIMEOUT_MS });

  // The many-tail preset at its largest vocabulary (the page opens on it; set it if a default ever changes).
  const redrawn = async (action) => {
    const before = await page.evaluate(() => Number(document.body.dataset.ready || 0));
    await action();
    await page.waitForFunction((n) => Number(document.body.dataset.ready || 0) > n, before, { timeout: TIMEOUT_MS });
  };
  if ((await page.inputValue("#preset")) !== "many-tail") await redrawn(() => page.selectOption("#preset", "many-tail"));
  if (Number(await page.inputValue("#tails")) !== MAX_TAILS) {
    await redrawn(async () => {
      await page.fill("#tails", String(MAX_TAILS));
      await page.locator("#tails").dispatchEvent("change");
    });
  }
  const summary = await page.locator("#prob-summary").innerText();
  if (!summary.startsWith(`${MAX_TAILS + 1} tokens`)) throw new Error(`not at V = ${MAX_TAILS + 1}: ${summary}`);

  /** Waits until the page is idle: the curve drawn, the readout, the guide's numbers and the exact table of the current gap shown. */
  const idle = async () => {
    await page.waitForFunction(
      () => {
        const gap = document.getElementById("gap").value;
        const $ = (id) => document.getElementById(id);
        return (
          $("exact-chart").dataset.drawn &&
          $("lead-readout").textContent.startsWith(`At ${Number(gap)} nats,`) &&
          !$("guide-f32").textContent.startsWith("…") &&
          !$("guide-f64").textContent.startsWith("…") &&
          $("exact-table")
        );
      },
      null,
      { timeout: TIMEOUT_MS },
    );
    // A moment for what was queued behind the answers (paint, garbage collection).
    await page.waitForTimeout(500);
  };
  await idle();

  /** One update: an arrow key on the gap slider, timed in the page from the slider's input event. */
  async function update() {
    const from = Number(await page.inputValue("#gap-slider"));
    const key = from + 0.5 <= 40 ? "ArrowRight" : "ArrowLeft";
    const to = key === "ArrowRight" ? from + 0.5 : from - 0.5;
    await page.focus("#gap-slider");
    await page.evaluate(
      ([to, timeout]) => {
        const $ = (id) => document.getElementById(id);
        const slider = $("gap-slider");
        const readout = $("lead-readout");
        const want = `At ${to} nats,`;
        const readyBefore = Number(document.body.dataset.ready || 0);
        const got = { t0: null, readout: null, frame: null, redraw: null, refresh: null };
        window.__pageUpdate = new Promise((resolve, reject) => {
          const finish = () => {
            if (got.frame == null || got.redraw == null) return;
            observer.disconnect();
            clearTimeout(timer);
            resolve(got);
          };
          const observer = new MutationObserver(() => {
            const now = performance.now();
            if (got.t0 == null) return;
            if (got.readout == null && readout.textContent.startsWith(want)) {
              got.readout = now - got.t0;
              requestAnimationFrame(() => {
                got.frame = performance.now() - got.t0;
                finish();
              });
            }
            if (got.redraw == null && Number(document.body.dataset.ready || 0) > readyBefore) {
              got.redraw = now - got.t0;
              got.refresh = $("refresh-time").textContent;
              got.views = JSON.parse($("refresh-time").dataset.views || "{}");
              finish();
            }
          });
          observer.observe(readout, { childList: true, characterData: true, subtree: true });
          observer.observe(document.body, { attributes: true, attributeFilter: ["data-ready"] });
          slider.addEventListener(
            "input",
            (e) => {
              // The input event's own time (the page's clock); the listener's time if the browser gives none.
              got.t0 = Number.isFinite(e.timeStamp) && e.timeStamp > 0 ? e.timeStamp : performance.now();
              got.value = slider.value;
            },
            { capture: true, once: true },
          );
          const timer = setTimeout(() => {
            observer.disconnect();
            reject(new Error(`no update to ${to} nats within ${timeout} ms: ${JSON.stringify(got)}; readout "${readout.textContent}"`));
          }, timeout);
        });
      },
      [to, TIMEOUT_MS],
    );
    await page.keyboard.press(key);
    const got = await page.evaluate(() => window.__pageUpdate);
    if (Number(got.value) !== to) throw new Error(`the slider went to ${got.value}, not ${to}`);
    const m = /^Views recomputed in (\d+) ms \((\d+) ms of it on the main thread\)\.$/.exec(got.refresh);
    if (!m) throw new Error(`unexpected #refresh-time: ${got.refresh}`);
    return {
      gap_from: from,
      gap_to: to,
      readout_ms: got.readout,
      readout_frame_ms: got.frame,
      redraw_ms: got.redraw,
      page_views_ms: Number(m[1]),
      page_main_thread_ms: Number(m[2]),
      page_status: got.refresh,
      page_view_ms: got.views,
    };
  }

  /** The kernel floor in the page's wasm, on the main thread, as the performance view times it. */
  const floor = () =>
    page.evaluate(
      async ([name, options]) => {
        const { ex } = await import(new URL("core.mjs", document.baseURI).href);
        const { timeCase } = await import(new URL("timing.mjs", document.baseURI).href);
        return timeCase(ex, name, options);
      },
      [FLOOR_CASE, FLOOR_OPTIONS],
    );

  const r3 = (x) => (x == null ? null : Math.round(x * 1000) / 1000);
  const round = async (n) => {
    const loadAverage = load();
    const u = await update();
    await idle();
    const f = await floor();
    if (f.firstWinner !== nodeWinner) throw new Error(`the floor's first winner ${f.firstWinner} differs from Node's ${nodeWinner}`);
    return {
      round: n,
      ...u,
      readout_ms: r3(u.readout_ms),
      readout_frame_ms: r3(u.readout_frame_ms),
      redraw_ms: r3(u.redraw_ms),
      floor_ms: r3(f.medianMs),
      floor_ns_per_element: r3(f.nsPerElement),
      floor_reps: f.reps,
      floor_first_winner: f.firstWinner,
      ratio_readout_to_floor: r3(u.readout_ms / f.medianMs),
      ratio_redraw_to_floor: r3(u.redraw_ms / f.medianMs),
      ratio_page_views_to_floor: r3(u.page_views_ms / f.medianMs),
      load_average: loadAverage,
    };
  };

  const cols = [
    ["round", 6, (r) => String(r.round)],
    ["gap", 11, (r) => `${r.gap_from}->${r.gap_to}`],
    ["readout ms", 11, (r) => r.readout_ms.toFixed(1)],
    ["frame ms", 9, (r) => r.readout_frame_ms.toFixed(1)],
    ["redraw ms", 10, (r) => r.redraw_ms.toFixed(1)],
    ["page N/main", 12, (r) => `${r.page_views_ms}/${r.page_main_thread_ms}`],
    ["floor ms", 9, (r) => r.floor_ms.toFixed(3)],
    ["readout/fl", 11, (r) => r.ratio_readout_to_floor.toFixed(1)],
    ["redraw/fl", 10, (r) => r.ratio_redraw_to_floor.toFixed(1)],
    ["load", 5, (r) => r.load_average.join(" ")],
  ];
  const line = (cells) => console.log(cells.map((c, i) => (i === cols.length - 1 ? c : c.padStart(cols[i][1]))).join(" "));
  console.log(`page-update: ${url} (${threadStatus.mode}, ${threadStatus.threads} thread(s)); V = ${MAX_TAILS + 1}; floor ${FLOOR_CASE}`);
  line(cols.map(([h]) => h));
  const warmup = await round(0);
  line(cols.map(([, , f]) => f(warmup)));
  const perRound = [];
  for (let n = 1; n <= rounds; n++) {
    perRound.push(await round(n));
    line(cols.map(([, , f]) => f(perRound[n - 1])));
  }
  if (errors.length) throw new Error(`the page reported errors:\n${errors.join("\n")}`);

  const med = (key) => r3(median(perRound.map((r) => r[key])));
  const medians = {
    readout_ms: med("readout_ms"),
    readout_frame_ms: med("readout_frame_ms"),
    redraw_ms: med("redraw_ms"),
    page_views_ms: med("page_views_ms"),
    page_main_thread_ms: med("page_main_thread_ms"),
    floor_ms: med("floor_ms"),
    floor_ns_per_element: med("floor_ns_per_element"),
  };
  const ratios = {
    readout_to_floor: med("ratio_readout_to_floor"),
    redraw_to_floor: med("ratio_redraw_to_floor"),
    page_views_to_floor: med("ratio_page_views_to_floor"),
  };
  const versionLine = (() => {
    try {
      return execFileSync("/usr/bin/chromium", ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return null;
    }
  })();
  const userAgent = await page.evaluate(() => navigator.userAgent);
  report = {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    machine: { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, platform: `${process.platform} ${process.arch}` },
    node: process.version,
    chromium: { version: versionLine ?? /Chrome\/([\d.]+)/.exec(userAgent)?.[1] ?? "unknown", user_agent: userAgent },
    page: {
      isolated: threadStatus.isolated,
      thread_mode: threadStatus.mode,
      threads: threadStatus.threads,
      preset: "many-tail",
      tails: MAX_TAILS,
      vocab: MAX_TAILS + 1,
      models: ["torch-cuda-f32", "torch-cuda-f64"],
    },
    floor: { case: FLOOR_CASE, options: FLOOR_OPTIONS, where: "the page's wasm (pkg/web), main thread", first_winner_node: nodeWinner },
    target_ms: TARGET_MS,
    rounds,
    warmup,
    per_round: perRound,
    medians,
    ratios_median: ratios,
    meets_target: { readout: medians.readout_ms <= TARGET_MS, redraw: medians.redraw_ms <= TARGET_MS },
    run_seconds: Math.round((performance.now() - started) / 1000),
    notes:
      "One arrow-key step (0.5 nats) of the lead figure's gap slider per round, timed in the page from the slider's input " +
      "event (event.timeStamp): readout_ms to #lead-readout showing the new gap's exact probabilities, readout_frame_ms to " +
      "the animation frame after that write, redraw_ms to the page counting the redraw done (data-ready); page_views_ms and " +
      "page_main_thread_ms are the page's own 'Views recomputed in N ms (M ms of it on the main thread)' (from the redraw's " +
      "start, after the change built the weights). floor: raceSeeded at V 262144 timed by web/timing.mjs timeCase in the same " +
      "page after it is idle, median of up to 20 calls after a warm-up call. Ratios are formed within each round; medians over " +
      "the rounds. Round 0 is a warm-up, left out of the medians.",
  };
  await page.close();
} finally {
  await browser.close();
  server.close();
}

writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
const m = report.medians;
const r = report.ratios_median;
console.log(`\nmedians over ${rounds} round(s), ${report.machine.cpu}, ${report.machine.cores} cores, ${report.chromium.version}:`);
console.log(`  readout ${m.readout_ms} ms (frame ${m.readout_frame_ms} ms), redraw ${m.redraw_ms} ms, page says ${m.page_views_ms} ms (${m.page_main_thread_ms} ms main thread)`);
console.log(`  floor ${FLOOR_CASE}: ${m.floor_ms} ms (${m.floor_ns_per_element} ns/element)`);
console.log(`  update / floor: readout ${r.readout_to_floor}x, redraw ${r.redraw_to_floor}x, page figure ${r.page_views_to_floor}x`);
console.log(
  `  target ${TARGET_MS} ms: readout ${report.meets_target.readout ? "met" : "missed"}, redraw ${report.meets_target.redraw ? "met" : "missed"}`,
);
console.log(`wrote ${relative(root, out)} in ${report.run_seconds} s`);
