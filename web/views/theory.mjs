// Section 4, theory: the exact win probability of each group of equal
// weights under the ideal race and both pipelines (computed in the theory
// worker), and each pipeline's dead zone.
import { $, esc } from "../dom.mjs";
import { fmt, fmtBounded } from "../format.mjs";
import { askTheory, dropTheory } from "../workers.mjs";
import { deadZoneOf, weightGroups } from "../grouped.mjs";
import { state } from "../state.mjs";

/** The most distinct weights for which exact probabilities are computed (the cost grows with their square). */
const MAX_GROUPS = 8;

function showExact() {
  const groups = weightGroups(state.weights);
  const out = $("exact-out");
  if (groups.weights.length > MAX_GROUPS) {
    dropTheory("exact");
    out.innerHTML = `<p>Exact probabilities are computed for up to ${MAX_GROUPS} distinct weights; this race has ` +
      `${groups.weights.length}. The many-tail, near-tie and overflow presets fit.</p>`;
    return;
  }
  const models = [...new Set(["ideal", ...state.models])];
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

/** Each pipeline's dead zone (one test per run of equal weights). */
function showDeadZone() {
  const rows = state.models.map((model) => ({ model, r: deadZoneOf(model, state.weights) }));
  $("dead-zone").innerHTML =
    "<tr><th>model</th><th>dead tokens</th><th>lost mass (share of the weight)</th><th>weight threshold</th><th>E min</th><th>E max</th></tr>" +
    rows
      .map(({ model, r }, i) =>
        `<tr><th>${esc(model)}</th><td id="dead-count-${"ab"[i]}">${r.count}</td><td id="dead-mass-${"ab"[i]}">${fmt(r.mass)}</td>` +
        `<td>${fmt(r.threshold)}</td><td>${fmt(r.eMin)}</td><td>${fmt(r.eMax)}</td></tr>`)
      .join("");
}

/** Redraws the section from the state (the exact table follows when the theory worker answers). */
export function render() {
  // Both follow the weights and the pipelines alone.
  const key = [state.weights, state.models];
  if (key.every((k, i) => k === drawnFor[i])) return;
  drawnFor = key;
  showExact();
  showDeadZone();
}

/** The state the section was last drawn for. */
let drawnFor = [];
