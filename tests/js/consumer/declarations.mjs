// The package's declarations as one text: the entry (exporace.d.ts) and the
// files it re-exports (types/*.d.ts), for tests that read what is declared.
import { readdirSync, readFileSync } from "node:fs";

/** The text of every `.d.ts` file of the installed package at `root`. */
export function declarations(root) {
  const types = readdirSync(`${root}types`).filter((f) => f.endsWith(".d.ts")).sort();
  return [`${root}exporace.d.ts`, ...types.map((f) => `${root}types/${f}`)]
    .map((path) => readFileSync(path, "utf8"))
    .join("\n");
}
