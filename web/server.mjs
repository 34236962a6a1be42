// The page's local server: serves web/ at /, the npm package pkg/ at /pkg/ and
// the committed native benchmark results at /benches/, on 127.0.0.1. By
// default every answer carries COOP/COEP, so the page is cross-origin isolated
// and the threaded build can share its memory with a pool of Web Workers.
// `isolate: false` leaves them out (the page then runs on one thread and says
// why). Text and wasm go out compressed (br or gzip, as the browser accepts),
// with an ETag, so a reload revalidates and transfers next to nothing.
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

export const ROOT = resolve(new URL("..", import.meta.url).pathname);

/** The Content-Type of each file extension the page and the package serve. */
export const CONTENT_TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** Directories served under their own name besides web/: the package and the native benchmark results. */
const MOUNTS = ["pkg", "benches"];

/** Maps a URL path to a file under web/, pkg/ or benches/, or null outside them. */
function fileFor(pathname) {
  const path = normalize(decodeURIComponent(pathname));
  const mount = MOUNTS.find((m) => path.startsWith(`/${m}/`));
  const [base, rest] = mount
    ? [join(ROOT, mount), path.slice(mount.length + 1)]
    : [join(ROOT, "web"), path === "/" ? "/index.html" : path];
  const file = join(base, rest);
  return file.startsWith(base + "/") ? file : null;
}

/**
 * Starts the server and resolves to `{ server, url }`.
 * @param {{ port?: number, isolate?: boolean }} options port 0 picks a free port.
 */
/** Compressed bodies by file, encoding, size and modification time: each is compressed once. */
const compressed = new Map();

/** The body of `file` in the best encoding `accept` allows, with its ETag. */
async function encoded(file, accept) {
  const { size, mtimeMs } = await stat(file);
  const encoding = /\bbr\b/.test(accept) ? "br" : /\bgzip\b/.test(accept) ? "gzip" : "identity";
  const key = `${file}|${encoding}|${size}|${mtimeMs}`;
  let entry = compressed.get(key);
  if (!entry) {
    const raw = await readFile(file);
    const body =
      encoding === "br"
        ? brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
        : encoding === "gzip"
          ? gzipSync(raw, { level: 9 })
          : raw;
    const etag = `"${createHash("sha256").update(raw).digest("base64url").slice(0, 22)}-${encoding}"`;
    entry = { body, etag, encoding };
    compressed.set(key, entry);
  }
  return entry;
}

export function startServer({ port = 8080, isolate = true } = {}) {
  const server = createServer(async (req, res) => {
    // Cached, but revalidated on every use: a changed file is seen at once.
    const headers = { "Cache-Control": "no-cache", "Cross-Origin-Resource-Policy": "same-origin", Vary: "Accept-Encoding" };
    if (isolate) {
      headers["Cross-Origin-Opener-Policy"] = "same-origin";
      headers["Cross-Origin-Embedder-Policy"] = "require-corp";
    }
    const file = fileFor(new URL(req.url, "http://127.0.0.1").pathname);
    if (!file) {
      res.writeHead(403, headers).end();
      return;
    }
    try {
      const { body, etag, encoding } = await encoded(file, String(req.headers["accept-encoding"] ?? ""));
      headers.ETag = etag;
      if (req.headers["if-none-match"] === etag) {
        res.writeHead(304, headers).end();
        return;
      }
      if (encoding !== "identity") headers["Content-Encoding"] = encoding;
      res.writeHead(200, { ...headers, "Content-Type": CONTENT_TYPES[extname(file)] || "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404, { ...headers, "Content-Type": "text/plain" }).end(`not found: ${req.url}\n`);
    }
  });
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address();
      ok({ server, url: `http://127.0.0.1:${bound}/` });
    });
  });
}
