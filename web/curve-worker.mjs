// Module Web Worker for the theory view's many-tail curve: exact win
// probabilities at many gaps take seconds, so they run here and the page
// stays responsive. Message {id, models, gaps, tails, temperature} answers
// {id, series: [{name, points: [[gap, P(a tail wins)]]}]} or {id, error}.
import init, * as ex from "/pkg/web/exporace.js";
import { manyTailGroups } from "./presets.mjs";

const ready = init();

onmessage = async ({ data }) => {
  try {
    await ready;
    const series = data.models.map((name) => ({
      name,
      points: data.gaps.map((gap) => {
        const { weights, counts } = manyTailGroups(data.tails, gap, data.temperature);
        return [gap, ex.winProbabilities(name, weights, counts).groups[1].probability];
      }),
    }));
    postMessage({ id: data.id, series });
  } catch (e) {
    postMessage({ id: data.id, error: String((e && e.message) || e) });
  }
};
