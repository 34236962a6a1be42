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

test("deadZoneOf on a Float32Array equals run()'s dead_zone result, at either precision", () => {
  // 4097 weights: a head, tails around fp32's and fp64's thresholds, zeros and a tie with the head.
  const w = new Float32Array(4097);
  for (let i = 0; i < w.length; i++) w[i] = Math.fround(Math.exp(-((i % 97) * 0.45)));
  w[5] = 0;
  w[6] = 1;
  for (const [model, precision] of [["torch-cuda-f32", undefined], ["torch-cuda-f32", "f64"], ["triton-flipped", undefined], ["ideal", "f32"]]) {
    const viaRun = ex.run({ exporace: 1, op: "dead_zone", weights: Array.from(w), model: precision ? { model, precision } : model }).result;
    const typed = ex.deadZoneOf(model, w, precision);
    assert.deepEqual(typed, viaRun, `${model} ${precision ?? "own"}`);
  }
  // Both fp32 pipelines kill the deep tails here: the comparison is not empty.
  assert.ok(ex.deadZoneOf("torch-cuda-f32", w).count > 0);
  // A WasmArray of f32 is read the same way.
  const held = new ex.WasmArray("float32", w.length);
  held.view().set(w);
  assert.deepEqual(ex.deadZoneOf("torch-cuda-f32", held), ex.deadZoneOf("torch-cuda-f32", w));
  held.free();
});
