// Section 2, the noise: the two pipelines and their lattice facts, the seed
// and row, the first draws with their bits (the bit inspector), and edits of
// single draws.
import { ask, ex, loaded, modelFacts, scenarioNumber } from "../core.mjs";
import { $, esc } from "../dom.mjs";
import { fmt, fmt32 } from "../format.mjs";
import { seedOf, state, update } from "../state.mjs";

function showModels() {
  const rows = [
    ["engine", (m) => m.engine],
    ["versions", (m) => m.versions],
    ["lattice", (m) => m.lattice],
    ["transform", (m) => m.transform],
    ["clamp", (m) => m.clamp],
    ["smallest positive E", (m) => fmt(m.minPositiveE)],
    ["largest finite Gumbel", (m) => fmt(m.maxFiniteGumbel)],
    ["P(E = 0)", (m) => fmt(m.pZero)],
    ["P(E = inf)", (m) => fmt(m.pInfinite)],
    ["noise error (0: the engine's value)", (m) => fmt(m.noiseError)],
    ["tie rule", (m) => m.tieRule],
    ["source", (m) => m.source],
  ];
  const ms = state.models.map(modelFacts);
  $("model-facts").innerHTML =
    `<caption>Lattice facts (from the catalogue)</caption><tr><th>fact</th><th>A: ${esc(ms[0].name)} (${ms[0].precision})</th>` +
    `<th>B: ${esc(ms[1].name)} (${ms[1].precision})</th></tr>` +
    rows.map(([k, f]) => `<tr><th>${k}</th><td>${esc(f(ms[0]))}</td><td>${esc(f(ms[1]))}</td></tr>`).join("");
}

/** The first token or offset shown. */
const startShown = () => Math.max(0, Number($("start").value) | 0);

/** Inline noise: the values with their fp64 bits and the bits of their fp32 cast, from the core. */
function showInlineDraws() {
  const start = Math.min(startShown(), state.noise.length - 1);
  const rows = state.noise.slice(start, start + 8).map((v, i) => {
    const bits = ex.inspectFloat(v);
    return { token: start + i, value: scenarioNumber(v), bits: bits.f64.bits, bits32: bits.f32.bits };
  });
  $("draws").innerHTML =
    "<caption>Inline noise inv_q (select a row to inspect its bits)</caption>" +
    "<tr><th>token</th><th>inv_q</th><th>fp64 bits</th><th>fp32 cast bits</th></tr>" +
    rows
      .map((d, i) => `<tr tabindex="0" data-i="${i}"><td>${d.token}</td><td>${fmt(d.value)}</td><td><code>${d.bits}</code></td>` +
        `<td><code>${d.bits32}</code></td></tr>`)
      .join("");
  wireInspector(rows, "f64");
}

/** Shows the MRV2 controls only for the MRV2 address. */
function showAddress() {
  const mrv2 = $("address").value === "mrv2";
  $("mrv2-pos").closest("label").hidden = !mrv2;
  $("mrv2-draft").closest("label").hidden = !mrv2;
}

/** Redraws the bit inspector for the selected draw (after the "ulps to" field changes). */
const inspector = { show: () => {} };

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

function showDraws() {
  if (state.noise) {
    showInlineDraws();
    return;
  }
  const [a] = state.models;
  const address = $("address").value;
  const start = startShown();
  const byToken = address === "exporace" || address === "mrv2";
  const count = byToken ? Math.max(1, Math.min(8, state.weights.length - Math.min(start, state.weights.length - 1))) : 8;
  const scenario = { op: "noise", model: a, seed: state.seed, start, count, address };
  let where = `row ${state.row}`;
  if (address === "exporace") scenario.row = state.row;
  if (address === "mrv2") {
    scenario.pos = Math.max(0, Number($("mrv2-pos").value) | 0);
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
      .map((d, i) => `<tr tabindex="0" data-i="${i}"><td>${d.token}</td><td>${esc(d.raw)}</td><td>${fmt(d.uniform)}</td>` +
        `<td>${fmt(d.value)}</td><td><code>${esc(d.bits)}</code></td><td>${fmt(d.invQ)}</td><td>${esc(d.branch)}</td></tr>`)
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

// ---- editing draws ---------------------------------------------------------

/** The token of the draw editor, or null (with the error shown) when it is out of range. */
function editedToken() {
  $("edit-error").textContent = "";
  const el = $("edit-token");
  const token = el.valueAsNumber;
  if (!Number.isInteger(token) || token < 0 || token >= state.weights.length) {
    $("edit-error").textContent = `Token must be a whole number in [0, ${state.weights.length}) (got ${el.value === "" ? "not a number" : el.value}). Nothing changed.`;
    el.setAttribute("aria-invalid", "true");
    return null;
  }
  el.setAttribute("aria-invalid", "false");
  return token;
}

/** Sets inv_q of one token (E = 0 is inv_q = inf; E = 2^-24 is inv_q = 2^24); `note` says where it came from. */
function editDraw(value, note = null, token = editedToken()) {
  if (token === null) return false;
  try {
    update((d) => (d.edits = d.edits.filter(([t]) => t !== token).concat([note ? [token, value, note] : [token, value]])));
  } catch (e) {
    $("edit-error").textContent = `${e.message}. Nothing changed.`;
    return false;
  }
  return true;
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
  const [, b] = state.models;
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
  const table =
    `<table class="facts" id="u-table"><caption>Token ${token} under ${esc(b)} (${out.model.precision}): ${esc(out.model.transform)}</caption>` +
    "<tr><th>u asked</th><th>lattice integer</th><th>u on the lattice</th><th>E</th><th>bits of E</th><th>inv_q</th><th>branch</th></tr>" +
    `<tr><td>${esc(text)}</td><td>${esc(d.raw)}</td><td id="u-uniform">${fmt(d.uniform)}</td><td id="u-e">${fmt(d.e)}</td>` +
    `<td><code>${esc(d.bits)}</code></td><td id="u-invq">${fmt(d.invQ)}</td><td id="u-branch">${esc(d.branch)}</td></tr></table>`;
  if (editDraw(invQ, `u = ${fmt(d.uniform)} under ${b}: E = ${fmt(d.e)}, ${d.branch}`, token)) $("u-draw").innerHTML = table;
}

/** Writes the pipelines, seed and row into their fields. */
function syncControls() {
  $("model-a").value = state.models[0];
  $("model-b").value = state.models[1];
  $("seed").value = state.seed;
  $("row").value = String(state.row);
  for (const id of ["seed", "row"]) $(id).removeAttribute("aria-invalid");
  $("seed-error").textContent = "";
}

/** Redraws the section from the state. */
export function render({ sync = false } = {}) {
  if (sync) syncControls();
  $("edits").textContent = state.edits.length
    ? `Edited draws (raced as fp64 inline noise against its fp32 cast): ${state.edits.map(([t, v, note]) => `token ${t}: inv_q = ${v}${note ? ` (${note})` : ""}`).join("; ")}`
    : "";
  // The facts and the draws follow the pipelines, seed, row and noise alone.
  const key = [state.models, state.seed, state.row, state.noise, state.weights.length];
  if (!sync && key.every((k, i) => k === drawnFor[i])) return;
  drawnFor = key;
  showModels();
  showAddress();
  showDraws();
}

/** The state the draws were last shown for. */
let drawnFor = [];

/** The seed field: a seed changes the state; anything else changes nothing and says why. */
function changeSeed() {
  const field = $("seed");
  try {
    const seed = seedOf(field.value);
    update((d) => (d.seed = seed));
    field.setAttribute("aria-invalid", "false");
    $("seed-error").textContent = "";
  } catch (e) {
    field.setAttribute("aria-invalid", "true");
    $("seed-error").textContent = `${e.message}. The page still shows seed ${state.seed}.`;
  }
}

/** The row field: a whole number from 0, else nothing changes. */
function changeRow() {
  const field = $("row");
  const row = field.valueAsNumber;
  const ok = Number.isInteger(row) && row >= 0;
  field.setAttribute("aria-invalid", String(!ok));
  $("seed-error").textContent = ok ? "" : `Row must be a whole number from 0 up (got ${field.value === "" ? "not a number" : field.value}). Nothing changed.`;
  if (ok) update((d) => (d.row = row));
}

/** The catalogue in the pipeline menus; the controls' handlers. */
export function wire() {
  for (const id of ["model-a", "model-b"]) {
    $(id).innerHTML = loaded.models.map((m) => `<option value="${m.name}">${m.name} (${m.precision})</option>`).join("");
  }
  $("model-a").onchange = $("model-b").onchange = () => update((d) => (d.models = [$("model-a").value, $("model-b").value]));
  $("seed").onchange = changeSeed;
  $("row").onchange = changeRow;
  $("start").onchange = showDraws;
  $("address").onchange = $("mrv2-pos").onchange = $("mrv2-draft").onchange = () => {
    showAddress();
    showDraws();
  };
  $("inspect-other").onchange = () => inspector.show();
  $("edit-set").onclick = () => editDraw($("edit-value").value.trim()) && ($("u-draw").innerHTML = "");
  $("edit-set-u").onclick = editUniform;
  $("edit-set-e").onclick = editExponential;
  $("edit-zero").onclick = () => editDraw("inf") && ($("u-draw").innerHTML = "");
  $("edit-floor").onclick = () => editDraw("16777216") && ($("u-draw").innerHTML = "");
  $("edit-reset").onclick = () => update((d) => (d.edits = []));
}
