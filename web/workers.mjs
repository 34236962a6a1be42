// The page's module workers. Each is handed the page's compiled wasm module
// first, so none fetches or compiles it again. The theory worker (exact
// probabilities) keeps, for each kind of request, only its latest answer;
// the race worker answers whole-vocabulary scenarios (compare, dead zones).
import { loaded } from "./core.mjs";

/** A module worker (`path` beside this file) given the compiled wasm module. */
export function moduleWorker(path) {
  const worker = new Worker(new URL(path, import.meta.url), { type: "module" });
  worker.postMessage({ module: loaded.module });
  return worker;
}

const theory = { worker: null, latest: {}, next: 0, handlers: new Map() };

/**
 * Asks the theory worker (`kind`: exact, guide or curve) and calls
 * `onAnswer(data)` with its answer, unless a later request of the same kind
 * was made meanwhile. An answer that cannot be shown is shown as an error.
 */
export function askTheory(kind, request, onAnswer) {
  if (!theory.worker) {
    theory.worker = moduleWorker("theory-worker.mjs");
    theory.worker.onmessage = ({ data }) => {
      const h = theory.handlers.get(data.id);
      theory.handlers.delete(data.id);
      if (!h || theory.latest[h.kind] !== data.id) return;
      try {
        h.onAnswer(data);
      } catch (e) {
        h.onAnswer({ error: `could not show this answer: ${e.message}` });
      }
    };
  }
  const id = ++theory.next;
  theory.latest[kind] = id;
  theory.handlers.set(id, { kind, onAnswer });
  theory.worker.postMessage({ id, [kind]: request });
}

/** Drops the pending answer of `kind`: it will not be shown. */
export function dropTheory(kind) {
  theory.latest[kind] = null;
}

const races = { worker: null, next: 0, pending: new Map(), latest: {} };

/**
 * The race worker's answer to `message` ({scenario} or {tokens}): a promise
 * of the answer, or of null when a later request of the same `kind` was made
 * meanwhile (its answer is stale); it rejects with the core's refusal.
 */
export function askRaces(kind, message) {
  if (!races.worker) {
    races.worker = moduleWorker("race-worker.mjs");
    races.worker.onmessage = ({ data }) => {
      const p = races.pending.get(data.id);
      races.pending.delete(data.id);
      if (races.latest[p.kind] !== undefined && races.latest[p.kind] !== data.id) p.ok(null);
      else if (data.error) p.fail(new Error(data.error));
      else p.ok(data);
    };
    // A worker that fails (to load, or at all) fails what it was asked, and the next request starts another.
    races.worker.onerror = (e) => {
      e.preventDefault();
      const failed = races.pending;
      races.worker.terminate();
      races.worker = null;
      races.pending = new Map();
      for (const p of failed.values()) p.fail(new Error(`the race worker failed: ${e.message || "it did not load"}`));
    };
  }
  const id = ++races.next;
  if (kind) races.latest[kind] = id;
  return new Promise((ok, fail) => {
    races.pending.set(id, { kind, ok, fail });
    races.worker.postMessage({ id, ...message });
  });
}

/** The dead zone of `model` over `weights` (computed in the race worker once per weights array and model). */
const deadZones = new WeakMap();
export function deadZoneOf(model, weights) {
  let byModel = deadZones.get(weights);
  if (!byModel) deadZones.set(weights, (byModel = new Map()));
  if (!byModel.has(model)) {
    const answer = askRaces(null, { scenario: { op: "dead_zone", model, weights } }).then((a) => a.report.result);
    // A failure is not kept: the next ask tries again.
    answer.catch(() => byModel.delete(model));
    byModel.set(model, answer);
  }
  return byModel.get(model);
}
