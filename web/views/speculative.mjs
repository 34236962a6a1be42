// Section 6, speculative decoding: the batch (a form and its JSON), one
// rejection-sampling step of the core on it, each request's recovered-token
// and bonus races at fp32 and fp64, and the losslessness experiment per
// draft position.
import { ask, coreScore, ex, scoreLabel } from "../core.mjs";
import { $, checkedNumbers, esc } from "../dom.mjs";
import { fmt, fmt32, fmtStat } from "../format.mjs";
import { drawScores } from "../chart.mjs";
import { compareHtml } from "../compare.mjs";
import { SPEC_STEP, specBatch } from "../presets.mjs";
import { moduleWorker } from "../workers.mjs";
import { estimateRun, startRun, stopRun } from "../runs.mjs";
import { nextTask } from "../tasks.mjs";
import { describeChart } from "../described.mjs";
import { state, update } from "../state.mjs";

/** The seeded uniforms of the last step shown (hand-set uniforms start from them). */
let lastUniform = [];
/** The batch the form was built for: it is rebuilt when the state's batch changes elsewhere. */
let formFor = null;

/** The fields of the speculative batch the editor shows. */
const SPEC_FIELDS = ["cu_num_draft_tokens", "draft_token_ids", "target_probs", "draft_probs", "bonus_probs", "uniform"];

/** The largest vocabulary whose probabilities the form shows as fields (larger: the JSON editor). */
const MAX_FORM_VOCAB = 16;

/** Writes the batch into the form and the JSON editor (one field per line). */
function showSpecEditor() {
  formFor = state.spec;
  showSpecJson();
  showSpecForm();
}

/** The batch as JSON, one field per line. */
function showSpecJson() {
  $("spec-batch").value = "{\n" + SPEC_FIELDS.filter((f) => f in state.spec)
    .map((f) => `  "${f}": ${JSON.stringify(state.spec[f])}`).join(",\n") + "\n}";
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
  if (refocus) $("spec-form").querySelector(refocus)?.focus();
  refocus = null;
}

/** The control of the form that takes the focus once the form is rebuilt (the one that changed the batch). */
let refocus = null;

/** Takes `spec` when the core accepts it (its message is shown otherwise); true when taken. */
function takeSpec(spec) {
  $("spec-error").textContent = "";
  try {
    update((d) => {
      ask({ ...spec, seed: d.seed });
      d.spec = spec;
    });
  } catch (e) {
    $("spec-error").textContent = e.message;
    return false;
  }
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
  // The form keeps its fields (and the focus): only the JSON follows.
  formFor = spec;
  if (!takeSpec(spec)) {
    formFor = state.spec;
    input.setAttribute("aria-invalid", "true");
    return;
  }
  $("spec-form").querySelectorAll("[aria-invalid]").forEach((el) => el.removeAttribute("aria-invalid"));
  showSpecJson();
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
  // The button keeps the focus in the form rebuilt for the new batch.
  refocus = `button[data-act="${add ? "add" : "remove"}"][data-b="${b}"]`;
  if (!takeSpec(spec)) refocus = null;
}

/** Turns hand-set uniforms on (starting from the seeded ones the step used) or off (seeded again). */
function toggleSpecUniforms(on) {
  const spec = structuredClone(state.spec);
  if (on) spec.uniform = lastUniform.slice();
  else delete spec.uniform;
  refocus = "#spec-set-u";
  if (!takeSpec(spec)) refocus = null;
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
  takeSpec(spec);
}

function showSpec() {
  const report = ask({ ...state.spec, seed: state.seed, nan_policy: state.nanPolicy });
  const r = report.result;
  lastUniform = r.uniform;
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
  return report;
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
 * and its bonus race, at fp32 and fp64: their HTML and the charts to draw.
 */
function showSpecRaces(report) {
  const r = report.result, seed = BigInt(report.seed), policy = state.nanPolicy;
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
  return { html, charts };
}

/** Writes the races and draws their charts, the charts in a later task (the page answers input meanwhile). */
async function drawSpecRaces({ html, charts }, key) {
  $("spec-races").innerHTML = html;
  await nextTask();
  if (key !== drawnFor) return;
  // Sizes read in one pass and the canvases sized in one: the page is laid out once for all the charts, and
  // the descriptions are written after the last is drawn.
  const canvases = charts.map((c) => $(c.id));
  const sizes = canvases.map((c) => [c.clientWidth, c.clientHeight]);
  canvases.forEach((c, i) => Object.assign(c, { width: sizes[i][0], height: sizes[i][1] }));
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
  for (const c of charts) {
    describeChart(c.id, `${c.title}: fp32 picks token ${c.a}, fp64 picks token ${c.b}.`,
      ["token", "score fp32", "score fp64"], c.rows.map((x) => [String(x.token), fmt32(x.a), fmt(x.b)]));
  }
}

// ---- losslessness ----------------------------------------------------------

const lossless = { worker: null };

const stopLossless = (status) => stopRun(lossless, "spec", status);

/** Runs the rejection step's experiment at every draft position, one after another, in a worker. */
function startLossless() {
  stopLossless("");
  const shared = $("spec-shared").checked;
  const sampler = shared ? "rejection_shared" : "rejection";
  const label = shared ? "rejection_shared" : "rejection_salted";
  const model = state.models[0];
  const checked = checkedNumbers(["spec-trials"], "spec-status");
  if (!checked) return;
  const trials = checked["spec-trials"];
  const seed = Number(state.seed);
  const positions = state.spec.draft_token_ids.length;
  const reports = [];
  $("spec-lossless").innerHTML = "";
  $("spec-estimate").textContent = "";
  $("spec-progress").value = 0;
  startRun("spec");
  $("spec-status").textContent = `Timing ${trials} trials per position under ${model} before the run…`;
  const worker = moduleWorker("experiment-worker.mjs");
  lossless.worker = worker;
  const request = (t) => ({
    model,
    target: Float32Array.from(state.spec.target_probs[t]),
    draft: Float32Array.from(state.spec.draft_probs[t]),
    options: { sampler, trials, seed, nanPolicy: state.nanPolicy },
  });
  const next = () => worker.postMessage(request(reports.length));
  let run;
  worker.onmessage = ({ data }) => {
    if (data.calibration) {
      // Every position is timed as the first: the estimate comes before the run, and a run of hours never starts.
      run = estimateRun(lossless, "spec", data.calibration, trials, positions);
      if (!run) return;
      $("spec-status").textContent = `Running ${label}, ${trials} trials per position under ${model}…`;
      return next();
    }
    if (data.progress !== undefined) {
      $("spec-progress").value = (reports.length + data.progress) / positions;
      return;
    }
    if (data.error) return stopLossless(`The experiment failed: ${data.error}`);
    reports.push(data.report);
    showLossless(reports, label, model, trials);
    if (reports.length < positions) return next();
    const worst = Math.min(...reports.map((r) => r.pValue));
    stopLossless(`Done: ${label}, ${positions} positions × ${trials} trials under ${model}; smallest p-value ${fmtStat(worst)}.`);
    run.took();
  };
  worker.onerror = (e) => stopLossless(`The experiment failed: ${e.message}`);
  worker.postMessage({ calibrate: request(0) });
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
          `<td>${list(state.spec.draft_probs[t])}</td><td>${list(r.counts)}</td><td>${fmtStat(r.chiSquare)}</td>` +
          `<td>${r.df}</td><td>${fmtStat(r.pValue)}</td><td>${fmtStat(r.tvToTarget)}</td>` +
          `<td>${biased ? "biased: the output is not p" : "consistent with p"}</td></tr>`;
      })
      .join("") + "</table>";
}

/** What the step depends on, as last drawn: the batch, the seed and the NaN policy. */
let drawnFor = [];

/** Redraws the section when its batch, seed or NaN policy changed (the form too when the batch changed elsewhere); the promise settles once it is drawn. */
export async function render() {
  const key = [state.spec, state.seed, state.nanPolicy];
  if (key.every((k, i) => k === drawnFor[i])) return;
  drawnFor = key;
  if (formFor !== state.spec) showSpecEditor();
  const report = showSpec();
  // The step's trace first, its races in a later task and their charts in a third.
  await nextTask();
  if (key !== drawnFor) return;
  const races = showSpecRaces(report);
  await nextTask();
  if (key !== drawnFor) return;
  await drawSpecRaces(races, key);
}

export function wire() {
  $("spec-apply").onclick = applySpecEditor;
  $("spec-form").addEventListener("change", (e) => {
    if (e.target.id === "spec-set-u") toggleSpecUniforms(e.target.checked);
    else if (e.target.classList.contains("spec-field")) editSpecField(e.target);
  });
  $("spec-form").addEventListener("click", (e) => {
    const act = e.target.dataset?.act;
    if (act) resizeRequest(Number(e.target.dataset.b), act === "add");
  });
  $("spec-reset").onclick = () => takeSpec(structuredClone(SPEC_STEP));
  $("spec-run").onclick = startLossless;
  $("spec-shared").onchange = startLossless;
  $("spec-cancel").onclick = () => stopLossless(`Cancelled at ${Math.round($("spec-progress").value * 100)}%.`);
}
