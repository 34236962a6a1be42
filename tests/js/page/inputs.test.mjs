// Every way into the race: presets, sliders, JSON import, u and E editing,
// noise addresses, the speculative step, .npy and safetensors files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { SPEC_STEP, buildPreset, specBatch } from "../../../web/presets.mjs";
import { le, npy, safetensors } from "../files.mjs";
import { PARAMS, assertCompare, choose, compareRows, context, core, deadCount, open, redrawn, seeded, shots, text, usePage } from "./setup.mjs";

usePage();

test("presets, sliders, JSON import, u editing, addresses, the speculative step's races and losslessness", async () => {
  const { page, errors } = await open(true);

  // Uniform and Zipf: the core's seeded races and dead zones, rendered.
  for (const name of ["uniform", "zipf"]) {
    await choose(page, "preset", name);
    const weights = buildPreset(core, name, PARAMS).weights;
    await assertCompare(page, seeded(weights));
    assert.equal(await text(page, "#dead-count-a"), deadCount(weights, "torch-cuda-f32"), name);
    assert.equal(await text(page, "#dead-count-b"), deadCount(weights, "torch-cuda-f64"), name);
    assert.match(await text(page, "#prob-summary"), /^32000 tokens; pipeline A kills 0 of them/);
    assert.equal(await page.locator("#sliders input[type=range]").count(), 6);
    if (name === "uniform") {
      await page.waitForSelector("#exact-table", { timeout: 120000 });
      for (const i of [0, 1, 2]) assert.equal(await text(page, `#exact-0-${i}`), "1", "one group of equal weights always wins");
    } else {
      assert.match(await text(page, "#exact-out"), /up to 8 distinct weights; this race has 32000/);
    }
    await page.screenshot({ path: join(shots, `${name}.png`) });
  }

  // A slider sets token 1 of the near-tie to 0.1: the flip is gone, both pick token 0.
  await choose(page, "preset", "near-tie");
  assert.equal(await page.locator("#flip").getAttribute("data-flipped"), "true");
  await redrawn(page, () => page.locator("#slider-1").fill("-1"));
  assert.equal(await text(page, "#slider-out-1"), "0.1");
  assert.equal(await text(page, "#weight-edits"), "Weights set by the sliders: token 1 = 0.1");
  assert.equal(await page.locator("#flip").getAttribute("data-flipped"), "false");
  assert.equal(await text(page, "#exact-winner"), "0");
  const slid = core.run({ exporace: 1, op: "compare", weights: [0.25, Math.fround(0.1)], noise: ["1", "1.000000000001"] }).result;
  await assertCompare(page, slid);
  // By keyboard: one step left lowers the weight again.
  await page.focus("#slider-1");
  await redrawn(page, () => page.keyboard.press("ArrowLeft"));
  assert.equal(Number(await page.inputValue("#slider-1")), -1.01);

  // Export the state as a fixture, load another preset, import the fixture: the same race.
  await page.click("#export-fixture");
  const fixture = await page.inputValue("#fixture");
  const before = await compareRows(page);
  await choose(page, "preset", "uniform");
  await page.fill("#import-json", fixture);
  await redrawn(page, () => page.click("#import"));
  assert.equal(await text(page, "#import-error"), "");
  assert.deepEqual(await compareRows(page), before);
  assert.match(await text(page, "#import-note"), /^Imported: 2 weights with inline noise/);
  // A hand-written scenario with seeded pipelines, and one the core refuses.
  await page.fill("#import-json", JSON.stringify({ exporace: 1, op: "compare", weights: [0.5, 0.3, 0.2], models: ["triton-classic", "torch-cuda-f64"], seed: 11, row: 2 }));
  await redrawn(page, () => page.click("#import"));
  assert.equal(await page.inputValue("#model-a"), "triton-classic");
  assert.equal(await page.inputValue("#seed"), "11");
  await assertCompare(page, core.run({ exporace: 1, op: "compare", weights: [0.5, 0.3, 0.2], models: ["triton-classic", "torch-cuda-f64"], seed: 11, row: 2 }).result);
  await page.fill("#import-json", '{"exporace": 1, "op": "race", "precision": "f32", "wieghts": [1]}');
  await page.click("#import");
  assert.match(await text(page, "#import-error"), /unknown field .wieghts./);
  await page.locator("#probs").screenshot({ path: join(shots, "probabilities-sliders-import.png") });

  // The address of the draws shown: MRV2 (draft position 17), then torch CPU, which needs its own model.
  await page.selectOption("#model-a", "torch-cuda-f32");
  await page.selectOption("#address", "mrv2");
  await page.fill("#mrv2-pos", "17");
  await page.locator("#mrv2-pos").dispatchEvent("change");
  await page.check("#mrv2-draft");
  const mrv2 = core.run({ exporace: 1, op: "noise", model: "torch-cuda-f32", seed: "11", address: "mrv2", pos: 17, draft: true, start: 0, count: 3 });
  await page.waitForFunction(() => /MRV2 position 17 \(draft/.test(document.getElementById("draws").innerText));
  const drawRows = (await page.locator("#draws tr[data-i]").allInnerTexts()).map((r) => r.split("\t"));
  assert.deepEqual(drawRows.map((r) => r[1]), mrv2.result.draws.map((d) => d.raw));
  await page.selectOption("#address", "torch_cpu");
  assert.match(await text(page, "#draws"), /address torch_cpu replays torch's generator and needs model torch-cpu/);
  await page.selectOption("#model-a", "torch-cpu");
  await page.locator("#model-a").dispatchEvent("change");
  await page.waitForFunction(() => /torch CPU generator after 0/.test(document.getElementById("draws").innerText));
  const cpu = core.run({ exporace: 1, op: "noise", model: "torch-cpu", seed: "11", address: "torch_cpu", start: 0, count: 8 });
  assert.deepEqual((await page.locator("#draws tr[data-i]").allInnerTexts()).map((r) => r.split("\t")[1]), cpu.result.draws.map((d) => d.raw));
  await page.selectOption("#address", "exporace");

  // Set u of token 2 under pipeline B (torch-cuda-f64): the core puts it on the lattice and computes E.
  await page.fill("#edit-token", "2");
  await page.fill("#edit-u", "0.5");
  await redrawn(page, () => page.click("#edit-set-u"));
  const half = core.transformUniform("torch-cuda-f64", null, { uniform: 0.5 }).draws[0];
  assert.equal(await text(page, "#u-e"), String(half.e));
  assert.equal(await text(page, "#u-branch"), "normal");
  assert.match(await text(page, "#edits"), new RegExp(`token 2: inv_q = ${half.invQ} \\(u = 0\\.5 under torch-cuda-f64: E = ${half.e}, normal\\)`));
  await page.fill("#edit-u", "1");
  await redrawn(page, () => page.click("#edit-set-u"));
  assert.equal(await text(page, "#u-branch"), "clamped");
  assert.equal(await text(page, "#u-e"), "1.110223e-16", "u = 1 is clamped to E = 2^-53");
  assert.equal(await text(page, "#exact-winner"), "2", "E = 2^-53 makes token 2 win");
  await page.fill("#edit-u", "2");
  await page.click("#edit-set-u");
  assert.match(await text(page, "#edit-error"), /point\.uniform must be a number in \[0, 1\], got 2/);
  // Set E of token 2: the core's division race gives inv_q, and the race follows.
  await page.fill("#edit-e", "1e6");
  await redrawn(page, () => page.click("#edit-set-e"));
  assert.notEqual(await text(page, "#exact-winner"), "2", "E = 1e6 makes token 2 lose");
  assert.match(await text(page, "#edits"), /token 2: inv_q = 0\.000001 \(E = 1e6: inv_q bits 0x3eb0c6f7a0b5ed8d\)/);
  await page.fill("#edit-e", "0x3c90000000000000");
  await redrawn(page, () => page.click("#edit-set-e"));
  assert.equal(await text(page, "#exact-winner"), "2", "E = 2^-54 makes token 2 win");
  assert.match(await text(page, "#edits"), /token 2: inv_q = 18014398509481984 \(E = 0x3c90000000000000: inv_q bits 0x4350000000000000\)/);
  await page.fill("#edit-e", "-1");
  await page.click("#edit-set-e");
  assert.notEqual(await text(page, "#edit-error"), "");
  await page.locator("#noise").screenshot({ path: join(shots, "noise-u-edit.png") });

  // The speculative-decoding step: recovered-token races through compare, bonus races, losslessness.
  await choose(page, "preset", "spec");
  await page.selectOption("#model-a", "torch-cuda-f32");
  const step = core.run({ ...SPEC_STEP, seed: "11" }).result;
  assert.equal(await text(page, "#spec-output"), JSON.stringify(step.outputTokenIds));
  const batch = specBatch();
  for (const [b, req] of step.requests.entries()) {
    if (req.recovered) {
      assert.equal(await text(page, `#spec-recovered-${b}`), String(req.recovered.winner.token), `request ${b}`);
      const t = SPEC_STEP.cu_num_draft_tokens[b] - req.numDraft + req.numAccepted;
      const weights = Array.from(core.residualWeights(batch, t));
      const models = [{ model: "ideal", precision: "f32" }, { model: "ideal", precision: "f64" }];
      await assertCompare(page, core.run({ exporace: 1, op: "compare", weights, models, seed: "11", row: b }).result, `#compare-table-spec-${b}`);
      assert.equal(await page.locator(`#spec-race-${b} tr`).count(), 4);
    }
    if (req.bonus !== null) assert.equal(await text(page, `#spec-bonus-${b}`), String(req.bonus));
  }
  // Edit the batch: target p(draft) = 0 at position 0 of request 0, and given uniforms; the core recomputes the trace.
  const edited = {
    cu_num_draft_tokens: SPEC_STEP.cu_num_draft_tokens,
    draft_token_ids: SPEC_STEP.draft_token_ids,
    target_probs: [[0.1, 0, 0.9], ...SPEC_STEP.target_probs.slice(1)],
    draft_probs: SPEC_STEP.draft_probs,
    bonus_probs: SPEC_STEP.bonus_probs,
    uniform: [0.5, 0.5, 0.5, 0.5],
  };
  await page.click("#spec-json summary");
  await page.fill("#spec-batch", JSON.stringify(edited));
  await redrawn(page, () => page.click("#spec-apply"));
  const editedStep = core.run({ ...SPEC_STEP, ...edited, seed: "11" }).result;
  assert.notEqual(JSON.stringify(editedStep.outputTokenIds), JSON.stringify(step.outputTokenIds));
  assert.equal(await text(page, "#spec-output"), JSON.stringify(editedStep.outputTokenIds));
  assert.match((await page.locator("#spec-trace tr").allInnerTexts())[1], /^0\t0\t1\t0\t0\.8\t0\.5\trejected: recovered token$/);
  assert.equal(await text(page, "#spec-recovered-0"), String(editedStep.requests[0].recovered.winner.token));
  const editedWeights = Array.from(core.residualWeights(specBatch({ ...SPEC_STEP, ...edited }), 0));
  const models = [{ model: "ideal", precision: "f32" }, { model: "ideal", precision: "f64" }];
  await assertCompare(page, core.run({ exporace: 1, op: "compare", weights: editedWeights, models, seed: "11", row: 0 }).result, "#compare-table-spec-0");
  await page.locator("#spec").screenshot({ path: join(shots, "speculative-edited.png") });
  await page.fill("#spec-batch", '{"draft_token_ids": [1, 2, 0, 7]}');
  await page.click("#spec-apply");
  assert.notEqual(await text(page, "#spec-error"), "");
  await redrawn(page, () => page.click("#spec-reset"));
  assert.equal(await text(page, "#spec-output"), JSON.stringify(step.outputTokenIds));
  // The structured form, by keyboard only: p(1) at request 0, position 0 set to 0 (the draft there is token 1).
  await page.getByLabel("request 0 position 0: target p(1)", { exact: true }).focus();
  await page.keyboard.press("Control+A");
  await page.keyboard.type("0");
  await redrawn(page, () => page.keyboard.press("Tab"));
  const formBatch = structuredClone(SPEC_STEP);
  formBatch.target_probs[0][1] = 0;
  const formStep = core.run({ ...formBatch, seed: "11" }).result;
  assert.equal(await text(page, "#spec-output"), JSON.stringify(formStep.outputTokenIds));
  assert.match((await page.locator("#spec-trace tr").allInnerTexts())[1], /^0\t0\t1\t0\t0\.8\t/);
  assert.match(await page.inputValue("#spec-batch"), /"target_probs": \[\[0\.1,0,0\.4\]/);
  // Add a draft to request 1 (a copy of its last position), by keyboard; focus stays on the button.
  await page.getByRole("button", { name: "Add a draft to request 1" }).focus();
  await redrawn(page, () => page.keyboard.press("Enter"));
  assert.equal(await page.locator('fieldset.spec-request[data-b="1"] legend').innerText(), "Request 1: 2 drafts");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Add a draft to request 1");
  const grown = structuredClone(formBatch);
  grown.cu_num_draft_tokens = [2, 4, 5];
  grown.draft_token_ids.splice(3, 0, 0);
  grown.target_probs.splice(3, 0, [0.2, 0.2, 0.6]);
  grown.draft_probs.splice(3, 0, [0.7, 0.2, 0.1]);
  assert.equal(await text(page, "#spec-output"), JSON.stringify(core.run({ ...grown, seed: "11" }).result.outputTokenIds));
  assert.equal(await page.locator("#spec-trace tr").count(), 1 + 5);
  // A draft id outside the vocabulary is refused with the core's message; the batch stays.
  await page.getByLabel("request 2 position 0: draft token id", { exact: true }).fill("7");
  await page.keyboard.press("Tab");
  await page.waitForFunction(() => /outside \[0, 3\)/.test(document.getElementById("spec-error").textContent));
  assert.equal(await page.getByLabel("request 2 position 0: draft token id", { exact: true }).getAttribute("aria-invalid"), "true");
  assert.equal(await text(page, "#spec-output"), JSON.stringify(core.run({ ...grown, seed: "11" }).result.outputTokenIds));
  await page.locator("#spec-form").screenshot({ path: join(shots, "speculative-form.png") });
  await redrawn(page, () => page.click("#spec-reset"));
  assert.equal(await text(page, "#spec-output"), JSON.stringify(step.outputTokenIds));
  await page.fill("#spec-trials", "20480");
  const verdicts = async (label) => {
    await page.waitForFunction((l) => document.getElementById("spec-status").textContent.startsWith(`Done: ${l}`), label, { timeout: 60000 });
    const rows = (await page.locator("#spec-lossless-table tr").allInnerTexts()).slice(1).map((r) => r.split("\t"));
    assert.equal(rows.length, SPEC_STEP.draft_token_ids.length);
    return rows.map((r) => ({ p: Number(r[7]), tv: Number(r[8]), verdict: r[9] }));
  };
  await page.click("#spec-run");
  const salted = await verdicts("rejection_salted");
  // Timed before it started: the estimate for every position, then how long it took.
  assert.match(await text(page, "#spec-estimate"), /^Estimated: about \d+ (s|min) here \(timed on \d+ trials first\)\. It took \d+ (s|min)\.$/);
  assert.ok(salted.every((r) => r.verdict === "consistent with p" && r.p > 1e-4), JSON.stringify(salted));
  await page.check("#spec-shared");
  const shared = await verdicts("rejection_shared");
  assert.equal(shared[3].verdict, "biased: the output is not p");
  assert.ok(shared[3].p < 1e-6 && shared[3].tv > 2 * salted[3].tv, JSON.stringify(shared));
  await page.locator("#spec").screenshot({ path: join(shots, "speculative.png") });

  // The sliders, the import and the noise address travel in the link.
  await page.selectOption("#address", "triton");
  await page.locator("#slider-2").fill("-2");
  await page.waitForFunction(() => /token 2 = 0\.01/.test(document.getElementById("weight-edits").textContent));
  await page.click("#share");
  await page.waitForFunction(() => document.getElementById("share-url").value !== "");
  const again = await context.newPage();
  await again.goto(await page.inputValue("#share-url"));
  await again.waitForFunction(() => Number(document.body.dataset.ready) > 0);
  assert.equal(await text(again, "#weight-edits"), await text(page, "#weight-edits"));
  assert.equal(await again.inputValue("#address"), "triton");
  assert.deepEqual(await compareRows(again), await compareRows(page));

  // .npy import: p, then q (E per weight), then d, each read by the core's reader.
  await page.setInputFiles("#npy-file", { name: "p.npy", mimeType: "application/octet-stream", buffer: npy("<f4", [3], Float32Array.of(0.2, 0.3, 0.5)) });
  await page.waitForFunction(() => /Read p\.npy as p/.test(document.getElementById("npy-note").textContent));
  assert.match(await text(page, "#about"), /^3 weights from p\.npy/);
  await page.selectOption("#npy-role", "q");
  await page.setInputFiles("#npy-file", { name: "q.npy", mimeType: "application/octet-stream", buffer: npy("<f8", [3], Float64Array.of(1, 1e-30, 1)) });
  await page.waitForFunction(() => /Read q\.npy as q/.test(document.getElementById("npy-note").textContent));
  // The views redraw in tasks of their own after the note: wait for the race's.
  await page
    .waitForFunction(() => document.getElementById("exact-winner").textContent === "1", null, { timeout: 15000 })
    .catch(() => {});
  assert.equal(await text(page, "#exact-winner"), "1", "q = 1e-30 makes token 1 win");
  // Imported p and q travel in the link.
  await page.click("#share");
  await page.waitForFunction(() => /Link (ready|copied)/.test(document.getElementById("share-note").textContent));
  const npyPage = await context.newPage();
  await npyPage.goto(await page.inputValue("#share-url"));
  await npyPage.waitForFunction(() => Number(document.body.dataset.ready) > 0);
  assert.match(await text(npyPage, "#about"), /^3 weights imported from a file/);
  assert.equal(await text(npyPage, "#exact-winner"), "1");
  assert.equal(await text(npyPage, "#compare-table"), await text(page, "#compare-table"));
  await npyPage.close();
  // A p too large for a link is named beside the button, with the scenario export offered; the link's page says so too.
  await page.selectOption("#npy-role", "p");
  const big = Float32Array.from({ length: 5000 }, (_, i) => 1 / (i + 1));
  await page.setInputFiles("#npy-file", { name: "big.npy", mimeType: "application/octet-stream", buffer: npy("<f4", [5000], big) });
  await page.waitForFunction(() => /Read big\.npy as p/.test(document.getElementById("npy-note").textContent));
  await page.click("#share");
  await page.waitForFunction(() => /Not in the link: imported p \(5000 entries\)/.test(document.getElementById("share-note").textContent));
  assert.ok(await page.locator("#share-export").isVisible());
  await page.click("#share-export");
  assert.equal(JSON.parse(await page.inputValue("#fixture")).scenario.weights.length, 5000);
  const bigPage = await context.newPage();
  await bigPage.goto(await page.inputValue("#share-url"));
  await bigPage.waitForFunction(() => Number(document.body.dataset.ready) > 0);
  assert.match(await text(bigPage, "#share-note"), /made without imported p \(5000 entries\)/);
  await bigPage.close();
  // Back to the three weights and q for what follows.
  await page.setInputFiles("#npy-file", { name: "p.npy", mimeType: "application/octet-stream", buffer: npy("<f4", [3], Float32Array.of(0.2, 0.3, 0.5)) });
  await page.waitForFunction(() => /Read p\.npy as p/.test(document.getElementById("npy-note").textContent));
  const d = SPEC_STEP.draft_probs.map(() => [0.2, 0.2, 0.6]);
  await page.selectOption("#npy-role", "d");
  await page.setInputFiles("#npy-file", { name: "d.npy", mimeType: "application/octet-stream", buffer: npy("<f4", [d.length, 3], Float32Array.from(d.flat())) });
  await page.waitForFunction(() => /Read d\.npy as d/.test(document.getElementById("npy-note").textContent));
  const fromD = core.run({ ...SPEC_STEP, draft_probs: Array.from(d, (r) => Array.from(Float32Array.from(r))), seed: "11" }).result;
  assert.equal(await text(page, "#spec-output"), JSON.stringify(fromD.outputTokenIds));
  await page.setInputFiles("#npy-file", { name: "bad.npy", mimeType: "application/octet-stream", buffer: Buffer.from("not a npy file") });
  await page.waitForFunction(() => document.getElementById("npy-error").textContent !== "");
  // A [2, 3] matrix as p is refused, not flattened into a 6-token race.
  await page.selectOption("#npy-role", "p");
  const aboutBefore = await text(page, "#about");
  await page.setInputFiles("#npy-file", { name: "m.npy", mimeType: "application/octet-stream", buffer: npy("<f4", [2, 3], Float32Array.of(1, 2, 3, 4, 5, 6)) });
  await page.waitForFunction(() => /holds a f32 \[2, 3\] array/.test(document.getElementById("npy-error").textContent));
  assert.equal(await text(page, "#about"), aboutBefore, "the race did not change");
  // safetensors: an engine's dump with vLLM's names, which preselect p, inv_q and d.
  const tp = [[0.25, 0.25, 0.5], [0.5, 0.25, 0.25]];
  const dumpInvQ = [1, 4, 1];
  const dRows = SPEC_STEP.draft_probs.map(() => [0.5, 0.25, 0.25]);
  const dump = safetensors([
    ["target_probs", "F32", [2, 3], le(Float32Array, tp.flat())],
    ["inv_q", "F64", [1, 3], le(Float64Array, dumpInvQ)],
    ["draft_probs", "F32", [dRows.length, 3], le(Float32Array, dRows.flat())],
    ["draft_token_ids", "I64", [2], le(BigInt64Array, [1n, 2n])],
  ]);
  await page.setInputFiles("#st-file", { name: "dump.safetensors", mimeType: "application/octet-stream", buffer: dump });
  await page.waitForSelector("#st-choose:not([hidden])");
  assert.match(await text(page, "#st-note"), /^dump\.safetensors: 4 tensors \(draft_probs f32 \[4, 3\]; draft_token_ids i64 \[2\]; inv_q f64 \[1, 3\]; target_probs f32 \[2, 3\]\)/);
  assert.equal(await page.inputValue("#st-p"), "target_probs");
  assert.equal(await page.inputValue("#st-q"), "inv_q");
  assert.equal(await page.inputValue("#st-d"), "draft_probs");
  await redrawn(page, () => page.click("#st-use"));
  assert.equal(await text(page, "#st-note"), "Using p = target_probs, inv_q = inv_q, d = draft_probs from dump.safetensors.");
  assert.match(await text(page, "#about"), /^3 weights from dump\.safetensors: target_probs row 0/);
  const policy = await page.inputValue("#nan-policy");
  const fromDump = core.run({ exporace: 1, op: "compare", nan_policy: policy, weights: tp[0], noise: dumpInvQ }).result;
  assert.equal(fromDump.exactWinner, 1, "inv_q = 4 at token 1: score 1 against 0.25 and 0.5");
  await assertCompare(page, fromDump);
  assert.equal(await text(page, "#exact-winner"), "1");
  const dumpStep = core.run({ ...SPEC_STEP, draft_probs: dRows, seed: "11" }).result;
  assert.equal(await text(page, "#spec-output"), JSON.stringify(dumpStep.outputTokenIds));
  // Row 1 of target_probs as p; a row past the end is refused.
  await page.fill("#st-p-row", "1");
  await page.selectOption("#st-q", "");
  await page.selectOption("#st-d", "");
  await redrawn(page, () => page.click("#st-use"));
  assert.match(await text(page, "#about"), /^3 weights from dump\.safetensors: target_probs row 1/);
  await page.fill("#st-p-row", "2");
  await page.click("#st-use");
  await page.waitForFunction(() => /target_probs has 2 rows; row 2 does not exist/.test(document.getElementById("st-error").textContent));
  await page.locator("#share-box").screenshot({ path: join(shots, "safetensors-import.png") });
  await page.setInputFiles("#st-file", { name: "bad.safetensors", mimeType: "application/octet-stream", buffer: Buffer.from("not a safetensors file") });
  await page.waitForFunction(() => /safetensors/.test(document.getElementById("st-error").textContent));
  assert.ok(await page.locator("#st-choose").isHidden());
  await page.locator("#share-box").screenshot({ path: join(shots, "npy-import.png") });
  assert.deepEqual(errors, []);
});
