// Interleaved A/B of `bench-native` builds: every case is timed by each
// build in turn (the order rotated from repeat to repeat), for several
// repeats, so each build's figure comes with its run-to-run spread and each
// ratio to the first build (the baseline) is formed within a repeat. A build
// is slower beyond the spread when its median ratio exceeds 1 by more than
// the larger of the two builds' spreads ((max - min) / median of their
// repeats). The ratio of the builds' fastest repeats is given too: on a
// shared machine, the repeat least disturbed by other work. Writes one JSON
// file.
//
//   node benches/ab.mjs --out FILE [--reps 5] [--budget-ms 1000] [--threads 1] \
//     [--instructions] [--rustflags FLAGS] --build NAME:COMMIT:BINARY --build ... CASE...
//
// A case is one of bench-native's (`recover/f32/B1/V152064`, ...);
// `--rustflags` records how the builds were made (default
// `-C target-cpu=native`). With `--instructions`, each build runs each case
// once under callgrind instead (bench-native's 6 calls with `--budget-ms 0`:
// a warm-up and 5 timed), counting the instructions executed inside the
// kernel closure it times (`KERNEL`); the counts repeat to the instruction.
// Valgrind has no AVX-512: such builds use `-C target-cpu=x86-64-v3`.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { median, range } from "./rounds.mjs";

const args = process.argv.slice(2);
const opts = { reps: 5, budgetMs: 1000, threads: "1", out: null, instructions: false, rustflags: "-C target-cpu=native" };
const builds = [];
const cases = [];
while (args.length) {
  const a = args.shift();
  if (a === "--out") opts.out = args.shift();
  else if (a === "--reps") opts.reps = Number(args.shift());
  else if (a === "--budget-ms") opts.budgetMs = Number(args.shift());
  else if (a === "--threads") opts.threads = args.shift();
  else if (a === "--instructions") opts.instructions = true;
  else if (a === "--rustflags") opts.rustflags = args.shift();
  else if (a === "--build") {
    const [name, commit, bin] = args.shift().split(":");
    builds.push({ name, commit, bin });
  } else cases.push(a);
}
if (!opts.out || builds.length < 2 || cases.length === 0) {
  console.error("usage: node benches/ab.mjs --out FILE --build NAME:COMMIT:BINARY --build ... CASE...");
  process.exit(2);
}

/** The kernel closures bench-native times, as callgrind names them. */
const KERNEL = "bench_native::prepare::{{closure}}";

/** Instructions executed inside the case's kernel closure over bench-native's 6 calls. */
function instructions(build, name) {
  const argv = ["--tool=callgrind", `--toggle-collect=${KERNEL}`, "--callgrind-out-file=/dev/null", build.bin];
  argv.push("--threads", "1", "--budget-ms", "0", name);
  const run = spawnSync("valgrind", argv, { encoding: "utf8" });
  const collected = run.stderr.match(/Collected : (\d+)/);
  if (run.status !== 0 || !collected) throw new Error(`callgrind failed on ${build.name} ${name}:\n${run.stderr}`);
  const row = JSON.parse(run.stdout.trim().split("\n")[0]);
  return { case: name, first_winner: row.first_winner, calls: 6, instructions: Number(collected[1]) };
}

if (opts.instructions) {
  const rows = [];
  for (const name of cases) {
    const entry = { case: name, instructions: {}, ratio_to_baseline: {} };
    for (const build of builds) {
      const r = instructions(build, name);
      entry.instructions[build.name] = r.instructions;
      entry.first_winner = entry.first_winner ?? r.first_winner;
      entry.winners_match = (entry.winners_match ?? true) && entry.first_winner === r.first_winner;
      console.log(`${build.name} ${name}: ${r.instructions} instructions`);
    }
    for (const b of builds.slice(1)) {
      entry.ratio_to_baseline[b.name] = entry.instructions[b.name] / entry.instructions[builds[0].name];
    }
    rows.push(entry);
  }
  const what = "instructions inside each case's kernel closure over 6 calls, under callgrind";
  const named = builds.map(({ name, commit }) => ({ name, commit }));
  writeFileSync(opts.out, JSON.stringify({ what, rustflags: opts.rustflags, builds: named, cases: rows }, null, 1) + "\n");
  console.log(`wrote ${opts.out}`);
  process.exit(0);
}

/** bench-native's JSON lines for one case on one build. */
function time(build, name) {
  const out = execFileSync(build.bin, ["--threads", opts.threads, "--budget-ms", String(opts.budgetMs), name], {
    encoding: "utf8",
  });
  return out.trim().split("\n").map((l) => JSON.parse(l));
}

const raw = [];
for (let rep = 1; rep <= opts.reps; rep++) {
  for (const name of cases) {
    for (let k = 0; k < builds.length; k++) {
      const build = builds[(k + rep - 1) % builds.length];
      for (const row of time(build, name)) {
        raw.push({ rep, build: build.name, ...row });
        console.log(`rep ${rep} ${build.name} ${name} t${row.threads}: ${row.median_ms.toFixed(4)} ms`);
      }
    }
  }
}

const spreadOf = (xs) => (Math.max(...xs) - Math.min(...xs)) / median(xs);
const threads = [...new Set(raw.map((r) => r.threads))];
const summary = [];
for (const name of cases) {
  for (const t of threads) {
    const rows = raw.filter((r) => r.case === name && r.threads === t);
    const of = (b) => rows.filter((r) => r.build === b).sort((x, y) => x.rep - y.rep);
    const base = of(builds[0].name);
    const entry = { case: name, threads: t, builds: {}, ratio_to_baseline: {}, slower_beyond_spread: {} };
    for (const b of builds) {
      const ms = of(b.name).map((r) => r.median_ms);
      entry.builds[b.name] = { median_ms: median(ms), range_ms: range(ms), spread: spreadOf(ms), ms_by_rep: ms };
    }
    for (const b of builds.slice(1)) {
      const ratios = of(b.name).map((r) => r.median_ms / base.find((x) => x.rep === r.rep).median_ms);
      const spread = Math.max(entry.builds[b.name].spread, entry.builds[builds[0].name].spread);
      entry.ratio_to_baseline[b.name] = {
        median: median(ratios),
        range: range(ratios),
        of_minima: entry.builds[b.name].range_ms[0] / entry.builds[builds[0].name].range_ms[0],
      };
      entry.slower_beyond_spread[b.name] = median(ratios) - 1 > spread;
    }
    entry.winners_match = new Set(rows.map((r) => r.first_winner)).size === 1;
    summary.push(entry);
  }
}

const cpu = readFileSync("/proc/cpuinfo", "utf8").match(/^model name\s*:\s*(.*)$/m)?.[1] ?? null;
const loads = raw.map((r) => r.load_average).filter((x) => x != null);
writeFileSync(
  opts.out,
  JSON.stringify(
    {
      what: "bench-native builds timed in turn, repeat by repeat; ratios to the first build within each repeat",
      date: new Date().toISOString().slice(0, 10),
      cpu,
      rustflags: opts.rustflags,
      reps: opts.reps,
      budget_ms: opts.budgetMs,
      builds: builds.map(({ name, commit }) => ({ name, commit })),
      load_average_range: loads.length ? range(loads.map((l) => (Array.isArray(l) ? l[0] : l))) : null,
      cases: summary,
    },
    null,
    1,
  ) + "\n",
);
console.log(`wrote ${opts.out}`);
