// Module Web Worker running one Monte Carlo experiment of the core
// (runExperiment) so the page stays responsive: it posts {progress} after
// each chunk of trials, then {report} or {error}. The page cancels a run by
// ending this worker.
import { answer, ex } from "./worker-loop.mjs";

answer((data) => ({
  report: ex.runExperiment(data.model, data.target, data.draft, data.options, (progress) => postMessage({ progress })),
}));
