// The first view: the many-tail race's key figure, live. The tails' exact
// win probability against the gap under the ideal race and both pipelines
// (computed in the theory worker, sampled finely where the curves bend), the
// gap slider, each curve's floor explained, and the guide's numbers for the
// gap on show.
import { ask, ex, modelFacts } from "../core.mjs";
import { $, esc } from "../dom.mjs";
import { fmt, fmtBounded } from "../format.mjs";
import { IDEAL_COLOR, PRECISION_COLOR } from "../chart.mjs";
import { manyTailGroups } from "../presets.mjs";
import { askTheory } from "../workers.mjs";
import { state } from "../state.mjs";
import { paintSharp, redrawOnResize } from "../resized.mjs";

/** The models of the curves: the ideal race and both pipelines. */
const curveModels = () => [...new Set(["ideal", ...state.models])];

/** The guide's numbers: the tails' exact win probability under fp32 and fp64 torch CUDA, and the dead zone's edge. */
function showNumbers() {
  const { tails, gap, temperature } = state.params;
  // Only the pipelines' numbers are shown here; the ideal race is on the curve.
  const models = [...state.models];
  // Until this gap's answer arrives, no number of another gap stands next to it.
  $("guide-f32").textContent = $("guide-f64").textContent = "…";
  // The head and the tails are two groups, so they stay apart even when they weigh the same (gap 0).
  askTheory("guide", { models, ...manyTailGroups(ex, tails, gap, temperature) }, ({ results, error }) => {
    const probability = (model) => {
      const i = models.indexOf(model);
      if (error) return `… (${error})`;
      const g = results[i]?.groups[1];
      return i < 0 ? "… (choose it as a pipeline)" : fmtBounded(g.probability, g.lower, g.upper);
    };
    $("guide-f32").textContent = probability("torch-cuda-f32");
    $("guide-f64").textContent = probability("torch-cuda-f64");
    $("lead-readout").textContent = error ? "" :
      `At ${gap} nats, P(one of ${tails} tails wins) is exactly ${probability("torch-cuda-f32")} with fp32 noise ` +
      `(torch CUDA) and ${probability("torch-cuda-f64")} with fp64 noise.`;
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

/** Below this CSS width the legend names curves by precision: the full model names' box would cover the curves. */
const NARROW = 600;

/**
 * The legend's name of each curve: the model's name, or on a narrow canvas
 * its precision ("fp32", "fp64"; the ideal race "ideal"), which keeps the
 * legend in the upper right corner clear of the falling curves. Where two
 * models share a precision the full names stay.
 */
function legendNames(models, width) {
  if (width >= NARROW) return models;
  const short = models.map((m) => (m === "ideal" ? m : `fp${modelFacts(m).precision.slice(1)}`));
  return new Set(short).size === short.length ? short : models;
}

/** Draws the curves (by the exporace-viz crate, plotters on the canvas) and writes their floors and their table. */
function drawCurve() {
  const canvas = $("exact-chart");
  // The answer may arrive after the preset changed and the canvas was hidden.
  if (!canvas.clientWidth || !canvas.clientHeight) return;
  const { tails, gap } = state.params;
  // Colour by precision, as every view: the ideal reference grey and dashed, a second model of a precision already drawn dashed.
  const seen = new Set();
  const style = (name) => {
    if (name === "ideal") return { color: IDEAL_COLOR, dashed: true };
    const p = modelFacts(name).precision;
    const dashed = seen.has(p);
    seen.add(p);
    return { color: PRECISION_COLOR[p], dashed };
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
  canvas.dataset.drawn = curve.key;
  canvas.dataset.legend = names.join(", ");
  redrawOnResize(canvas, drawCurve);
  // Where a curve stops falling, and why, from the models' documented facts.
  $("curve-floors").textContent = curve.series.map(({ name }) => {
    const f = modelFacts(name);
    return f.pZero > 0
      ? `${name} levels off far down: a tail there wins only by drawing E = 0, which each token does with probability ${fmt(f.pZero)}.`
      : `${name} drops to 0 once even its smallest E, ${fmt(f.minPositiveE)}, cannot lift a tail over the head (its dead zone).`;
  }).join(" ");
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
  // The same numbers as a table, for screen readers (and for reading back).
  $("exact-chart-data").innerHTML =
    `<caption>P(one of ${tails} tails wins), exact, by gap</caption><tr><th>gap (nats)</th>` +
    curve.series.map((s) => `<th>${esc(s.name)}</th>`).join("") + "</tr>" +
    curve.series[0].points.map(([g], k) =>
      `<tr data-gap="${g}"><td>${g}</td>${curve.series.map((s) => `<td>${fmt(s.points[k][1])}</td>`).join("")}</tr>`).join("");
}

/** The tail curve: computed in the worker once per (tails, temperature, models), redrawn with the gap's marker. */
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
  curve.key = key;
  curve.series = null;
  delete $("exact-chart").dataset.drawn;
  askTheory("curve", { models, gaps: sampledGaps(models, temperature), tails, temperature }, ({ series, error }) => {
    if (error) {
      $("curve-floors").innerHTML = `<span class="error">${esc(error)}</span>`;
      return;
    }
    curve.series = series;
    drawCurve();
  });
}

/** Redraws the view from the state: the figure and the numbers on the many-tail race, else the way back to it. */
export function render() {
  const many = state.preset === "many-tail";
  $("guide-other").hidden = many;
  $("lead-figure").hidden = !many;
  // The figure and the numbers follow the parameters, the pipelines and the first two weights alone.
  const key = [state.preset, state.params, state.models, state.weights[0], state.weights[1]];
  if (!many || key.every((k, i) => k === drawnFor[i])) return;
  drawnFor = key;
  showCurve();
  showNumbers();
}

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
}
