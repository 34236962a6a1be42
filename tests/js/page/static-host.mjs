// A plain static host, as GitHub Pages is to the page: files under `root`
// with their content type and nothing else (no COOP/COEP, no caching
// rules), 404 for what is missing, 403 outside the root.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { CONTENT_TYPES as TYPES } from "../../../web/server.mjs";

/** Starts the host on a free port of 127.0.0.1; resolves to `{ server, url }`. */
export function staticHost(root) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    const file = join(root, path.endsWith("/") ? `${path}index.html` : path);
    if (!file.startsWith(root + "/")) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "Content-Type": TYPES[extname(file)] || "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}
