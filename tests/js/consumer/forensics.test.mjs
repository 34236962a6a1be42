// The typed forensics calls (compare, noise, deadZone, overflow, models) take
// camelCase options and answer exactly as run() answers the same scenario.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as ex from "exporace";

const dir = process.env.EXPORACE_EXAMPLES;
const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const CALLS = { compare: ex.compare, noise: ex.noise, dead_zone: ex.deadZone, overflow: ex.overflow };

test("each typed call equals run() on the example scenario", () => {
  for (const file of ["compare-cast", "compare-models", "noise-mrv2", "noise-torch-cpu", "dead-zone", "overflow"]) {
    const scenario = JSON.parse(readFileSync(`${dir}/${file}.json`, "utf8"));
    const options = Object.fromEntries(
      Object.entries(scenario).filter(([k]) => k !== "exporace" && k !== "op").map(([k, v]) => [camel(k), v]),
    );
    const typed = CALLS[scenario.op](options);
    const viaRun = ex.run(scenario);
    if (scenario.seed === undefined) {
      typed.seed = viaRun.seed = null;
    }
    assert.deepEqual(typed, viaRun, file);
  }
  assert.deepEqual(ex.models(), ex.run({ exporace: 1, op: "models" }));
});

test("their options are checked like any argument", () => {
  assert.throws(() => ex.compare(7), (e) => e.code === "BAD_TYPE" && /compare options must be an object/.test(e.message));
  assert.throws(() => ex.noise({ model: "ideal", count: 1, op: "race" }), (e) => e.code === "UNKNOWN_FIELD");
  assert.throws(() => ex.deadZone({ weights: [1], model: "nope" }), (e) => e.code === "SCENARIO");
  assert.throws(() => ex.overflow({ weights: [1], noise: [1], wieghts: [2] }), (e) => /wieghts/.test(e.message));
});
