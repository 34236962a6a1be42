// Every value the declarations (exporace.d.ts) export exists at run time, in
// the ES module entry and in the CommonJS one, with the same names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as esm from "exporace";

const require = createRequire(import.meta.url);
const cjs = require("exporace");
const root = require.resolve("exporace/package.json").replace(/package\.json$/, "");
const dts = readFileSync(`${root}exporace.d.ts`, "utf8");
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

test("init and initSync give the ready module in Node", async () => {
  for (const entry of [esm, cjs]) {
    assert.equal(typeof (await entry.default()).raceMul, "function");
    assert.equal(typeof entry.initSync().raceMul, "function");
  }
});
