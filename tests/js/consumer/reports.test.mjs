// Every example scenario's report, as run() answers it, has the fields its
// op's variant of the declared Report type lists (exporace.d.ts), at the top
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
