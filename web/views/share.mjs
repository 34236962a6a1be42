// Section 8, sharing and importing: the state in a link (and back), the race
// as a regression fixture, and races taken in from a pasted scenario, a
// `.npy` file or an engine's safetensors dump.
import { ask, ex, modelFacts, scenarioNumber } from "../core.mjs";
import { $, esc } from "../dom.mjs";
import { PRESETS, SPEC_STEP } from "../presets.mjs";
import { compareScenario, state, update, withPreset, withWeights } from "../state.mjs";

/** The view-local controls that travel in a link, by id (values), and the checkboxes (checked). */
const CONTROLS = ["start", "address", "mrv2-pos", "slider-start", "paste", "preset"];
const CHECKS = ["paste-logits", "mrv2-draft"];

/**
 * The most entries a vector (imported p, q or weights) may have to travel in a
 * link: 4096 f32 values make a link of some 30 to 60 thousand characters,
 * about what browsers, chat tools and bug trackers pass on whole.
 */
const MAX_LINK_ENTRIES = 4096;

/** What the race's own weights are called where they are too large for a link. */
const WEIGHTS_NAME = { pasted: "the pasted numbers", file: "imported p", imported: "the imported scenario's weights" };

/** The page's state for a link, and the names of the vectors too large for one (`dropped`). */
function linkDoc() {
  const dropped = [];
  const vector = (name, values) => {
    if (values.length <= MAX_LINK_ENTRIES) return Array.from(values);
    dropped.push(`${name} (${values.length} entries)`);
    return null;
  };
  const s = state;
  const doc = {
    v: 2,
    preset: s.preset,
    params: s.params,
    seed: s.seed,
    row: s.row,
    models: s.models,
    lead: s.lead,
    nanPolicy: s.nanPolicy,
    weightEdits: s.weightEdits,
    edits: s.edits,
    controls: Object.fromEntries(CONTROLS.map((id) => [id, $(id).value])),
    checks: Object.fromEntries(CHECKS.map((id) => [id, $(id).checked])),
  };
  const pasted = $("paste").value.split(/[\s,;[\]]+/).filter(Boolean).length;
  if (pasted > MAX_LINK_ENTRIES) {
    doc.controls.paste = "";
    if (s.preset !== "pasted") dropped.push(`the pasted numbers (${pasted} entries)`);
  }
  if (!PRESETS.includes(s.preset)) {
    doc.weights = vector(WEIGHTS_NAME[s.preset], s.baseWeights);
    doc.about = s.about;
  }
  if (s.baseNoise && (s.npyNoise || !PRESETS.includes(s.preset))) {
    doc.noise = vector(s.npyNoise ? "imported noise" : "the imported scenario's noise", s.baseNoise);
    doc.npyNoise = s.npyNoise;
  }
  const specEntries = ["target_probs", "draft_probs", "bonus_probs"].reduce((n, f) => n + (s.spec[f]?.flat().length ?? 0), 0);
  if (specEntries <= MAX_LINK_ENTRIES) doc.spec = s.spec;
  else dropped.push(`the speculative batch (${specEntries} probabilities; its JSON is under "Advanced" in 6. Speculative decoding)`);
  doc.dropped = dropped;
  return doc;
}

async function encode(doc) {
  const stream = new Blob([JSON.stringify(doc)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function decode(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return JSON.parse(await new Response(stream).text());
}

async function shareLink() {
  $("share-note").textContent = "Making the link…";
  $("share-url").value = "";
  const url = new URL(location.href);
  const doc = linkDoc();
  url.hash = `s=${await encode(doc)}`;
  history.replaceState(null, "", url);
  $("share-url").value = url.href;
  const { dropped } = doc;
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

/** A link's state as a draft of the page's state (checked by `update`). */
function restoreInto(d, doc) {
  const fromDoc = ["params", "seed", "row", "models", "lead", "nanPolicy"].filter((k) => doc[k] !== undefined);
  for (const k of fromDoc) d[k] = doc[k];
  if (PRESETS.includes(doc.preset)) withPreset(d, doc.preset, d.params);
  else if (Array.isArray(doc.weights)) {
    const about = doc.preset === "file" ? `${doc.weights.length} weights imported from a file (from the link).` : String(doc.about ?? "");
    withWeights(d, Float32Array.from(doc.weights), Array.isArray(doc.noise) && !doc.npyNoise ? doc.noise : null, String(doc.preset), about);
  } else withPreset(d, PRESETS.includes(doc.controls?.preset) ? doc.controls.preset : "many-tail", d.params);
  if (doc.npyNoise && Array.isArray(doc.noise)) {
    d.baseNoise = doc.noise;
    d.npyNoise = true;
  }
  d.weightEdits = Array.isArray(doc.weightEdits) ? doc.weightEdits : [];
  d.edits = Array.isArray(doc.edits) ? doc.edits : [];
  d.spec = doc.spec && typeof doc.spec === "object" ? doc.spec : structuredClone(SPEC_STEP);
}

/**
 * Restores the state from the URL's `#s=` fragment: true when it did. A link
 * that cannot be read, or whose state the page refuses, changes nothing and
 * says why.
 */
export async function restoreFromUrl() {
  const m = location.hash.match(/^#s=(.*)$/);
  if (!m) return false;
  const refuse = (why) => {
    $("share-note").textContent = `This link's state could not be read (${why}); the page shows its default state.`;
    $("share-note").classList.add("error");
    return false;
  };
  let doc;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(m[1])) throw new Error("it holds characters a link's state never has");
    doc = await decode(m[1]);
    if (doc === null || typeof doc !== "object" || Array.isArray(doc) || doc.v !== 2) throw new Error("it holds no page state");
  } catch (e) {
    return refuse(e.message);
  }
  // The view-local controls first (the views read them as they redraw), put back when the state is refused.
  const before = [CONTROLS.map((id) => $(id).value), CHECKS.map((id) => $(id).checked)];
  for (const id of CONTROLS) if (typeof doc.controls?.[id] === "string") $(id).value = doc.controls[id];
  for (const id of CHECKS) $(id).checked = Boolean(doc.checks?.[id]);
  try {
    update((d) => restoreInto(d, doc), { sync: true });
  } catch (e) {
    CONTROLS.forEach((id, i) => ($(id).value = before[0][i]));
    CHECKS.forEach((id, i) => ($(id).checked = before[1][i]));
    return refuse(e.message);
  }
  if (doc.dropped?.length) {
    $("share-note").textContent =
      `This link was made without ${doc.dropped.join(", ")} (too large for a link); the page shows the rest of its state ` +
      "with the preset's values in their place.";
    $("share-note").classList.add("error");
  }
  return true;
}

/** The race on show as a regression fixture: the scenario and the core's answer. */
function showFixture() {
  const scenario = { exporace: 1, ...compareScenario() };
  // The report as the core's own text: a margin in ulps past 2^53 keeps its digits.
  const expected = ex.runText(scenario).replace(/\n/g, "\n  ");
  $("fixture").value = `{\n  "scenario": ${JSON.stringify(scenario)},\n  "expected": ${expected}\n}`;
}

// ---- importing a scenario ----------------------------------------------------

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

function importScenario() {
  $("import-error").textContent = "";
  $("import-note").textContent = "";
  try {
    const imp = importedState($("import-json").value);
    update((d) => {
      const about = `An imported scenario: ${imp.weights.length} weights, ` +
        (imp.noise ? "inline noise (raced at fp64 against its fp32 cast)." : `seeded noise of ${imp.models.length ? imp.models.join(" and ") : d.models.join(" and ")}.`);
      withWeights(d, Float32Array.from(imp.weights), imp.noise, "imported", about);
      d.models = d.models.map((m, i) => imp.models[i] ?? m);
      if (imp.seed !== null) d.seed = String(imp.seed);
      if (imp.row !== null) d.row = imp.row;
      if (imp.nanPolicy !== null) d.nanPolicy = imp.nanPolicy;
    }, { sync: true });
    $("import-note").textContent = `Imported: ${state.weights.length} weights${state.noise ? " with inline noise" : ""}.`;
  } catch (e) {
    $("import-error").textContent = e.message;
  }
}

// ---- importing files -----------------------------------------------------------

/** Imported weights p (`values`, any float array) for the race; `from` says where they came from. */
function withFileWeights(d, values, from) {
  withWeights(d, Float32Array.from(values), null, "file", `${values.length} weights from ${from}.`);
}

/**
 * Imported noise for the race, one value per weight: E (`kind` "q"; inv_q of
 * each entry is the core's division race w / q at w = 1) or inv_q itself.
 */
function withNoise(d, values, kind) {
  if (values.length !== d.baseWeights.length) {
    throw new Error(`${kind} has ${values.length} entries; the race has ${d.baseWeights.length} weights`);
  }
  const scenarioText = (v) => (Number.isNaN(v) ? "nan" : v === Infinity ? "inf" : v === -Infinity ? "-inf" : v);
  d.baseNoise = kind === "inv_q"
    ? Array.from(values, scenarioText)
    : Array.from(values, (q) => {
      const score = ex.raceDiv(Float32Array.of(1), Float64Array.of(q)).winner.score;
      return score === null ? "inf" : String(score);
    });
  d.npyNoise = true;
  d.edits = [];
}

/** Imported draft distributions d ([positions, vocabulary]) for the speculative batch, when the core accepts them. */
function withDraft(d, values, shape) {
  const v = d.spec.target_probs[0].length, positions = d.spec.draft_token_ids.length;
  if (shape.length !== 2 || shape[0] !== positions || shape[1] !== v) {
    throw new Error(`d must have shape [${positions}, ${v}], got [${shape.join(", ")}]`);
  }
  const rows = Array.from({ length: shape[0] }, (_, t) => Array.from(values.subarray(t * v, (t + 1) * v)));
  const spec = { ...d.spec, draft_probs: rows };
  ask({ ...spec, seed: d.seed });
  d.spec = spec;
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
    update((d) => {
      if (role === "p") withFileWeights(d, npy.values, `${file.name} (${shape})`);
      else if (role === "q") withNoise(d, npy.values, "q");
      else withDraft(d, npy.values, npy.shape);
    });
    $("npy-note").textContent = `Read ${file.name} as ${role}: ${shape}.`;
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
    const pRow = Number($("st-p-row").value), qRow = Number($("st-q-row").value), kind = $("st-q-kind").value;
    // All the chosen tensors, or none of them.
    update((draft) => {
      if (p) {
        withFileWeights(draft, tensorRow(p, pRow), `${safetensorsFile.name}: ${p.name} row ${pRow}`);
        used.push(`p = ${p.name}`);
      }
      if (q) {
        withNoise(draft, tensorRow(q, qRow), kind);
        used.push(`${kind} = ${q.name}`);
      }
      if (d) {
        withDraft(draft, d.data, d.shape);
        used.push(`d = ${d.name}`);
      }
    });
    $("st-note").textContent = `Using ${used.join(", ")} from ${safetensorsFile.name}.`;
  } catch (e) {
    $("st-error").textContent = e.message;
  }
}

export function wire() {
  $("share").onclick = shareLink;
  $("export-fixture").onclick = showFixture;
  $("share-export").onclick = () => {
    showFixture();
    $("fixture").focus();
  };
  $("import").onclick = importScenario;
  $("npy-file").onchange = importNpy;
  $("st-file").onchange = readSafetensorsFile;
  $("st-use").onclick = useSafetensors;
}
