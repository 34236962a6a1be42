// Section 1, the race's weights: the preset and its parameters, pasted
// numbers, the sliders over a handful of tokens, and the weights chart with
// pipeline A's dead zone.
import { ex } from "../core.mjs";
import { $, checkedNumbers } from "../dom.mjs";
import { fmt, fmt32 } from "../format.mjs";
import { PARAM_LIMITS, PRESETS, fromLogits, parseNumbers } from "../presets.mjs";
import { drawWeights } from "../chart.mjs";
import { state, update, withPreset, withWeights } from "../state.mjs";
import { describeChart } from "../described.mjs";
import { deadZoneOf } from "../grouped.mjs";
import { nextTask } from "../tasks.mjs";

/** Which presets show which parameter field. */
const FIELDS = { tails: ["many-tail"], gap: ["many-tail"], vocab: ["uniform", "zipf"], zipf: ["zipf"] };

/** How many tokens get a slider. */
const SLIDERS = 6;

/** Shows the parameter fields of the preset chosen. */
function showFields(name) {
  for (const [id, presets] of Object.entries(FIELDS)) $(id).closest("label").hidden = !presets.includes(name);
}

/** The chosen preset with its visible fields' values, or nothing (the fields say why) when one is not valid. */
function loadPreset() {
  const name = $("preset").value;
  showFields(name);
  const visible = Object.keys(PARAM_LIMITS).filter((id) => !$(id).closest("label").hidden);
  const v = checkedNumbers(visible, "preset-error");
  if (!v) return;
  update((d) => withPreset(d, name, { ...d.params, ...v }));
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

function applyPaste() {
  $("paste-error").textContent = "";
  try {
    const values = parseNumbers($("paste").value);
    const logits = $("paste-logits").checked;
    let weights;
    if (logits) {
      const t = checkedNumbers(["temperature"], "paste-error");
      if (!t) return;
      weights = fromLogits(ex, values, t.temperature);
    } else weights = pastedWeights(values);
    update((d) => withWeights(d, weights, null, "pasted", `${values.length} pasted ${logits ? "logits" : "weights"}.`));
  } catch (e) {
    $("paste-error").textContent = `${e.message}. Nothing changed.`;
  }
}

/** The weights the sliders were built for: they are rebuilt when the base weights change. */
let slidersFor = null;

/** One slider per token from "First token": the position is log10 of the weight (the input the slider builds). */
function buildSliders() {
  const n = state.weights.length;
  slidersFor = state.baseWeights;
  const start = Math.max(0, Math.min(Number($("slider-start").value) | 0, n - 1));
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

/** A slider moved: token `t` gets weight 10^pos (rounded to f32, the weights' type); the views follow once per frame. */
function slide(t, pos) {
  const w = Float32Array.of(10 ** pos)[0];
  update((d) => (d.weightEdits = d.weightEdits.filter(([k]) => k !== t).concat([[t, w]])), { soon: true });
  $(`slider-out-${t}`).textContent = fmt32(w);
}

/** Writes the preset and its parameters into their fields. */
function syncControls() {
  if (PRESETS.includes(state.preset)) $("preset").value = state.preset;
  showFields($("preset").value);
  for (const id of Object.keys(PARAM_LIMITS)) {
    $(id).value = String(state.params[id]);
    $(id).removeAttribute("aria-invalid");
  }
  $("preset-error").textContent = "";
}

/** Redraws the section from the state. */
export function render({ sync = false } = {}) {
  if (sync) syncControls();
  if (slidersFor !== state.baseWeights) buildSliders();
  $("about").textContent = state.about;
  $("weight-edits").textContent = state.weightEdits.length
    ? `Weights set by the sliders: ${state.weightEdits.map(([t]) => `token ${t} = ${fmt32(state.weights[t])}`).join("; ")}`
    : "";
  // The chart follows the weights and pipeline A alone, and shades A's dead zone.
  const { weights, models } = state;
  if (!sync && weights === drawnFor[0] && models[0] === drawnFor[1]) return;
  drawnFor = [weights, models[0]];
  const dead = deadZoneOf(models[0], weights);
  const summary = `${weights.length} tokens; pipeline A kills ${dead.count} of them (mass ${fmt(dead.mass)}).`;
  $("prob-summary").textContent = summary;
  // The chart of a quarter of a million weights in a task of its own.
  return nextTask().then(() => {
    if (state.weights !== weights) return;
    drawWeights($("prob-chart"), weights, { threshold: dead.count ? dead.threshold : null });
    describeChart("prob-chart", summary, ["token", "weight"], weightRows(weights));
  });
}

/** The weights and pipeline A the chart was last drawn for. */
let drawnFor = [];

/** The weights chart's data: every token up to 64, else the first 32 and the last 32, each with its weight. */
function weightRows(weights) {
  const n = weights.length;
  const tokens = n <= 64 ? [...Array(n).keys()] : [...Array(32).keys(), ...Array.from({ length: 32 }, (_, k) => n - 32 + k)];
  return tokens.map((t) => [String(t), fmt32(weights[t])]);
}

/** The fields' ranges from the presets' limits; the controls' handlers. */
export function wire() {
  for (const [id, { min, max, whole }] of Object.entries(PARAM_LIMITS)) {
    Object.assign($(id), { min: String(min), max: String(max) });
    if (whole) $(id).step = "1";
  }
  $("preset").onchange = loadPreset;
  for (const id of Object.keys(PARAM_LIMITS)) $(id).onchange = loadPreset;
  $("apply-paste").onclick = applyPaste;
  $("slider-start").onchange = buildSliders;
  $("sliders-reset").onclick = () => {
    update((d) => (d.weightEdits = []));
    buildSliders();
  };
}
