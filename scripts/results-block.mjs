// Writes generated text into a Markdown file between the lines
// `<!-- results:NAME -->` and `<!-- /results:NAME -->`, so a figure in prose
// comes from its results file and is stated nowhere else.
import { readFileSync, writeFileSync } from "node:fs";

/** Replaces the block NAME of `file` with `text`; fails if the markers are missing. */
export function replaceBlock(file, name, text) {
  const open = `<!-- results:${name} -->`;
  const close = `<!-- /results:${name} -->`;
  const md = readFileSync(file, "utf8");
  const a = md.indexOf(open);
  const b = md.indexOf(close);
  if (a < 0 || b < a) throw new Error(`${file}: no ${open} ... ${close} block`);
  // The block takes the indentation of its opening marker (inside a list item).
  const indent = md.slice(md.lastIndexOf("\n", a) + 1, a);
  const body = text.trim().split("\n").map((line) => (line ? indent + line : line)).join("\n");
  const next = `${md.slice(0, a + open.length)}\n${body}\n${indent}${md.slice(b)}`;
  if (next !== md) writeFileSync(file, next);
  return next !== md;
}

/** Bytes as MB (10^6) with three decimals. */
export const mb = (bytes) => (bytes / 1e6).toFixed(3);
