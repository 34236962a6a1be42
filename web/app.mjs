// The page: starts the core, wires each view to the one state, and redraws
// the views whenever the state changes (once per frame while a slider is
// dragged). Each view is a module of views/; none imports another.
import { start } from "./core.mjs";
import { $ } from "./dom.mjs";
import { onChange, update, withPreset } from "./state.mjs";
import { startThreads } from "./threads.mjs";
import { nextTask } from "./tasks.mjs";
import { warmCharts } from "./chart.mjs";
import * as guide from "./views/guide.mjs";
import * as weights from "./views/weights.mjs";
import * as noise from "./views/noise.mjs";
import * as race from "./views/race.mjs";
import * as theory from "./views/theory.mjs";
import * as experiment from "./views/experiment.mjs";
import * as speculative from "./views/speculative.mjs";
import * as performance_ from "./views/performance.mjs";
import * as share from "./views/share.mjs";

/**
 * The views drawn from the state, in the order they redraw: the lead figure
 * first, before other views write, then the race, whose worker then computes
 * while the main thread draws the rest.
 */
const DRAWN = { guide, race, weights, theory, noise, speculative };

let generation = 0;

/**
 * Redraws every view; a view that fails says so at the top and the others
 * still draw. Views whose work runs in a worker return a promise: the page
 * counts a redraw done (body's data-ready) once they are drawn, unless a
 * later redraw began meanwhile.
 */
async function redraw(how) {
  const mine = ++generation;
  const t0 = performance.now();
  const failed = [];
  const pending = [];
  let main = 0;
  const took = {};
  for (const [name, view] of Object.entries(DRAWN)) {
    // Each view in a task of its own, so the page answers input between them; a later redraw takes over.
    await nextTask();
    if (mine !== generation) return;
    const t = performance.now();
    try {
      const drawn = view.render(how);
      const done = () => (took[name] = performance.now() - t0);
      if (drawn) pending.push(drawn.then(done, (e) => failed.push(`the ${name} view could not be drawn: ${e.message}`)));
      else done();
    } catch (e) {
      failed.push(`the ${name} view could not be drawn: ${e.message}`);
    }
    main += performance.now() - t;
  }
  await Promise.all(pending);
  if (mine !== generation) return;
  $("view-error").textContent = failed.join("; ");
  $("refresh-time").textContent =
    `Views recomputed in ${Math.round(performance.now() - t0)} ms (${Math.round(main)} ms of it on the main thread).`;
  $("refresh-time").dataset.views = JSON.stringify(Object.fromEntries(Object.entries(took).map(([k, v]) => [k, Math.round(v)])));
  document.body.dataset.ready = String(Number(document.body.dataset.ready || 0) + 1);
}

let queued = false;

/** Redraws once per animation frame however many changes arrive (dragging). */
function redrawSoon() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    redraw({});
  });
}

onChange((how) => (how.soon ? redrawSoon() : redraw(how)));

/** Starts the core, wires the views and draws the first state, each step in a task of its own. */
async function main() {
  await start();
  await nextTask();
  warmCharts();
  await nextTask();
  for (const view of [guide, weights, noise, race, experiment, speculative, performance_, share]) view.wire();
  await nextTask();
  if (!(await share.restoreFromUrl())) update((d) => withPreset(d, "many-tail", d.params), { sync: true });
  await nextTask();
  performance_.showPerf();
  await startThreads();
}

main().catch((e) => {
  $("thread-status").textContent = `The core failed to load: ${e.message}`;
  $("thread-status").dataset.mode = "error";
});
