// Section 5, the experiment: a Monte Carlo run of the core in a worker under
// pipeline A's noise model, counted per category against the exact
// expectation, with its chi-square test and a histogram.
import { $, checkedNumbers } from "../dom.mjs";
import { fmt, fmtStat } from "../format.mjs";
import { drawHistogram } from "../chart.mjs";
import { EXPERIMENT_STEP } from "../presets.mjs";
import { moduleWorker } from "../workers.mjs";
import { estimateRun, startRun, stopRun } from "../runs.mjs";
import { describeChart } from "../described.mjs";
import { duration } from "../estimate.mjs";
import { state } from "../state.mjs";

const experiment = { worker: null };

function experimentInputs(sampler) {
  if (sampler !== "race") {
    return { target: Float32Array.from(EXPERIMENT_STEP.target), draft: Float32Array.from(EXPERIMENT_STEP.draft) };
  }
  return { target: state.weights, draft: null };
}

const stopExperiment = (status) => stopRun(experiment, "exp", status);

function startExperiment() {
  const sampler = $("exp-sampler").value;
  const model = state.models[0];
  const checked = checkedNumbers(["exp-trials"], "exp-status");
  if (!checked) return;
  const trials = checked["exp-trials"];
  const inputs = experimentInputs(sampler);
  $("exp-out").innerHTML = "";
  $("exp-estimate").textContent = "";
  $("exp-chart").hidden = true;
  describeChart("exp-chart", null);
  $("exp-progress").value = 0;
  startRun("exp");
  $("exp-status").textContent = `Timing ${trials} trials under ${model} before the run…`;
  const worker = moduleWorker("experiment-worker.mjs");
  experiment.worker = worker;
  const request = { model, ...inputs, options: { sampler, trials, seed: Number(state.seed), nanPolicy: state.nanPolicy } };
  let run;
  worker.onmessage = ({ data }) => {
    if (data.calibration) {
      // The estimate comes before the run, and a run of hours never starts.
      run = estimateRun(experiment, "exp", data.calibration, trials);
      if (!run) return;
      $("exp-status").textContent = `Running ${trials} trials under ${model}…`;
      return worker.postMessage(request);
    }
    if (data.progress !== undefined) {
      $("exp-progress").value = data.progress;
      // The time left at the rate so far, once there is a rate to go by.
      const elapsed = (performance.now() - run.started) / 1000;
      if (data.progress > 0.02 && data.progress < 1 && elapsed > 0.5) {
        const left = (elapsed * (1 - data.progress)) / data.progress;
        $("exp-status").textContent =
          `Running ${trials} trials under ${model}: ${Math.round(data.progress * 100)}%, about ${duration(left)} left.`;
      }
      return;
    }
    if (data.error) return stopExperiment(`The experiment failed: ${data.error}`);
    stopExperiment(`Done: ${trials} trials under ${model}.`);
    run.took();
    showExperiment(data.report, sampler, model);
  };
  worker.onerror = (e) => stopExperiment(`The experiment failed: ${e.message}`);
  worker.postMessage({ calibrate: request });
}

function showExperiment(r, sampler, model) {
  const cats = r.categories;
  $("exp-out").innerHTML =
    `<table class="facts" id="exp-summary"><tr><th>trials</th><th>chi-square</th><th>df</th><th>p-value</th>` +
    `<th>max |z|</th><th>TV to expectation</th><th>TV to target</th><th>impossible seen</th></tr>` +
    `<tr><td>${r.trials}</td><td>${fmtStat(r.chiSquare)}</td><td>${r.df}</td><td>${fmtStat(r.pValue)}</td><td>${fmtStat(r.maxAbsZ)}</td>` +
    `<td>${fmtStat(r.tvDistance)}</td><td>${fmtStat(r.tvToTarget)}</td><td>${r.impossibleSeen}</td></tr></table>` +
    (sampler === "rejection_shared"
      ? "<p>Shared noise: the expectation is the target itself (what an unbiased sampler gives); the distance to it is the measured bias.</p>"
      : "") +
    `<details><summary>${cats.length} categories</summary><table class="facts" id="exp-categories"><tr><th>tokens</th>` +
    "<th>expected probability</th><th>observed</th><th>z</th></tr>" +
    cats
      .slice(0, 200)
      .map((c) => `<tr><td>${c.tokens > 1 ? `${c.first} .. ${c.first + c.tokens - 1}` : c.first}</td><td>${fmt(c.expected)}</td>` +
        `<td>${c.observed}</td><td>${fmtStat(c.z)}</td></tr>`)
      .join("") +
    "</table></details>";
  const canvas = $("exp-chart");
  canvas.hidden = false;
  // Observed counts beside the exact expected counts, per category.
  const shown = cats.slice(0, 64);
  const title = `${r.trials} trials under ${model}: observed counts against the exact expectation`;
  drawHistogram(canvas, shown, { title, flagged: shown.flatMap((c, i) => (Math.abs(c.z) > 4 ? [i] : [])) });
  describeChart("exp-chart", `${title}; chi-square p-value ${fmtStat(r.pValue)}, largest |z| ${fmtStat(r.maxAbsZ)}.`,
    ["tokens", "observed count", "expected count", "z"],
    shown.map((c) => [c.tokens > 1 ? `${c.first} .. ${c.first + c.tokens - 1}` : String(c.first), String(c.observed), fmt(c.expectedCount), fmtStat(c.z)]));
}

export function wire() {
  $("exp-run").onclick = startExperiment;
  $("exp-cancel").onclick = () => stopExperiment(`Cancelled at ${Math.round($("exp-progress").value * 100)}%.`);
}
