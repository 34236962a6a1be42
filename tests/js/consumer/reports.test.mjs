// Every example scenario's report, as run() answers it, has the fields its
// op's variant of the declared Report type lists (types/reports.d.ts), at the top
// of `result`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import * as ex from "exporace";

const dir = process.env.EXPORACE_EXAMPLES;
const FIELDS = {
  race: ["winner", "runnerUp", "marginUlps"],
  recover: ["positions"],
  rejection: ["maxSpecLen", "outputTokenIds", "uniform", "requests"],
  models: ["models"],
  noise: ["model", "draws"],
  compare: ["aName", "bName", "a", "b", "flipped", "exactWinner", "differing"],
  overflow: ["entries", "picks"],
  dead_zone: ["model", "eMin", "eMax", "threshold", "count", "mass", "tokens"],
  exact: ["model", "probabilities"],
  experiment: ["model", "report"],
  sample: ["model", "token"],
};

test("each example's report has its op's declared fields", () => {
  const seen = new Set();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
    const report = ex.run(readFileSync(`${dir}/${file}`, "utf8"));
    const declared = FIELDS[report.op];
    assert.ok(declared, `${file}: op ${report.op} has no declared variant`);
    assert.deepEqual(Object.keys(report.result).sort(), [...declared].sort(), file);
    assert.deepEqual(
      Object.keys(report).sort(),
      ["exporace", "nanPolicy", "op", "precision", "result", "seed"],
      file,
    );
    seen.add(report.op);
  }
  assert.deepEqual([...seen].sort(), Object.keys(FIELDS).sort(), "an example per op");
});

test("runText keeps a margin past 2^53 exact, where run() rounds it", () => {
  const q = 1.2345678901234567e-30;
  const scenario = { exporace: 1, op: "race", precision: "f64", weights: [1, 1], noise: [1, q] };
  // The margin is the distance between the two scores' positions among the
  // doubles: the difference of their bits, for positive values.
  const bits = (x) => {
    const v = new DataView(new ArrayBuffer(8));
    v.setFloat64(0, x);
    return v.getBigUint64(0);
  };
  const margin = bits(1) - bits(q);
  assert.ok(margin > 2n ** 53n);
  const text = ex.runText(scenario);
  assert.match(text, new RegExp(`"marginUlps": ${margin}\\b`));
  assert.deepEqual(JSON.parse(text).result.winner, ex.run(scenario).result.winner);
  assert.notEqual(BigInt(ex.run(scenario).result.marginUlps), margin, "a JavaScript number cannot hold it");
});
