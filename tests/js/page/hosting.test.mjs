// dist/ on a static host without COOP/COEP, in a subfolder: isolated by its
// service worker, threaded; on one thread where service workers cannot run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, symlinkSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectErrors, launchChromium } from "../chromium.mjs";
import { staticHost } from "./static-host.mjs";
import { context, servers, shots, text, usePage } from "./setup.mjs";

usePage();

test("dist/ on a static host without COOP/COEP, in a subfolder: isolated by its service worker, threaded; one thread said where it cannot", async () => {
  const root = new URL("../../..", import.meta.url).pathname;
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
