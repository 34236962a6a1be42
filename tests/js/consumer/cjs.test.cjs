// The packed package loaded with require() from a separate CommonJS project.
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { readFileSync } = require("node:fs");
const ex = require("exporace");

const dir = process.env.EXPORACE_GOLDEN;
const json = (f) => JSON.parse(readFileSync(`${dir}/${f}`, "utf8"));

test("require: a seeded race equals the golden bits", () => {
  const s = json("race_f32.scenario.json");
  const g = json("race_f32.result.json").result;
  const invQ = new Float32Array(s.weights.length);
  ex.fillInvQ(BigInt(s.seed), "race", 0n, invQ);
  const r = ex.raceMul(new Float32Array(s.weights), invQ);
  assert.equal(r.winner.bits, g.winner.bits);
  assert.equal(r.runnerUp.bits, g.runner_up.bits);
});

test("require: recoverTokens on the synthetic batch equals the golden bits", async () => {
  const { largeBatch, allBits, sameBits } = await import("./golden.mjs");
  const { batch, invQ } = largeBatch(json("recover_large.params.json"), ex.fillInvQ);
  sameBits("recover_large", allBits(ex.recoverTokens(batch, invQ)), allBits(json("recover_large.result.json")));
});

test("require: run() answers a golden scenario", () => {
  const r = ex.run(readFileSync(`${dir}/recover_f64_ngram.scenario.json`, "utf8"));
  assert.deepEqual(
    r.result.positions.map((p) => p.winner.bits),
    json("recover_f64_ngram.result.json").result.positions.map((p) => p.winner.bits),
  );
});
