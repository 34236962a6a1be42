// The threaded build in a worker, when the page is cross-origin isolated:
// `threads.pool` is its RPC ({ call, threads }) once it runs, else null, and
// the status line at the top says which and why.
import { $ } from "./dom.mjs";

export const threads = { pool: null };

/** Starts the pool, or says why the page runs on one thread. */
export async function startThreads() {
  const status = $("thread-status");
  if (!self.crossOriginIsolated) {
    // A static copy of the page (dist/) first learns whether its service worker can add the headers.
    await Promise.race([self.coiSettled, new Promise((ok) => setTimeout(ok, 5000))]);
    status.textContent =
      "Running on one thread: the page is not cross-origin isolated (the server did not send " +
      "Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp), " +
      "so WebAssembly memory cannot be shared with workers." + (self.coiNote ? ` ${self.coiNote}` : "");
    status.dataset.mode = "single";
    return;
  }
  const size = Math.max(2, Math.min(navigator.hardwareConcurrency || 2, 8));
  try {
    const worker = new Worker(new URL("threads-worker.mjs", import.meta.url), { type: "module" });
    const pending = new Map();
    let next = 0;
    const call = (message) =>
      new Promise((ok, fail) => {
        const id = next++;
        pending.set(id, { ok, fail });
        worker.postMessage({ id, ...message });
      });
    worker.onmessage = ({ data }) => {
      const p = pending.get(data.id);
      pending.delete(data.id);
      if (data.error) p.fail(new Error(data.error));
      else p.ok(data);
    };
    const failed = new Promise((_, fail) => (worker.onerror = (e) => fail(new Error(e.message || "the worker failed to load"))));
    const { threads: count } = await Promise.race([call({ size }), failed]);
    threads.pool = { call, threads: count };
    status.textContent =
      `Threaded: a pool of ${count} workers (exporace/threads in a Web Worker; the page is cross-origin isolated` +
      `${navigator.serviceWorker?.controller ? " through its service worker" : ""}).`;
    status.dataset.mode = "threaded";
    status.dataset.threads = String(count);
  } catch (e) {
    status.textContent = `Running on one thread: the threaded build did not start (${e.message}).`;
    status.dataset.mode = "single";
  }
}
