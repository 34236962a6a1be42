// Module Web Worker running one Monte Carlo experiment of the core
// (runExperiment) so the page stays responsive: it posts {progress} after
// each chunk of trials, then {report} or {error}. The page cancels a run by
// ending this worker. Its first message is the page's compiled wasm module
// ({module}), so the wasm is neither fetched nor compiled again here.
import init, * as ex from "./pkg/web/index.js";

let ready = null;

onmessage = async ({ data }) => {
  if (data.module) {
    ready = init({ module_or_path: data.module });
    return;
  }
  try {
    await ready;
    const report = ex.runExperiment(data.model, data.target, data.draft, data.options, (progress) =>
      postMessage({ progress }),
    );
    postMessage({ report });
  } catch (e) {
    postMessage({ error: String((e && e.message) || e) });
  }
};
