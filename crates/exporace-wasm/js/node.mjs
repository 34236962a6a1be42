// ES module entry for Node: the wasm-bindgen nodejs build is CommonJS and is
// instantiated when it is loaded, so `init` has nothing left to do.
import { createRequire } from "node:module";

const wasm = createRequire(import.meta.url)("./exporace.js");

export const {
  raceMul,
  raceDiv,
  raceSeeded,
  recoverTokens,
  rejectionSample,
  fillInvQ,
  fillQ,
  fillUniform,
  randint,
  randint4x,
  rand,
  run,
  winProbabilities,
  runExperiment,
  transformUniform,
  residualWeights,
  inspectFloat,
  weightsFromLogits,
  readNpy,
  readSafetensors,
  readNpyTensor,
  writeNpy,
  writeSafetensors,
  WasmArray,
} = wasm;

/** Accepted for code shared with the browser build; the module is ready already. */
export default async function init() {
  return wasm;
}

/** Accepted for code shared with the browser build; the module is ready already. */
export function initSync() {
  return wasm;
}
