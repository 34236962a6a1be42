// A state edited, shared as a link and opened again; the performance view's
// native figures and live timings on the page opened from it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { choose, context, open, shots, text, usePage } from "./setup.mjs";

usePage();

/**
 * The performance view's end-to-end figures of a native benchmark file: a chart first, then the table folded with the
 * run's metadata (before the kernel table), one row per function of each end-to-end case but the case's floor
 * (seeded-f32 in the older schema); or, for a file without end-to-end figures, no chart and the sentence saying so.
 */
async function assertEndToEnd(page, bench, file) {
  if (!bench.end_to_end) {
    assert.match(await page.locator("#perf-e2e-none").textContent(), /has no end-to-end figures/, file);
    assert.equal(await page.locator("#perf-e2e-chart").isHidden(), true, file);
    assert.equal(await page.locator("#perf-e2e-table").count(), 0, file);
    return;
  }
  const want = bench.end_to_end.cases.flatMap((c) =>
    Object.keys(c.functions).filter((f) => f !== (c.floor ?? "seeded-f32")).map((f) => [c.case.replace(/^end-to-end\//, ""), f]));
  // The table sits in the closed <details> of the run, after the chart: read its cells' text.
  assert.equal(await page.locator("#perf-e2e-table").isVisible(), false, `${file}: the end-to-end table is folded`);
  assert.equal(await page.locator("#perf-e2e-chart").isVisible(), true, `${file}: the chart is shown`);
  assert.match(await page.locator("#perf-e2e-table caption").textContent(), /^What users run, against the kernel floor in the same run$/);
  const rows = await page.locator("#perf-e2e-table tr").evaluateAll((trs) => trs.map((r) => [...r.cells].map((c) => c.textContent)));
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
  const benchFile = new URL("../../../benches/results.json", import.meta.url);
  const bench = existsSync(benchFile) ? JSON.parse(readFileSync(benchFile, "utf8")) : null;
  if (bench) {
    assert.ok((await page.locator("#perf-machine").textContent()).includes(bench.machine.cpu));
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
    const url = new URL(`../../../benches/${file}`, import.meta.url);
    const other = existsSync(url) ? JSON.parse(readFileSync(url, "utf8")) : null;
    await page.selectOption("#perf-machine-file", file);
    if (other) {
      await page.waitForFunction((date) => document.querySelector("#perf-machine")?.textContent.includes(date), other.date);
      assert.equal((await page.locator("#perf-machine").textContent()).includes("AVX-512"), other.machine.avx512f, file);
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
