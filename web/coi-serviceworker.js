// Cross-origin isolation where the host cannot send the headers (a static
// host such as GitHub Pages). Loaded as the page's first script, it
// registers itself as the page's service worker and reloads the page once;
// running as that service worker, it answers each of the page's requests
// with Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy added, so
// the reloaded page is cross-origin isolated and runs the threaded build.
// Where it cannot, it leaves `coiNote` saying why (once `coiSettled`, where
// set, resolves), and the page runs on one thread and says so. `npm run build:site` puts it in dist/; `npm start`
// sends the headers itself and does not load it.
if (typeof window === "undefined") {
  self.addEventListener("install", () => self.skipWaiting());
  self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
  self.addEventListener("fetch", (event) => {
    const request = event.request;
    if (request.cache === "only-if-cached" && request.mode !== "same-origin") return;
    event.respondWith(
      fetch(request).then((response) => {
        if (response.status === 0) return response;
        const headers = new Headers(response.headers);
        headers.set("Cross-Origin-Opener-Policy", "same-origin");
        headers.set("Cross-Origin-Embedder-Policy", "require-corp");
        return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
      }),
    );
  });
} else {
  (() => {
    const KEY = "exporace-coi-reloaded";
    const note = (why) =>
      (window.coiNote = `This copy of the page is served without those headers; its service worker, which adds them, ${why}.`);
    if (window.crossOriginIsolated) {
      sessionStorage.removeItem(KEY);
      return;
    }
    if (!window.isSecureContext) return note("needs a secure context (https or localhost)");
    if (!navigator.serviceWorker) return note("cannot run here (service workers are off in this browser or window)");
    const reloadOnce = () => {
      if (sessionStorage.getItem(KEY)) return note("took over, yet the page is still not isolated after one reload");
      sessionStorage.setItem(KEY, "1");
      location.reload();
    };
    // The page waits for this before it says how many threads it runs.
    window.coiSettled = new Promise((settle) => {
      const late = setTimeout(() => settle(note("did not take over the page within 4 seconds")), 4000);
      const takeOver = () => {
        clearTimeout(late);
        settle(reloadOnce());
      };
      navigator.serviceWorker.register(document.currentScript.src).then(
        () => {
          // Controlled yet not isolated: loaded before the worker's headers applied.
          if (navigator.serviceWorker.controller) takeOver();
          else navigator.serviceWorker.addEventListener("controllerchange", takeOver);
        },
        (e) => {
          clearTimeout(late);
          settle(note(`could not be registered (${e.message})`));
        },
      );
    });
  })();
}
