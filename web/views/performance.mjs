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
    if (perf.live) showLive(perf.live);
    return;
  }
  const bench = await res.json();
  perf.bench = bench;
  const m = bench.machine || {};
  const crates = Object.entries(bench.crates || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  $("perf-native").innerHTML =
    `<p id="perf-machine">Native, ${esc(bench.date ?? "")}: ${esc(m.cpu ?? "unknown CPU")}, ${esc(m.cores ?? "?")} cores` +
    `${m.avx512f ? ", AVX-512" : ""}; ${esc(bench.rustc ?? "")}; ${esc(crates)}. ${esc(bench.notes ?? "")}</p>` +
    endToEnd(bench) +
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
  drawNativeRecover();
  if (perf.live) showLive(perf.live);
}

/**
 * The end-to-end workloads of the file (what users run: a trial, a sweep, a fill, an audit), each against the
 * kernel floor timed in the same run, shown first; or one sentence when the file has none (or none readable).
 */
function endToEnd(bench) {
  const rows = e2eRows(bench);
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
  const labels = [...new Set(cases.map((c) => c.case.slice(prefix.length)))].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
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
