// Summarizes `benches/threads.sh` runs: per build, case and thread count the
// median of the repeats' medians with their range, and each thread count's
// ratio to 1 thread. A case is slower beyond the spread at a thread count
// when that ratio exceeds 1 by more than the larger spread ((max - min) /
// median of the repeats) of the two thread counts. Writes one JSON file.
//
//   node benches/threads.mjs --out FILE --machine TEXT --rustflags FLAGS DIR NAME:COMMIT...
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { median } from "./rounds.mjs";

const args = process.argv.slice(2);
const opts = { out: null, machine: "", rustflags: "", dir: null };
const builds = [];
while (args.length) {
  const a = args.shift();
  if (a === "--out") opts.out = args.shift();
  else if (a === "--machine") opts.machine = args.shift();
  else if (a === "--rustflags") opts.rustflags = args.shift();
  else if (opts.dir === null) opts.dir = a;
  else {
    const [name, commit] = a.split(":");
    builds.push({ name, commit });
  }
}
if (!opts.out || !opts.dir || builds.length === 0) {
  console.error("usage: node benches/threads.mjs --out FILE --machine TEXT --rustflags FLAGS DIR NAME:COMMIT...");
  process.exit(2);
}
const spread = (xs) => (Math.max(...xs) - Math.min(...xs)) / median(xs);
const result = { machine: opts.machine, rustflags: opts.rustflags, command: "benches/threads.sh", builds: [] };
for (const { name, commit } of builds) {
  const times = new Map();
  const files = readdirSync(opts.dir).filter((f) => f.startsWith(`${name}.rep`) && f.endsWith(".jsonl"));
  for (const f of files) {
    for (const line of readFileSync(`${opts.dir}/${f}`, "utf8").split("\n").filter(Boolean)) {
      const x = JSON.parse(line);
      const key = `${x.case} ${x.threads}`;
      if (!times.has(key)) times.set(key, { case: x.case, threads: x.threads, ms: [] });
      times.get(key).ms.push(x.median_ms);
    }
  }
  const cases = new Map();
  for (const { case: c, threads, ms } of times.values()) {
    if (!cases.has(c)) cases.set(c, {});
    cases.get(c)[threads] = { median_ms: median(ms), min_ms: Math.min(...ms), max_ms: Math.max(...ms), spread: spread(ms) };
  }
  const rows = [];
  for (const [c, by] of cases) {
    const one = by[1];
    const ratios = {};
    const slower = [];
    for (const [t, m] of Object.entries(by)) {
      if (t === "1") continue;
      ratios[t] = m.median_ms / one.median_ms;
      if (ratios[t] - 1 > Math.max(one.spread, m.spread)) slower.push(Number(t));
    }
    rows.push({ case: c, threads: by, ratio_to_1_thread: ratios, slower_beyond_spread: slower });
  }
  result.builds.push({ name, commit, repeats: files.length, cases: rows, slower_cases: rows.filter((r) => r.slower_beyond_spread.length).map((r) => r.case) });
}
writeFileSync(opts.out, `${JSON.stringify(result, null, 2)}\n`);
for (const b of result.builds) console.log(b.name, "slower beyond the spread:", b.slower_cases.join(", ") || "none");
