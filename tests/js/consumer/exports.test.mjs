// Every value the declarations (exporace.d.ts and types/) export exists at run time, in
// the ES module entry and in the CommonJS one, with the same names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as esm from "exporace";
import { declarations } from "./declarations.mjs";

const require = createRequire(import.meta.url);
const cjs = require("exporace");
const root = require.resolve("exporace/package.json").replace(/package\.json$/, "");
const dts = declarations(root);
const declared = [...dts.matchAll(/^export (?:declare )?(?:function|class|const) ([A-Za-z0-9_]+)/gm)].map((m) => m[1]);

test("the declarations export functions and classes", () => {
  assert.ok(declared.length > 20, `${declared.length} declared`);
  assert.ok(declared.includes("drawCurves") && declared.includes("initSync"));
  assert.match(dts, /^export default function init/m);
});

test("every declared export exists in the ES module entry", () => {
  const missing = declared.filter((name) => typeof esm[name] !== "function");
  assert.deepEqual(missing, []);
  assert.equal(typeof esm.default, "function");
});

test("every declared export exists in the CommonJS entry", () => {
  const missing = declared.filter((name) => typeof cjs[name] !== "function");
  assert.deepEqual(missing, []);
  assert.equal(typeof cjs.default, "function");
});

test("init reports one thread in Node, with the reason when more were asked for", async () => {
  for (const entry of [esm, cjs]) {
    assert.deepEqual(await entry.default(), { threads: 1, requested: 1, reason: null });
    const asked = await entry.default({ threads: 4 });
    assert.equal(asked.threads, 1);
    assert.equal(asked.requested, 4);
    assert.match(asked.reason, /only browsers have: in Node the package runs on one thread/);
    assert.equal(entry.threadCount(), 1);
    assert.equal(typeof entry.initSync().raceMul, "function");
  }
});

test("init refuses bad options with a typed error naming the option; the module works after", async () => {
  const cases = [
    [{ threads: "4" }, "BAD_TYPE", /options\.threads must be a number, got string/],
    [{ threads: null }, "BAD_TYPE", /options\.threads must be a number, got null/],
    [{ threads: 0 }, "BAD_ARGUMENT", /options\.threads must be a whole number from 1 to 128, got 0/],
    [{ threads: 2.5 }, "BAD_ARGUMENT", /got 2\.5/],
    [{ threads: NaN }, "BAD_ARGUMENT", /got NaN/],
    [{ threads: 1e9 }, "BAD_ARGUMENT", /from 1 to 128/],
    [{ thread: 2 }, "UNKNOWN_FIELD", /options\.thread is not an option/],
  ];
  for (const entry of [esm, cjs]) {
    for (const [options, code, message] of cases) {
      await assert.rejects(entry.default(options), (e) => e instanceof entry.ExporaceError && e.code === code && message.test(e.message));
      assert.equal(entry.raceMul(new Float32Array([1, 3]), new Float32Array([1, 1])).winner.token, 1);
    }
  }
});

test("recoverTokensTraced without a pool: recoverTokens' races and no pool threads", () => {
  for (const entry of [esm, cjs]) {
    const batch = {
      vocabSize: 3,
      cuNumDraftTokens: new Int32Array([1]),
      draftTokenIds: new Int32Array([0]),
      targetProbs: new Float32Array([0.2, 0.3, 0.5]),
    };
    const invQ = new Float32Array([1, 1, 1]);
    const traced = entry.recoverTokensTraced(batch, invQ);
    assert.deepEqual(traced.threadIndices, []);
    assert.deepEqual(traced.results, entry.recoverTokens(batch, invQ));
    assert.equal(traced.results[0].winner.token, 2);
  }
});
