// The exporace package as the page holds it: compiled once (the workers get
// the compiled module), its noise catalogue read once, and the calls every
// view makes (a scenario, a number of the scenario format, one token's race).
import init, * as ex from "./pkg/web/index.js";

export { ex };

/** After `start()`: the compiled wasm module and the catalogue's models with their facts. */
export const loaded = { module: null, models: [] };

/** Fetches and compiles the wasm once, starts the package on it and reads the catalogue. */
export async function start() {
  loaded.module = await WebAssembly.compileStreaming(fetch(new URL("./pkg/web/exporace_bg.wasm", import.meta.url)));
  await init({ module_or_path: loaded.module });
  loaded.models = ask({ op: "models" }).result.models;
}

/** The core's answer to a scenario (`exporace: 1` added). */
export function ask(scenario) {
  return ex.run({ exporace: 1, ...scenario });
}

/** A catalogue model's facts, or undefined for a name the catalogue lacks. */
export function modelFacts(name) {
  return loaded.models.find((m) => m.name === name);
}

/** A number of the scenario format (a number, "inf", "-inf", "nan", a decimal or IEEE bits "0x…") as a JS number, read by the core. */
export function scenarioNumber(v) {
  return typeof v === "number" ? v : ex.inspectFloat(v).f64.value;
}

/** The core's race of one token: its score and the score's bits. */
export function coreRace(weight, invQ) {
  return ex.raceMul(Float32Array.of(weight), invQ).winner;
}

/** A score as the tables show it: "nan", "inf" or the number. */
export function scoreLabel(v) {
  return Number.isNaN(v) ? "nan" : v === Infinity ? "inf" : v;
}

/** One token's score, computed by the core's race on that token alone. */
export function coreScore(weight, invQ) {
  return coreRace(weight, invQ).score;
}
