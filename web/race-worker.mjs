// Module Web Worker answering the scenarios whose inputs are a whole
// vocabulary (a compare of two races, a dead zone), so that a quarter of a
// million weights are read, raced and reported off the page's main thread.
// The first message is the page's compiled wasm module ({module}); then
// {id, scenario} answers {id, report} or {id, error}. Typed arrays in the
// scenario (the weights) become plain arrays here, as the scenario format has.
import init, * as ex from "./pkg/web/index.js";

let ready = null;

onmessage = async ({ data }) => {
  if (data.module) {
    ready = init({ module_or_path: data.module });
    return;
  }
  try {
    await ready;
    const scenario = Object.fromEntries(Object.entries(data.scenario).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v) : v]));
    postMessage({ id: data.id, report: ex.run({ exporace: 1, ...scenario }) });
  } catch (e) {
    postMessage({ id: data.id, error: String((e && e.message) || e) });
  }
};
