// Module Web Worker answering the scenarios whose inputs are a whole
// vocabulary (a compare of two races, a dead zone), so that a quarter of a
// million weights are read, raced and reported off the page's main thread:
// {id, scenario} answers {id, report} (or {id, error}). Typed arrays in the
// scenario (the weights) become plain arrays here, as the scenario format has.
import { answer, ex } from "./worker-loop.mjs";

answer(({ scenario }) => {
  const plain = Object.fromEntries(Object.entries(scenario).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v) : v]));
  return { report: ex.run({ exporace: 1, ...plain }) };
});
