// The first view: the many-tail race's key figure, live. The tails' exact
// win probability against the gap under the ideal race and the engines' noise
// (vLLM 0.31–0.34, vLLM 0.30, torch CUDA) or both pipelines (computed in the
// theory worker, sampled finely where the curves bend), the gap slider, which
// noise is which and each curve's floor explained, and the guide's numbers
// for the gap on show.
import { ask, ex, modelFacts } from "../core.mjs";
import { $, esc } from "../dom.mjs";
import { fmt, fmtBounded } from "../format.mjs";
import { IDEAL_COLOR, PRECISION_SHADES } from "../chart.mjs";
import { manyTailGroups } from "../presets.mjs";
import { askTheory } from "../workers.mjs";
import { state, update } from "../state.mjs";
import { paintSharp, redrawOnResize } from "../resized.mjs";
import { nextTask } from "../tasks.mjs";

/**
 * The engines the figure opens on, by catalogue name: torch CUDA's fp64 and
 * fp32 noise, vLLM 0.30's fp32 Gumbel noise (Triton's tl.rand, Philox) and
 * vLLM 0.31–0.34's (Model Runner V2, a Murmur3 hash). The page names them;
 * every number about them is the core's.
 */
const ENGINES = [
  { model: "torch-cuda-f64", engine: "torch CUDA", short: "fp64" },
  { model: "torch-cuda-f32", engine: "torch CUDA", short: "torch", noise: "fp32 exponential noise (curand)" },
  { model: "triton-flipped", engine: "vLLM 0.30", short: "v0.30", noise: "fp32 Gumbel noise from Triton's tl.rand (Philox)" },
  { model: "vllm-0.33-f32", engine: "vLLM 0.31–0.34", short: "v0.33", noise: "fp32 Gumbel noise from a Murmur3 hash (Model Runner V2)" },
];
const engine = (model) => ENGINES.find((e) => e.model === model);

/** The pipelines of the figure (without the ideal race): the engines', or pipelines A and B. */
const leadModels = () => (state.lead === "engines" ? ENGINES.map((e) => e.model) : [...state.models]);

/** The models of the curves: the ideal race and the figure's pipelines. */
const curveModels = () => [...new Set(["ideal", ...leadModels()])];

/**
 * Which noise is which, from the catalogue's facts: each fp32 engine's
 * versions, its largest finite G and the weight below which a tail never wins
 * against the head (the core's dead zone).
 */
function showVersions() {
  const fact = (model, key, text) => `<span class="fact" data-model="${esc(model)}" data-fact="${key}" data-value="${esc(String(modelFacts(model)[key]))}">${text}</span>`;
  $("lead-versions").innerHTML = "Which noise is which: " + ENGINES.filter((e) => e.noise).map(({ model, engine: name, noise }) => {
    const f = modelFacts(model);
    const { threshold } = ask({ op: "dead_zone", model, weights: [1, 0] }).result;
    return `<strong>${esc(name)}</strong> (<code>${esc(model)}</code>, versions ${fact(model, "versions", esc(f.versions))}) draws ${esc(noise)}; its largest G is ` +
      `${fact(model, "maxFiniteGumbel", f.maxFiniteGumbel.toFixed(2))}, so no tail under ${fmt(threshold)} of the head's weight wins.`;
  }).join(" ") + " The larger a noise's largest G, the farther right its curve reaches 0.";
}

/** The guide's numbers: the tails' exact win probability under fp32 and fp64 torch CUDA, and the dead zone's edge. */
function showNumbers() {
  const { tails, gap, temperature } = state.params;
  // Only the pipelines' numbers are shown here (torch CUDA's two always, for the steps); the ideal race is on the curve.
  const models = [...new Set([...leadModels(), "torch-cuda-f32", "torch-cuda-f64"])];
  // Until this gap's answer arrives, no number of another gap stands next to it.
  $("guide-f32").textContent = $("guide-f64").textContent = "…";
  // The head and the tails are two groups, so they stay apart even when they weigh the same (gap 0).
  askTheory("guide", { models, ...manyTailGroups(ex, tails, gap, temperature) }, ({ results, error }) => {
    const probability = (model) => {
      const i = models.indexOf(model);
      if (error) return `… (${error})`;
      const g = results[i]?.groups[1];
      return fmtBounded(g.probability, g.lower, g.upper);
    };
    $("guide-f32").textContent = probability("torch-cuda-f32");
    $("guide-f64").textContent = probability("torch-cuda-f64");
    const at = `At ${gap} nats, P(one of ${tails} tails wins) is exactly`;
    $("lead-readout").textContent = error ? "" : state.lead === "engines"
      ? `${at} ${ENGINES.filter((e) => e.noise).map((e) => `${probability(e.model)} with ${e.engine}'s fp32 noise`).join(", ")} ` +
        `and ${probability("torch-cuda-f64")} with fp64 noise.`
      : `${at} ${probability("torch-cuda-f32")} with fp32 noise (torch CUDA) and ${probability("torch-cuda-f64")} with fp64 noise.`;
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

/** The curves' models, those computed so far (in the models' order) and those whose table is written. */
const curve = { key: null, models: [], series: null, written: null };

/**
 * The gaps sampled: every nat to 12, a quarter nat from 12 to 24, two nats
 * beyond, and a twentieth of a nat within half a nat of each pipeline's dead
 * zone edge (the gap at which the tails' weight reaches the core's threshold).
 */
function sampledGaps(models, temperature) {
  const gaps = new Set([
    ...Array.from({ length: 12 }, (_, i) => i),
    ...Array.from({ length: 48 }, (_, i) => 12 + i / 4),
    ...Array.from({ length: 9 }, (_, i) => 24 + 2 * i),
  ]);
  for (const model of models.filter((m) => m !== "ideal")) {
    const { threshold } = ask({ op: "dead_zone", model, weights: [1, 0] }).result;
    const edge = -temperature * Math.log(threshold);
    if (!(threshold > 0) || !(edge > 0.5 && edge < 39.5)) continue;
    const from = Math.round(edge * 20) - 10;
    for (let k = 0; k <= 20; k++) gaps.add((from + k) / 20);
  }
  return [...gaps].sort((a, b) => a - b);
}

/** Below this CSS width the legend gives curves short names: the full model names' box would cover the curves. */
const NARROW = 600;

/**
 * The legend's name of each curve: the model's name, or on a narrow canvas a
 * short one (the engine's, "torch", "v0.30", "v0.33", at most five letters,
 * or the precision: "fp32", "fp64"; the ideal race "ideal"), which keeps the
 * legend in the upper right corner clear of the falling curves (from 360 px
 * on: "vLLM 0.30" widens the box onto fp64's curve). Where two models share a
 * short name the full names stay.
 */
function legendNames(models, width) {
  if (width >= NARROW) return models;
  const short = models.map((m) => (m === "ideal" ? m : state.lead === "engines" && engine(m) ? engine(m).short : `fp${modelFacts(m).precision.slice(1)}`));
  return new Set(short).size === short.length ? short : models;
}

/**
 * Draws the curves drawn so far (by the exporace-viz crate, plotters on the
 * canvas) with the gap's marker and says where each starts and ends; their
 * floors and their table follow in a task of their own, once per new curve.
 */
function drawCurve() {
  const canvas = $("exact-chart");
  // The answer may arrive after the preset changed and the canvas was hidden.
  if (!canvas.clientWidth || !canvas.clientHeight) return;
  const { tails, gap } = state.params;
  // Colour by precision, as every view: the ideal reference grey and dashed, each further model of a precision
  // already drawn in the next shade of its colour (the legend shows colours, not dashes).
  const seen = { f32: 0, f64: 0 };
  const style = (name) => {
    if (name === "ideal") return { color: IDEAL_COLOR, dashed: true };
    const p = modelFacts(name).precision;
    const shades = PRECISION_SHADES[p];
    return { color: shades[seen[p]++ % shades.length], dashed: false };
  };
  const names = legendNames(curve.series.map((s) => s.name), canvas.clientWidth);
  paintSharp(canvas, () => ex.drawCurves(canvas, {
    title: `P(one of ${tails} tails wins), exact`,
    xLabel: "gap (nats) between the head and the tails",
    yLabel: "probability",
    yFloor: 1e-12,
    marker: gap,
    series: curve.series.map((s, i) => ({ ...s, ...style(s.name), name: names[i] })),
  }));
  canvas.dataset.legend = names.join(", ");
  canvas.setAttribute("aria-label", `P(a tail wins) against the gap, exact: ${curve.series.map((s) => s.name).join(", ")}`);
  redrawOnResize(canvas, drawCurve);
  // In words: where each curve starts and ends, and where one reaches exactly 0.
  const points = curve.series[0].points;
  $("exact-chart-summary").textContent =
    `P(one of ${tails} tails wins), exact, at ${points.length} gaps from ${points[0][0]} to ${points[points.length - 1][0]} nats; ` +
    `the marker stands at ${gap} nats. ` +
    curve.series.map(({ name, points: p }) => {
      const zero = p.find(([, v]) => v === 0);
      return `${name}: ${fmt(p[0][1])} at ${p[0][0]} nats, ${fmt(p[p.length - 1][1])} at ${p[p.length - 1][0]}` +
        (zero ? `, exactly 0 from ${zero[0]} nats on.` : ".");
    }).join(" ");
  if (curve.written !== curve.series) {
    const series = curve.series;
    nextTask().then(() => writeCurves(series));
  }
}

/**
 * Writes each curve's floor and the curves' table, unless more curves came
 * meanwhile; once every curve is written, the canvas is marked as drawn.
 */
function writeCurves(series) {
  if (series !== curve.series) return;
  const { tails } = state.params;
  // Where a curve stops falling, and why, from the models' documented facts.
  $("curve-floors").textContent = series.map(({ name }) => {
    const f = modelFacts(name);
    return f.pZero > 0
      ? `${name} levels off far down: a tail there wins only by drawing E = 0, which each token does with probability ${fmt(f.pZero)}.`
      : `${name} drops to 0 once even its smallest E, ${fmt(f.minPositiveE)}, cannot lift a tail over the head (its dead zone).`;
  }).join(" ");
  // The same numbers as a table, for screen readers (and for reading back).
  $("exact-chart-data").innerHTML =
    `<caption>P(one of ${tails} tails wins), exact, by gap</caption><tr><th>gap (nats)</th>` +
    series.map((s) => `<th>${esc(s.name)}</th>`).join("") + "</tr>" +
    series[0].points.map(([g], k) =>
      `<tr data-gap="${g}"><td>${g}</td>${series.map((s) => `<td>${fmt(s.points[k][1])}</td>`).join("")}</tr>`).join("");
  curve.written = series;
  if (series.length === curve.models.length) $("exact-chart").dataset.drawn = curve.key;
}

/** The curves the worker computes first, in one answer: the ideal race and the two after it (torch CUDA's fp64 and fp32, or pipelines A and B). */
const FIRST = 3;

/**
 * The tail curves: computed in the worker once per (tails, temperature,
 * models), redrawn with the gap's marker. The first curves come in one
 * answer and each further one in its own, asked for once the one before is
 * drawn, so that the figure shows before every engine is computed and no
 * answer puts a long drawing task on the page (five curves in one answer
 * made one over 50 ms); the guide's and the theory view's answers, asked for
 * meanwhile, come between.
 */
function showCurve() {
  const { tails, temperature, gap } = state.params;
  $("gap-slider").value = String(gap);
  $("gap-slider-out").textContent = `${gap} nats`;
  const models = curveModels();
  const key = JSON.stringify([tails, temperature, models]);
  // The same curve, drawn or still being computed, is not asked for again:
  // each costs the worker a second or two, and repeated asks queued up ahead
  // of the guide's and the table's answers.
  if (curve.key === key) return curve.series ? drawCurve() : undefined;
  Object.assign(curve, { key, models, series: null, written: null });
  delete $("exact-chart").dataset.drawn;
  // Every curve at the same gaps, so that they share the table's rows.
  const gaps = sampledGaps(models, temperature);
  const batches = [models.slice(0, FIRST), ...models.slice(FIRST).map((m) => [m])];
  const askBatch = (b) => askTheory("curve", { models: batches[b], gaps, tails, temperature }, ({ series, error }) => {
    if (curve.key !== key) return;
    if (error) {
      $("curve-floors").innerHTML = `<span class="error">${esc(error)}</span>`;
      return;
    }
    curve.series = [...(curve.series ?? []), ...series];
    drawCurve();
    if (b + 1 < batches.length) askBatch(b + 1);
  });
  askBatch(0);
}

/** Redraws the view from the state: the figure and the numbers on the many-tail race, else the way back to it. */
export function render() {
  const many = state.preset === "many-tail";
  $("guide-other").hidden = many;
  $("lead-figure").hidden = !many;
  $("lead-noise").value = state.lead;
  // The figure and the numbers follow the parameters, the pipelines, the figure's choice and the first two weights alone.
  const key = [state.preset, state.params, state.models, state.lead, state.weights[0], state.weights[1]];
  if (!many || key.every((k, i) => k === drawnFor[i])) return;
  drawnFor = key;
  showCurve();
  showNumbers();
  // The catalogue's facts do not change: written once, in a task of its own.
  if (!versionsAsked) nextTask().then(showVersions);
  versionsAsked = true;
}

let versionsAsked = false;

/** The state the view was last drawn for. */
let drawnFor = [];

/** The gap slider moves the preset's gap field (the field's own check applies); "back" picks the many-tail preset. */
export function wire() {
  const send = (id, value) => {
    $(id).value = value;
    $(id).dispatchEvent(new Event("change"));
  };
  $("gap-slider").oninput = () => ($("gap-slider-out").textContent = `${$("gap-slider").value} nats`);
  $("gap-slider").onchange = () => send("gap", $("gap-slider").value);
  $("guide-back").onclick = () => send("preset", "many-tail");
  $("lead-noise").onchange = () => update((d) => (d.lead = $("lead-noise").value));
}
