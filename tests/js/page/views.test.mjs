// The page's structure: views are modules over one state, a refused change
// changes nothing, a change redraws only the views that read it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { collectErrors } from "../chromium.mjs";
import { findCycle, importGraph } from "./imports.mjs";
import { context, serveOnce, usePage } from "./setup.mjs";

usePage();

test("views are modules over one state: no view imports another, no cycle, nothing from benches/; a refused change changes nothing; a change redraws only its views", async () => {
  const web = new URL("../../../web", import.meta.url).pathname;
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

  const url = await serveOnce(false);
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
