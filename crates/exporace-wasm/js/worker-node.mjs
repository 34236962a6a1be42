// The worker of `runExperimentAsync` in Node (worker_threads): runs one
// experiment and posts its progress, then its report or its error.
import { parentPort, workerData } from "node:worker_threads";
import * as ex from "./index.mjs";

const { model, target, draft, options } = workerData;
let last = 0;
try {
  const report = ex.runExperiment(model, target, draft, options, (fraction) => {
    const now = Date.now();
    if (now - last >= 50 || fraction === 1) {
      last = now;
      parentPort.postMessage({ progress: fraction });
    }
  });
  parentPort.postMessage({ report });
} catch (e) {
  parentPort.postMessage({ error: { code: e.code ?? "BAD_ARGUMENT", message: String(e.message ?? e) } });
}
