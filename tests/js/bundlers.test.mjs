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
    await init(${initArg.value ?? ""});
    const weights = new Float32Array(${JSON.stringify(scenario.weights)});
    const invQ = new Float32Array(weights.length);
    fillInvQ(BigInt(${JSON.stringify(String(scenario.seed))}), "race", 0n, invQ);
    let code = null;
    try { raceMul(weights, new Float32Array(1)); } catch (e) { code = e instanceof ExporaceError ? e.code : String(e); }
    window.__result = { bits: raceMul(weights, invQ).winner.bits, code };
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
async function runInBrowser(dist) {
  const server = await serve(dist);
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    await page.waitForFunction(() => window.__result, null, { timeout: 60000 });
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
    "main.js": main({ import: 'import wasmUrl from "exporace/exporace_bg.wasm";', value: "{ module_or_path: wasmUrl }" }),
  });
  execFileSync(bin("esbuild"), ["main.js", "--bundle", "--format=esm", "--loader:.wasm=file", "--outdir=dist", "--log-level=warning"], { cwd: dir, stdio: "inherit" });
  writeFileSync(join(dir, "dist/index.html"), html("main.js"));
  check(await runInBrowser(join(dir, "dist")), "esbuild");
});

test("Vite: the wasm found through new URL(..., import.meta.url)", async () => {
  const dir = app("vite", { "main.js": main({}), "index.html": html("/main.js") });
  execFileSync(bin("vite"), ["build", "--logLevel", "warn"], { cwd: dir, stdio: "inherit" });
  check(await runInBrowser(join(dir, "dist")), "Vite");
});

test("webpack 5: the wasm as an asset module", async () => {
  const dir = app("webpack", {
    "main.js": main({}),
    "webpack.config.cjs": `module.exports = { mode: "production", entry: "./main.js", output: { path: __dirname + "/dist", filename: "main.js" } };`,
  });
  execFileSync(bin("webpack"), ["--config", "webpack.config.cjs", "--no-stats"], { cwd: dir, stdio: "inherit" });
  writeFileSync(join(dir, "dist/index.html"), html("main.js", false));
  check(await runInBrowser(join(dir, "dist")), "webpack");
});
