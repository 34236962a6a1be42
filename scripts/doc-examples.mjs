// Every public item of the library crates has a code example or a line
// `/// No example: <reason>.` in its doc comment. The nightly rustdoc lint
// `missing_doc_code_examples` names the items without an example; this script
// runs it over the crates and accepts an item only when the doc comment the
// warning points at holds such a line. Exits 1 on any item without either, or
// when rustdoc fails.
//
// Usage: node scripts/doc-examples.mjs

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const crates = ["exporace", "exporace-study", "exporace-io", "exporace-viz"];

// The pinned nightly: the one the threaded npm build uses.
const toolchainFile = join(root, "crates/exporace-wasm/threads/rust-toolchain.toml");
const channel = readFileSync(toolchainFile, "utf8").match(/^\s*channel\s*=\s*"([^"]+)"/m)?.[1];
if (!channel) {
  console.error(`doc-examples: no channel in ${toolchainFile}`);
  process.exit(1);
}

/** The `path:line` of every `missing code example` warning in rustdoc's output. */
function missingExamples(output) {
  const found = [];
  const lines = output.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("warning: missing code example")) continue;
    const at = lines
      .slice(i + 1, i + 4)
      .map((l) => l.match(/^\s*-->\s*(.+):(\d+):\d+\s*$/))
      .find(Boolean);
    if (!at) throw new Error(`no location after: ${lines[i]}`);
    found.push({ path: at[1], line: Number(at[2]) });
  }
  return found;
}

const isDocOrAttr = (l) => /^\s*(\/\/\/|\/\/!|#!?\[)/.test(l);

/**
 * The doc comment block of the item a warning points at: the consecutive
 * `///` (or `//!`) and `#[...]` lines around `line` when it is one of them
 * (rustdoc points at the first doc line), otherwise those directly above it.
 */
function docBlock(lines, line) {
  let i = line - 1;
  if (!isDocOrAttr(lines[i] ?? "")) i -= 1;
  let start = i;
  while (start > 0 && isDocOrAttr(lines[start - 1])) start -= 1;
  let end = i;
  while (end + 1 < lines.length && isDocOrAttr(lines[end + 1])) end += 1;
  return start <= i && i >= 0 ? lines.slice(start, end + 1) : [];
}

const hasReason = (block) => block.some((l) => /^\s*\/\/[/!] No example: \S/.test(l));

// One rustdoc pass over the four crates (their features unified), so their
// dependencies are checked once.
const run = spawnSync(
  "cargo",
  [`+${channel}`, "doc", "--no-deps", "--all-features", ...crates.flatMap((c) => ["-p", c])],
  {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 << 20,
    env: {
      ...process.env,
      CARGO_TARGET_DIR: join(root, "target/docs-check"),
      RUSTDOCFLAGS: "-Z unstable-options -Zcrate-attr=feature(rustdoc_missing_doc_code_examples) -W rustdoc::missing_doc_code_examples",
    },
  },
);
if (run.error || run.status !== 0) {
  process.stderr.write(run.stderr ?? "");
  console.error(`doc-examples: rustdoc failed (${run.error ?? `status ${run.status}`})`);
  process.exit(1);
}
const items = missingExamples(run.stderr);
const files = new Map();
let missing = 0;
const counts = new Map(crates.map((c) => [c, { items: 0, reasons: 0, missing: 0 }]));
for (const { path, line } of items) {
  if (!files.has(path)) files.set(path, readFileSync(join(root, path), "utf8").split("\n"));
  const crate = crates.find((c) => path.startsWith(`crates/${c}/`));
  const count = counts.get(crate) ?? { items: 0, reasons: 0, missing: 0 };
  count.items += 1;
  if (hasReason(docBlock(files.get(path), line))) {
    count.reasons += 1;
  } else {
    count.missing += 1;
    missing += 1;
    console.log(`${path}:${line}: item has no example and no reason`);
  }
}
const summaries = crates.map((c) => `${c}: ${counts.get(c).items} items, ${counts.get(c).reasons} with a reason, ${counts.get(c).missing} missing`);
for (const s of summaries) console.log(s);
process.exit(missing > 0 ? 1 : 0);
