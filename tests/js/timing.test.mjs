// web/timing.mjs builds the inputs of the native benchmark cases in
// JavaScript. These tests hold its generator to an independent BigInt
// xorshift64 and check what each case hands to the package, through a
// stand-in module that records the calls (no wasm needed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { DRAFTS, HASHED_RECIPES, hashedLogits, parseCase, prepare, targetProbs } from "../../web/timing.mjs";

/**
 * The top 24 bits of `Recover::new`'s generator's first `n` values
 * (crates/exporace-bench): xorshift64 (13, 7, 17) from 0x2545F4914F6CDD1D on
 * 64-bit BigInts.
 */
function tops(n) {
  const mask = (1n << 64n) - 1n;
  let x = 0x2545f4914f6cdd1dn;
  const out = [];
  for (let i = 0; i < n; i++) {
    x ^= (x << 13n) & mask;
    x ^= x >> 7n;
    x ^= (x << 17n) & mask;
    out.push(Number(x >> 40n));
  }
  return out;
}

/**
 * `Recover::new`'s values: the top 24 bits times 2^-24, divided by `vocab`
 * and rounded to f32 (one rounding of the f64 quotient to f32 equals the
 * f32 division).
 */
const reference = (n, vocab) => Float32Array.from(tops(n), (k) => (k * 2 ** -24) / vocab);

const bits = (a) => new Uint32Array(a.buffer, a.byteOffset, a.length);

test("targetProbs is the native generator's sequence, bit for bit", () => {
  for (const vocab of [1, 7, 32000, 152064]) {
    assert.deepEqual(bits(targetProbs(5000, vocab)), bits(reference(5000, vocab)), `V ${vocab}`);
  }
});

/** A stand-in for the package that records the calls `prepare` makes. */
function recorder() {
  const calls = [];
  return {
    calls,
    fillInvQ: (seed, stream, row, out) => {
      calls.push({ fn: "fillInvQ", seed, stream, row, length: out.length });
      out.fill(1);
    },
    fillQ: (seed, stream, row, out) => {
      calls.push({ fn: "fillQ", seed, stream, row, length: out.length });
      out.fill(1);
    },
    recoverTokens: (batch, noise) => {
      calls.push({ fn: "recoverTokens", batch, noise });
      return [{ winner: { token: 3 } }];
    },
  };
}

test("a residual case hands recoverTokens the target rows, then the generator's next values as draft rows", () => {
  const ex = recorder();
  const [b, v] = [3, 1000];
  const c = prepare(ex, `residual/f64/B${b}/V${v}`);
  assert.equal(c.elements, b * DRAFTS * v);
  assert.equal(c.run(), 3);
  const t = b * DRAFTS;
  const { batch, noise } = ex.calls.find((x) => x.fn === "recoverTokens");
  const all = reference(2 * t * v, v);
  assert.deepEqual(bits(batch.targetProbs), bits(all.subarray(0, t * v)));
  assert.deepEqual(bits(batch.draftProbs), bits(all.subarray(t * v)));
  assert.deepEqual(Array.from(batch.cuNumDraftTokens), [4, 8, 12]);
  assert.deepEqual(Array.from(batch.draftTokenIds), Array.from({ length: t }, (_, i) => (i * 7919) % v));
  assert.ok(noise instanceof Float64Array && noise.length === b * v);
  const rows = ex.calls.filter((x) => x.fn === "fillInvQ");
  assert.deepEqual(
    rows.map((x) => [x.seed, x.stream, x.row, x.length]),
    [0n, 1n, 2n].map((r) => [7n, "race", r, v]),
  );
});

test("an n-gram recover case has no draft rows; bad case names are refused", () => {
  const ex = recorder();
  prepare(ex, "recover/f32/B1/V64").run();
  const { batch, noise } = ex.calls.find((x) => x.fn === "recoverTokens");
  assert.equal(batch.draftProbs, undefined);
  assert.ok(noise instanceof Float32Array);
  assert.deepEqual(bits(batch.targetProbs), bits(reference(DRAFTS * 64, 64)));
  assert.deepEqual(parseCase("seeded/f64/V152064"), { kind: "seeded", precision: "f64", requests: 1, vocab: 152064 });
  for (const bad of ["recover/f16/B1/V10", "sample/f32/V10", "race/f32/V0", "race/f32/X9"]) {
    assert.throws(() => parseCase(bad), /unknown case/, bad);
  }
});

test("a hashed case hands sampleHashed the native bench's logits, seed and position", () => {
  const want = Float32Array.from(tops(3000), (k) => -k * 2 ** -19);
  assert.deepEqual(bits(hashedLogits(3000)), bits(want));
  for (const recipe of HASHED_RECIPES) {
    const calls = [];
    const ex = { sampleHashed: (...args) => (calls.push(args), 5) };
    const c = prepare(ex, `hashed/${recipe}/V3000`);
    assert.equal(c.run(), 5);
    const [model, logits, seed, options] = calls[0];
    assert.equal(model, recipe);
    assert.ok(logits instanceof (recipe === "sglang-0.5" ? Float64Array : Float32Array));
    assert.deepEqual(Array.from(logits), Array.from(want));
    assert.equal(seed, recipe === "vllm-cpu-0.32" ? 0n : 7n);
    assert.deepEqual(options, recipe === "vllm-cpu-0.32" ? undefined : recipe === "sglang-0.5" ? { pos: 0n } : { pos: 0n, temperature: 1 });
  }
  assert.deepEqual(parseCase("hashed/sglang-0.5/V8"), { kind: "hashed", precision: "sglang-0.5", requests: 1, vocab: 8 });
  for (const bad of ["hashed/f32/V8", "hashed/sglang-0.5/B2/V8", "seeded/sglang-0.5/V8"]) {
    assert.throws(() => parseCase(bad), /unknown case/, bad);
  }
});
