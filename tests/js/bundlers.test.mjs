// The packed package bundled by esbuild, Vite and webpack 5, each bundle
// served and run in headless Chromium: init, a seeded race, and the golden
// bits; an error from the bundled module is an ExporaceError. The bundlers
// are the workspace's pinned devDependencies; the app installs the tarball.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { collectErrors, launchChromium } from "./chromium.mjs";
import { serve } from "./serve.mjs";
import { allBits } from "./golden.mjs";

const root = resolve(new URL("../..", import.meta.url).pathname);
const bin = (name) => join(root, "node_modules/.bin", name);
const golden = (f) => JSON.parse(readFileSync(join(root, "tests/golden", f), "utf8"));
const scenario = golden("race_f32.scenario.json");
const expected = golden("race_f32.result.json").result.winner.bits;

// The app's code: `init` gets the wasm URL where the bundler cannot find it
// by itself (esbuild leaves `new URL(..., import.meta.url)` alone).
const main = (initArg) => `import init, { fillInvQ, raceMul, ExporaceError } from "exporace";
${initArg.import ?? ""}
(async () => {
  try {
    const started = await init(${initArg.value ?? ""});
    const weights = new Float32Array(${JSON.stringify(scenario.weights)});
    const invQ = new Float32Array(weights.length);
    fillInvQ(BigInt(${JSON.stringify(String(scenario.seed))}), "race", 0n, invQ);
    let code = null;
    try { raceMul(weights, new Float32Array(1)); } catch (e) { code = e instanceof ExporaceError ? e.code : String(e); }
    window.__result = { started, bits: raceMul(weights, invQ).winner.bits, code };
  } catch (e) {
    window.__result = { error: String(e && e.stack || e) };
  }
})();
`;

let work;
let tarball;
before(() => {
  work = mkdtempSync(join(tmpdir(), "exporace-bundlers-"));
  tarball = join(work, execFileSync("npm", ["pack", join(root, "pkg"), "--silent"], { cwd: work, encoding: "utf8" }).trim().split("\n").pop());
});
after(() => rmSync(work, { recursive: true, force: true }));

/** A new app that has installed the tarball; returns its directory. */
function app(name, files) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `app-${name}`, private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", tarball], { cwd: dir, stdio: "inherit" });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

/** Serves `dist` and runs its index.html in Chromium; resolves to `window.__result`. */
async function runInBrowser(dist, headers = {}) {
  const server = await serve(dist, headers);
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    await page.waitForFunction(() => window.__result, null, { timeout: 120000 });
    return { ...(await page.evaluate(() => window.__result)), errors };
  } finally {
    await browser.close();
    server.close();
  }
}

const html = (script, module = true) =>
  `<!doctype html><meta charset="utf-8"><title>app</title><script ${module ? 'type="module" ' : ""}src="${script}"></script>`;

function check(result, bundler) {
  assert.equal(result.error, undefined, `${bundler}: ${result.error}`);
  assert.deepEqual(result.errors, [], bundler);
  assert.equal(result.bits, expected, `${bundler}: golden bits`);
  assert.equal(result.code, "LENGTH_MISMATCH", `${bundler}: the error class survives bundling`);
}

test("esbuild: the wasm as a file asset, passed to init", async () => {
  const dir = app("esbuild", {
    "main.js": main({ import: 'import wasmUrl from "exporace/exporace_bg.wasm";', value: "{ module_or_path: wasmUrl, threads: 2 }" }),
  });
  execFileSync(bin("esbuild"), ["main.js", "--bundle", "--format=esm", "--loader:.wasm=file", "--outdir=dist", "--log-level=warning"], { cwd: dir, stdio: "inherit" });
  writeFileSync(join(dir, "dist/index.html"), html("main.js"));
  const result = await runInBrowser(join(dir, "dist"));
  check(result, "esbuild");
  // Served without COOP/COEP: one thread, and init says why.
  assert.equal(result.started.threads, 1);
  assert.equal(result.started.requested, 2);
  assert.match(result.started.reason, /not cross-origin isolated/);
});

test("Vite: the wasm found through new URL(..., import.meta.url)", async () => {
  const dir = app("vite", { "main.js": main({}), "index.html": html("/main.js") });
  execFileSync(bin("vite"), ["build", "--logLevel", "warn"], { cwd: dir, stdio: "inherit" });
  check(await runInBrowser(join(dir, "dist")), "Vite");
});

test("webpack 5: the wasm as an asset module", async () => {
  const dir = app("webpack", { "main.js": main({}) });
  // webpack's Node API (no CLI): production mode, the app's main.js to dist/.
  const { default: webpack } = await import(join(root, "node_modules/webpack/lib/index.js"));
  const stats = await new Promise((res, rej) =>
    webpack({ mode: "production", context: dir, entry: "./main.js", output: { path: join(dir, "dist"), filename: "main.js" } }, (e, s) => (e ? rej(e) : res(s))),
  );
  assert.equal(stats.hasErrors(), false, stats.toString("errors-only"));
  writeFileSync(join(dir, "dist/index.html"), html("main.js", false));
  check(await runInBrowser(join(dir, "dist")), "webpack");
});

// The app's worker: init({ threads: 4 }) starts the pool; the race gives the
// golden bits and the large recover batch gives its golden bits on the pool,
// with more than one pool thread at work.
const threadsWorker = `import init, { fillInvQ, raceMul, recoverTokens, recoverTokensTraced, threadCount } from "exporace";
import { allBits, largeBatch, sameBits } from "./golden.mjs";

const params = ${JSON.stringify(golden("recover_large.params.json"))};
const golden = ${JSON.stringify(allBits(golden("recover_large.result.json")))};
try {
  const started = await init({ threads: 4 });
  const weights = new Float32Array(${JSON.stringify(scenario.weights)});
  const invQ = new Float32Array(weights.length);
  fillInvQ(BigInt(${JSON.stringify(String(scenario.seed))}), "race", 0n, invQ);
  const bits = raceMul(weights, invQ).winner.bits;
  const large = largeBatch(params, fillInvQ);
  const largeBits = sameBits("recoverTokens", allBits(recoverTokens(large.batch, large.invQ)), golden);
  const seen = new Set();
  for (let round = 0; round < 8 && seen.size < 2; round++) {
    const traced = recoverTokensTraced(large.batch, large.invQ);
    sameBits(\`recoverTokensTraced round \${round}\`, allBits(traced.results), golden);
    traced.threadIndices.forEach((t) => seen.add(t));
  }
  postMessage({ started, poolSize: threadCount(), bits, largeBits, threadIndices: [...seen] });
} catch (e) {
  postMessage({ error: String((e && e.stack) || e) });
}
`;
const threadsMain = `import init from "exporace";
(async () => {
  try {
    const onMain = await init({ threads: 4 });
    const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    const inWorker = await new Promise((resolve) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => resolve({ error: String(e.message) });
    });
    window.__result = { onMain, ...inWorker };
  } catch (e) {
    window.__result = { error: String(e && e.stack || e) };
  }
})();
`;

test("Vite with threads: init({ threads: 4 }) in a worker runs the pool, with the golden bits", async () => {
  const dir = app("vite-threads", {
    "main.js": threadsMain,
    "worker.js": threadsWorker,
    "golden.mjs": readFileSync(join(root, "tests/js/golden.mjs"), "utf8"),
    "index.html": html("/main.js"),
    // The pool's workers import the glue: a module worker, as in the README.
    "vite.config.js": "export default { worker: { format: \"es\" } };\n",
  });
  execFileSync(bin("vite"), ["build", "--logLevel", "warn"], { cwd: dir, stdio: "inherit" });
  const result = await runInBrowser(join(dir, "dist"), {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
  });
  assert.equal(result.error, undefined, result.error);
  assert.deepEqual(result.errors, []);
  assert.equal(result.onMain.threads, 1, "the main thread runs on one thread");
  assert.match(result.onMain.reason, /main thread may not wait for a pool/);
  assert.deepEqual(result.started, { threads: 4, requested: 4, reason: null });
  assert.equal(result.poolSize, 4);
  assert.equal(result.bits, expected, "golden race bits on the pool's instance");
  assert.equal(result.largeBits, 256, "golden recover bits on the pool");
  assert.ok(result.threadIndices.length > 1, `pool threads seen: ${result.threadIndices}`);
});
