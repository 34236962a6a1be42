// Module Web Worker holding the threaded build (`exporace/threads`): the
// browser's main thread may not block on the pool, so the pool lives here.
// Messages: {id, size} starts the pool and answers {id, threads};
// {id, scenario} answers {id, report} or {id, error} from run(scenario).
import init, * as ex from "/pkg/threads/exporace.js";

let ready = null;

onmessage = async ({ data }) => {
  try {
    if (data.size !== undefined) {
      ready ??= init().then(() => ex.initThreadPool(data.size));
      await ready;
      postMessage({ id: data.id, threads: ex.threadCount() });
    } else {
      await ready;
      postMessage({ id: data.id, report: ex.run(data.scenario) });
    }
  } catch (e) {
    postMessage({ id: data.id, error: String((e && e.message) || e) });
  }
};
