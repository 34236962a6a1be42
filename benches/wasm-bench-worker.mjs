// Module Web Worker holding the threaded build (`exporace/threads`) with a pool
// of a fixed size (the browser's main thread may not block on the pool).
// {id, threads} starts the pool and answers {id, threads: threadCount()};
// {id, case, options} answers {id, result: timeCase(...)}; failures {id, error}.
import init, * as ex from "/pkg/threads/exporace.js";
import { timeCase } from "/timing.mjs";

let ready = null;

onmessage = async ({ data }) => {
  try {
    if (data.threads !== undefined) {
      ready ??= init().then(() => ex.initThreadPool(data.threads));
      await ready;
      postMessage({ id: data.id, threads: ex.threadCount() });
    } else {
      await ready;
      postMessage({ id: data.id, result: timeCase(ex, data.case, data.options) });
    }
  } catch (e) {
    postMessage({ id: data.id, error: String((e && e.stack) || e) });
  }
};
