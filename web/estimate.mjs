// How long a Monte Carlo run takes here, known before it starts: the
// experiment worker times the same run with no trials and with a few
// (its calibrate answer), and the page extrapolates to the trials asked
// for, and refuses a run longer than MAX_RUN_SECONDS.

/** The longest run the page starts: an hour. */
export const MAX_RUN_SECONDS = 3600;

/** A duration in words: seconds under 90 s, minutes under 90 min, else hours. */
export const duration = (s) =>
  s < 90 ? `${Math.max(1, Math.ceil(s))} s` : s < 5400 ? `${Math.ceil(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;

/**
 * The verdict on `runs` runs of `trials` trials each at a calibration's rate
 * ({fixedMs, perTrialMs, probe}): `seconds`, whether it may start (`ok`),
 * and a sentence saying so (with the most trials that fit when it may not).
 */
export function judgeRun({ fixedMs, perTrialMs, probe }, trials, runs = 1) {
  const seconds = (runs * (fixedMs + trials * perTrialMs)) / 1000;
  const timed = `timed on ${probe} trials first`;
  if (seconds <= MAX_RUN_SECONDS) return { ok: true, seconds, text: `Estimated: about ${duration(seconds)} here (${timed}).` };
  const fit = Math.max(0, Math.floor(((MAX_RUN_SECONDS * 1000) / runs - fixedMs) / Math.max(perTrialMs, 1e-9)));
  return {
    ok: false,
    seconds,
    text: `Refused: ${trials} trials${runs > 1 ? ` at each of ${runs} positions` : ""} would take about ${duration(seconds)} here ` +
      `(${timed}); a run may take at most ${duration(MAX_RUN_SECONDS)}, about ${fit} trials. Nothing ran.`,
  };
}
