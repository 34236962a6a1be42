// The worker of `runExperimentAsync` in browsers (a module Web Worker): runs
// one experiment and posts its progress, then its report or its error.
import init, * as ex from "./index.js";

self.onmessage = async ({ data: { model, target, draft, options } }) => {
  let last = 0;
  try {
    await init();
    const report = ex.runExperiment(model, target, draft, options, (fraction) => {
      const now = Date.now();
      if (now - last >= 50 || fraction === 1) {
        last = now;
        self.postMessage({ progress: fraction });
      }
    });
    self.postMessage({ report });
  } catch (e) {
    self.postMessage({ error: { code: e.code ?? "BAD_ARGUMENT", message: String(e.message ?? e) } });
  }
};
