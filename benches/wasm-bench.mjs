#!/usr/bin/env node
// The kernels timed in wasm through the npm package (pkg/, `npm run build`):
// in Node (pkg/node, one thread), in headless Chromium on the page (pkg/web,
// one thread) and in a Web Worker with the threaded build (pkg/threads) on
// pools of 1 and N threads, served with COOP/COEP. The same cases run
// natively in the same run (`bench-native`, built with -C target-cpu=native),
// so every wasm figure is a ratio to native on the same machine, with the
// load average next to it. Each case runs in rounds (--rounds, default 3):
// native, then every wasm place, again and again, and each ratio is formed
// within a round, seconds apart, then given as the median over the rounds
// with its range, so a slow minute of a shared machine moves one round's
// ratio, not the figure.
//
// Usage: node benches/wasm-bench.mjs [--cases a,b] [--pools 1,2] [--rounds 3]
//          [--budget-ms 1500] [--out benches/wasm-results.json] [--no-browser]
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { scalingOf, summarize } from "./rounds.mjs";
import { DEFAULT_CASES, timeCase } from "../web/timing.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : process.argv[i + 1];
}
const cases = flag("cases", DEFAULT_CASES.join(",")).split(",");
const pools = flag("pools", "1,2").split(",").map(Number);
const budgetMs = Number(flag("budget-ms", "1500"));
const rounds = Number(flag("rounds", "3"));
if (!(Number.isInteger(rounds) && rounds >= 1)) throw new Error(`--rounds wants a whole number from 1, got ${flag("rounds")}`);
const out = resolve(root, flag("out", "benches/wasm-results.json"));
const browser = !process.argv.includes("--no-browser");
const nativeThreads = [...new Set([1, ...pools])].sort((a, b) => a - b);
const load = () => loadavg().map((x) => Math.round(x * 100) / 100);
// Every build the run loads must exist: a missing threaded build would leave
// the page's worker waiting for a module that never arrives.
for (const build of ["node/index.mjs", "web/index.js", ...(browser ? ["threads/exporace.js"] : [])]) {
  if (!existsSync(join(root, "pkg", build))) {
    console.error(`wasm-bench: pkg/${build} is missing; build the package first (npm run build)`);
    process.exit(1);
  }
}

// ---- native: build once, run per case ------------------------------------------
// Two native builds: with -C target-cpu=native (AVX-512 here, as benches/
// results.json) and portable (x86-64's SSE2, 4 f32 lanes like SIMD128), so a
// wasm ratio can be split into lane width and the rest.
const natives = {
  native: { dir: "target/native", rustflags: "-C target-cpu=native" },
  portable: { dir: "target/portable", rustflags: "" },
};
for (const { dir, rustflags } of Object.values(natives)) {
  const env = { ...process.env, RUSTFLAGS: rustflags, CARGO_TARGET_DIR: join(root, dir) };
  const args = ["build", "--release", "-q", "-p", "exporace-bench", "--bin", "bench-native"];
  const build = spawnSync("cargo", args, { cwd: root, env, stdio: ["ignore", "inherit", "inherit"] });
  if (build.status !== 0) throw new Error(`cargo build of bench-native (${dir}) failed`);
}
function native(kind, name, threads) {
  const bin = join(root, natives[kind].dir, "release/bench-native");
  const args = ["--threads", threads.join(","), "--budget-ms", String(budgetMs), name];
  const r = spawnSync(bin, args, { encoding: "utf8", maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`bench-native ${name}: ${r.stderr}`);
  return r.stdout.trim().split("\n").map((l) => JSON.parse(l));
}

// ---- Node: the package's node build in this process ------------------------------
const node = await import(join(root, "pkg/node/index.mjs"));

// ---- Chromium: the page and its pool workers ------------------------------------
let page = null;
let closeBrowser = async () => {};
let chromium = null;
if (browser) {
  const { startServer } = await import(join(root, "web/server.mjs"));
  const { launchChromium } = await import(join(root, "tests/js/chromium.mjs"));
  const { server, url } = await startServer({ port: 0 });
  const b = await launchChromium();
  closeBrowser = async () => {
    await b.close();
    server.close();
  };
  page = await b.context.newPage();
  page.on("pageerror", (e) => console.error(`page: ${e}`));
  await page.goto(`${url}benches/wasm-bench.html`);
  await page.waitForFunction(() => window.__bench, null, { timeout: 60000 });
  chromium = await page.evaluate(() => ({ ...window.__bench, timeCase: undefined }));
  if (chromium.error) throw new Error(chromium.error);
  if (!chromium.isolated) throw new Error("the benchmark page is not cross-origin isolated");
  for (const n of pools) {
    const got = await page.evaluate((n) => window.__bench.startPool(n), n);
    if (got !== n) throw new Error(`asked for a pool of ${n}, got ${got}`);
  }
}

// ---- the run ----------------------------------------------------------------
const options = { budgetMs };
// Every timed row of every round, with its ratios to the same round's native rows.
const raw = [];
const fmt = (x, d = 3) => (x == null ? "-" : x.toFixed(d));
const header = (first) =>
  console.log(
    `${first.padEnd(26)} ${"where".padEnd(16)} ${"threads".padStart(7)} ${"ms".padStart(9)} ${"ns/elem".padStart(8)}` +
      ` ${"x native".padStart(8)} ${"x portbl".padStart(8)} ${"copy ms".padStart(8)} ${"winner".padStart(7)}  load`,
  );
const print = (label, row, suffix = "") =>
  console.log(
    `${label.padEnd(26)} ${row.where.padEnd(16)} ${String(row.threads).padStart(7)} ${fmt(row.median_ms).padStart(9)}` +
      ` ${fmt(row.ns_per_element).padStart(8)} ${fmt(row.ratio_to_native, 2).padStart(8)} ${fmt(row.ratio_to_portable, 2).padStart(8)} ${fmt(row.copy_ms).padStart(8)}` +
      ` ${String(row.first_winner).padStart(7)}${row.winner_matches_native === false ? "!" : " "} ${row.load_average.join(" ")}${suffix}`,
  );
header("case (round)");
for (const name of cases) {
  for (let round = 1; round <= rounds; round++) {
    const nat = native("native", name, nativeThreads);
    const portable = native("portable", name, [1]);
    const nativeAt = (t) => nat.find((r) => r.threads === t);
    const portable1 = portable[0];
    const add = (where, build, threads, r, loadAverage) => {
      const n = nativeAt(threads);
      const isNative = build === "native" || build === "portable";
      const ms = r.median_ms ?? r.medianMs;
      const winner = r.first_winner ?? r.firstWinner;
      const row = {
        case: name,
        round,
        where,
        build,
        threads,
        median_ms: ms,
        ns_per_element: r.ns_per_element ?? r.nsPerElement,
        elements: r.elements,
        reps: r.reps,
        first_winner: winner,
        copy_ms: r.copyMs ?? null,
        copy_bytes: r.copyBytes ?? null,
        timed_wall_ms: r.timed_wall_ms ?? null,
        native_ms: build === "native" ? null : n.median_ms,
        ratio_to_native: build === "native" ? null : ms / n.median_ms,
        ratio_to_portable: isNative || threads !== 1 ? null : ms / portable1.median_ms,
        winner_matches_native: build === "native" ? null : winner === n.first_winner,
        thread_cpu_ms: r.thread_cpu_ms ?? null,
        pinned: r.pinned ?? null,
        load_average: loadAverage,
      };
      raw.push(row);
      print(`${name} (${round})`, row);
    };
    for (const r of nat) add("native", "native", r.threads, r, r.load_average);
    add("native portable", "portable", 1, portable1, portable1.load_average);
    let l = load();
    add("node", "node", 1, timeCase(node, name, options), l);
    l = load();
    add("node WasmArray", "node-resident", 1, timeCase(node, name, { ...options, resident: true }), l);
    if (page) {
      l = load();
      add("chromium page", "web", 1, await page.evaluate(([n, o]) => window.__bench.timeCase(n, o), [name, options]), l);
      for (const t of pools) {
        l = load();
        const r = await page.evaluate(([t, n, o]) => window.__bench.timePool(t, n, o), [t, name, options]);
        add("chromium worker", "threads", t, r, l);
      }
      for (const t of pools) {
        l = load();
        const r = await page.evaluate(([t, n, o]) => window.__bench.timePool(t, n, o), [t, name, { ...options, resident: true }]);
        add("worker WasmArray", "threads-resident", t, r, l);
      }
    }
  }
}
await closeBrowser();

// ---- the medians over rounds, scaling and the report --------------------------------
const rows = summarize(raw);
console.log(`\nmedians over ${rounds} round(s); x native: the median of the rounds' ratios, their range last`);
header("case");
for (const row of rows) {
  const r = row.ratio_to_native_range;
  print(row.case, row, r ? `  [${fmt(r[0], 2)}, ${fmt(r[1], 2)}]` : "");
}
const scaling = scalingOf(
  raw,
  cases,
  ["native", "threads", "threads-resident"],
  pools.filter((t) => t > 1),
);
for (const s of scaling) {
  console.log(
    `${s.case.padEnd(26)} ${s.build.padEnd(16)} ${s.threads} threads over 1: ${s.speedup_over_1.toFixed(2)}x [${s.speedup_range.map((x) => x.toFixed(2)).join(", ")}]`,
  );
}
const mismatches = rows.filter((r) => r.winner_matches_native === false);
if (mismatches.length) console.error(`first winners differ from native: ${mismatches.map((r) => `${r.case} ${r.where}`).join(", ")}`);
const rustc = spawnSync("rustc", ["--version"], { encoding: "utf8" }).stdout.trim();
const report = {
  machine: { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, platform: `${process.platform} ${process.arch}` },
  node: process.version,
  chromium: chromium ? chromium.userAgent : null,
  rustc,
  native_rustflags: { native: natives.native.rustflags, portable: natives.portable.rustflags },
  date: new Date().toISOString(),
  notes:
    "median of timed calls (one warm-up, at least 5, up to 50 within budget_ms) per case, place and round, all in one run; " +
    "each case runs `rounds` times in a row (native, then every wasm place); `cases` gives each row's median over the rounds, " +
    "and its ratio_to_native is the median of the rounds' ratios (each against that round's native run), with ratio_to_native_range; " +
    "`rounds_raw` holds every round's row; scaling: the median of the rounds' speedups, with speedup_range; " +
    "wasm calls go through the npm package and include copying the inputs into wasm memory (copy_ms: TypedArray.set of the same arrays, for orientation), " +
    "except the node-resident and threads-resident rows, whose inputs are WasmArrays read in place (in the threaded build's shared memory for the latter); " +
    "in a round, ratio_to_native = median / that round's native median at the same thread count (native: bench-native with -C target-cpu=native on rayon pools, " +
    "a pool of 2 with each worker pinned to a CPU of its own, `pinned` in rounds_raw); " +
    "and ratio_to_portable = 1-thread median / that round's portable native build's (x86-64 baseline: SSE2, 4 f32 lanes like SIMD128); " +
    "thread_cpu_ms (native rows of rounds_raw): CPU time each thread spent over the timed calls, next to timed_wall_ms; " +
    "load_average = 1, 5, 15 min as the case started; first_winner must equal native's (same inputs bit for bit)",
  budget_ms: budgetMs,
  rounds,
  cases: rows,
  scaling,
  rounds_raw: raw,
};
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`wrote ${out}`);
if (mismatches.length) process.exitCode = 1;
