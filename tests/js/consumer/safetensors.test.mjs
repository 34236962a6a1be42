// readSafetensors from the packed package, on safetensors files built here
// byte by byte from the format: an 8-byte little-endian header length, a
// JSON header of {name: {dtype, shape, data_offsets}}, then the data. The
// expected values are the bit patterns written.
import { test } from "node:test";
import assert from "node:assert/strict";
import init, * as ex from "exporace";
import { le, safetensors as build } from "./files.mjs";

await init();

const safetensors = (tensors, options) => new Uint8Array(build(tensors, options));
const u16 = (...bits) => le(Uint16Array, bits);

const FILE = [
  ["target_probs", "F32", [2, 3], le(Float32Array, [0.5, 0.25, 0.25, 0.125, 0.375, 0.5])],
  ["inv_q", "F64", [1, 3], le(Float64Array, [1, 2 ** -24, Infinity])],
  ["draft_token_ids", "I32", [2], le(Int32Array, [2, -1])],
  ["cu_num_draft_tokens", "I64", [1], le(BigInt64Array, [2n])],
  // f16 0x3c00 = 1, 0x3800 = 0.5, 0x0001 = 2^-24; bf16 0x3f80 = 1, 0xc000 = -2.
  ["half", "F16", [3], u16(0x3c00, 0x3800, 0x0001)],
  ["brain", "BF16", [2], u16(0x3f80, 0xc000)],
];

test("readSafetensors: every tensor in name order, in the typed array that holds it exactly", () => {
  const out = ex.readSafetensors(safetensors(FILE));
  assert.deepEqual(out.map((t) => t.name), ["brain", "cu_num_draft_tokens", "draft_token_ids", "half", "inv_q", "target_probs"]);
  const by = Object.fromEntries(out.map((t) => [t.name, t]));
  assert.equal(by.target_probs.dtype, "f32");
  assert.deepEqual(by.target_probs.shape, [2, 3]);
  assert.ok(by.target_probs.data instanceof Float32Array);
  assert.deepEqual(Array.from(by.target_probs.data), [0.5, 0.25, 0.25, 0.125, 0.375, 0.5]);
  assert.ok(by.inv_q.data instanceof Float64Array);
  assert.deepEqual(Array.from(by.inv_q.data), [1, 2 ** -24, Infinity]);
  assert.ok(by.draft_token_ids.data instanceof Int32Array);
  assert.deepEqual(Array.from(by.draft_token_ids.data), [2, -1]);
  assert.ok(by.cu_num_draft_tokens.data instanceof BigInt64Array);
  assert.deepEqual(Array.from(by.cu_num_draft_tokens.data), [2n]);
  assert.equal(by.half.dtype, "f16");
  assert.ok(by.half.data instanceof Float32Array);
  assert.deepEqual(Array.from(by.half.data), [1, 0.5, 2 ** -24]);
  assert.equal(by.brain.dtype, "bf16");
  assert.deepEqual(Array.from(by.brain.data), [1, -2]);
});

test("readSafetensors refuses truncated and inconsistent files with a message, and stays usable", () => {
  const good = safetensors(FILE);
  assert.throws(() => ex.readSafetensors(good.subarray(0, 5)), /header length/);
  assert.throws(() => ex.readSafetensors(safetensors(FILE, { claim: 1 << 20 })), /header/);
  assert.throws(() => ex.readSafetensors(good.subarray(0, good.length - 4)), /safetensors/);
  const bool = [["flags", "BOOL", [2], Buffer.from([1, 0])]];
  assert.throws(() => ex.readSafetensors(safetensors(bool)), /flags.*BOOL|BOOL.*flags/);
  const liar = [["x", "F32", [4], le(Float32Array, [1, 2])]];
  assert.throws(() => ex.readSafetensors(safetensors(liar)), /safetensors/);
  assert.throws(() => ex.readSafetensors("not bytes"), Error);
  assert.equal(ex.readSafetensors(good).length, 6);
});
