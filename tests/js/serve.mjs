// A static file server on 127.0.0.1 for the browser tests: files under
// `root`, with `headers` on every answer (COOP/COEP where a test needs
// cross-origin isolation), no caching, and 403 outside the root.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { CONTENT_TYPES as TYPES } from "../../web/server.mjs";

/** Starts the server on a free port; resolves to the `http.Server`. */
export function serve(root, headers = {}) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    const file = join(root, path === "/" ? "/index.html" : path);
    const common = { ...headers, "Cache-Control": "no-store" };
    if (!file.startsWith(root + "/")) {
      res.writeHead(403, common).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { ...common, "Content-Type": TYPES[extname(file)] || "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404, common).end();
    }
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}
