// The race's weights as the core's runs of equal weight in token order (the
// groups its grouped answers take), and the dead zones asked of the core by
// group: one test per run, so a quarter of a million tokens take well under
// a millisecond on the main thread.
import { ex } from "./core.mjs";

const groupsOf = new WeakMap();

/** `weights` (a Float32Array) as the core's runs in token order: { weights, counts } (Float64Arrays), found once per array. */
export function weightGroups(weights) {
  let g = groupsOf.get(weights);
  if (!g) groupsOf.set(weights, (g = ex.weightGroups(weights)));
  return g;
}

const deadZones = new WeakMap();

/** The core's dead zone of `model` over `weights` (`deadZoneOfGroups` on their runs), asked once per array and model. */
export function deadZoneOf(model, weights) {
  let byModel = deadZones.get(weights);
  if (!byModel) deadZones.set(weights, (byModel = new Map()));
  if (!byModel.has(model)) {
    const { weights: w, counts } = weightGroups(weights);
    byModel.set(model, ex.deadZoneOfGroups(model, w, counts));
  }
  return byModel.get(model);
}
