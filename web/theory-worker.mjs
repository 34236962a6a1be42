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

function curve({ models, gaps, tails, temperature }) {
  return models.map((name) => ({
    name,
    points: gaps.map((gap) => {
      const { weights, counts } = manyTailGroups(ex, tails, gap, temperature);
      return [gap, ex.winProbabilities(name, weights, counts).groups[1].probability];
    }),
  }));
}

answer((data) => {
  if (data.curve) return { series: curve(data.curve) };
  const { models, weights, counts } = data.exact ?? data.guide;
  return { results: models.map((m) => ex.winProbabilities(m, weights, counts)) };
});
