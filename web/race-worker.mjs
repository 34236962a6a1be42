// Module Web Worker for the race view's work on a whole vocabulary, off the
// page's main thread: {id, scenario} answers {id, report} (a compare of
// inline noise; typed arrays in the scenario become plain arrays, as the
// scenario format has), {id, compareOf} answers {id, report: {result}} (two
// pipelines' compare on a quarter of a million f32 weights, read as they
// are), {id, deadZone} answers {id, deadZone}, and {id, tokens} answers
// {id, races} (single tokens raced in both pipelines, token-races.mjs);
// failures answer {id, error}.
import { answer, ex } from "./worker-loop.mjs";
import { tokenRaces } from "./token-races.mjs";

answer(({ scenario, tokens, deadZone, compareOf }) => {
  if (tokens) return { races: tokenRaces(ex, tokens) };
  if (deadZone) return { deadZone: ex.deadZoneOf(deadZone.model, deadZone.weights) };
  if (compareOf) {
    const { models, weights, seed, row, nanPolicy } = compareOf;
    return { report: { result: ex.compareOf(models[0], models[1], weights, BigInt(seed), row, { nanPolicy }) } };
  }
  const plain = Object.fromEntries(Object.entries(scenario).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v) : v]));
  return { report: ex.run({ exporace: 1, ...plain }) };
});
