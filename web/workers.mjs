// The page's module workers. Each is handed the page's compiled wasm module
// first, so none fetches or compiles it again; the theory worker keeps, for
// each kind of request, only its latest answer.
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
