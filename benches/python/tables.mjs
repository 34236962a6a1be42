#!/usr/bin/env node
// Writes the table of benches/python/README.md from the results files that
// sample_bench.py writes (results.json here, and one per other machine in
// results-*.json), between its `<!-- results:python-sample -->` markers.
//
// Usage: node benches/python/tables.mjs
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { replaceBlock } from "../../scripts/results-block.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const files = readdirSync(here).filter((f) => /^results(-[\w.]+)?\.json$/.test(f)).sort();
const lines = [];
for (const f of files) {
  const r = JSON.parse(readFileSync(join(here, f), "utf8"));
  const ours = (t) => r.rows.find((x) => x.impl === "exporace" && x.threads === t);
  const one = ours(1);
  lines.push(
    `[${f}](${f}): ${r.workload}; ${r.cpus} CPUs (${r.machine}), Python ${r.python}, numpy ${r.numpy}` +
      `${r.torch ? `, torch ${r.torch}` : ""}; median of ${r.repeats} runs.`,
    "",
    "| implementation | threads | ms per batch | ns per token | over exporace on 1 thread |",
    "|---|---|---|---|---|",
  );
  const tokens = r.tokens ?? 64 * 152064;
  for (const x of r.rows) {
    const speed = (x.ms / one.ms).toFixed(2);
    lines.push(`| ${x.impl} | ${x.threads} | ${x.ms.toFixed(1)} | ${((x.ms * 1e6) / tokens).toFixed(2)} | ${speed} |`);
  }
  lines.push("");
}
console.log(`${replaceBlock(join(here, "README.md"), "python-sample", lines.join("\n")) ? "wrote" : "unchanged"}: python-sample`);
