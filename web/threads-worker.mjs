// Module Web Worker holding the threaded build (`exporace/threads`): the
// browser's main thread may not block on the pool, so the pool lives here.
// Messages: {id, size} starts the pool and answers {id, threads};
// {id, bench} times recoverTokens on the pool and answers {id, timing};
// failures answer {id, error}.
import init, * as ex from "/pkg/threads/exporace.js";
import { timeRecover } from "./live-bench.mjs";

let ready = null;

onmessage = async ({ data }) => {
  try {
    if (data.size !== undefined) {
      ready ??= init().then(() => ex.initThreadPool(data.size));
      await ready;
      postMessage({ id: data.id, threads: ex.threadCount() });
    } else {
      await ready;
      postMessage({ id: data.id, timing: timeRecover(ex, data.bench) });
    }
  } catch (e) {
    postMessage({ id: data.id, error: String((e && e.message) || e) });
  }
};
