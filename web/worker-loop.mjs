// The message loop of the page's module workers (theory, experiment,
// race): the first message is the page's compiled wasm module ({module}),
// which starts the package here without fetching or compiling it again;
// each later message is answered with `handle(message)`'s fields and the
// message's id, or with {id, error}.
import init, * as ex from "./pkg/web/index.js";

export { ex };

export function answer(handle) {
  let ready = null;
  onmessage = async ({ data }) => {
    if (data.module) {
      ready = init({ module_or_path: data.module });
      return;
    }
    try {
      await ready;
      postMessage({ id: data.id, ...(await handle(data)) });
    } catch (e) {
      postMessage({ id: data.id, error: String((e && e.message) || e) });
    }
  };
}
