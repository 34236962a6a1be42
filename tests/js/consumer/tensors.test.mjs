// readNpyTensor, writeNpy and writeSafetensors from the packed package. The
// written files are taken apart here by hand from their formats (.npy 1.0:
// magic, version, header length, a Python dict header; safetensors: an 8-byte
// little-endian header length, a JSON header, the data), and the .npy files
// read are built byte by byte by files.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import init, * as ex from "exporace";
import { npy, le } from "./files.mjs";

await init();

/** The header text and the data bytes of a .npy file (format 1.0). */
function splitNpy(bytes) {
  const b = Buffer.from(bytes);
  assert.equal(b.subarray(0, 6).toString("latin1"), "\x93NUMPY");
  assert.equal(b[6], 1);
  const len = b.readUInt16LE(8);
  assert.equal((10 + len) % 64, 0, "the header pads the data to 64 bytes");
  return { header: b.subarray(10, 10 + len).toString("latin1"), data: b.subarray(10 + len) };
}

test("writeNpy: the header names the dtype and shape; the data are the values' little-endian bytes", () => {
  const values = Float32Array.of(0.5, 2 ** -24, Infinity, -0, 1, 3);
  const { header, data } = splitNpy(ex.writeNpy({ shape: [2, 3], data: values }));
  assert.match(header, /'descr': '<f4'/);
  assert.match(header, /'fortran_order': False/);
  assert.match(header, /'shape': \(2, 3(, )?\)/);
  assert.deepEqual(data, le(Float32Array, values));
  const ids = ex.writeNpy({ dtype: "i64", data: BigInt64Array.of(-1n, 2n ** 62n) });
  const i = splitNpy(ids);
  assert.match(i.header, /'descr': '<i8'/);
  assert.match(i.header, /'shape': \(2, ?\)/);
  assert.deepEqual(i.data, le(BigInt64Array, [-1n, 2n ** 62n]));
});

test("readNpyTensor reads every dtype into the typed array that holds it exactly", () => {
  const i64 = ex.readNpyTensor("ids", new Uint8Array(npy("<i8", [3], BigInt64Array.of(7n, -1n, 2n ** 60n))));
  assert.equal(i64.dtype, "i64");
  assert.ok(i64.data instanceof BigInt64Array);
  assert.deepEqual(Array.from(i64.data), [7n, -1n, 2n ** 60n]);
  const i32 = ex.readNpyTensor("cu", new Uint8Array(npy("<i4", [2, 1], Int32Array.of(2, 5))));
  assert.deepEqual([i32.dtype, i32.shape, Array.from(i32.data)], ["i32", [2, 1], [2, 5]]);
  // f16 0x3c00 = 1, 0x0001 = 2^-24.
  const f16 = ex.readNpyTensor("half", new Uint8Array(npy("<f2", [2], Uint16Array.of(0x3c00, 0x0001))));
  assert.ok(f16.data instanceof Float32Array);
  assert.deepEqual(Array.from(f16.data), [1, 2 ** -24]);
  const f64 = Float64Array.of(1 / 3, -2.5e-300);
  assert.deepEqual(Array.from(ex.readNpyTensor("q", ex.writeNpy({ data: f64 })).data), Array.from(f64));
  assert.throws(() => ex.readNpyTensor("cut", new Uint8Array(npy("<f4", [4], Float32Array.of(1, 2, 3, 4))).subarray(0, 70)), /cut/);
});

test("writeSafetensors: a header of dtypes, shapes and offsets over the data, read back by readSafetensors", () => {
  const tensors = [
    { name: "target_probs", shape: [1, 2], data: Float32Array.of(0.25, 0.75) },
    { name: "inv_q", data: Float64Array.of(1, 2 ** -53) },
    { name: "draft_token_ids", dtype: "i32", data: Int32Array.of(1) },
  ];
  const bytes = Buffer.from(ex.writeSafetensors(tensors));
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString("utf8"));
  const body = bytes.subarray(8 + n);
  const want = { target_probs: ["F32", [1, 2], Float32Array], inv_q: ["F64", [2], Float64Array], draft_token_ids: ["I32", [1], Int32Array] };
  for (const t of tensors) {
    const h = header[t.name];
    assert.equal(h.dtype, want[t.name][0]);
    assert.deepEqual(h.shape, want[t.name][1]);
    assert.deepEqual(body.subarray(h.data_offsets[0], h.data_offsets[1]), le(want[t.name][2], t.data));
  }
  const back = Object.fromEntries(ex.readSafetensors(new Uint8Array(bytes)).map((t) => [t.name, t]));
  assert.deepEqual(Array.from(back.inv_q.data), [1, 2 ** -53]);
  assert.deepEqual(back.target_probs.shape, [1, 2]);
});

test("the writers refuse what they cannot write exactly, naming the field, and stay usable", () => {
  assert.throws(() => ex.writeNpy({ shape: [2, 2], data: Float32Array.of(1, 2, 3) }), /tensor\.shape \[2, 2\] does not hold the 3 elements/);
  assert.throws(() => ex.writeNpy({ dtype: "f16", data: Float32Array.of(1) }), /tensor\.dtype is "f16" but its data holds f32/);
  assert.throws(() => ex.writeNpy({ data: [1, 2] }), /tensor\.data must be a Float32Array, Float64Array, Int32Array or BigInt64Array/);
  assert.throws(() => ex.writeNpy({ data: Float32Array.of(1), shap: [1] }), /unknown field "shap"/);
  assert.throws(() => ex.writeNpy({ shape: [-1], data: Float32Array.of(1) }), /tensor\.shape\[0\] must be a whole number/);
  assert.throws(() => ex.writeSafetensors([{ data: Float32Array.of(1) }]), /tensors\[0\]\.name is missing/);
  const x = { name: "x", data: Float32Array.of(1) };
  assert.throws(() => ex.writeSafetensors([x, x]), /tensors\[1\]\.name "x" is used twice/);
  assert.throws(() => ex.writeSafetensors("x"), /an array of tensors/);
  assert.equal(ex.readNpyTensor("ok", ex.writeNpy({ data: Int32Array.of(4) })).data[0], 4);
});
