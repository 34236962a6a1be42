// Module Web Worker for the theory view: exact win probabilities take from a
// tenth of a second to seconds (more with more distinct weights), so they run
// here and the page stays responsive. Messages:
// {id, exact: {models, weights, counts}} (or `guide`, the same) answers
// {id, results} (one winProbabilities answer per model);
// {id, curve: {models, gaps, tails, temperature}} answers
// {id, series: [{name, points: [[gap, P(a tail wins)]]}]};
// failures answer {id, error}.
import init, * as ex from "./pkg/web/index.js";
import { manyTailGroups } from "./presets.mjs";

// The first message is the page's compiled wasm module ({module}).
let ready = null;

function curve({ models, gaps, tails, temperature }) {
  return models.map((name) => ({
    name,
    points: gaps.map((gap) => {
      const { weights, counts } = manyTailGroups(ex, tails, gap, temperature);
      return [gap, ex.winProbabilities(name, weights, counts).groups[1].probability];
    }),
  }));
}

onmessage = async ({ data }) => {
  if (data.module) {
    ready = init({ module_or_path: data.module });
    return;
  }
  try {
    await ready;
    if (data.exact || data.guide) {
      const { models, weights, counts } = data.exact ?? data.guide;
      postMessage({ id: data.id, results: models.map((m) => ex.winProbabilities(m, weights, counts)) });
    } else {
      postMessage({ id: data.id, series: curve(data.curve) });
    }
  } catch (e) {
    postMessage({ id: data.id, error: String((e && e.message) || e) });
  }
};
