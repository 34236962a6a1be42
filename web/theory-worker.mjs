// Module Web Worker for the exact win probabilities (the lead figure, the
// guide and the theory view): they take from a tenth of a second to
// seconds, so they run here and the page stays responsive. Messages:
// {id, exact: {models, weights, counts}} (or `guide`, the same) answers
// {id, results} (one winProbabilities answer per model);
// {id, curve: {models, gaps, tails, temperature}} answers
// {id, series: [{name, points: [[gap, P(a tail wins)]]}]};
// failures answer {id, error}.
import { answer, ex } from "./worker-loop.mjs";
import { manyTailGroups } from "./presets.mjs";

/** The most answers kept by `exact`: every point of the lead figure's curves (about 130 gaps, five models) and more. */
const KEPT = 1024;

/** Answers already computed, by model, weights and counts, oldest first. */
const kept = new Map();

/**
 * `winProbabilities(model, weights, counts)`, computed once for the same
 * inputs: the lead figure and the theory view ask for the same groups after
 * each change, a slider moved back asks again for a gap already shown, and
 * the gap slider's steps land on gaps the curves sampled, so the readout of
 * every engine at such a gap is answered at once.
 */
function exact(model, weights, counts) {
  const key = `${model}|${Array.from(weights).join(",")}|${Array.from(counts).join(",")}`;
  let result = kept.get(key);
  if (!result) {
    result = ex.winProbabilities(model, weights, counts);
    kept.set(key, result);
    if (kept.size > KEPT) kept.delete(kept.keys().next().value);
  }
  return result;
}

function curve({ models, gaps, tails, temperature }) {
  return models.map((name) => ({
    name,
    points: gaps.map((gap) => {
      const { weights, counts } = manyTailGroups(ex, tails, gap, temperature);
      return [gap, exact(name, weights, counts).groups[1].probability];
    }),
  }));
}

answer((data) => {
  if (data.curve) return { series: curve(data.curve) };
  const { models, weights, counts } = data.exact ?? data.guide;
  return { results: models.map((m) => exact(m, weights, counts)) };
});
