// Module Web Worker for the race view's work on a whole vocabulary, off the
// page's main thread: {id, scenario} answers {id, report} (a compare or a
// dead zone of a quarter of a million weights; typed arrays in the scenario
// become plain arrays, as the scenario format has), and {id, tokens} answers
// {id, races} (single tokens raced in both pipelines, token-races.mjs);
// failures answer {id, error}.
import { answer, ex } from "./worker-loop.mjs";
import { tokenRaces } from "./token-races.mjs";

answer(({ scenario, tokens, deadZone }) => {
  if (tokens) return { races: tokenRaces(ex, tokens) };
  if (deadZone) return { deadZone: ex.deadZoneOf(deadZone.model, deadZone.weights) };
  const plain = Object.fromEntries(Object.entries(scenario).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v) : v]));
  return { report: ex.run({ exporace: 1, ...plain }) };
});
