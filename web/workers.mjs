// The page's module workers. Each is handed the page's compiled wasm module
// first, so none fetches or compiles it again. The theory worker (exact
// probabilities) keeps, for each kind of request, only its latest answer;
// the race worker (a whole vocabulary's compare, single tokens' races) is
// sent only the latest request of each kind.
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

/**
 * The race worker takes one request at a time. While it works, each kind
 * keeps only its latest request here: an older one is never sent, and its
 * promise gives null at once (stale work is cancelled, not queued).
 */
const races = { worker: null, next: 0, running: null, waiting: new Map() };

function startRaces() {
  races.worker = moduleWorker("race-worker.mjs");
  races.worker.onmessage = ({ data }) => {
    const p = races.running;
    races.running = null;
    if (data.error) p.fail(new Error(data.error));
    else p.ok(data);
    sendNext();
  };
  // A worker that fails (to load, or at all) fails what it was asked, and the next request starts another.
  races.worker.onerror = (e) => {
    e.preventDefault();
    const failed = [races.running, ...races.waiting.values()].filter(Boolean);
    races.worker.terminate();
    Object.assign(races, { worker: null, running: null, waiting: new Map() });
    for (const p of failed) p.fail(new Error(`the race worker failed: ${e.message || "it did not load"}`));
  };
}

function sendNext() {
  if (races.running || !races.waiting.size) return;
  const [kind, p] = races.waiting.entries().next().value;
  races.waiting.delete(kind);
  if (!races.worker) startRaces();
  races.running = p;
  races.worker.postMessage({ id: ++races.next, ...p.message });
}

/**
 * The race worker's answer to `message` ({scenario} or {compareOf}): a promise
 * of the answer, or of null when a later request of the same `kind` came
 * before this one was sent; it rejects with the core's refusal.
 */
export function askRaces(kind, message) {
  return new Promise((ok, fail) => {
    races.waiting.get(kind)?.ok(null);
    races.waiting.delete(kind);
    races.waiting.set(kind, { message, ok, fail });
    sendNext();
  });
}
