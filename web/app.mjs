// The page: reads the controls, asks the exporace core (`run(scenario)` and
// the race functions of the npm package), and shows the answers.
import init, * as ex from "/pkg/web/index.js";
import { EXPERIMENT_STEP, MAX_TAILS, SPEC_STEP, buildPreset, fromLogits, manyTailGroups, parseNumbers, specBatch } from "./presets.mjs";
import { IDEAL_COLOR, PRECISION_COLOR, drawGrouped, drawHistogram, drawScores, drawWeights } from "./chart.mjs";
import { timeCase } from "/benches/timing.mjs";

const $ = (id) => document.getElementById(id);
const num = (id) => Number($(id).value);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
/** An f32 value (weights, fp32 scores) in its shortest decimal form, as the core prints f32 numbers. */
const fmt32 = (v) => {
  if (typeof v !== "number" || !Number.isFinite(v) || v === 0) return fmt(v);
  for (let digits = 1; digits <= 9; digits++) {
    const s = v.toPrecision(digits);
    if (Math.fround(Number(s)) === v) return fmt(Number(s));
  }
  return fmt(v);
};
/**
 * An estimate with the significant digits its bracket [lower, upper]
 * supports: one more than the bracket's half-width leaves certain; every
 * digit when the value is exact.
 */
const fmtBounded = (p, lower, upper) => {
  const halfWidth = Math.max(upper - p, p - lower);
  if (!(halfWidth > 0) || p === 0) return fmt(p);
  const digits = Math.min(17, Math.max(1, Math.ceil(Math.log10(Math.abs(p) / halfWidth)) + 1));
  return String(Number(p.toPrecision(digits)));
};
const fmt = (v) => (typeof v === "number" ? (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6) || v === 0 ? String(v) : v.toExponential(6) : String(v));

// baseWeights: the preset's, pasted or imported weights (Float32Array);
// weightEdits: [[token, weight]] set by the sliders; weights: both together.
// baseNoise: inline noise or null (seeded); edits: [[token, inv_q, note?]]
// applied on top; imported: the weights and noise of an imported scenario;
// pool: the threaded worker's RPC.
const state = {
  // The preset's parameters last applied (every field valid).
  params: null,
  // The seed of the views on show (the seed field's last valid value).
  lastSeed: "7",
  baseWeights: null,
  weightEdits: [],
  weights: null,
  baseNoise: null,
  edits: [],
  // The speculative step's batch (the preset's, or as edited in the speculative view).
  spec: structuredClone(SPEC_STEP),
  noise: null,
  preset: null,
  imported: null,
  models: [],
  pool: null,
  // The native benchmark of the machine picked, and the last live timing (shown again against another machine).
  bench: null,
  live: null,
};

// ---- threads ---------------------------------------------------------------

/** Starts the threaded build in a worker when the page is cross-origin isolated. */
async function startThreads() {
  const status = $("thread-status");
  if (!self.crossOriginIsolated) {
    status.textContent =
      "Running on one thread: the page is not cross-origin isolated (the server did not send " +
      "Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp), " +
      "so WebAssembly memory cannot be shared with workers.";
    status.dataset.mode = "single";
    return;
  }
  const size = Math.max(2, Math.min(navigator.hardwareConcurrency || 2, 8));
  try {
    const worker = new Worker("threads-worker.mjs", { type: "module" });
    const pending = new Map();
    let next = 0;
    const call = (message) =>
      new Promise((ok, fail) => {
        const id = next++;
        pending.set(id, { ok, fail });
        worker.postMessage({ id, ...message });
      });
    worker.onmessage = ({ data }) => {
      const p = pending.get(data.id);
      pending.delete(data.id);
      if (data.error) p.fail(new Error(data.error));
      else p.ok(data);
    };
    const failed = new Promise((_, fail) => (worker.onerror = (e) => fail(new Error(e.message || "the worker failed to load"))));
    const { threads } = await Promise.race([call({ size }), failed]);
    state.pool = { call, threads };
    status.textContent =
      `Threaded: a pool of ${threads} workers (exporace/threads in a Web Worker; the page is cross-origin isolated).`;
    status.dataset.mode = "threaded";
    status.dataset.threads = String(threads);
  } catch (e) {
    status.textContent = `Running on one thread: the threaded build did not start (${e.message}).`;
    status.dataset.mode = "single";
  }
}

// ---- probabilities ---------------------------------------------------------

/**
 * The values of number fields, each within its own `min` and `max` (and a
 * whole number where its `step` is whole), or null when one is not: that
 * field is marked invalid and `errorId` says which and why. Nothing is
 * clamped or replaced.
 */
function checkedNumbers(ids, errorId) {
  const problems = [];
  const values = {};
  for (const id of ids) {
    const el = $(id);
    const v = el.valueAsNumber;
    const whole = !el.step || (Number.isInteger(Number(el.step)) && Number(el.step) >= 1);
    const min = el.min === "" ? -Infinity : Number(el.min);
    const max = el.max === "" ? Infinity : Number(el.max);
    const ok = Number.isFinite(v) && v >= min && v <= max && (!whole || Number.isInteger(v));
    el.setAttribute("aria-invalid", String(!ok));
    if (ok) values[id] = v;
    else {
      const name = el.closest("label")?.firstChild?.textContent.trim() || id;
      const shown = el.validity.badInput || el.value === "" ? "not a number" : el.value;
      problems.push(`${name} must be ${whole ? "a whole number" : "a number"} from ${el.min} to ${el.max} (got ${shown})`);
    }
  }
  $(errorId).textContent = problems.length ? `${problems.join("; ")}. Nothing changed.` : "";
  return problems.length ? null : values;
}

/** The preset's parameters from its visible fields, or null when one is not valid. */
function presetParams() {
  const visible = ["tails", "gap", "vocab", "zipf", "temperature"].filter((id) => !$(id).closest("label").hidden);
  const v = checkedNumbers(visible, "preset-error");
  if (!v) return null;
  const at = (id, fallback) => v[id] ?? Number($(id).value) ?? fallback;
  return { vocab: at("vocab"), zipf: at("zipf"), tails: at("tails"), gap: at("gap"), temperature: at("temperature") };
}

function loadPreset(redraw = true) {
  const name = $("preset").value;
  for (const [id, presets] of [["tails", ["many-tail"]], ["gap", ["many-tail"]], ["vocab", ["uniform", "zipf"]], ["zipf", ["zipf"]]]) {
    $(id).closest("label").hidden = !presets.includes(name);
  }
  const params = presetParams();
  if (!params) return;
  state.params = params;
  const p = buildPreset(ex, name, params);
  setWeights(p.weights, p.noise ?? null, name);
  $("about").textContent = p.about;
  if (redraw) refresh();
}

/**
 * Pasted numbers as weights, checked before anything changes: each must be a
 * finite f32, and the core's race must accept them (no NaN, no negative).
 */
function pastedWeights(values) {
  const weights = Float32Array.from(values);
  const big = weights.findIndex((w) => !Number.isFinite(w));
  if (big >= 0) throw new Error(`entry ${big}: ${values[big]} is beyond the largest f32 (3.4028235e38)`);
  ex.raceMul(weights, new Float32Array(weights.length).fill(1));
  return weights;
}

function applyPaste(redraw = true) {
  $("paste-error").textContent = "";
  let weights;
  let values;
  try {
    values = parseNumbers($("paste").value);
    if ($("paste-logits").checked) {
      const t = checkedNumbers(["temperature"], "paste-error");
      if (!t) return;
      weights = fromLogits(ex, values, t.temperature);
    } else weights = pastedWeights(values);
  } catch (e) {
    $("paste-error").textContent = `${e.message}. Nothing changed.`;
    return;
  }
  setWeights(weights, null, "pasted");
  $("about").textContent = `${values.length} pasted ${$("paste-logits").checked ? "logits" : "weights"}.`;
  if (redraw) refresh();
}

/** New weights (and inline noise or null): clears every edit and rebuilds the sliders. */
function setWeights(weights, noise, preset) {
  state.baseWeights = weights;
  state.baseNoise = noise;
  state.preset = preset;
  state.npyNoise = false;
  state.edits = [];
  state.weightEdits = [];
  if (preset !== "imported") state.imported = null;
  applyWeights();
  buildSliders();
}

/** The weights the views race: the base weights with the sliders' values. */
function applyWeights() {
  const w = state.baseWeights.slice();
  state.weightEdits = state.weightEdits.filter(([t]) => t < w.length);
  for (const [t, v] of state.weightEdits) w[t] = v;
  state.weights = w;
  $("weight-edits").textContent = state.weightEdits.length
    ? `Weights set by the sliders: ${state.weightEdits.map(([t]) => `token ${t} = ${fmt32(w[t])}`).join("; ")}`
    : "";
}

/** How many tokens get a slider. */
const SLIDERS = 6;

/** One slider per token from "First token": the position is log10 of the weight (the input the slider builds). */
function buildSliders() {
  const n = state.weights.length;
  const start = Math.max(0, Math.min(num("slider-start") | 0, n - 1));
  const tokens = Array.from({ length: Math.min(SLIDERS, n - start) }, (_, k) => start + k);
  $("sliders").innerHTML = tokens
    .map((t) => {
      const w = state.weights[t];
      const pos = w > 0 ? Math.min(1, Math.max(-12, Math.log10(w))) : -12;
      return `<label>token ${t} <input type="range" id="slider-${t}" data-token="${t}" min="-12" max="1" step="0.01" ` +
        `value="${pos}" aria-label="log10 of the weight of token ${t}"> <output id="slider-out-${t}">${fmt32(w)}</output></label>`;
    })
    .join("");
  $("sliders").querySelectorAll("input").forEach((input) => {
    input.oninput = () => slide(Number(input.dataset.token), Number(input.value));
  });
}

/** A slider moved: token `t` gets weight 10^pos (rounded to f32, the weights' type). */
function slide(t, pos) {
  const w = Float32Array.of(10 ** pos)[0];
  state.weightEdits = state.weightEdits.filter(([k]) => k !== t).concat([[t, w]]);
  applyWeights();
  $(`slider-out-${t}`).textContent = fmt32(w);
  scheduleRefresh();
}

let refreshQueued = false;

/** Redraws once per animation frame however many inputs arrive (dragging). */
function scheduleRefresh() {
  if (refreshQueued) return;
  refreshQueued = true;
  requestAnimationFrame(() => {
    refreshQueued = false;
    refresh();
  });
}

// ---- importing a scenario -----------------------------------------------------

/** The operations whose weights and inline noise the page can take over. */
const IMPORTED_OPS = ["compare", "race", "overflow", "dead_zone"];

/**
 * Reads a pasted scenario (or an exported fixture's scenario): the core answers
 * it first, so a scenario it refuses is refused here with its message.
 */
function importedState(text) {
  let doc = JSON.parse(text);
  if (doc && typeof doc === "object" && doc.scenario && doc.expected) doc = doc.scenario;
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new Error("paste a JSON object: a scenario or an exported fixture");
  if (!IMPORTED_OPS.includes(doc.op)) {
    throw new Error(`the page imports ${IMPORTED_OPS.join(", ")} scenarios; this one has op ${JSON.stringify(doc.op)}`);
  }
  if (doc.form === "div") throw new Error("the page races w * inv_q (form mul); this scenario has form div");
  ask(doc);
  const names = (doc.models ?? (doc.model ? [doc.model] : [])).map((m) => {
    if (typeof m !== "string" || !modelFacts(m)) throw new Error(`the page's pipelines are catalogue names; ${JSON.stringify(m)} is not one`);
    return m;
  });
  return {
    weights: doc.weights.map(scenarioNumber),
    noise: doc.noise ?? null,
    models: names,
    seed: doc.seed ?? null,
    row: doc.row ?? null,
    nanPolicy: doc.nan_policy ?? null,
  };
}

/** Takes over an imported state: weights, inline noise, pipelines, seed, row and NaN policy. */
function applyImported(imp, redraw = true) {
  imp.models.forEach((m, i) => ($(["model-a", "model-b"][i]).value = m));
  if (imp.seed !== null) $("seed").value = String(imp.seed);
  if (imp.row !== null) $("row").value = String(imp.row);
  if (imp.nanPolicy !== null) $("nan-policy").value = imp.nanPolicy;
  state.imported = imp;
  setWeights(Float32Array.from(imp.weights), imp.noise, "imported");
  $("about").textContent =
    `An imported scenario: ${imp.weights.length} weights, ` +
    (imp.noise ? "inline noise (raced at fp64 against its fp32 cast)." : `seeded noise of ${pipelines().join(" and ")}.`);
  if (redraw) refresh();
}

function importScenario() {
  $("import-error").textContent = "";
  $("import-note").textContent = "";
  try {
    applyImported(importedState($("import-json").value));
    $("import-note").textContent = `Imported: ${state.weights.length} weights${state.noise ? " with inline noise" : ""}.`;
  } catch (e) {
    $("import-error").textContent = e.message;
  }
}

/** Takes imported weights p (`values`, any float array) for the race; `from` says where they came from. */
function importWeights(values, from) {
  setWeights(Float32Array.from(values), null, "file");
  $("about").textContent = `${values.length} weights from ${from}.`;
}

/**
 * Takes imported noise for the race, one value per weight: E (`kind` "q";
 * inv_q of each entry is the core's division race w / q at w = 1) or inv_q itself.
 */
function importNoise(values, kind) {
  if (values.length !== state.weights.length)
    throw new Error(`${kind} has ${values.length} entries; the race has ${state.weights.length} weights`);
  const scenarioText = (v) => (Number.isNaN(v) ? "nan" : v === Infinity ? "inf" : v === -Infinity ? "-inf" : v);
  const noise = kind === "inv_q"
    ? Array.from(values, scenarioText)
    : Array.from(values, (q) => {
      const score = ex.raceDiv(Float32Array.of(1), Float64Array.of(q)).winner.score;
      return score === null ? "inf" : String(score);
    });
  setWeights(state.baseWeights, noise, state.preset);
  state.npyNoise = true;
}

/** Takes imported draft distributions d ([positions, vocabulary]) for the speculative batch, when the core accepts them. */
function importDraft(values, shape) {
  const v = state.spec.target_probs[0].length, positions = state.spec.draft_token_ids.length;
  if (shape.length !== 2 || shape[0] !== positions || shape[1] !== v)
    throw new Error(`d must have shape [${positions}, ${v}], got [${shape.join(", ")}]`);
  const rows = Array.from({ length: shape[0] }, (_, t) => Array.from(values.subarray(t * v, (t + 1) * v)));
  ask({ ...state.spec, draft_probs: rows, seed: seedValue() });
  state.spec = { ...state.spec, draft_probs: rows };
  showSpecEditor();
}

/** Reads a `.npy` file in the core (exporace-io's reader) as p, q or d. */
async function importNpy() {
  $("npy-error").textContent = "";
  $("npy-note").textContent = "";
  const file = $("npy-file").files[0];
  if (!file) return;
  const role = $("npy-role").value;
  try {
    const npy = ex.readNpy(role, new Uint8Array(await file.arrayBuffer()));
    const shape = `${npy.dtype} [${npy.shape.join(", ")}]`;
    // p and q are one vector per race: a matrix is not flattened into one.
    const rows = npy.shape.slice(0, -1).reduce((a, b) => a * b, 1);
    if (role !== "d" && (npy.shape.length === 0 || rows !== 1)) {
      throw new Error(
        `${file.name} holds a ${shape} array; ${role} is one vector of a race ([V], or [1, V]). ` +
          "Import a matrix's rows as a safetensors file (below), or save one row. Nothing changed.",
      );
    }
    if (role === "p") importWeights(npy.values, `${file.name} (${shape})`);
    else if (role === "q") importNoise(npy.values, "q");
    else importDraft(npy.values, npy.shape);
    $("npy-note").textContent = `Read ${file.name} as ${role}: ${shape}.`;
    refresh();
  } catch (e) {
    $("npy-error").textContent = e.message;
  }
}

/** The tensors of the last safetensors file read, and its name. */
const safetensorsFile = { name: "", tensors: [] };

/**
 * Reads a safetensors file in the core (exporace-io's reader) and offers its
 * float tensors for p, q and d, preselecting vLLM's dump names
 * (target_probs for p, inv_q for the noise, draft_probs for d).
 */
async function readSafetensorsFile() {
  $("st-error").textContent = "";
  $("st-note").textContent = "";
  $("st-choose").hidden = true;
  const file = $("st-file").files[0];
  if (!file) return;
  let tensors;
  try {
    tensors = ex.readSafetensors(new Uint8Array(await file.arrayBuffer()));
  } catch (e) {
    $("st-error").textContent = e.message;
    return;
  }
  const floats = tensors.filter((t) => ["f16", "bf16", "f32", "f64"].includes(t.dtype));
  Object.assign(safetensorsFile, { name: file.name, tensors: floats });
  const options = (preferred) =>
    `<option value="">(none)</option>` +
    floats.map((t) => `<option value="${esc(t.name)}"${t.name === preferred ? " selected" : ""}>${esc(t.name)}: ${t.dtype} [${t.shape.join(", ")}]</option>`).join("");
  $("st-p").innerHTML = options("target_probs");
  $("st-q").innerHTML = options("inv_q");
  $("st-d").innerHTML = options("draft_probs");
  $("st-q-kind").value = "inv_q";
  $("st-note").textContent =
    `${file.name}: ${tensors.length} tensors (${tensors.map((t) => `${t.name} ${t.dtype} [${t.shape.join(", ")}]`).join("; ")}). ` +
    "Choose which feed p, the noise and d, then use them.";
  $("st-choose").hidden = false;
}

/** Row `row` of a tensor (the whole tensor when it is a vector). */
function tensorRow(t, row) {
  if (t.shape.length === 1) return t.data;
  if (t.shape.length !== 2) throw new Error(`${t.name} has shape [${t.shape.join(", ")}]; a vector or a matrix is needed`);
  const [rows, v] = t.shape;
  if (!(row >= 0 && row < rows)) throw new Error(`${t.name} has ${rows} rows; row ${row} does not exist`);
  return t.data.subarray(row * v, (row + 1) * v);
}

/** Feeds the chosen tensors of the safetensors file to p, the noise and d. */
function useSafetensors() {
  $("st-error").textContent = "";
  const pick = (id) => safetensorsFile.tensors.find((t) => t.name === $(id).value) ?? null;
  const [p, q, d] = [pick("st-p"), pick("st-q"), pick("st-d")];
  try {
    if (!p && !q && !d) throw new Error("choose at least one tensor");
    const used = [];
    if (p) {
      importWeights(tensorRow(p, num("st-p-row")), `${safetensorsFile.name}: ${p.name} row ${num("st-p-row")}`);
      used.push(`p = ${p.name}`);
    }
    if (q) {
      importNoise(tensorRow(q, num("st-q-row")), $("st-q-kind").value);
      used.push(`${$("st-q-kind").value} = ${q.name}`);
    }
    if (d) {
      importDraft(d.data, d.shape);
      used.push(`d = ${d.name}`);
    }
    $("st-note").textContent = `Using ${used.join(", ")} from ${safetensorsFile.name}.`;
    refresh();
  } catch (e) {
    $("st-error").textContent = e.message;
  }
}

// ---- the core --------------------------------------------------------------

function ask(scenario) {
  return ex.run({ exporace: 1, ...scenario });
}

/** The seed field's text when it is a seed: decimal or `0x` hex, below 2^64. */
function seedText() {
  const s = $("seed").value.trim();
  const ok = /^(\d+|0x[0-9a-fA-F]+)$/.test(s) && BigInt(s) < 2n ** 64n;
  return ok ? String(BigInt(s)) : null;
}

/** The seed (checked by refresh() before any view asks for it). */
function seedValue() {
  return seedText() ?? state.lastSeed;
}

function pipelines() {
  return [$("model-a").value, $("model-b").value];
}

function modelFacts(name) {
  return state.models.find((m) => m.name === name);
}

function showModels() {
  const rows = [
    ["lattice", (m) => m.lattice],
    ["transform", (m) => m.transform],
    ["clamp", (m) => m.clamp],
    ["smallest positive E", (m) => fmt(m.minPositiveE)],
    ["largest finite Gumbel", (m) => fmt(m.maxFiniteGumbel)],
    ["P(E = 0)", (m) => fmt(m.pZero)],
    ["P(E = inf)", (m) => fmt(m.pInfinite)],
    ["source", (m) => m.source],
  ];
  const ms = pipelines().map(modelFacts);
  $("model-facts").innerHTML =
    `<caption>Lattice facts (from the catalogue)</caption><tr><th>fact</th><th>A: ${esc(ms[0].name)} (${ms[0].precision})</th>` +
    `<th>B: ${esc(ms[1].name)} (${ms[1].precision})</th></tr>` +
    rows.map(([k, f]) => `<tr><th>${k}</th><td>${esc(f(ms[0]))}</td><td>${esc(f(ms[1]))}</td></tr>`).join("");
}

/** The core's IEEE bits of a noise value at fp64 and fp32 (rounded to nearest). */
function coreBits(value) {
  const v = ex.inspectFloat(value);
  return { bits: v.f64.bits, bits32: v.f32.bits };
}

/** Inline noise: the values with their fp64 bits and the bits of their fp32 cast, from the core. */
function showInlineDraws() {
  const start = Math.max(0, Math.min(num("start") | 0, state.noise.length - 1));
  const rows = state.noise.slice(start, start + 8).map((v, i) => ({
    token: start + i,
    value: scenarioNumber(v),
    ...coreBits(v),
  }));
  $("draws").innerHTML =
    "<caption>Inline noise inv_q (select a row to inspect its bits)</caption>" +
    "<tr><th>token</th><th>inv_q</th><th>fp64 bits</th><th>fp32 cast bits</th></tr>" +
    rows
      .map(
        (d, i) =>
          `<tr tabindex="0" data-i="${i}"><td>${d.token}</td><td>${fmt(d.value)}</td><td><code>${d.bits}</code></td>` +
          `<td><code>${d.bits32}</code></td></tr>`,
      )
      .join("");
  wireInspector(rows, "f64");
}

/** Shows the MRV2 controls only for the MRV2 address. */
function showAddress() {
  const mrv2 = $("address").value === "mrv2";
  $("mrv2-pos").closest("label").hidden = !mrv2;
  $("mrv2-draft").closest("label").hidden = !mrv2;
}

function wireInspector(draws, precision) {
  const inspect = (i) => {
    inspector.show = () => showBits(draws[i], precision, draws[i + 1] ?? draws[i - 1]);
    inspector.show();
  };
  $("draws").querySelectorAll("tr[data-i]").forEach((tr) => {
    tr.onclick = () => inspect(Number(tr.dataset.i));
    // A handler that returns false cancels the key: Tab must keep moving on.
    tr.onkeydown = (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        inspect(Number(tr.dataset.i));
      }
    };
  });
  inspect(0);
}

/** Redraws the bit inspector for the selected draw (after the "ulps to" field changes). */
const inspector = { show: () => {} };

function showDraws() {
  if (state.noise) {
    showInlineDraws();
    return;
  }
  const [a] = pipelines();
  const address = $("address").value;
  const start = Math.max(0, num("start") | 0);
  const byToken = address === "exporace" || address === "mrv2";
  const count = byToken ? Math.max(1, Math.min(8, state.weights.length - Math.min(start, state.weights.length - 1))) : 8;
  const scenario = { op: "noise", model: a, seed: seedValue(), start, count, address };
  let where = `row ${num("row") | 0}`;
  if (address === "exporace") scenario.row = num("row") | 0;
  if (address === "mrv2") {
    scenario.pos = Math.max(0, num("mrv2-pos") | 0);
    scenario.draft = $("mrv2-draft").checked;
    where = `MRV2 position ${scenario.pos}${scenario.draft ? " (draft: + 2^30)" : ""}`;
  }
  if (address === "triton") where = `Triton offsets ${start} ..`;
  if (address === "torch_cpu") where = `torch CPU generator after ${start} 32-bit values`;
  let report;
  try {
    report = ask(scenario);
  } catch (e) {
    $("draws").innerHTML = `<caption class="error">${esc(e.message)}</caption>`;
    $("inspector").innerHTML = "";
    return;
  }
  const draws = report.result.draws;
  const note = address === "exporace" ? "" : "; the race below draws at exporace's address";
  $("draws").innerHTML =
    `<caption>Draws of ${esc(a)} at seed ${esc(report.seed)}, ${esc(where)}${note} (select a row to inspect its bits)</caption>` +
    `<tr><th>${byToken ? "token" : "offset"}</th><th>raw</th><th>uniform</th><th>E or G</th><th>bits</th><th>inv_q</th><th>branch</th></tr>` +
    draws
      .map(
        (d, i) =>
          `<tr tabindex="0" data-i="${i}"><td>${d.token}</td><td>${esc(d.raw)}</td><td>${fmt(d.uniform)}</td>` +
          `<td>${fmt(d.value)}</td><td><code>${esc(d.bits)}</code></td><td>${fmt(d.invQ)}</td><td>${esc(d.branch)}</td></tr>`,
      )
      .join("");
  wireInspector(draws, report.result.model.precision);
}

/**
 * Shows a draw's value at fp32 and fp64 from the core (inspectFloat): IEEE
 * bits and fields, next up and down, and the distance in ulps to the value in
 * "ulps to" (or to `neighbour`, the next draw in the table).
 */
function showBits(draw, precision, neighbour) {
  const typed = $("inspect-other").value.trim();
  const other = typed || (neighbour ? neighbour.bits : null);
  const otherName = typed ? esc(typed) : neighbour ? `token ${neighbour.token}'s value` : null;
  let v;
  try {
    v = ex.inspectFloat(draw.bits, other);
  } catch (e) {
    $("inspector").innerHTML = `<p class="error">${esc(e.message)}</p>`;
    return;
  }
  const own = precision === "f64" ? "f64" : "f32";
  const row = (name, f) =>
    `<tr data-precision="${name}"><th>${name === "f32" ? "fp32" : "fp64"}${name === own ? "" : name === "f32" ? " (rounded)" : " (widened, exact)"}</th>` +
    `<td>${name === "f32" ? fmt32(f.value) : fmt(f.value)}</td><td><code class="bits"><span class="sign">${f.sign}</span> <span class="exp">${f.exponent}</span> ` +
    `<span class="man">${f.mantissa}</span></code><br><code>${esc(f.bits)}</code></td>` +
    `<td>${name === "f32" ? fmt32(f.nextDown.value) : fmt(f.nextDown.value)}<br><code>${esc(f.nextDown.bits)}</code></td>` +
    `<td>${name === "f32" ? fmt32(f.nextUp.value) : fmt(f.nextUp.value)}<br><code>${esc(f.nextUp.bits)}</code></td>` +
    `<td class="ulps">${f.ulpsToOther ?? "n/a"}</td></tr>`;
  $("inspector").innerHTML =
    `<table class="facts" id="bits-table"><caption>Bit inspector: token ${draw.token}, value ${fmt(draw.value)} (${precision}); ` +
    "sign, exponent and mantissa bits; neighbours one representable step away</caption>" +
    `<tr><th>precision</th><th>value</th><th>bits</th><th>next down</th><th>next up</th><th>ulps to ${otherName ?? "another value"}</th></tr>` +
    row("f32", v.f32) + row("f64", v.f64) + "</table>";
}

// ---- editing draws -------------------------------------------------------------

/** The largest vocabulary whose seeded noise is turned into inline noise for editing. */
const MAX_EDITED_VOCAB = 4096;

/**
 * The noise the views race: the preset's inline noise, or with edits, that
 * noise (or pipeline B's seeded draws, from the core) with the edited entries.
 */
function effectiveNoise() {
  if (!state.edits.length) return state.baseNoise;
  let noise = state.baseNoise;
  if (!noise) {
    const n = state.weights.length;
    if (n > MAX_EDITED_VOCAB) throw new Error(`draws can be edited for up to ${MAX_EDITED_VOCAB} tokens; this race has ${n}`);
    const [, b] = pipelines();
    noise = ask({ op: "noise", model: b, seed: seedValue(), row: num("row") | 0, start: 0, count: n }).result.draws.map((d) => d.invQ);
  }
  noise = noise.slice();
  for (const [token, value] of state.edits) noise[token] = value;
  return noise;
}

/** The token of the draw editor, or null (with the error shown) when it is out of range. */
function editedToken() {
  $("edit-error").textContent = "";
  const token = num("edit-token") | 0;
  if (token < 0 || token >= state.weights.length) {
    $("edit-error").textContent = `token must be in [0, ${state.weights.length})`;
    return null;
  }
  return token;
}

/** Sets inv_q of one token (E = 0 is inv_q = inf; E = 2^-24 is inv_q = 2^24); `note` says where it came from. */
function editDraw(value, note = null, token = editedToken()) {
  if (token === null) return;
  state.edits = state.edits.filter(([t]) => t !== token).concat([note ? [token, value, note] : [token, value]]);
  if (!note) $("u-draw").innerHTML = "";
  refresh();
}

/** Sets E of one token: inv_q is the score of the core's division race of weight 1 against q = E, written as the shortest decimal of that f64. */
function editExponential() {
  const token = editedToken();
  if (token === null) return;
  const text = $("edit-e").value.trim();
  let winner;
  try {
    winner = ex.raceDiv(Float32Array.of(1), Float64Array.of(text === "" ? NaN : scenarioNumber(text))).winner;
  } catch (e) {
    $("edit-error").textContent = e.message;
    return;
  }
  $("u-draw").innerHTML = "";
  // The score is the f64 inv_q (null for inf, which the scenario format spells "inf").
  editDraw(winner.score === null ? "inf" : String(winner.score), `E = ${text}: inv_q bits ${winner.bits}`, token);
}

/** Sets u of one token: pipeline B's model puts it on its lattice and computes E and inv_q (transformUniform). */
function editUniform() {
  const token = editedToken();
  if (token === null) return;
  const [, b] = pipelines();
  const text = $("edit-u").value.trim();
  let out;
  try {
    out = ex.transformUniform(b, null, { uniform: text === "" ? NaN : Number(text) });
  } catch (e) {
    $("edit-error").textContent = e.message;
    return;
  }
  const d = out.draws[0];
  // f32 values come as their shortest f32 decimal: keep the exact f32 value.
  const exact = (v) => (typeof v === "number" && out.model.precision === "f32" ? Float32Array.of(v)[0] : v);
  const invQ = String(exact(d.invQ));
  $("u-draw").innerHTML =
    `<table class="facts" id="u-table"><caption>Token ${token} under ${esc(b)} (${out.model.precision}): ${esc(out.model.transform)}</caption>` +
    "<tr><th>u asked</th><th>lattice integer</th><th>u on the lattice</th><th>E</th><th>bits of E</th><th>inv_q</th><th>branch</th></tr>" +
    `<tr><td>${esc(text)}</td><td>${esc(d.raw)}</td><td id="u-uniform">${fmt(d.uniform)}</td><td id="u-e">${fmt(d.e)}</td>` +
    `<td><code>${esc(d.bits)}</code></td><td id="u-invq">${fmt(d.invQ)}</td><td id="u-branch">${esc(d.branch)}</td></tr></table>`;
  editDraw(invQ, `u = ${fmt(d.uniform)} under ${b}: E = ${fmt(d.e)}, ${d.branch}`, token);
}

// ---- race ------------------------------------------------------------------

/** A number of the scenario format (a number, "inf", "-inf", "nan", a decimal or IEEE bits "0x…") as a JS number, read by the core. */
function scenarioNumber(v) {
  return typeof v === "number" ? v : ex.inspectFloat(v).f64.value;
}

/** Inline noise as numbers in both precisions (the fp32 cast is the CPU shim's). */
function inlineNoise() {
  const f64 = Float64Array.from(state.noise, scenarioNumber);
  return { f64, f32: Float32Array.from(f64) };
}

/** The core's race of one token: its score and the score's bits. */
function coreRace(weight, invQ) {
  return ex.raceMul(Float32Array.of(weight), invQ).winner;
}

/** One token's score, computed by the core's race on that token alone. */
function coreScore(weight, invQ) {
  return coreRace(weight, invQ).score;
}

function scoreLabel(v) {
  return Number.isNaN(v) ? "nan" : v === Infinity ? "inf" : v;
}

function showCompare() {
  const [a, b] = pipelines();
  const weights = Array.from(state.weights);
  const policy = $("nan-policy").value;
  const scenario = state.noise
    ? { op: "compare", nan_policy: policy, weights, noise: state.noise }
    : { op: "compare", nan_policy: policy, weights, models: [a, b], seed: seedValue(), row: num("row") | 0 };
  let report;
  try {
    report = ask(scenario);
    state.lastScenario = { exporace: 1, ...scenario };
    state.lastReport = report;
  } catch (e) {
    $("compare-summary").innerHTML = `<p class="error">${esc(e.message)}</p>`;
    $("score-chart").hidden = true;
    return null;
  }
  $("score-chart").hidden = false;
  const r = report.result;
  $("compare-summary").innerHTML = compareHtml(r);
  drawRaceScores(r);
  return r;
}

/**
 * A compare answer as text: the flip (or not), the exact winner, both races
 * and the tokens whose standing differs. `suffix` keeps element ids apart.
 */
function compareHtml(r, suffix = "") {
  const line = (name, race) =>
    `<tr><th>${esc(name)}</th><td>token ${race.winner.token}</td><td>${fmt(race.winner.score)}</td>` +
    `<td><code>${esc(race.winner.bits)}</code></td><td>${race.runnerUp ? race.runnerUp.token : "none"}</td>` +
    `<td>${race.marginUlps ?? "n/a"}</td></tr>`;
  const flip = r.flipped
    ? `<p id="flip${suffix}" class="flip" data-flipped="true">Flip: ${esc(r.aName)} picks token ${r.a.winner.token}, ` +
      `${esc(r.bName)} picks token ${r.b.winner.token}. Exact winner: token <span id="exact-winner${suffix}">${r.exactWinner}</span>.</p>`
    : `<p id="flip${suffix}" data-flipped="false">No flip: both pick token ${r.a.winner.token}. Exact winner: token ` +
      `<span id="exact-winner${suffix}">${r.exactWinner}</span>.</p>`;
  const differing = r.differing.length
    ? `<p>Tokens whose standing against the exact winner differs (closest first): ` +
      r.differing.slice(0, 8).map((d) => `token ${d.token} (log gap ${fmt(d.logGap)} nats)`).join(", ") + "</p>"
    : "";
  return (
    flip +
    `<table class="facts" id="compare-table${suffix}"><tr><th>pipeline</th><th>winner</th><th>score</th><th>bits</th><th>runner-up</th><th>margin (ulps)</th></tr>` +
    line(r.aName, r.a) + line(r.bName, r.b) + "</table>" + differing
  );
}

/** Scores of the winners, runner-ups, differing tokens and the first tokens, in both pipelines. */
function drawRaceScores(r) {
  const n = state.weights.length;
  const tokens = new Set([r.a.winner.token, r.b.winner.token]);
  for (const race of [r.a, r.b]) if (race.runnerUp) tokens.add(race.runnerUp.token);
  r.differing.slice(0, 6).forEach((d) => tokens.add(d.token));
  for (let t = 0; tokens.size < Math.min(n, 16); t++) tokens.add(t);
  const list = [...tokens].sort((x, y) => x - y);
  let rows;
  if (state.noise) {
    const { f64, f32 } = inlineNoise();
    rows = list.map((t) => ({
      token: t,
      a: scoreLabel(coreScore(state.weights[t], Float64Array.of(f64[t]))),
      b: scoreLabel(coreScore(state.weights[t], Float32Array.of(f32[t]))),
    }));
  } else {
    const draw = (model, t) => {
      const d = ask({ op: "noise", model, seed: seedValue(), row: num("row") | 0, start: t, count: 1 }).result;
      const v = d.draws[0].invQ === "inf" ? Infinity : Number(d.draws[0].invQ);
      return d.model.precision === "f64" ? Float64Array.of(v) : Float32Array.of(v);
    };
    const [a, b] = pipelines();
    rows = list.map((t) => ({
      token: t,
      a: scoreLabel(coreScore(state.weights[t], draw(a, t))),
      b: scoreLabel(coreScore(state.weights[t], draw(b, t))),
    }));
  }
  const highlight = new Set(r.differing.map((d) => d.token));
  if (r.flipped) [r.a.winner.token, r.b.winner.token].forEach((t) => highlight.add(t));
  drawScores($("score-chart"), rows, {
    title: "scores w × inv_q of the winners, runner-ups, differing and first tokens",
    nameA: r.aName,
    nameB: r.bName,
    precisionA: r.a.precision,
    precisionB: r.b.precision,
    winnerA: r.a.winner.token,
    winnerB: r.b.winner.token,
    highlight,
  });
}

function showOverflow() {
  const out = $("overflow-out");
  if (!state.noise) {
    out.innerHTML =
      "<p>Overflow anatomy runs on inline noise: pick the q = 0 overflow or near-tie preset. " +
      `The seeded pipelines here give E = 0 with probability ${fmt(modelFacts(pipelines()[0]).pZero)} (A) and ` +
      `${fmt(modelFacts(pipelines()[1]).pZero)} (B) per draw.</p>`;
    return;
  }
  const policy = $("nan-policy").value;
  const r = ask({ op: "overflow", precision: "f32", form: "mul", weights: Array.from(state.weights), noise: state.noise }).result;
  const entries = r.entries.length
    ? "<table class='facts' id='overflow-entries'><tr><th>token</th><th>weight</th><th>inv_q</th><th>mark</th></tr>" +
      r.entries
        .map(
          (e) =>
            `<tr class="${e.scoreNan ? "nan" : "inf"}"><td>${e.token}</td><td>${fmt(e.weight)}</td><td>${esc(e.noise)}</td>` +
            `<td>${e.scoreNan ? "score NaN (0 × inf)" : e.scoreInf ? "score inf" : "q = 0"}</td></tr>`,
        )
        .join("") + "</table>"
    : "<p>No entry overflows: every q is positive and every score finite.</p>";
  const picks = r.picks
    .map((p) => {
      const chosen = p.policy === policy ? " class='chosen'" : "";
      const what = p.race ? `token ${p.race.winner.token} (score ${esc(p.race.winner.score)})` : `error: ${esc(p.error)}`;
      return `<tr${chosen} data-policy="${p.policy}"><th>${p.policy}</th><td>${what}</td></tr>`;
    })
    .join("");
  const mine = r.picks.find((p) => p.policy === policy);
  out.innerHTML =
    entries +
    `<table class="facts" id="overflow-picks"><caption>What each NaN policy picks (fp32 scores)</caption>${picks}</table>` +
    `<p id="policy-pick">Under ${policy}: ${mine.race ? `token ${mine.race.winner.token} wins` : esc(mine.error)}.</p>`;
}

// ---- theory ------------------------------------------------------------------

/** The most distinct weights for which exact probabilities are computed (the cost grows with their square). */
const MAX_GROUPS = 8;

/** Runs of equal weights in token order: the groups of the exact computation. */
function weightGroups(weights) {
  const w = [], c = [];
  for (const v of weights) {
    if (w.length && w[w.length - 1] === v) c[c.length - 1]++;
    else {
      w.push(v);
      c.push(1);
    }
  }
  return { weights: Float64Array.from(w), counts: Float64Array.from(c) };
}

function theoryModels() {
  return [...new Set(["ideal", ...pipelines()])];
}

/** The theory worker; each kind of request keeps only its latest answer. */
const theory = { worker: null, latest: {}, next: 0, handlers: new Map() };

function askTheory(kind, request, onAnswer) {
  theory.worker ??= moduleWorker("theory-worker.mjs");
  theory.worker.onmessage = ({ data }) => {
    const h = theory.handlers.get(data.id);
    theory.handlers.delete(data.id);
    if (!h || theory.latest[h.kind] !== data.id) return;
    try {
      h.onAnswer(data);
    } catch (e) {
      // Drawing an answer failed: say so where the answer would have gone.
      h.onAnswer({ error: `could not show this answer: ${e.message}` });
    }
  };
  const id = ++theory.next;
  theory.latest[kind] = id;
  theory.handlers.set(id, { kind, onAnswer });
  theory.worker.postMessage({ id, [kind]: request });
}

function showExact() {
  const groups = weightGroups(state.weights);
  const out = $("exact-out");
  if (groups.weights.length > MAX_GROUPS) {
    theory.latest.exact = null;
    out.innerHTML = `<p>Exact probabilities are computed for up to ${MAX_GROUPS} distinct weights; this race has ` +
      `${groups.weights.length}. The many-tail, near-tie and overflow presets fit.</p>`;
    return;
  }
  const models = theoryModels();
  out.innerHTML = "<p>Computing the exact probabilities…</p>";
  askTheory("exact", { models, ...groups }, ({ results, error }) => {
    if (error) {
      out.innerHTML = `<p class="error">${esc(error)}</p>`;
      return;
    }
    const head = models.map((m, i) => `<th>P(win) under ${esc(m)} (${results[i].precision})</th>`).join("");
    let first = 0;
    const rows = Array.from(groups.weights, (w, g) => {
      const n = groups.counts[g];
      const ids = n > 1 ? `${first} .. ${first + n - 1}` : String(first);
      first += n;
      return `<tr data-group="${g}"><td>${ids}</td><td>${fmt(w)}</td><td>${n}</td>` +
        results.map((r, i) => `<td id="exact-${g}-${i}" title="bracket [${r.groups[g].lower}, ${r.groups[g].upper}]">` +
          `${fmtBounded(r.groups[g].probability, r.groups[g].lower, r.groups[g].upper)}</td>`).join("") + "</tr>";
    });
    out.innerHTML = `<table class="facts" id="exact-table"><tr><th>tokens</th><th>weight</th><th>count</th>${head}</tr>${rows.join("")}</table>` +
      `<p>Largest distance from an estimate to the exact value: ${results.map((r, i) => `${esc(models[i])} ${fmt(r.maxBound)}`).join(", ")}.</p>`;
  });
}

/**
 * The guide's numbers: the many-tail tails' exact win probability under fp32
 * and fp64 torch CUDA, and the dead zone's edge. The head and the tails are
 * asked about as two groups, so they stay apart even when they weigh the
 * same (gap 0).
 */
function showGuide() {
  const many = state.preset === "many-tail";
  $("guide-other").hidden = many;
  if (!many) return;
  const { tails, gap, temperature } = state.params;
  const models = theoryModels();
  // Until this gap's answer arrives, no number of another gap stands next to it.
  $("guide-f32").textContent = $("guide-f64").textContent = "…";
  askTheory("guide", { models, ...manyTailGroups(ex, tails, gap, temperature) }, ({ results, error }) => {
    const probability = (model) => {
      const i = models.indexOf(model);
      if (error) return `… (${error})`;
      const g = results[i]?.groups[1];
      return i < 0 ? "… (choose it as a pipeline)" : fmtBounded(g.probability, g.lower, g.upper);
    };
    $("guide-f32").textContent = probability("torch-cuda-f32");
    $("guide-f64").textContent = probability("torch-cuda-f64");
  });
  $("guide-gap").textContent = $("guide-gap-intro").textContent = String(gap);
  $("guide-tails").textContent = String(tails);
  const dead = ask({ op: "dead_zone", model: "torch-cuda-f32", weights: Array.from(state.weights.subarray(0, 2)) }).result;
  // The words follow the core's answer: are the tails (token 1 on) in the dead zone at this gap?
  const inside = dead.count > 0;
  $("guide-where").innerHTML = inside
    ? "every tail sits in the shaded <strong>dead zone</strong> of torch CUDA's fp32 noise"
    : "at this gap the tails sit above the <strong>dead zone</strong> of torch CUDA's fp32 noise, so they can win";
  $("guide-verdict").textContent = inside
    ? "fp32 loses that whole share."
    : "Both precisions give the tails a share here; widen the gap past the dead zone's edge to see fp32's vanish.";
  $("guide-threshold").textContent = fmt(dead.threshold);
  $("guide-emin").textContent = fmt(dead.eMin);
  $("guide-emax").textContent = fmt(dead.eMax);
}

const curve = { key: null, series: null };

/** The many-tail curve: the tails' exact win probability against the gap under each model, computed in the worker. */
function showTailCurve() {
  const canvas = $("exact-chart");
  const on = state.preset === "many-tail";
  canvas.hidden = !on;
  $("gap-slider").closest("label").hidden = !on;
  if (!on) return;
  const { tails, temperature, gap } = state.params;
  $("gap-slider-out").textContent = `${gap} nats`;
  const models = theoryModels();
  // Colour by precision, as every view: the ideal reference grey and dashed,
  // a second model of a precision already drawn dashed.
  const style = (name, seen) => {
    if (name === "ideal") return { color: IDEAL_COLOR, dashed: true };
    const p = modelFacts(name).precision;
    const dashed = seen.has(p);
    seen.add(p);
    return { color: PRECISION_COLOR[p], dashed };
  };
  // Drawn by the exporace-viz crate (plotters on this canvas), at the canvas's CSS size.
  const draw = () => {
    // The answer may arrive after the preset changed and the canvas was hidden.
    if (!canvas.clientWidth || !canvas.clientHeight) return;
    canvas.width = canvas.clientWidth;
    canvas.height = canvas.clientHeight;
    const seen = new Set();
    ex.drawCurves(canvas, {
      title: `P(one of ${tails} tails wins), exact`,
      xLabel: `gap (nats) between the head and the tails`,
      yLabel: "probability",
      yFloor: 1e-12,
      marker: gap,
      series: curve.series.map((s) => ({ ...s, ...style(s.name, seen) })),
    });
    canvas.dataset.drawn = curve.key;
    // Where a curve stops falling, and why, from the models' documented facts.
    $("curve-floors").textContent = curve.series.map(({ name }) => {
      const f = modelFacts(name);
      return f.pZero > 0
        ? `${name} levels off far down: a tail there wins only by drawing E = 0, which each token does with probability ${fmt(f.pZero)}.`
        : `${name} drops to 0 once even its smallest E, ${fmt(f.minPositiveE)}, cannot lift a tail over the head (its dead zone).`;
    }).join(" ");
    // The same numbers as a table, for screen readers (and for reading back).
    $("exact-chart-data").innerHTML =
      `<caption>P(one of ${tails} tails wins), exact, by gap</caption><tr><th>gap (nats)</th>` +
      curve.series.map((s) => `<th>${esc(s.name)}</th>`).join("") + "</tr>" +
      curve.series[0].points.map(([gap], k) =>
        `<tr data-gap="${gap}"><td>${gap}</td>${curve.series.map((s) => `<td>${fmt(s.points[k][1])}</td>`).join("")}</tr>`).join("");
  };
  const key = JSON.stringify([tails, temperature, models]);
  // The same curve, drawn or still being computed, is not asked for again:
  // each costs the worker a second or two, and repeated asks queued up ahead
  // of the guide's and the table's answers.
  if (curve.key === key) return curve.series ? draw() : undefined;
  curve.key = key;
  curve.series = null;
  delete canvas.dataset.drawn;
  // Fine where the curves bend (the fp32 floors' edges, 16.6 and 21.5 nats),
  // coarse where they are straight on the log axis.
  const gaps = [
    ...Array.from({ length: 12 }, (_, i) => i),
    ...Array.from({ length: 48 }, (_, i) => 12 + i / 4),
    ...Array.from({ length: 9 }, (_, i) => 24 + 2 * i),
  ];
  askTheory("curve", { models, gaps, tails, temperature }, ({ series, error }) => {
    if (error) {
      $("exact-out").insertAdjacentHTML("beforeend", `<p class="error">${esc(error)}</p>`);
      return;
    }
    curve.series = series;
    draw();
  });
}

// ---- dead zone -------------------------------------------------------------

function showDeadZone() {
  const weights = Array.from(state.weights);
  const rows = pipelines().map((model) => ({ model, r: ask({ op: "dead_zone", model, weights }).result }));
  $("dead-zone").innerHTML =
    "<tr><th>model</th><th>dead tokens</th><th>lost mass (share of the weight)</th><th>weight threshold</th><th>E min</th><th>E max</th></tr>" +
    rows
      .map(
        ({ model, r }, i) =>
          `<tr><th>${esc(model)}</th><td id="dead-count-${"ab"[i]}">${r.count}</td><td id="dead-mass-${"ab"[i]}">${fmt(r.mass)}</td>` +
          `<td>${fmt(r.threshold)}</td><td>${fmt(r.eMin)}</td><td>${fmt(r.eMax)}</td></tr>`,
      )
      .join("");
  return rows[0].r;
}

// ---- experiment ------------------------------------------------------------------

/** The largest vocabulary of the race sampler's experiments. */
const MAX_EXPERIMENT_VOCAB = 4096;

const experiment = { worker: null };

function experimentInputs(sampler) {
  if (sampler !== "race") {
    return { target: Float32Array.from(EXPERIMENT_STEP.target), draft: Float32Array.from(EXPERIMENT_STEP.draft) };
  }
  if (state.weights.length > MAX_EXPERIMENT_VOCAB) {
    throw new Error(`the race sampler runs on up to ${MAX_EXPERIMENT_VOCAB} tokens; this race has ${state.weights.length}`);
  }
  return { target: state.weights, draft: null };
}

/** Ends a worker run and gives its controls back (`${prefix}-run`, `-cancel` and `-status`). */
function stopRun(run, prefix, status) {
  run.worker?.terminate();
  run.worker = null;
  // Keyboard users keep their place: focus leaves the disabled Cancel for Run.
  const hadFocus = document.activeElement === $(`${prefix}-cancel`);
  $(`${prefix}-run`).disabled = false;
  $(`${prefix}-cancel`).disabled = true;
  $(`${prefix}-status`).textContent = status;
  if (hadFocus) $(`${prefix}-run`).focus();
}

/** Starts a worker run's controls: Run disabled, Cancel enabled and focused when Run had the focus. */
function startRun(prefix) {
  const hadFocus = document.activeElement === $(`${prefix}-run`);
  $(`${prefix}-run`).disabled = true;
  $(`${prefix}-cancel`).disabled = false;
  if (hadFocus) $(`${prefix}-cancel`).focus();
}

function stopExperiment(status) {
  stopRun(experiment, "exp", status);
}

function startExperiment() {
  const sampler = $("exp-sampler").value;
  const model = pipelines()[0];
  const checked = checkedNumbers(["exp-trials"], "exp-status");
  if (!checked) return;
  const trials = checked["exp-trials"];
  let inputs;
  try {
    inputs = experimentInputs(sampler);
  } catch (e) {
    $("exp-status").textContent = e.message;
    return;
  }
  const seed = Number(seedValue());
  $("exp-out").innerHTML = "";
  $("exp-chart").hidden = true;
  $("exp-progress").value = 0;
  startRun("exp");
  $("exp-status").textContent = `Running ${trials} trials under ${model}…`;
  const worker = moduleWorker("experiment-worker.mjs");
  experiment.worker = worker;
  const started = performance.now();
  worker.onmessage = ({ data }) => {
    if (data.progress !== undefined) {
      $("exp-progress").value = data.progress;
      // The time left at the rate so far, once there is a rate to go by.
      const elapsed = (performance.now() - started) / 1000;
      if (data.progress > 0.02 && data.progress < 1 && elapsed > 0.5) {
        const left = (elapsed * (1 - data.progress)) / data.progress;
        $("exp-status").textContent =
          `Running ${trials} trials under ${model}: ${Math.round(data.progress * 100)}%, ` +
          `about ${left < 90 ? `${Math.ceil(left)} s` : `${Math.ceil(left / 60)} min`} left.`;
      }
      return;
    }
    if (data.error) return stopExperiment(`The experiment failed: ${data.error}`);
    stopExperiment(`Done: ${trials} trials under ${model}.`);
    showExperiment(data.report, sampler, model);
  };
  worker.onerror = (e) => stopExperiment(`The experiment failed: ${e.message}`);
  worker.postMessage({ model, ...inputs, options: { sampler, trials, seed, nanPolicy: $("nan-policy").value } });
}

function showExperiment(r, sampler, model) {
  const cats = r.categories;
  $("exp-out").innerHTML =
    `<table class="facts" id="exp-summary"><tr><th>trials</th><th>chi-square</th><th>df</th><th>p-value</th>` +
    `<th>max |z|</th><th>TV to expectation</th><th>TV to target</th><th>impossible seen</th></tr>` +
    `<tr><td>${r.trials}</td><td>${fmt(r.chiSquare)}</td><td>${r.df}</td><td>${fmt(r.pValue)}</td><td>${fmt(r.maxAbsZ)}</td>` +
    `<td>${fmt(r.tvDistance)}</td><td>${fmt(r.tvToTarget)}</td><td>${r.impossibleSeen}</td></tr></table>` +
    (sampler === "rejection_shared"
      ? "<p>Shared noise: the expectation is the target itself (what an unbiased sampler gives); the distance to it is the measured bias.</p>"
      : "") +
    `<details><summary>${cats.length} categories</summary><table class="facts" id="exp-categories"><tr><th>tokens</th>` +
    "<th>expected probability</th><th>observed</th><th>z</th></tr>" +
    cats
      .slice(0, 200)
      .map((c) => `<tr><td>${c.tokens > 1 ? `${c.first} .. ${c.first + c.tokens - 1}` : c.first}</td><td>${fmt(c.expected)}</td>` +
        `<td>${c.observed}</td><td>${fmt(c.z)}</td></tr>`)
      .join("") +
    "</table></details>";
  const canvas = $("exp-chart");
  canvas.hidden = false;
  // Observed counts beside the exact expected counts, per category.
  const shown = cats.slice(0, 64);
  drawHistogram(canvas, shown, {
    title: `${r.trials} trials under ${model}: observed counts against the exact expectation`,
    flagged: shown.flatMap((c, i) => (Math.abs(c.z) > 4 ? [i] : [])),
  });
}

// ---- speculative decoding ---------------------------------------------------

/** The fields of the speculative batch the editor shows. */
const SPEC_FIELDS = ["cu_num_draft_tokens", "draft_token_ids", "target_probs", "draft_probs", "bonus_probs", "uniform"];

/** The largest vocabulary whose probabilities the form shows as fields (larger: the JSON editor). */
const MAX_FORM_VOCAB = 16;

/** Writes the batch into the form and the JSON editor (one field per line). */
function showSpecEditor() {
  $("spec-batch").value = "{\n" + SPEC_FIELDS.filter((f) => f in state.spec)
    .map((f) => `  "${f}": ${JSON.stringify(state.spec[f])}`).join(",\n") + "\n}";
  showSpecForm();
}

/** One labelled number field of the form; `field`, `t` and `x` say which entry of the batch it edits. */
function specInput(label, field, t, x, value, attrs = "") {
  const xAttr = x === null ? "" : ` data-x="${x}"`;
  return `<input type="number" class="spec-field" aria-label="${esc(label)}" data-field="${field}" data-t="${t}"${xAttr} ` +
    `value="${esc(value)}" ${attrs}>`;
}

/** The batch as a form: per request its draft positions (token, p, d, u) and its bonus probabilities. */
function showSpecForm() {
  const s = state.spec, v = s.target_probs[0].length, cu = s.cu_num_draft_tokens;
  const small = v <= MAX_FORM_VOCAB, hasD = Array.isArray(s.draft_probs), hasU = Array.isArray(s.uniform);
  const probs = (what, field, t, row, who) =>
    `<span class="probs">${row.map((p, x) => specInput(`${who}: ${what}(${x})`, field, t, x, p, 'step="0.01" min="0" max="1"')).join("")}</span>`;
  let html = small ? "" : `<p>The vocabulary has ${v} tokens: edit p, d and the bonus probabilities in the JSON below.</p>`;
  cu.forEach((end, b) => {
    const first = b ? cu[b - 1] : 0;
    html += `<fieldset class="spec-request" data-b="${b}"><legend>Request ${b}: ${end - first} draft${end - first === 1 ? "" : "s"}</legend>` +
      `<table class="facts"><tr><th>position</th><th>draft token id</th>` +
      (small ? `<th>target p(0 .. ${v - 1})</th>${hasD ? `<th>draft d(0 .. ${v - 1})</th>` : ""}` : "") +
      (hasU ? "<th>uniform u</th>" : "") + "</tr>";
    for (let t = first; t < end; t++) {
      const who = `request ${b} position ${t - first}`;
      html += `<tr><th scope="row">${t - first}</th><td>${specInput(`${who}: draft token id`, "draft_token_ids", t, null, s.draft_token_ids[t], `min="0" max="${v - 1}" step="1"`)}</td>` +
        (small ? `<td>${probs("target p", "target_probs", t, s.target_probs[t], who)}</td>` +
          (hasD ? `<td>${probs("draft d", "draft_probs", t, s.draft_probs[t], who)}</td>` : "") : "") +
        (hasU ? `<td>${specInput(`${who}: uniform u`, "uniform", t, null, s.uniform[t], 'step="0.01" min="0" max="1"')}</td>` : "") + "</tr>";
    }
    html += "</table>";
    if (small) html += `<p>Bonus probabilities: ${probs("bonus p", "bonus_probs", b, s.bonus_probs[b], `request ${b}`)}</p>`;
    html += `<button type="button" data-act="add" data-b="${b}">Add a draft to request ${b}</button> ` +
      `<button type="button" data-act="remove" data-b="${b}"${end === first ? " disabled" : ""}>Remove request ${b}'s last draft</button></fieldset>`;
  });
  html += `<p><label><input type="checkbox" id="spec-set-u"${hasU ? " checked" : ""}> Set the acceptance uniforms u by hand (else they are seeded)</label></p>`;
  $("spec-form").innerHTML = html;
}

/** Takes `spec` when the core accepts it (its message is shown otherwise); true when taken. */
function takeSpec(spec) {
  $("spec-error").textContent = "";
  try {
    ask({ ...spec, seed: seedValue() });
  } catch (e) {
    $("spec-error").textContent = e.message;
    return false;
  }
  state.spec = spec;
  return true;
}

/** A field of the form changed: the batch with that one entry replaced. */
function editSpecField(input) {
  const spec = structuredClone(state.spec);
  const { field, t, x } = input.dataset;
  const value = Number(input.value);
  if (input.value.trim() === "" || !Number.isFinite(value)) {
    input.setAttribute("aria-invalid", "true");
    $("spec-error").textContent = `${input.getAttribute("aria-label")}: "${input.value}" is not a number`;
    return;
  }
  if (x === undefined) spec[field][Number(t)] = value;
  else spec[field][Number(t)][Number(x)] = value;
  if (!takeSpec(spec)) {
    input.setAttribute("aria-invalid", "true");
    return;
  }
  $("spec-form").querySelectorAll("[aria-invalid]").forEach((el) => el.removeAttribute("aria-invalid"));
  $("spec-batch").value = "{\n" + SPEC_FIELDS.filter((f) => f in state.spec)
    .map((f) => `  "${f}": ${JSON.stringify(state.spec[f])}`).join(",\n") + "\n}";
  refresh();
}

/** Adds a draft position at the end of request `b` (a copy of its last one, or token 0 with the bonus distribution) or removes its last. */
function resizeRequest(b, add) {
  const spec = structuredClone(state.spec), cu = spec.cu_num_draft_tokens;
  const first = b ? cu[b - 1] : 0, end = cu[b];
  const perPosition = ["draft_token_ids", "target_probs", "draft_probs", "uniform"].filter((f) => Array.isArray(spec[f]));
  if (add) {
    const like = end > first ? end - 1 : null;
    const fresh = { draft_token_ids: 0, target_probs: spec.bonus_probs[b], draft_probs: spec.bonus_probs[b], uniform: 0.5 };
    for (const f of perPosition) spec[f].splice(end, 0, structuredClone(like === null ? fresh[f] : spec[f][like]));
  } else {
    if (end === first) return;
    for (const f of perPosition) spec[f].splice(end - 1, 1);
  }
  for (let i = b; i < cu.length; i++) cu[i] += add ? 1 : -1;
  if (!takeSpec(spec)) return;
  showSpecEditor();
  refresh();
  $("spec-form").querySelector(`button[data-act="${add ? "add" : "remove"}"][data-b="${b}"]`)?.focus();
}

/** Turns hand-set uniforms on (starting from the seeded ones the step used) or off (seeded again). */
function toggleSpecUniforms(on) {
  const spec = structuredClone(state.spec);
  if (on) spec.uniform = state.lastSpecUniform.slice();
  else delete spec.uniform;
  if (!takeSpec(spec)) return;
  showSpecEditor();
  refresh();
  $("spec-set-u").focus();
}

/** Takes the edited JSON batch when the core accepts it (its message is shown otherwise). */
function applySpecEditor() {
  $("spec-error").textContent = "";
  let spec;
  try {
    const fields = JSON.parse($("spec-batch").value);
    const unknown = Object.keys(fields).filter((f) => !SPEC_FIELDS.includes(f));
    if (unknown.length) throw new Error(`unknown field ${unknown[0]}; the fields are ${SPEC_FIELDS.join(", ")}`);
    spec = { exporace: 1, op: "rejection", precision: SPEC_STEP.precision, seed: SPEC_STEP.seed, ...fields };
  } catch (e) {
    $("spec-error").textContent = e.message;
    return;
  }
  if (!takeSpec(spec)) return;
  showSpecForm();
  refresh();
}

function showSpec() {
  const seed = seedValue();
  const report = ask({ ...state.spec, seed, nan_policy: $("nan-policy").value });
  const r = report.result;
  state.lastSpecUniform = r.uniform;
  const cu = state.spec.cu_num_draft_tokens;
  let html = `<p>Seed ${esc(report.seed)}, precision ${report.precision}. Output tokens (-1 = nothing emitted): ` +
    `<code id="spec-output">${esc(JSON.stringify(r.outputTokenIds))}</code></p><table class="facts" id="spec-trace">` +
    "<tr><th>request</th><th>position</th><th>draft</th><th>p(draft)</th><th>d(draft)</th><th>uniform u</th><th>outcome</th></tr>";
  r.requests.forEach((req, b) => {
    const first = b ? cu[b - 1] : 0;
    for (let j = 0; j < req.numDraft; j++) {
      const t = first + j, x = state.spec.draft_token_ids[t];
      const outcome = j < req.numAccepted ? "accepted" : j === req.numAccepted ? "rejected: recovered token" : "not reached";
      html += `<tr><td>${b}</td><td>${j}</td><td>${x}</td><td>${state.spec.target_probs[t][x]}</td><td>${state.spec.draft_probs[t][x]}</td>` +
        `<td>${fmt(r.uniform[t])}</td><td>${outcome}</td></tr>`;
    }
  });
  html += "</table><ul>";
  r.requests.forEach((req, b) => {
    if (req.recovered)
      html += `<li>Request ${b}: recovered token ${req.recovered.winner.token} from the residual race ` +
        `(score ${fmt(req.recovered.winner.score)}, runner-up ${req.recovered.runnerUp?.token ?? "none"}, margin ${req.recovered.marginUlps ?? "n/a"} ulps).</li>`;
    if (req.bonus !== null)
      html += `<li>Request ${b}: every draft accepted; bonus token ${req.bonus}` +
        (req.bonusRace ? ` from the bonus race (score ${fmt(req.bonusRace.winner.score)}).` : ".") + "</li>";
  });
  $("spec-out").innerHTML = html + "</ul>";
  showSpecRaces(report);
}

/** Scores of every token of a race in fp32 and fp64, each computed by the core. */
function scoreRows(weights, q32, q64) {
  return Array.from(weights, (w, t) => ({
    token: t,
    a: scoreLabel(coreScore(w, Float32Array.of(q32[t]))),
    b: scoreLabel(coreScore(w, Float64Array.of(q64[t]))),
  }));
}

function scoreTable(id, weightName, weights, rows, winners) {
  return `<table class="facts" id="${id}"><tr><th>token</th><th>${weightName}</th><th>score fp32</th><th>score fp64</th></tr>` +
    rows
      .map((r, t) => `<tr><td>${t}${winners.includes(t) ? " ★" : ""}</td><td>${fmt32(weights[t])}</td><td>${fmt32(r.a)}</td><td>${fmt(r.b)}</td></tr>`)
      .join("") + "</table>";
}

/**
 * Each request's recovered-token race (the residual from the core raced on the
 * request's noise row through the compare operation, as the race view does)
 * and its bonus race, at fp32 and fp64.
 */
function showSpecRaces(report) {
  const r = report.result, seed = BigInt(report.seed), policy = $("nan-policy").value;
  const batch = specBatch(state.spec);
  const v = batch.vocabSize, cu = state.spec.cu_num_draft_tokens;
  const fill = (stream, row) => {
    const q32 = new Float32Array(v), q64 = new Float64Array(v);
    ex.fillInvQ(seed, stream, row, q32);
    ex.fillInvQ(seed, stream, row, q64);
    return { q32, q64 };
  };
  const charts = [];
  let html = "";
  r.requests.forEach((req, b) => {
    html += `<h4>Request ${b}</h4>`;
    const { q32, q64 } = fill("race", b);
    if (req.numAccepted < req.numDraft) {
      const t = (b ? cu[b - 1] : 0) + req.numAccepted;
      const residual = ex.residualWeights(batch, t);
      const c = ask({
        op: "compare",
        nan_policy: policy,
        weights: Array.from(residual),
        models: [{ model: "ideal", precision: "f32" }, { model: "ideal", precision: "f64" }],
        seed: report.seed,
        row: b,
      }).result;
      const rows = scoreRows(residual, q32, q64);
      const same = c.a.winner.token === req.recovered.winner.token;
      html +=
        `<p>Draft ${state.spec.draft_token_ids[t]} at position ${req.numAccepted} was rejected: the recovered token is the race over ` +
        `the residual max(p - d, 0) on noise row ${b}. The rejection sampler emitted token ${req.recovered.winner.token}; ` +
        `this race at fp32 picks token <span id="spec-recovered-${b}">${c.a.winner.token}</span>` +
        `${same ? " (the same race)" : " (they differ)"}.</p>` +
        `<div class="race-pair"><div>${compareHtml(c, `-spec-${b}`)}` +
        scoreTable(`spec-race-${b}`, "residual", residual, rows, [c.a.winner.token, c.b.winner.token]);
      charts.push({ id: `spec-chart-${b}`, title: `request ${b}: recovered-token race`, rows, nameA: "fp32 (ideal at f32)", nameB: "fp64 (ideal at f64)", a: c.a.winner.token, b: c.b.winner.token, flip: c.flipped });
      html += `</div><canvas id="spec-chart-${b}" class="chart small" role="img" aria-label="recovered-token race of request ${b}"></canvas></div>`;
    } else {
      html += "<p>Every draft was accepted: no recovered token.</p>";
    }
    const weights = Float32Array.from(state.spec.bonus_probs[b]);
    const bonus = fill("bonus", b);
    const w32 = ex.raceMul(weights, bonus.q32, { nanPolicy: policy }).winner.token;
    const w64 = ex.raceMul(weights, bonus.q64, { nanPolicy: policy }).winner.token;
    const rows = scoreRows(weights, bonus.q32, bonus.q64);
    html +=
      `<p>Bonus race over the bonus probabilities (stream bonus, row ${b}): fp32 picks token <span id="spec-bonus-${b}">${w32}</span>, ` +
      `fp64 picks token ${w64}. ` +
      (req.bonus !== null ? `Every draft was accepted, so the step appends bonus token ${req.bonus}.` : "Unused: a draft was rejected.") +
      "</p><div class=\"race-pair\">" + scoreTable(`spec-bonus-race-${b}`, "bonus probability", weights, rows, [w32, w64]);
    charts.push({ id: `spec-bonus-chart-${b}`, title: `request ${b}: bonus race`, rows, nameA: "bonus race fp32", nameB: "bonus race fp64", a: w32, b: w64, flip: w32 !== w64 });
    html += `<canvas id="spec-bonus-chart-${b}" class="chart small" role="img" aria-label="bonus race of request ${b}"></canvas></div>`;
  });
  $("spec-races").innerHTML = html;
  for (const c of charts) {
    drawScores($(c.id), c.rows, {
      title: c.title,
      nameA: c.nameA,
      nameB: c.nameB,
      winnerA: c.a,
      winnerB: c.b,
      highlight: c.flip ? new Set([c.a, c.b]) : new Set(),
    });
  }
}

// ---- losslessness ----------------------------------------------------------------

const lossless = { worker: null };

function stopLossless(status) {
  stopRun(lossless, "spec", status);
}

/** Runs the rejection step's experiment at every draft position, one after another, in a worker. */
function startLossless() {
  stopLossless("");
  const shared = $("spec-shared").checked;
  const sampler = shared ? "rejection_shared" : "rejection";
  const label = shared ? "rejection_shared" : "rejection_salted";
  const model = pipelines()[0];
  const checked = checkedNumbers(["spec-trials"], "spec-status");
  if (!checked) return;
  const trials = checked["spec-trials"];
  const seed = Number(seedValue());
  const positions = state.spec.draft_token_ids.length;
  const reports = [];
  $("spec-lossless").innerHTML = "";
  $("spec-progress").value = 0;
  startRun("spec");
  $("spec-status").textContent = `Running ${label}, ${trials} trials per position under ${model}…`;
  const worker = moduleWorker("experiment-worker.mjs");
  lossless.worker = worker;
  const next = () => {
    const t = reports.length;
    worker.postMessage({
      model,
      target: Float32Array.from(state.spec.target_probs[t]),
      draft: Float32Array.from(state.spec.draft_probs[t]),
      options: { sampler, trials, seed, nanPolicy: $("nan-policy").value },
    });
  };
  worker.onmessage = ({ data }) => {
    if (data.progress !== undefined) {
      $("spec-progress").value = (reports.length + data.progress) / positions;
      return;
    }
    if (data.error) return stopLossless(`The experiment failed: ${data.error}`);
    reports.push(data.report);
    showLossless(reports, label, model, trials);
    if (reports.length < positions) return next();
    const worst = Math.min(...reports.map((r) => r.pValue));
    stopLossless(`Done: ${label}, ${positions} positions × ${trials} trials under ${model}; smallest p-value ${fmt(worst)}.`);
  };
  worker.onerror = (e) => stopLossless(`The experiment failed: ${e.message}`);
  next();
}

function showLossless(reports, label, model, trials) {
  const cu = state.spec.cu_num_draft_tokens;
  const list = (xs) => `[${xs.map((x) => fmt(x)).join(", ")}]`;
  $("spec-lossless").innerHTML =
    `<table class="facts" id="spec-lossless-table" data-sampler="${label}"><caption>${label} under ${esc(model)}: ` +
    `the first emitted token against the target, ${trials} trials per position</caption>` +
    "<tr><th>request</th><th>position</th><th>target p</th><th>draft d</th><th>observed counts</th><th>chi-square</th>" +
    "<th>df</th><th>p-value</th><th>TV to p</th><th>verdict</th></tr>" +
    reports
      .map((r, t) => {
        const b = cu.findIndex((c) => t < c);
        const j = t - (b ? cu[b - 1] : 0);
        const biased = r.pValue < 1e-6;
        return `<tr class="${biased ? "nan" : ""}"><td>${b}</td><td>${j}</td><td>${list(state.spec.target_probs[t])}</td>` +
          `<td>${list(state.spec.draft_probs[t])}</td><td>${list(r.counts)}</td><td>${fmt(r.chiSquare)}</td>` +
          `<td>${r.df}</td><td>${fmt(r.pValue)}</td><td>${fmt(r.tvToTarget)}</td>` +
          `<td>${biased ? "biased: the output is not p" : "consistent with p"}</td></tr>`;
      })
      .join("") + "</table>";
}

// ---- performance -------------------------------------------------------------

/**
 * The committed native benchmark of the machine picked (benches/results.json, xeon/results.json or avx2/results.json), or a
 * plain statement that there is none; a live timing already shown is compared against it again.
 */
async function showPerf() {
  const file = $("perf-machine-file").value;
  const res = await fetch(`/benches/${file}`).catch(() => null);
  if (!res || !res.ok) {
    state.bench = null;
    $("perf-native").innerHTML =
      `<p id='perf-none'>No native benchmark numbers are committed yet (benches/${esc(file)} is absent), so none are shown.</p>`;
    $("perf-native-chart").hidden = true;
    if (state.live) showLive(state.live);
    return;
  }
  const bench = await res.json();
  state.bench = bench;
  const m = bench.machine || {};
  const crates = Object.entries(bench.crates || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  $("perf-native").innerHTML =
    `<p id="perf-machine">Native, ${esc(bench.date ?? "")}: ${esc(m.cpu ?? "unknown CPU")}, ${esc(m.cores ?? "?")} cores` +
    `${m.avx512f ? ", AVX-512" : ""}; ${esc(bench.rustc ?? "")}; ${esc(crates)}. ${esc(bench.notes ?? "")}</p>` +
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
  if (state.live) showLive(state.live);
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
function nativeCase(p, threads) {
  return state.bench?.cases?.find((c) => c.case === p.name && c.threads === threads) ?? null;
}

/** Native recovered-token timings of the chosen kind, B and precision, per vocabulary and thread count. */
function drawNativeRecover() {
  if (!state.bench) return;
  const p = liveParams();
  if (!p) return;
  const prefix = `${p.kind}/${p.precision}/B${p.requests}/`;
  const cases = state.bench.cases.filter((c) => c.case.startsWith(prefix));
  const canvas = $("perf-native-chart");
  canvas.hidden = !cases.length;
  if (!cases.length) return;
  const labels = [...new Set(cases.map((c) => c.case.slice(prefix.length)))].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  const threads = [...new Set(cases.map((c) => c.threads))].sort((x, y) => x - y);
  drawGrouped(canvas, {
    title: `native recoverTokens (${p.kind === "residual" ? "with draft probabilities" : "n-gram"}), B = ${p.requests} × 4 drafts, ${p.precision} noise`,
    xLabel: "vocabulary",
    yLabel: "ns per element",
    labels,
    series: threads.map((t) => ({
      name: `${t} thread${t > 1 ? "s" : ""}`,
      values: labels.map((l) => cases.find((c) => c.case === prefix + l && c.threads === t)?.ns_per_element ?? 0),
    })),
  });
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
    if (state.pool) rows.push({ threads: state.pool.threads, ...(await state.pool.call({ bench: params })).timing });
    state.live = { params, rows };
    showLive(state.live);
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
    `<th>ns / element native (${state.bench ? esc($("perf-machine-file").selectedOptions[0].textContent) : "no file"})</th>` +
    "<th>first winner</th></tr>" +
    rows
      .map(
        (r) =>
          `<tr><td>${r.threads}</td><td>${r.medianMs.toFixed(2)}</td><td>${r.nsPerElement.toFixed(3)}</td>` +
          `<td>${native(r) ? native(r).ns_per_element.toFixed(3) : "-"}</td><td>${r.firstWinner}</td></tr>`,
      )
      .join("") +
    "</table>" +
    (state.pool ? "" : "<p>One thread only: the page is not cross-origin isolated (see the status at the top).</p>");
  const canvas = $("perf-live-chart");
  canvas.hidden = false;
  drawGrouped(canvas, {
    title: "recoverTokens: ns per element, this page against native",
    xLabel: "threads",
    yLabel: "ns per element",
    labels: rows.map((r) => `${r.threads} thread${r.threads > 1 ? "s" : ""}`),
    series: [
      { name: "this page", values: rows.map((r) => r.nsPerElement) },
      { name: "native", values: rows.map((r) => native(r)?.ns_per_element ?? 0) },
    ],
  });
}

// ---- sharing ---------------------------------------------------------------------

const SHARED = [
  "preset", "tails", "gap", "vocab", "zipf", "temperature", "model-a", "model-b", "seed", "row", "start", "nan-policy", "paste",
  "address", "mrv2-pos", "slider-start",
];

/**
 * The most entries a vector (imported p, q or weights) may have to travel in a
 * link: 4096 f32 values make a link of some 30 to 60 thousand characters,
 * about what browsers, chat tools and bug trackers pass on whole.
 */
const MAX_LINK_ENTRIES = 4096;

/** The page's state for a link, and the names of the vectors too large for one (`dropped`). */
async function encodeState() {
  const doc = Object.fromEntries(SHARED.map((id) => [id, $(id).value]));
  const dropped = [];
  const vector = (name, values) => {
    if (!values) return null;
    if (values.length <= MAX_LINK_ENTRIES) return Array.from(values);
    dropped.push(`${name} (${values.length} entries)`);
    return null;
  };
  const pasted = $("paste").value.split(/[\s,;[\]]+/).filter(Boolean).length;
  if (pasted > MAX_LINK_ENTRIES) {
    doc.paste = "";
    dropped.push(`the pasted numbers (${pasted} entries)`);
  }
  doc.logits = $("paste-logits").checked;
  doc.pasted = state.preset === "pasted";
  if (state.imported) {
    const weights = vector("the imported scenario's weights", state.imported.weights);
    const noise = vector("the imported scenario's noise", state.imported.noise);
    doc.imported = weights && (noise || !state.imported.noise) ? { ...state.imported, weights, noise } : null;
  }
  if (state.preset === "file") doc.npyWeights = vector("imported p", state.baseWeights);
  if (state.npyNoise) doc.npyNoise = vector("imported noise", state.baseNoise);
  doc.dropped = dropped;
  doc.weightEdits = state.weightEdits;
  doc.mrv2Draft = $("mrv2-draft").checked;
  doc.edits = state.edits;
  const specEntries = ["target_probs", "draft_probs", "bonus_probs"].reduce((n, f) => n + (state.spec[f]?.flat().length ?? 0), 0);
  if (specEntries <= MAX_LINK_ENTRIES) doc.spec = state.spec;
  else dropped.push(`the speculative batch (${specEntries} probabilities; its JSON is under "Advanced" in 6. Speculative decoding)`);
  const stream = new Blob([JSON.stringify(doc)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  const text = btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return { text, dropped };
}

async function decodeState(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return JSON.parse(await new Response(stream).text());
}

async function shareLink() {
  $("share-note").textContent = "Making the link…";
  $("share-url").value = "";
  const url = new URL(location.href);
  const { text, dropped } = await encodeState();
  url.hash = `s=${text}`;
  history.replaceState(null, "", url);
  $("share-url").value = url.href;
  const note = dropped.length
    ? `Not in the link: ${dropped.join(", ")}: a link holds vectors of up to ${MAX_LINK_ENTRIES} entries. ` +
      "Everything else is in it. Share the data with the scenario export below instead."
    : "Link ready: it holds the whole state of the page.";
  $("share-note").textContent = note;
  $("share-note").classList.toggle("error", dropped.length > 0);
  $("share-export").hidden = !dropped.length;
  navigator.clipboard?.writeText(url.href).then(
    () => ($("share-note").textContent = dropped.length ? `Link copied. ${note}` : "Link copied: it holds the whole state of the page."),
    () => {},
  );
}

/** Restores the state from the URL's `#s=` fragment; false when there is none. */
async function restoreFromUrl() {
  const m = location.hash.match(/^#s=(.*)$/);
  if (!m) return false;
  let doc;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(m[1])) throw new Error("it holds characters a link's state never has");
    doc = await decodeState(m[1]);
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new Error("it holds no page state");
  } catch (e) {
    $("share-note").textContent = `This link's state could not be read (${e.message}); the page shows its default state.`;
    $("share-note").classList.add("error");
    return false;
  }
  for (const id of SHARED) if (doc[id] !== undefined) $(id).value = doc[id];
  $("paste-logits").checked = Boolean(doc.logits);
  $("mrv2-draft").checked = Boolean(doc.mrv2Draft);
  if (doc.imported) applyImported(doc.imported, false);
  else if (doc.pasted && doc.paste) applyPaste(false);
  else if (doc.npyWeights) {
    setWeights(Float32Array.from(doc.npyWeights), null, "file");
    $("about").textContent = `${doc.npyWeights.length} weights imported from a file (from the link).`;
  } else loadPreset(false);
  if (doc.npyNoise) {
    setWeights(state.baseWeights, doc.npyNoise, state.preset);
    state.npyNoise = true;
  }
  if (doc.dropped?.length) {
    $("share-note").textContent =
      `This link was made without ${doc.dropped.join(", ")} (too large for a link); the page shows the rest of its state ` +
      "with the preset's values in their place.";
    $("share-note").classList.add("error");
  }
  state.weightEdits = doc.weightEdits || [];
  applyWeights();
  buildSliders();
  state.edits = doc.edits || [];
  state.spec = doc.spec || structuredClone(SPEC_STEP);
  showSpecEditor();
  refresh();
  return true;
}

/** The current comparison as a regression fixture: the scenario and the core's answer. */
function showFixture() {
  // The report as the core's own text: a margin in ulps past 2^53 keeps its digits.
  const expected = ex.runText(state.lastScenario).replace(/\n/g, "\n  ");
  $("fixture").value = `{\n  "scenario": ${JSON.stringify(state.lastScenario)},\n  "expected": ${expected}\n}`;
}

// ---- wiring --------------------------------------------------------------------

function refresh() {
  const t0 = performance.now();
  // A seed that is not one changes nothing: the views keep the last valid seed's state.
  const seed = seedText();
  $("seed").setAttribute("aria-invalid", String(seed === null));
  $("seed-error").textContent = seed === null
    ? `"${$("seed").value}" is not a seed: give a whole number from 0 to 2^64 - 1, in decimal or 0x hex. ` +
      `The page still shows seed ${state.lastSeed}.`
    : "";
  if (seed === null) return;
  state.lastSeed = seed;
  try {
    state.noise = effectiveNoise();
  } catch (e) {
    state.edits = [];
    state.noise = state.baseNoise;
    $("edit-error").textContent = e.message;
  }
  $("edits").textContent = state.edits.length
    ? `Edited draws (raced as fp64 inline noise against its fp32 cast): ${state.edits.map(([t, v, note]) => `token ${t}: inv_q = ${v}${note ? ` (${note})` : ""}`).join("; ")}`
    : "";
  $("guide-other").hidden = state.preset === "many-tail";
  showModels();
  showDraws();
  const dead = showDeadZone();
  showExact();
  showGuide();
  showTailCurve();
  drawWeights($("prob-chart"), state.weights, { threshold: dead.count ? dead.threshold : null });
  showCompare();
  showOverflow();
  showSpec();
  $("prob-summary").textContent =
    `${state.weights.length} tokens; pipeline A kills ${dead.count} of them (mass ${fmt(dead.mass)}). ` +
    `Views recomputed in ${Math.round(performance.now() - t0)} ms.`;
  document.body.dataset.ready = String(Number(document.body.dataset.ready || 0) + 1);
}

/** A module worker handed the page's compiled wasm first, so it neither fetches nor compiles it. */
function moduleWorker(path) {
  const worker = new Worker(path, { type: "module" });
  worker.postMessage({ module: state.wasmModule });
  return worker;
}

async function main() {
  // Compiled once, here; the workers get this module.
  state.wasmModule = await WebAssembly.compileStreaming(fetch("/pkg/web/exporace_bg.wasm"));
  await init({ module_or_path: state.wasmModule });
  state.models = ask({ op: "models" }).result.models;
  for (const id of ["model-a", "model-b"]) {
    $(id).innerHTML = state.models.map((m) => `<option value="${m.name}">${m.name} (${m.precision})</option>`).join("");
  }
  $("model-a").value = "torch-cuda-f32";
  $("model-b").value = "torch-cuda-f64";
  $("preset").onchange = () => loadPreset();
  for (const id of ["tails", "gap", "vocab", "zipf", "temperature"]) $(id).onchange = () => loadPreset();
  for (const id of ["model-a", "model-b", "seed", "row", "start", "nan-policy"]) $(id).onchange = refresh;
  $("inspect-other").onchange = () => inspector.show();
  $("apply-paste").onclick = () => applyPaste();
  $("perf-run").onclick = runLiveBench;
  $("exp-run").onclick = startExperiment;
  $("exp-cancel").onclick = () => stopExperiment(`Cancelled at ${Math.round($("exp-progress").value * 100)}%.`);
  $("perf-b").onchange = $("perf-precision").onchange = $("perf-kind").onchange = drawNativeRecover;
  $("perf-machine-file").onchange = showPerf;
  $("gap-slider").oninput = () => {
    $("gap").value = $("gap-slider").value;
    $("gap-slider-out").textContent = `${$("gap-slider").value} nats`;
  };
  $("gap-slider").onchange = () => loadPreset();
  $("gap").addEventListener("change", () => ($("gap-slider").value = $("gap").value));
  $("share").onclick = shareLink;
  $("export-fixture").onclick = showFixture;
  $("share-export").onclick = () => {
    showFixture();
    $("fixture").focus();
  };
  $("edit-set").onclick = () => editDraw($("edit-value").value.trim());
  $("edit-set-u").onclick = editUniform;
  $("edit-set-e").onclick = editExponential;
  showSpecEditor();
  $("spec-apply").onclick = applySpecEditor;
  $("spec-form").addEventListener("change", (e) => {
    if (e.target.id === "spec-set-u") toggleSpecUniforms(e.target.checked);
    else if (e.target.classList.contains("spec-field")) editSpecField(e.target);
  });
  $("spec-form").addEventListener("click", (e) => {
    const act = e.target.dataset?.act;
    if (act) resizeRequest(Number(e.target.dataset.b), act === "add");
  });
  $("spec-reset").onclick = () => {
    state.spec = structuredClone(SPEC_STEP);
    showSpecEditor();
    applySpecEditor();
  };
  $("address").onchange = $("mrv2-pos").onchange = $("mrv2-draft").onchange = () => {
    showAddress();
    showDraws();
  };
  $("slider-start").onchange = buildSliders;
  $("sliders-reset").onclick = () => {
    state.weightEdits = [];
    applyWeights();
    buildSliders();
    refresh();
  };
  $("import").onclick = importScenario;
  $("npy-file").onchange = importNpy;
  $("guide-back").onclick = () => {
    $("preset").value = "many-tail";
    loadPreset();
  };
  $("st-file").onchange = readSafetensorsFile;
  $("st-use").onclick = useSafetensors;
  $("spec-run").onclick = startLossless;
  $("spec-shared").onchange = startLossless;
  $("spec-cancel").onclick = () => stopLossless(`Cancelled at ${Math.round($("spec-progress").value * 100)}%.`);
  $("edit-zero").onclick = () => editDraw("inf");
  $("edit-floor").onclick = () => editDraw("16777216");
  $("edit-reset").onclick = () => {
    state.edits = [];
    refresh();
  };
  if (!(await restoreFromUrl())) loadPreset();
  showAddress();
  showPerf();
  await startThreads();
}

main().catch((e) => {
  $("thread-status").textContent = `The core failed to load: ${e.message}`;
  $("thread-status").dataset.mode = "error";
});
