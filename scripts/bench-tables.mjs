#!/usr/bin/env node
// Writes the tables of benches/README.md that come from benches/results.json
// (`end_to_end`, `side_by_side` and `hashed`, as bench-report writes them;
// the hashed races in wasm from benches/wasm-hashed.json, as
// benches/wasm-bench.mjs writes it), between their `<!-- results:NAME -->`
// markers, so the prose states no figure of its own. Run it after
// bench-report.
//
// Usage: node scripts/bench-tables.mjs [RESULTS_JSON] [README] [WASM_HASHED_JSON]
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { replaceBlock } from "./results-block.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const [
  resultsPath = join(root, "benches/results.json"),
  readme = join(root, "benches/README.md"),
  wasmHashedPath = join(root, "benches/wasm-hashed.json"),
] = process.argv.slice(2);
const results = JSON.parse(readFileSync(resultsPath, "utf8"));
const wasmHashed = existsSync(wasmHashedPath) ? JSON.parse(readFileSync(wasmHashedPath, "utf8")) : null;

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
  { group: "audit", prefix: "audit-", maxRatio: 4, text: "the audit at most 4 of reading the dump" },
  { group: "page-update", prefix: "re", maxMs: 50, text: "the page's readout and redraw within 50 ms" },
];

// A group with more functions than this is one row: its fastest and slowest.
const SUMMARY_OVER = 6;

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
    const floor = `\`${c.floor}\` ${time(c.functions[c.floor].median_ns)}`;
    const fs = Object.entries(c.functions).filter(([name]) => name !== c.floor && !name.startsWith("seeded-"));
    if (fs.length > SUMMARY_OVER) {
      // One row per group of many functions (a trial per catalogue model):
      // the fastest and the slowest; results.json has every one.
      fs.sort(([, a], [, b]) => a.median_ns - b.median_ns);
      const [[lo, flo], [hi, fhi]] = [fs[0], fs[fs.length - 1]];
      lines.push(row([group, `${fs.length}: \`${lo}\` to \`${hi}\``, `${time(flo.median_ns)} to ${time(fhi.median_ns)}`, floor, `${ratio(flo.ratio_to_floor)} to ${ratio(fhi.ratio_to_floor)}`]));
      continue;
    }
    for (const [name, f] of fs) lines.push(row([group, `\`${name}\``, time(f.median_ns), floor, ratio(f.ratio_to_floor)]));
  }
  lines.push("", "Targets:", "");
  for (const t of TARGETS) {
    const c = section.cases.find((c) => c.case.split("/")[1] === t.group);
    if (!c) continue;
    const fs = Object.entries(c.functions).filter(([n]) => n.startsWith(t.prefix));
    const ok = fs.filter(([, f]) => (t.maxMs ? f.median_ns / 1e6 <= t.maxMs : f.ratio_to_floor <= t.maxRatio));
    const met = ok.length === fs.length ? "met" : ok.length ? `not met (${ok.length} of ${fs.length} within)` : "not met";
    lines.push(`- ${t.text}: ${met}.`);
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

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

/**
 * Each hashed race's time over the seeded f32 race's in wasm: per place
 * (build and threads) and vocabulary, the median over rounds of the ratio
 * formed within a round. `{ "<recipe>": { "<build> <threads>t": ratio } }`.
 */
export function wasmHashedRatios(report) {
  const out = {};
  const seeded = new Map();
  for (const r of report.rounds_raw) {
    const [kind, precision, v] = r.case.split("/");
    if (kind === "seeded" && precision === "f32") seeded.set(`${r.build} ${r.threads} ${r.round} ${v}`, r.median_ms);
  }
  const ratios = {};
  for (const r of report.rounds_raw) {
    const [kind, recipe, v] = r.case.split("/");
    const base = seeded.get(`${r.build} ${r.threads} ${r.round} ${v}`);
    if (kind !== "hashed" || base == null || r.build === "native" || r.build === "portable") continue;
    const key = `${recipe}|${r.build} ${r.threads}t`;
    (ratios[key] ??= []).push(r.median_ms / base);
  }
  for (const [key, xs] of Object.entries(ratios)) {
    const [recipe, place] = key.split("|");
    (out[recipe] ??= {})[place] = median(xs);
  }
  return out;
}

/** The wasm columns of the hashed table: a label and the places it shows, `a / b` or `a (b)`. */
const WASM_COLUMNS = [
  { label: "wasm Node (`WasmArray`)", places: ["node 1t", "node-resident 1t"], paren: true },
  { label: "wasm page", places: ["web 1t"] },
  { label: "wasm workers 1 / 2", places: ["threads 1t", "threads 2t"] },
  { label: "wasm workers, `WasmArray`, 1 / 2", places: ["threads-resident 1t", "threads-resident 2t"] },
];

function hashed() {
  const section = results.hashed;
  if (!section) return "No `hashed` section in results.json yet.";
  const groups = section.cases.map((c) => ({ ...c, threads: Number(c.case.split("/")[1].replace("t", "")) }));
  const vocabs = [...new Set(groups.map((c) => c.vocab))].sort((a, b) => a - b);
  const threads = [...new Set(groups.map((c) => c.threads))].sort((a, b) => a - b);
  const recipes = [...new Set(groups.flatMap((c) => Object.keys(c.functions)).filter((f) => f !== "seeded-f32"))];
  const wasm = wasmHashed ? wasmHashedRatios(wasmHashed) : {};
  const columns = WASM_COLUMNS.filter((c) => c.places.some((p) => Object.values(wasm).some((w) => w[p] != null)));
  const machine = (m) => `${m?.cpu ?? "see the file"}, ${m?.cores ?? "?"} cores`;
  const wasmVocab = wasmHashed?.cases.find((c) => c.case.startsWith("hashed/"))?.case.split("/")[2];
  const lines = [
    `From \`hashed\` in [results.json](results.json) (${machine(section.machine)}, ${section.date.slice(0, 10)}; ` +
      `threads ${threads.join(" / ")} in each cell)` +
      (wasmHashed
        ? ` and [wasm-hashed.json](wasm-hashed.json) (${machine(wasmHashed.machine)}, ${wasmHashed.date.slice(0, 10)}; ` +
          `${wasmVocab.replace("V", "V ")}, medians of ${wasmHashed.rounds} rounds' ratios)`
        : "") +
      ": each sampler's time over the fused seeded f32 race's (Philox) on the same tokens.",
    "",
    row(["sampler", ...vocabs.map((v) => `V ${v}`), ...columns.map((c) => c.label)]),
    row(["---", ...vocabs.map(() => "---"), ...columns.map(() => "---")]),
  ];
  let worst = 0;
  const cell = (r) => {
    if (r != null) worst = Math.max(worst, r);
    return r == null ? "-" : ratio(r);
  };
  for (const name of recipes) {
    const native = vocabs.map((v) =>
      threads.map((t) => cell(groups.find((c) => c.vocab === v && c.threads === t)?.functions[name]?.ratio_to_floor)).join(" / "),
    );
    const w = wasm[name.replace(/^seeded-/, "")] ?? {};
    const inWasm = columns.map((c) => {
      const [a, b] = c.places.map((p) => cell(w[p]));
      return b === undefined ? a : c.paren ? `${a} (${b})` : `${a} / ${b}`;
    });
    lines.push(row([`\`${name.replace(/^seeded-/, "")}\``, ...native, ...inWasm]));
  }
  lines.push("", `Target: each at most 1.5 of the seeded race per token, natively and in wasm, on every pool: ${worst <= 1.5 ? "met" : "not met"} (largest ${ratio(worst)}).`);
  return lines.join("\n");
}

for (const [name, text] of [["end-to-end", endToEnd()], ["side-by-side", sideBySide()], ["hashed", hashed()]]) {
  console.log(`${replaceBlock(readme, name, text) ? "wrote" : "unchanged"}: ${name}`);
}
