// The packed package's single-value helpers: the bit inspector's numbers
// (inspectFloat) and weights from logits (weightsFromLogits). Expected values
// are exact IEEE arithmetic (powers of two) or decimal-arithmetic references.
import { test } from "node:test";
import assert from "node:assert/strict";
import init, * as ex from "exporace";

await init();

test("inspectFloat: bits, fields and neighbours of 1 at fp32 and fp64", () => {
  const v = ex.inspectFloat(1, 2);
  assert.equal(v.f32.bits, "0x3f800000");
  assert.equal(v.f32.sign + v.f32.exponent + v.f32.mantissa, "0" + "01111111" + "0".repeat(23));
  assert.deepEqual(v.f32.nextUp, { value: 1 + 2 ** -23, bits: "0x3f800001" });
  assert.deepEqual(v.f32.nextDown, { value: 1 - 2 ** -24, bits: "0x3f7fffff" });
  assert.equal(v.f64.bits, "0x3ff0000000000000");
  assert.equal(v.f64.exponent, "01111111111");
  assert.equal(v.f64.mantissa.length, 52);
  assert.deepEqual(v.f64.nextUp, { value: 1 + 2 ** -52, bits: "0x3ff0000000000001" });
  assert.deepEqual(v.f64.nextDown, { value: 1 - 2 ** -53, bits: "0x3fefffffffffffff" });
  // Between 1 and 2 lie 2^23 (fp32) and 2^52 (fp64) steps.
  assert.equal(v.f32.ulpsToOther, 2 ** 23);
  assert.equal(v.f64.ulpsToOther, 2 ** 52);
});

test("inspectFloat: IEEE bits in, subnormals, infinity and NaN", () => {
  const tiny = ex.inspectFloat("0x00000001");
  assert.equal(tiny.f32.value, 2 ** -149);
  assert.equal(tiny.f64.value, 2 ** -149, "f32 bits widen exactly");
  assert.equal(tiny.f32.nextDown.value, 0);
  const inf = ex.inspectFloat("inf");
  assert.equal(inf.f32.bits, "0x7f800000");
  assert.equal(inf.f64.nextDown.value, Number.MAX_VALUE);
  assert.equal(ex.inspectFloat("nan", 1).f32.ulpsToOther, null);
  // f64 bits: exact at fp64, rounded for the fp32 view.
  const third = ex.inspectFloat("0x3fd5555555555555");
  assert.equal(third.f64.value, 1 / 3);
  assert.equal(third.f32.value, Math.fround(1 / 3));
  assert.equal(ex.inspectFloat("0.1").f32.bits, "0x3dcccccd");
  assert.throws(() => ex.inspectFloat("zero point one"), /zero point one/);
  assert.throws(() => ex.inspectFloat({}), /value must be a number or a string/);
});

test("weightsFromLogits: exp((l - max) / T) rounded to f32", () => {
  // exp(-20.5) = 1.25015286638674262893...e-9 (60-digit decimal arithmetic).
  const w = ex.weightsFromLogits(Float64Array.of(0, -41), 2);
  assert.ok(w instanceof Float32Array);
  assert.deepEqual(Array.from(w), [1, Math.fround(1.25015286638674262893e-9)]);
  assert.deepEqual(Array.from(ex.weightsFromLogits(Float64Array.of(1000, 1000, -Infinity), 1)), [1, 1, 0]);
  assert.throws(() => ex.weightsFromLogits(Float64Array.of(0, NaN), 1), /logit 1 is NaN/);
  assert.throws(() => ex.weightsFromLogits(Float64Array.of(0), 0), /temperature 0 must be positive/);
  assert.throws(() => ex.weightsFromLogits(Float64Array.of(), 1), /no logits/);
  assert.throws(() => ex.weightsFromLogits([0, 1], 1), /logits must be a Float64Array, got Array/);
});

test("the ES module entry exports every function of the Node build but the canvas charts", async () => {
  const { createRequire } = await import("node:module");
  const cjs = createRequire(import.meta.url)("exporace");
  const names = Object.keys(cjs).filter((k) => typeof cjs[k] === "function" && !k.startsWith("draw"));
  assert.ok(names.length > 15);
  for (const k of names) assert.equal(typeof ex[k], "function", `${k} is missing from the ES module entry`);
});
