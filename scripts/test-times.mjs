#!/usr/bin/env node
// Records how long each step of `npm test` took, from the output of a run
// (`npm test 2>&1 | tee LOG`): every `== setup: ...` and `== test: ...` line
// gives a step's start time, and a `(name: Ns)` line its own duration. Writes
// benches/test-times.json and the sentence in benches/README.md. A log of
// `npm run test:quick` (`== test:quick: ...` lines) goes to
// benches/test-quick-times.json and its own sentence.
//
// Usage: node scripts/test-times.mjs LOG [--out JSON] [--note TEXT] [--commit REV] [--partial]
//   --commit   the commit the run tested (default: this checkout's HEAD)
//   --partial  records a run that has not finished (or stopped): the steps
//              that finished, and the one still running, as incomplete.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { replaceBlock } from "./results-block.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The steps of a log: name, start (seconds of the day) and, where printed, its own duration. */
export function parseSteps(text) {
  const steps = [];
  for (const line of text.split("\n")) {
    const start = line.match(/^== (setup|test|test:quick): (.*) \((\d\d):(\d\d):(\d\d)\)$/);
    if (start) {
      const [, phase, name, h, m, s] = start;
      steps.push({ phase, name, start: +h * 3600 + +m * 60 + +s });
      continue;
    }
    const timed = line.match(/^\([^()]*: (\d+)s\)$/);
    if (timed && steps.length) steps.at(-1).timed = Number(timed[1]);
  }
  return steps;
}

/** Each step's seconds: to the next step's start, or its own printed duration for the last. */
export function durations(steps) {
  return steps.map((step, i) => {
    const next = steps[i + 1];
    let seconds = next ? next.start - step.start : step.timed;
    if (seconds !== undefined && seconds < 0) seconds += 86400;
    return { phase: step.phase, name: step.name, seconds: seconds ?? null };
  });
}

function main() {
  const args = process.argv.slice(2);
  const log = args[0];
  if (!log) {
    console.error("usage: node scripts/test-times.mjs LOG [--out JSON] [--note TEXT]");
    process.exit(2);
  }
  const opt = (name) => (args.indexOf(name) < 0 ? null : args[args.indexOf(name) + 1]);
  let steps = durations(parseSteps(readFileSync(log, "utf8")));
  const quick = steps.some((s) => s.phase === "test:quick");
  const name = quick ? "test-quick-times" : "test-times";
  const out = resolve(opt("--out") ?? join(root, `benches/${name}.json`));
  const partial = args.includes("--partial");
  let unfinished = null;
  if (partial && steps.length && steps.at(-1).seconds === null) unfinished = steps.pop().name;
  if (!steps.length || steps.at(-1).seconds === null) {
    console.error(`${log}: no complete run (the last step printed no duration; --partial records it)`);
    process.exit(1);
  }
  const total = steps.reduce((n, s) => n + s.seconds, 0);
  const report = {
    date: new Date().toISOString().slice(0, 10),
    commit: opt("--commit") ?? execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? null },
    total_seconds: total,
    complete: !unfinished,
    ...(unfinished ? { unfinished_step: unfinished } : {}),
    ...(opt("--note") ? { note: opt("--note") } : {}),
    steps,
  };
  writeFileSync(out, `${JSON.stringify(report, null, 1)}\n`);
  const longest = [...steps].sort((a, b) => b.seconds - a.seconds).slice(0, 3);
  const min = (s) => (s / 60).toFixed(1);
  const text =
    `${quick ? "`npm run test:quick`" : "`npm test`"} measured ${report.date} at ${report.commit} ` +
    `on ${report.machine.cpus} cores ([${name}.json](${name}.json)): ${min(total)} minutes` +
    (unfinished ? ` for the steps before "${unfinished}", which had not finished` : "") +
    "; the longest steps: " +
    longest.map((s) => `${s.name} (${min(s.seconds)})`).join(", ") + ".";
  if (out === join(root, `benches/${name}.json`)) replaceBlock(join(root, "benches/README.md"), name, text);
  console.log(text);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
