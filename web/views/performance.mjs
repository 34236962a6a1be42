// Section 7, performance: the committed native benchmark of a machine (its
// end-to-end workloads against the kernel floor first, then its kernel cases
// and a chart), and the recovered-token kernel timed live in this page
// on one thread and on the worker pool, by the benchmark script's own code
// and inputs (timing.mjs), beside the native figure of the same case.
import { ex } from "../core.mjs";
import { $, checkedNumbers, esc } from "../dom.mjs";
import { drawGrouped } from "../chart.mjs";
import { timeCase } from "../timing.mjs";
import { threads } from "../threads.mjs";
import { describeChart } from "../described.mjs";
import { e2eRows, fmtNs } from "../e2e-rows.mjs";
import { nextTask } from "../tasks.mjs";

/** The native benchmark of the machine picked, and the last live timing (shown again against another machine). */
const perf = { bench: null, live: null };

/**
 * The committed native benchmark of the machine picked (benches/results.json, xeon/results.json or avx2/results.json), or a
 * plain statement that there is none; a live timing already shown is compared against it again.
 */
export async function showPerf() {
  const file = $("perf-machine-file").value;
  const res = await fetch(new URL(`benches/${file}`, document.baseURI)).catch(() => null);
  if (!res || !res.ok) {
    perf.bench = null;
    $("perf-native").innerHTML =
      `<p id='perf-none'>No native benchmark numbers are committed yet (benches/${esc(file)} is absent), so none are shown.</p>`;
    $("perf-native-chart").hidden = true;
    drawRatios([]);
    if (perf.live) showLive(perf.live);
    return;
  }
  const bench = await res.json();
  perf.bench = bench;
  const m = bench.machine || {};
  const crates = Object.entries(bench.crates || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  const rows = e2eRows(bench);
  $("perf-native").innerHTML =
    `<details id="perf-run-details"><summary>The run: ${esc(m.cpu ?? "unknown CPU")}, ${esc(bench.date ?? "")}` +
    `${rows.length ? `; the ${rows.length} end-to-end figures as a table` : ""}</summary>` +
    `<p id="perf-machine">Native, ${esc(bench.date ?? "")}: ${esc(m.cpu ?? "unknown CPU")}, ${esc(m.cores ?? "?")} cores` +
    `${m.avx512f ? ", AVX-512" : ""}; ${esc(bench.rustc ?? "")}; ${esc(crates)}. ${esc(bench.notes ?? "")}</p>` +
    endToEnd(bench, rows) +
    "</details>" +
    `<details><summary>All ${(bench.cases || []).length} native cases</summary>` +
    "<table class='facts' id='perf-native-table'><tr><th>case</th><th>threads</th><th>ns / element</th><th>GB/s</th>" +
    "<th>share of read bandwidth</th><th>vs scalar kernel</th></tr>" +
    (bench.cases || [])
      .map(
        (c) =>
          `<tr><td>${esc(c.case)}</td><td>${c.threads}</td><td>${c.ns_per_element.toFixed(3)}</td><td>${c.gb_per_s.toFixed(1)}</td>` +
          `<td>${c.bandwidth_fraction == null ? "-" : c.bandwidth_fraction.toFixed(2)}</td>` +
          `<td>${c.speedup_vs_scalar == null ? "-" : c.speedup_vs_scalar.toFixed(2) + "x"}</td></tr>`,
      )
      .join("") +
    "</table></details>";
  // Each chart in a task of its own: drawn in the same task as the tables,
  // they made one main-thread task over 50 ms.
  await nextTask();
  if (bench !== perf.bench) return;
  drawNativeRecover();
  await nextTask();
  if (bench !== perf.bench) return;
  drawRatios(rows);
  if (perf.live) showLive(perf.live);
}

/** The targets of benches/README.md as ratios to the workload's floor (the gap sweep has none; the page update's is in ms). */
const TARGETS = { "many-tail": 1.5, fill: 1.5, audit: 2 };
/** Short names of the workloads for a narrow chart, where the full ones would run into each other. */
const SHORT = { "gap-sweep": "sweep", "many-tail": "trial", "page-update": "page" };

/**
 * Each workload's figures against its floor, first: the lowest and the highest of its functions' ratios (the file's
 * own, as the table shows them) on a log axis, with the workload's target as a tick; hidden for a file without them.
 */
function drawRatios(rows) {
  const canvas = $("perf-e2e-chart");
  const shown = rows.filter((r) => r.ratio !== null);
  canvas.hidden = !shown.length;
  if (!shown.length) {
    describeChart("perf-e2e-chart", null);
    return;
  }
  const workloads = [...new Set(shown.map((r) => r.workload.split("/")[0]))];
  const of = (w) => shown.filter((r) => r.workload.split("/")[0] === w).sort((a, b) => a.ratio - b.ratio);
  const low = workloads.map((w) => of(w)[0]), high = workloads.map((w) => of(w).at(-1));
  const targets = workloads.map((w) => TARGETS[w] ?? NaN);
  const narrow = canvas.clientWidth < 600;
  const title = narrow ? "Workloads × their floor (log)" : "What users run, × the kernel floor in the same run (log scale)";
  drawGrouped(canvas, {
    title,
    xLabel: "workload",
    yLabel: "× floor",
    labels: workloads.map((w) => (narrow ? SHORT[w] ?? w : w)),
    series: [{ name: "lowest", values: low.map((r) => r.ratio) }, { name: "highest", values: high.map((r) => r.ratio) }],
    logFloor: 10 ** Math.floor(Math.log10(low.reduce((m, r) => Math.min(m, r.ratio), 1)) - 1),
    expected: targets,
    expectedLabel: "target",
  });
  describeChart("perf-e2e-chart", `${title}: per workload, its lowest and highest function against its floor, and its target where it has one.`,
    ["workload", "lowest (function)", "highest (function)", "target"],
    workloads.map((w, k) => [w, `${low[k].ratio.toFixed(2)} (${low[k].fn})`, `${high[k].ratio.toFixed(2)} (${high[k].fn})`,
      Number.isNaN(targets[k]) ? "none" : `at most ${targets[k]}`]));
}

/**
 * The end-to-end workloads of the file (what users run: a trial, a sweep, a fill, an audit), each against the
 * kernel floor timed in the same run, shown first; or one sentence when the file has none (or none readable).
 */
function endToEnd(bench, rows) {
  if (!rows.length) {
    return "<p id='perf-e2e-none'>This machine's file has no end-to-end figures (what users run against the kernel floor), only kernel cases.</p>";
  }
  const notes = bench.end_to_end.notes;
  return (
    "<table class='facts' id='perf-e2e-table'><caption>What users run, against the kernel floor in the same run</caption>" +
    "<tr><th>workload</th><th>function</th><th>median</th><th>floor</th><th>× floor</th></tr>" +
    rows
      .map(
        (r) =>
          `<tr><td>${esc(r.workload)}</td><td>${esc(r.fn)}</td><td>${esc(fmtNs(r.medianNs))}</td><td>${esc(r.floor)}</td>` +
          `<td>${r.ratio == null ? "-" : esc(r.ratio.toFixed(2))}</td></tr>`,
      )
      .join("") +
    "</table>" +
    (typeof notes === "string" && notes ? `<p class="about" id="perf-e2e-notes">${esc(notes)}</p>` : "")
  );
}

/** The live case: a case name of the benchmarks and how `timeCase` times it. */
function liveParams() {
  const kind = $("perf-kind").value;
  const checked = checkedNumbers(["perf-b", "perf-v"], "perf-live");
  if (!checked) return null;
  const requests = checked["perf-b"];
  const vocab = checked["perf-v"];
  const precision = $("perf-precision").value;
  return {
    kind,
    requests,
    vocab,
    precision,
    name: `${kind}/${precision}/B${requests}/V${vocab}`,
    // As benches/wasm-bench.mjs: a warm-up call, then 5 to 20 timed calls, inputs in wasm memory.
    options: { resident: true, copy: false, budgetMs: 500, maxReps: 20 },
  };
}

/** The native case timing the same kernel as the live run, if there is one. */
function nativeCase(p, count) {
  return perf.bench?.cases?.find((c) => c.case === p.name && c.threads === count) ?? null;
}

/** Native recovered-token timings of the chosen kind, B and precision, per vocabulary and thread count. */
function drawNativeRecover() {
  if (!perf.bench) return;
  const p = liveParams();
  if (!p) return;
  const prefix = `${p.kind}/${p.precision}/B${p.requests}/`;
  const cases = perf.bench.cases.filter((c) => c.case.startsWith(prefix));
  const canvas = $("perf-native-chart");
  canvas.hidden = !cases.length;
  if (!cases.length) return;
  // By vocabulary ("V32000" before "V152064"): a number sort, where localeCompare's collator took 10 to 30 ms to start.
  const vocab = (l) => Number(l.replace(/^V/, ""));
  const labels = [...new Set(cases.map((c) => c.case.slice(prefix.length)))].sort((a, b) => vocab(a) - vocab(b) || (a < b ? -1 : a > b ? 1 : 0));
  const counts = [...new Set(cases.map((c) => c.threads))].sort((x, y) => x - y);
  const title = `native recoverTokens (${p.kind === "residual" ? "with draft probabilities" : "n-gram"}), B = ${p.requests} × 4 drafts, ${p.precision} noise`;
  const series = counts.map((t) => ({
    name: `${t} thread${t > 1 ? "s" : ""}`,
    values: labels.map((l) => cases.find((c) => c.case === prefix + l && c.threads === t)?.ns_per_element ?? 0),
  }));
  drawGrouped(canvas, { title, xLabel: "vocabulary", yLabel: "ns per element", labels, series });
  describeChart("perf-native-chart", `${title}: ns per element by vocabulary and thread count.`,
    ["vocabulary", ...series.map((s) => `${s.name} (ns per element)`)], labels.map((l, k) => [l, ...series.map((s) => s.values[k].toFixed(3))]));
}

/** Times the recovered-token kernel in this page: one thread here, the pool in its worker. */
async function runLiveBench() {
  const params = liveParams();
  if (!params) return;
  $("perf-run").disabled = true;
  $("perf-live").textContent = `Timing ${params.name}…`;
  // Let the status paint before the main thread is busy.
  await new Promise((r) => setTimeout(r, 0));
  try {
    const rows = [{ threads: 1, ...timeCase(ex, params.name, params.options) }];
    if (threads.pool) rows.push({ threads: threads.pool.threads, ...(await threads.pool.call({ bench: params })).timing });
    perf.live = { params, rows };
    showLive(perf.live);
  } catch (e) {
    $("perf-live").innerHTML = `<p class="error">${esc(e.message)}</p>`;
  } finally {
    $("perf-run").disabled = false;
  }
}

/** A live timing's table and chart, next to the native figures of the machine picked. */
function showLive({ params, rows }) {
  const same = rows.every((r) => r.firstWinner === rows[0].firstWinner);
  const native = (r) => nativeCase(params, r.threads);
  $("perf-live").innerHTML =
    `<p>${esc(params.name)}: recoverTokens, B = ${params.requests} requests × 4 drafts × V = ${params.vocab}` +
    `${params.kind === "residual" ? " with draft probabilities" : ", n-gram drafts"}, ${params.precision} noise; ` +
    `the inputs of the native case, in wasm memory; median of ${rows.map((r) => r.reps).join(" and ")} calls after a warm-up call. ` +
    `${same ? "Same winners on every thread count." : "The thread counts disagree!"}</p>` +
    "<table class='facts' id='perf-live-table'><tr><th>threads</th><th>median (ms)</th><th>ns / element in this page</th>" +
    `<th>ns / element native (${perf.bench ? esc($("perf-machine-file").selectedOptions[0].textContent) : "no file"})</th>` +
    "<th>first winner</th></tr>" +
    rows
      .map(
        (r) =>
          `<tr><td>${r.threads}</td><td>${r.medianMs.toFixed(2)}</td><td>${r.nsPerElement.toFixed(3)}</td>` +
          `<td>${native(r) ? native(r).ns_per_element.toFixed(3) : "-"}</td><td>${r.firstWinner}</td></tr>`,
      )
      .join("") +
    "</table>" +
    (threads.pool ? "" : "<p>One thread only: the page is not cross-origin isolated (see the status at the top).</p>");
  const canvas = $("perf-live-chart");
  canvas.hidden = false;
  const labels = rows.map((r) => `${r.threads} thread${r.threads > 1 ? "s" : ""}`);
  const series = [
    { name: "this page", values: rows.map((r) => r.nsPerElement) },
    { name: "native", values: rows.map((r) => native(r)?.ns_per_element ?? 0) },
  ];
  const title = "recoverTokens: ns per element, this page against native";
  drawGrouped(canvas, { title, xLabel: "threads", yLabel: "ns per element", labels, series });
  describeChart("perf-live-chart", `${title} (${params.name}; native 0: no native figure).`,
    ["threads", "this page (ns per element)", "native (ns per element)"], labels.map((l, k) => [l, ...series.map((s) => s.values[k].toFixed(3))]));
}

export function wire() {
  $("perf-run").onclick = runLiveBench;
  $("perf-b").onchange = $("perf-precision").onchange = $("perf-kind").onchange = drawNativeRecover;
  $("perf-machine-file").onchange = showPerf;
}
