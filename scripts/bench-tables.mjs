#!/usr/bin/env node
// Writes the tables of benches/README.md that come from benches/results.json
// (`end_to_end` and `side_by_side`, as bench-report writes them), between
// their `<!-- results:NAME -->` markers, so the prose states no figure of its
// own. Run it after bench-report.
//
// Usage: node scripts/bench-tables.mjs [RESULTS_JSON] [README]
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { replaceBlock } from "./results-block.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const [resultsPath = join(root, "benches/results.json"), readme = join(root, "benches/README.md")] =
  process.argv.slice(2);
const results = JSON.parse(readFileSync(resultsPath, "utf8"));

/** A duration in ns, in the unit that keeps three significant figures readable. */
export function time(ns) {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(ns >= 1e8 ? 0 : 2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(1)} us`;
  return `${ns.toFixed(0)} ns`;
}
const ratio = (r) => (r >= 100 ? r.toFixed(0) : r >= 0.1 ? r.toFixed(2) : r.toPrecision(1));
const row = (cells) => `| ${cells.join(" | ")} |`;
const byCase = (section) => Object.fromEntries(section.cases.map((c) => [c.case, c]));

// The targets of end_to_end: a function (or every function with the prefix),
// the bound on its ratio to the group's floor or on its median, and whether met.
const TARGETS = [
  { group: "many-tail", prefix: "trial-", maxRatio: 1.5, text: "a trial at most 1.5 of the seeded race" },
  { group: "fill", prefix: "fill-", maxRatio: 1.5, text: "a fill at most 1.5 of the seeded race" },
  { group: "audit", prefix: "audit-", maxRatio: 2, text: "the audit at most 2 of reading the dump" },
  { group: "page-update", prefix: "re", maxMs: 50, text: "the page's readout and redraw within 50 ms" },
];

function endToEnd() {
  const section = results.end_to_end;
  const lines = [
    `From \`end_to_end\` in [results.json](results.json) (${section.machine?.cpu ?? "see the file for the machine"}, ${section.date.slice(0, 10)}).`,
    "",
    row(["group", "function", "median", "floor", "ratio to the floor"]),
    row(["---", "---", "---", "---", "---"]),
  ];
  for (const c of section.cases) {
    const group = c.case.split("/")[1];
    for (const [name, f] of Object.entries(c.functions)) {
      if (name === c.floor || name.startsWith("seeded-")) continue;
      lines.push(row([group, `\`${name}\``, time(f.median_ns), `\`${c.floor}\` ${time(c.functions[c.floor].median_ns)}`, ratio(f.ratio_to_floor)]));
    }
  }
  lines.push("", "Targets:", "");
  for (const t of TARGETS) {
    const c = section.cases.find((c) => c.case.split("/")[1] === t.group);
    if (!c) continue;
    const fs = Object.entries(c.functions).filter(([n]) => n.startsWith(t.prefix));
    const met = fs.every(([, f]) => (t.maxMs ? f.median_ns / 1e6 <= t.maxMs : f.ratio_to_floor <= t.maxRatio));
    lines.push(`- ${t.text}: ${met ? "met" : "not met"}.`);
  }
  return lines.join("\n");
}

function sideBySide() {
  const section = results.side_by_side;
  const cases = section.cases.slice().sort((a, b) => a.vocab - b.vocab);
  const names = {
    "seeded-f32": "`race_seeded` f32 (Philox in lanes, a log only for candidates)",
    "seeded-f64": "`race_seeded` f64",
    "exprace-f32": "`ExpRace` f32 over `StdRng`",
    "exprace-f64": "`ExpRace` f64 over `StdRng`",
    "weighted-index": "`WeightedIndex` built, then one sample",
    "exp1-race": "a race over `rand_distr::Exp1` (f64)",
    "weighted-index-reuse": "`WeightedIndex` built once, one sample",
  };
  const lines = [
    `From \`side_by_side\` in [results.json](results.json) (${section.date.slice(0, 10)}): each function's median over the fused seeded f32 race's in the same group.`,
    "",
    row(["sampler", ...cases.map((c) => `V ${c.vocab}`)]),
    row(["---", ...cases.map(() => "---")]),
  ];
  for (const [key, label] of Object.entries(names)) {
    lines.push(row([label, ...cases.map((c) => (c.functions[key] ? ratio(c.functions[key].ratio_to_seeded_f32) : "-"))]));
  }
  return lines.join("\n");
}

for (const [name, text] of [["end-to-end", endToEnd()], ["side-by-side", sideBySide()]]) {
  console.log(`${replaceBlock(readme, name, text) ? "wrote" : "unchanged"}: ${name}`);
}
