// A worker run's controls (`${prefix}-run`, `-cancel`, `-status` and
// `-estimate`): Run disabled and Cancel enabled while it runs, the
// keyboard's focus kept, and the run's estimate said before it starts.
import { duration, judgeRun } from "./estimate.mjs";

/** Starts a run's controls: Cancel takes the focus when Run had it. */
export function startRun(prefix) {
  const run = document.getElementById(`${prefix}-run`);
  const cancel = document.getElementById(`${prefix}-cancel`);
  const hadFocus = document.activeElement === run;
  run.disabled = true;
  cancel.disabled = false;
  if (hadFocus) cancel.focus();
}

/** Ends a worker run (`holder.worker`) and gives its controls back with `status`. */
export function stopRun(holder, prefix, status) {
  holder.worker?.terminate();
  holder.worker = null;
  const run = document.getElementById(`${prefix}-run`);
  const cancel = document.getElementById(`${prefix}-cancel`);
  // Keyboard users keep their place: focus leaves the disabled Cancel for Run.
  const hadFocus = document.activeElement === cancel;
  run.disabled = false;
  cancel.disabled = true;
  document.getElementById(`${prefix}-status`).textContent = status;
  if (hadFocus) run.focus();
}

/**
 * Judges a run by its worker's calibration (estimate.mjs) before it starts:
 * a run over the limit is ended with the refusal and gives null; otherwise
 * the estimate is shown in `${prefix}-estimate` and the answer holds the
 * start time (`started`) and `took()`, which adds how long the run took.
 */
export function estimateRun(holder, prefix, calibration, trials, runs = 1) {
  const verdict = judgeRun(calibration, trials, runs);
  if (!verdict.ok) {
    stopRun(holder, prefix, verdict.text);
    return null;
  }
  const out = document.getElementById(`${prefix}-estimate`);
  out.textContent = verdict.text;
  const started = performance.now();
  return { started, took: () => (out.textContent = `${verdict.text} It took ${duration((performance.now() - started) / 1000)}.`) };
}
