// The packed tarball's size, held under budgets. The budgets are the sizes
// measured by `node scripts/package-size.mjs` when they were set, plus about
// 5% for growth; benches/package-size.json records the latest measurement
// beside them. A change that crosses a budget should say in its commit what
// grew (scripts/package-size.mjs gives each wasm file's bytes) and, if the
// growth is kept, raise the budget here with the new measurement.
//
// Set 2026-12-06 from a build of scripts/build-pkg.sh (web, node and threads;
// the `wasm` profile): 1,975,826 bytes packed, 10,017,782 unpacked (the
// single-threaded wasm 4,623,216 bytes, the threaded 5,033,740). Raised the
// same day for the JAX, MLX and fused hashed-race recipes, from 2,250,921
// bytes packed and 11.85 MB unpacked (f7ee323), plus 5%; raised again for
// each model's engine, versions and tie rule and SGLang's fast_sample model,
// from 2,372,670 bytes packed and 12,473,959 unpacked (2510d05), plus 5%.
// Lowered when a comparison of two models became one copy per pair of noise
// types: 1,789,172 bytes packed, 7,219,771 unpacked (ae5bf95), plus 5%.
import { test } from "node:test";
import assert from "node:assert/strict";

export const BUDGET_PACKED_BYTES = 1_879_000;
export const BUDGET_UNPACKED_BYTES = 7_581_000;

const { measure } = await import(`${process.env.EXPORACE_ROOT}/scripts/package-size.mjs`);
const size = measure(process.env.EXPORACE_TARBALL);

test(`the tarball packs within ${BUDGET_PACKED_BYTES} bytes`, () => {
  assert.ok(size.packed_bytes <= BUDGET_PACKED_BYTES, `packed: ${size.packed_bytes} bytes; wasm: ${JSON.stringify(size.wasm)}`);
});

test(`the package unpacks within ${BUDGET_UNPACKED_BYTES} bytes`, () => {
  assert.ok(size.unpacked_bytes <= BUDGET_UNPACKED_BYTES, `unpacked: ${size.unpacked_bytes} bytes; wasm: ${JSON.stringify(size.wasm)}`);
});
