// The page's presets (web/presets.mjs) on the built package (pkg/node): the
// many-tail race is laid out from the core's two weights, and must be the
// core's weights of the full logits, bit for bit.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as ex from "../../pkg/node/index.mjs";
import { DEFAULT_PARAMS, buildPreset } from "../../web/presets.mjs";

test("the many-tail preset is weightsFromLogits of its full logits", () => {
  for (const tails of [1, 3, 262144]) {
    for (const gap of [0, 0.5, 20.5, 21.25, 40]) {
      for (const temperature of [1, 0.7, 3]) {
        const logits = new Float64Array(tails + 1).fill(-gap);
        logits[0] = 0;
        const want = ex.weightsFromLogits(logits, temperature);
        const got = buildPreset(ex, "many-tail", { ...DEFAULT_PARAMS, tails, gap, temperature }).weights;
        assert.ok(got instanceof Float32Array);
        assert.deepEqual(got, want, `tails ${tails}, gap ${gap}, temperature ${temperature}`);
      }
    }
  }
});
