// A worker run's controls (`${prefix}-run`, `-cancel` and `-status`): Run
// disabled and Cancel enabled while it runs, the keyboard's focus kept.

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
