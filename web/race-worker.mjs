// Module Web Worker for the race view's work on a whole vocabulary, off the
// page's main thread. {id, compareOf} (two pipelines' compare on a quarter
// of a million f32 weights, read as they are) or {id, scenario} (a compare
// of inline noise; typed arrays in the scenario become plain arrays, as the
// scenario format has) answers {id, report, races}: the compare's report and
// the races of the tokens the view shows (token-races.mjs), in one answer.
// Failures answer {id, error}.
import { answer, ex } from "./worker-loop.mjs";
import { comparedTokenRaces } from "./token-races.mjs";

answer(({ scenario, compareOf }) => {
  let report, race;
  if (compareOf) {
    const { models, weights, seed, row, nanPolicy } = compareOf;
    report = { result: ex.compareOf(models[0], models[1], weights, BigInt(seed), row, { nanPolicy }) };
    race = { weights, noise: null, models, seed, row };
  } else {
    const plain = Object.fromEntries(Object.entries(scenario).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v) : v]));
    report = ex.run({ exporace: 1, ...plain });
    race = { weights: scenario.weights, noise: scenario.noise, models: null, seed: null, row: null };
  }
  return { report, races: comparedTokenRaces(ex, report.result, race) };
});
