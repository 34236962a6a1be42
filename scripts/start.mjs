#!/usr/bin/env node
// `npm start`: builds the npm package into pkg/ when it is missing or older
// than its sources, then serves the page on 127.0.0.1 with COOP/COEP.
// Options: --port N (default 8080, 0 for any free port), --no-isolation
// (serve without COOP/COEP: the page then runs on one thread), --no-build.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT, startServer } from "../web/server.mjs";

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const portAt = args.indexOf("--port");
const port = portAt >= 0 ? Number(args[portAt + 1]) : Number(process.env.PORT || 8080);

/** Newest modification time (ms) of the files under `path`. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), st.mtimeMs);
}

function packageIsStale() {
  const wasm = join(ROOT, "pkg/web/exporace_bg.wasm");
  if (!existsSync(wasm) || !existsSync(join(ROOT, "pkg/threads/exporace.js"))) return "missing";
  const built = statSync(wasm).mtimeMs;
  const sources = ["crates/exporace/src", "crates/exporace-study/src", "crates/exporace-wasm/src", "crates/exporace-wasm/js", "Cargo.lock", "scripts/build-pkg.sh", "scripts/write-entries.mjs"]
    .map((p) => newest(join(ROOT, p)));
  return Math.max(...sources) > built ? "older than its sources" : null;
}

const stale = flag("--no-build") ? null : packageIsStale();
if (stale) {
  console.log(`pkg/ is ${stale}: building it (npm run build)`);
  const build = spawnSync(join(ROOT, "scripts/build-pkg.sh"), { stdio: "inherit", cwd: ROOT });
  if (build.status !== 0) {
    if (!existsSync(join(ROOT, "pkg/web/exporace_bg.wasm"))) {
      console.error("the build failed and there is no pkg/web to serve");
      process.exit(1);
    }
    console.error("the build failed; serving what pkg/ holds (the page says whether threads are available)");
  }
}

const isolate = !flag("--no-isolation");
const { url } = await startServer({ port, isolate });
console.log(`exporace page: ${url}${isolate ? "" : " (without COOP/COEP: one thread)"}`);
