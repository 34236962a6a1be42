// Writes dist/: the page (web/, less its local server), the package builds it
// loads (pkg/web and pkg/threads) and the native benchmark files its
// performance view offers (benches/…/results.json), all under relative
// paths, so that any static host serves it from any folder. A host that
// cannot send COOP/COEP gets them from the page's service worker
// (coi-serviceworker.js), which the built index.html loads first.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");

const needed = ["pkg/web/index.js", "pkg/web/exporace_bg.wasm", "pkg/threads/exporace.js", "pkg/threads/exporace_bg.wasm"];
const missing = needed.filter((f) => !existsSync(join(root, f)));
if (missing.length) {
  console.error(`build-site: ${missing.join(", ")} missing: build the package first (npm run build)`);
  process.exit(1);
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist);
cpSync(join(root, "web"), dist, { recursive: true, filter: (src) => !src.endsWith("/server.mjs") });
for (const build of ["web", "threads"]) cpSync(join(root, "pkg", build), join(dist, "pkg", build), { recursive: true });

// The benchmark files the performance view lists (its machine menu), where committed.
const html = readFileSync(join(dist, "index.html"), "utf8");
const menu = html.slice(html.indexOf('<select id="perf-machine-file">'), html.indexOf("</select>", html.indexOf('<select id="perf-machine-file">')));
const benches = [...menu.matchAll(/<option value="([^"]+\.json)"/g)].map((m) => m[1]);
for (const file of benches) {
  const from = join(root, "benches", file);
  if (!existsSync(from)) continue;
  mkdirSync(dirname(join(dist, "benches", file)), { recursive: true });
  cpSync(from, join(dist, "benches", file));
}

// The service worker's script runs before anything else on the page.
const marker = '<link rel="stylesheet" href="style.css">';
if (!html.includes(marker)) throw new Error(`build-site: index.html has no ${marker}`);
writeFileSync(join(dist, "index.html"), html.replace(marker, `<script src="coi-serviceworker.js"></script>\n${marker}`));
// GitHub Pages: serve every file as it is (no Jekyll).
writeFileSync(join(dist, ".nojekyll"), "");

console.log(`build-site: wrote ${dist} (the page, pkg/web, pkg/threads, ${benches.filter((f) => existsSync(join(root, "benches", f))).length} benchmark files)`);
