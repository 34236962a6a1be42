#!/usr/bin/env node
// The npm package's size: packs pkg/ with `npm pack` (as
// scripts/test-node-consumer.sh does) and measures the tarball, the unpacked
// files and each wasm file (bytes, and gzip -9 as a server may send it).
// Writes benches/package-size.json with the budget of
// tests/js/consumer/size.test.mjs (keeping the file's `attempts`), and the
// sentence in benches/README.md.
//
// Usage: node scripts/package-size.mjs [--tarball FILE] [--out JSON] [--label TEXT]
// (`npm run build` first, unless a tarball is given).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { mb, replaceBlock } from "./results-block.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The files of a .tgz: path (without `package/`) and bytes. */
export function tarFiles(tarball) {
  const tar = gunzipSync(readFileSync(tarball));
  const files = [];
  for (let at = 0; at + 512 <= tar.length; ) {
    const head = tar.subarray(at, at + 512);
    if (head.every((b) => b === 0)) break;
    const field = (from, len) => head.subarray(from, from + len).toString("latin1").replace(/\0.*$/s, "");
    const name = field(345, 155) ? `${field(345, 155)}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1);
    if (type === "0" || type === "") {
      files.push({ path: name.replace(/^package\//, ""), bytes: size, data: tar.subarray(at + 512, at + 512 + size) });
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Packed and unpacked bytes of a tarball, and each wasm file's bytes and gzip -9 bytes. */
export function measure(tarball) {
  const files = tarFiles(tarball);
  const wasm = {};
  for (const f of files.filter((f) => f.path.endsWith(".wasm"))) {
    wasm[f.path] = { bytes: f.bytes, gzip9_bytes: gzipSync(f.data, { level: 9 }).length };
  }
  const sum = (list) => list.reduce((n, f) => n + f.bytes, 0);
  return {
    packed_bytes: statSync(tarball).size,
    unpacked_bytes: sum(files),
    files: files.length,
    wasm,
    js_bytes: sum(files.filter((f) => /\.(m|c)?js$/.test(f.path))),
    types_bytes: sum(files.filter((f) => /\.d\.c?ts$/.test(f.path))),
  };
}

/** The budgets stated in tests/js/consumer/size.test.mjs. */
export function budgets() {
  const text = readFileSync(join(root, "tests/js/consumer/size.test.mjs"), "utf8");
  const read = (name) => Number(text.match(new RegExp(`${name} = ([0-9_]+)`))[1].replaceAll("_", ""));
  return { packed_bytes: read("BUDGET_PACKED_BYTES"), unpacked_bytes: read("BUDGET_UNPACKED_BYTES") };
}

function main() {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(name);
    return i < 0 ? fallback : args[i + 1];
  };
  const out = resolve(opt("--out", join(root, "benches/package-size.json")));
  let tarball = opt("--tarball", null);
  let work = null;
  if (!tarball) {
    work = mkdtempSync(join(tmpdir(), "exporace-size-"));
    const name = execFileSync("npm", ["pack", join(root, "pkg"), "--silent"], { cwd: work, encoding: "utf8" });
    tarball = join(work, name.trim().split("\n").pop());
  }
  try {
    const m = measure(tarball);
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    const report = {
      date: new Date().toISOString().slice(0, 10),
      commit,
      label: opt("--label", "npm pack of pkg/ (scripts/build-pkg.sh)"),
      ...m,
      budget: budgets(),
      // The measured attempts at a smaller package, kept from the file.
      attempts: existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")).attempts ?? []) : [],
    };
    writeFileSync(out, `${JSON.stringify(report, null, 1)}\n`);
    console.log(JSON.stringify(report, null, 1));
    if (out === join(root, "benches/package-size.json")) {
      const w = Object.entries(m.wasm).map(([p, v]) => `\`${p}\` ${mb(v.bytes)} MB (${mb(v.gzip9_bytes)} MB gzipped)`);
      replaceBlock(
        join(root, "benches/README.md"),
        "package-size",
        `Measured ${report.date} at ${commit} ([package-size.json](package-size.json)): ` +
          `${mb(m.packed_bytes)} MB packed, ${mb(m.unpacked_bytes)} MB unpacked (budgets ` +
          `${mb(report.budget.packed_bytes)} and ${mb(report.budget.unpacked_bytes)} MB, ` +
          `held by \`tests/js/consumer/size.test.mjs\`); ${w.join(", ")}.`,
      );
    }
  } finally {
    if (work) rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
