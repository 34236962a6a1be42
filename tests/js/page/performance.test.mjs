// The performance view opens on a chart: each workload of the committed native file against its kernel floor, on a
// log axis with its target marked; the run's metadata and the end-to-end table are folded under a summary line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { e2eRows } from "../../../web/e2e-rows.mjs";
import { open, shots, usePage } from "./setup.mjs";

usePage();

test("performance view: the workloads' ratios to their floor as a chart first, the run's metadata and table folded", async () => {
  const { page, errors } = await open(false);
  const bench = JSON.parse(readFileSync(new URL("../../../benches/results.json", import.meta.url), "utf8"));
  await page.waitForSelector("#perf-e2e-chart[data-drawn]", { timeout: 60000 });
  // The chart comes before the table, and before any other part of the native figures.
  const order = await page.evaluate(() => {
    const chart = document.getElementById("perf-e2e-chart");
    const follows = (id) => Boolean(chart.compareDocumentPosition(document.getElementById(id)) & Node.DOCUMENT_POSITION_FOLLOWING);
    return { table: follows("perf-e2e-table"), machine: follows("perf-machine"), native: follows("perf-native-table") };
  });
  assert.deepEqual(order, { table: true, machine: true, native: true });
  assert.equal(await page.locator("#perf-e2e-chart").isVisible(), true);
  // The metadata and the table are inside a closed <details>, named by its summary line.
  const folded = await page.evaluate(() => ["perf-machine", "perf-e2e-table"].map((id) => {
    const d = document.getElementById(id).closest("details");
    return d ? { open: d.open, summary: d.querySelector("summary").textContent } : null;
  }));
  for (const f of folded) {
    assert.equal(f?.open, false, "folded under a closed <details>");
    assert.match(f.summary, new RegExp(`^The run: ${bench.machine.cpu}, .*; the ${e2eRows(bench).length} end-to-end figures as a table$`));
  }
  assert.equal(await page.locator("#perf-machine").isVisible(), false);
  // One category per workload, lowest and highest of its rows as the table gives them, the target where it has one.
  const rows = e2eRows(bench);
  const workloads = [...new Set(rows.map((r) => r.workload.split("/")[0]))];
  const cells = await page.locator("#perf-e2e-chart-data tr").evaluateAll((trs) => trs.slice(1).map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(cells.map((c) => c[0]), workloads);
  for (const [w, lowest, highest, target] of cells) {
    const ratios = rows.filter((r) => r.workload.split("/")[0] === w).map((r) => r.ratio.toFixed(2));
    assert.ok(ratios.includes(lowest.split(" ")[0]) && ratios.includes(highest.split(" ")[0]), `${w}: ${lowest}, ${highest}`);
    assert.ok(Number(lowest.split(" ")[0]) <= Number(highest.split(" ")[0]), w);
    assert.equal(target, { "many-tail": "at most 1.5", fill: "at most 1.5", audit: "at most 2" }[w] ?? "none", w);
  }
  // Drawn on a log axis with the target as a tick: the legend names both series and the target.
  assert.deepEqual(JSON.parse(await page.getAttribute("#perf-e2e-chart", "data-colors")).map(([n]) => n), ["lowest", "highest"]);
  await page.locator("#perf").screenshot({ path: join(shots, "perf-ratio-chart.png") });
  assert.deepEqual(errors, []);
  await page.close();
});
