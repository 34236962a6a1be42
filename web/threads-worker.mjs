// Module Web Worker holding the threaded build (`exporace/threads`): the
// browser's main thread may not block on the pool, so the pool lives here.
// Messages: {id, size} starts the pool and answers {id, threads};
// {id, bench} times a benchmark case ({name, options}, timing.mjs) on
// the pool and answers {id, timing};
// failures answer {id, error}.
import init, * as ex from "./pkg/threads/exporace.js";
import { timeCase } from "./timing.mjs";

let ready = null;

onmessage = async ({ data }) => {
  try {
    if (data.size !== undefined) {
      ready ??= init().then(() => ex.initThreadPool(data.size));
      await ready;
      postMessage({ id: data.id, threads: ex.threadCount() });
    } else {
      await ready;
      postMessage({ id: data.id, timing: timeCase(ex, data.bench.name, data.bench.options) });
    }
  } catch (e) {
    postMessage({ id: data.id, error: String((e && e.message) || e) });
  }
};
