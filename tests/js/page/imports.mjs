// The page's module graph, read from the sources: each module of web/ (its
// path under web/) with the modules it imports statically, resolved to paths
// under web/ (or "outside: …" for anything that leaves web/).
import { readdirSync, readFileSync } from "node:fs";
import { join, normalize, relative } from "node:path";

/** Every .mjs file under `dir`, as paths relative to `root`. */
function modules(root, dir = root) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(root, join(dir, e.name)) : e.name.endsWith(".mjs") ? [relative(root, join(dir, e.name))] : [],
  );
}

/** `{ "views/race.mjs": ["state.mjs", …], … }` for the modules under `web`. */
export function importGraph(web) {
  const graph = {};
  for (const file of modules(web)) {
    const source = readFileSync(join(web, file), "utf8");
    const specifiers = [...source.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"/gm)].map((m) => m[1]);
    graph[file] = specifiers.map((s) => {
      const resolved = s.startsWith("/") ? normalize(s.slice(1)) : normalize(join(file, "..", s));
      return resolved.startsWith("..") || s.startsWith("/") ? `outside: ${s}` : resolved;
    });
  }
  return graph;
}

/** A cycle of imports in `graph` as a list of modules, or null when there is none. */
export function findCycle(graph) {
  const state = {};
  const path = [];
  const visit = (m) => {
    if (state[m] === "done") return null;
    if (state[m] === "open") return path.slice(path.indexOf(m)).concat(m);
    state[m] = "open";
    path.push(m);
    for (const n of graph[m] ?? []) {
      const cycle = visit(n);
      if (cycle) return cycle;
    }
    path.pop();
    state[m] = "done";
    return null;
  };
  for (const m of Object.keys(graph)) {
    const cycle = visit(m);
    if (cycle) return cycle;
  }
  return null;
}
