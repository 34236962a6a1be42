// Module Web Worker running one Monte Carlo experiment of the core
// (runExperiment) so the page stays responsive: it posts {progress} after
// each chunk of trials, then {report} or {error}. A {calibrate} request is
// the same experiment timed with one trial and with a few, answered with
// {calibration: {fixedMs, perTrialMs, probe}} (estimate.mjs reads it). The
// page cancels a run by ending this worker.
import { answer, ex } from "./worker-loop.mjs";

/** Token draws in the timed probe: enough to time, a few milliseconds' work. */
const PROBE_DRAWS = 2 ** 22;

function calibrate({ model, target, draft, options }) {
  const timed = (trials) => {
    const t0 = performance.now();
    ex.runExperiment(model, target, draft, { ...options, trials });
    return performance.now() - t0;
  };
  // The core runs at least one trial: the fixed cost is read off a run of one.
  timed(1);
  const fixedMs = timed(1);
  const probe = Math.max(4, Math.min(4096, Math.ceil(PROBE_DRAWS / target.length)));
  const perTrialMs = Math.max(timed(probe) - fixedMs, 0) / (probe - 1);
  return { fixedMs, perTrialMs, probe };
}

answer((data) =>
  data.calibrate
    ? { calibration: calibrate(data.calibrate) }
    : { report: ex.runExperiment(data.model, data.target, data.draft, data.options, (progress) => postMessage({ progress })) });
