// WasmArray from the packed package: arrays written once in wasm memory and
// read in place give the same bits as typed arrays copied on each call, fills
// land in place, and misuse is a clear error that leaves the module usable.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as ex from "exporace";

/** Deterministic probabilities, `n` of them, not normalised. */
const probs = (n, salt) =>
  Float32Array.from({ length: n }, (_, i) => (((i + salt) * 2654435761) % 1000) / 1000);

/** A WasmArray holding a copy of `a`, filled through its view. */
function inWasm(dtype, a) {
  const w = new ex.WasmArray(dtype, a.length);
  w.view().set(a);
  return w;
}

const bits = (r) => [r.winner.token, r.winner.bits, r.runnerUp && r.runnerUp.bits];

test("a new WasmArray is zeros of its dtype, and its view writes land in wasm memory", () => {
  for (const [dtype, Arr] of [["float32", Float32Array], ["float64", Float64Array], ["int32", Int32Array]]) {
    const w = new ex.WasmArray(dtype, 5);
    assert.equal(w.dtype, dtype);
    assert.equal(w.length, 5);
    const v = w.view();
    assert.ok(v instanceof Arr);
    assert.deepEqual(Array.from(v), [0, 0, 0, 0, 0]);
    v[3] = 7;
    assert.equal(w.view()[3], 7, "a second view sees the first view's write");
    const copy = ex.WasmArray.from(Arr.from([1, 2, 3]));
    assert.equal(copy.dtype, dtype);
    assert.deepEqual(Array.from(copy.view()), [1, 2, 3]);
    w.free();
    copy.free();
  }
});

test("raceMul, raceDiv and raceSeeded read WasmArrays in place with the typed arrays' bits", () => {
  const n = 70001;
  const w = probs(n, 1);
  const ww = inWasm("float32", w);
  for (const [Arr, dtype, precision] of [[Float32Array, "float32", "f32"], [Float64Array, "float64", "f64"]]) {
    const invQ = new Arr(n);
    const q = new Arr(n);
    ex.fillInvQ(11n, "race", 2n, invQ);
    ex.fillQ(11n, "race", 2n, q);
    const invQw = new ex.WasmArray(dtype, n);
    const qw = new ex.WasmArray(dtype, n);
    ex.fillInvQ(11n, "race", 2n, invQw);
    ex.fillQ(11n, "race", 2n, qw);
    assert.deepEqual(Array.from(invQw.view()), Array.from(invQ), `fillInvQ in place, ${dtype}`);
    assert.deepEqual(Array.from(qw.view()), Array.from(q), `fillQ in place, ${dtype}`);
    assert.deepEqual(bits(ex.raceMul(ww, invQw)), bits(ex.raceMul(w, invQ)), `raceMul ${dtype}`);
    assert.deepEqual(bits(ex.raceDiv(ww, qw)), bits(ex.raceDiv(w, q)), `raceDiv ${dtype}`);
    // Mixed: a typed array for one argument, a WasmArray for the other.
    assert.deepEqual(bits(ex.raceMul(w, invQw)), bits(ex.raceMul(w, invQ)), `mixed ${dtype}`);
    assert.deepEqual(
      bits(ex.raceSeeded(ww, 5n, "race", 0n, { precision })),
      bits(ex.raceSeeded(w, 5n, "race", 0n, { precision })),
      `raceSeeded ${dtype}`,
    );
    invQw.free();
    qw.free();
  }
  const u = new Float64Array(33);
  const uw = new ex.WasmArray("float64", 33);
  ex.fillUniform(3n, "accept", 0n, u);
  ex.fillUniform(3n, "accept", 0n, uw);
  assert.deepEqual(Array.from(uw.view()), Array.from(u), "fillUniform in place");
  uw.free();
  ww.free();
});

test("recoverTokens and rejectionSample take a batch of WasmArrays with the typed arrays' bits", () => {
  const v = 5000;
  const requests = 3;
  const drafts = 4;
  const t = requests * drafts;
  const batch = {
    vocabSize: v,
    cuNumDraftTokens: Int32Array.from({ length: requests }, (_, r) => (r + 1) * drafts),
    draftTokenIds: Int32Array.from({ length: t }, (_, i) => (i * 7919) % v),
    targetProbs: probs(t * v, 3),
    draftProbs: probs(t * v, 9),
  };
  const invQ = new Float64Array(requests * v);
  ex.fillInvQ(7n, "race", 0n, invQ);
  const inPlace = {
    vocabSize: v,
    cuNumDraftTokens: inWasm("int32", batch.cuNumDraftTokens),
    draftTokenIds: inWasm("int32", batch.draftTokenIds),
    targetProbs: inWasm("float32", batch.targetProbs),
    draftProbs: inWasm("float32", batch.draftProbs),
  };
  const invQw = inWasm("float64", invQ);
  const want = ex.recoverTokens(batch, invQ).map(bits);
  assert.equal(want.length, t);
  assert.deepEqual(ex.recoverTokens(inPlace, invQw).map(bits), want);
  const uniform = Float64Array.from({ length: t }, (_, i) => (i % 5) / 5);
  const bonus = Int32Array.from({ length: requests }, (_, r) => r + 1);
  const uniformw = inWasm("float64", uniform);
  const bonusw = inWasm("int32", bonus);
  const out = ex.rejectionSample({ batch, invQ, uniform, bonusTokenIds: bonus }).outputTokenIds;
  assert.deepEqual(
    ex.rejectionSample({ batch: inPlace, invQ: invQw, uniform: uniformw, bonusTokenIds: bonusw }).outputTokenIds,
    out,
    "rejectionSample copies WasmArrays like typed arrays",
  );
  const arrays = [...Object.values(inPlace).filter((x) => x instanceof ex.WasmArray), invQw, uniformw, bonusw];
  for (const a of arrays) a.free();
});

test("misuse of a WasmArray is a clear error and the module stays usable", () => {
  assert.throws(() => new ex.WasmArray("float16", 3), /dtype must be "float32", "float64" or "int32", got "float16"/);
  assert.throws(() => new ex.WasmArray("float32", -1), /length/);
  const ints = new ex.WasmArray("int32", 4);
  assert.throws(
    () => ex.raceMul(ints, new Float32Array(4)),
    /weights must be a Float32Array or a WasmArray of dtype "float32", got a WasmArray of dtype "int32"/,
  );
  assert.throws(() => ex.fillInvQ(1n, "race", 0n, ints), /WasmArray of dtype "int32"/);
  const w = new ex.WasmArray("float32", 4);
  w.free();
  assert.throws(() => ex.raceMul(w, new Float32Array(4)), /freed|null pointer/);
  ints.free();
  assert.equal(ex.raceMul(Float32Array.from([0.1, 0.9]), Float32Array.from([1, 1])).winner.token, 1);
});

test("a WasmArray of another copy of the module is refused, not read in the wrong memory", async () => {
  const { createRequire } = await import("node:module");
  const require = createRequire(import.meta.url);
  const entry = require.resolve("exporace");
  const dir = entry.slice(0, entry.lastIndexOf("/") + 1);
  // A second, separate copy of the CommonJS build: its own wasm memory and
  // its own JavaScript snippets.
  const cached = Object.keys(require.cache).filter((k) => k.startsWith(dir));
  const saved = cached.map((k) => [k, require.cache[k]]);
  for (const k of cached) delete require.cache[k];
  const other = require(entry);
  for (const [k, m] of saved) require.cache[k] = m;
  assert.notEqual(other.raceMul, ex.raceMul);
  const foreign = other.WasmArray.from(new Float32Array([0.2, 0.8]));
  const own = ex.WasmArray.from(new Float32Array([0.9, 0.1]));
  assert.throws(() => ex.raceMul(foreign, new Float64Array([1, 1])), /another copy of exporace/);
  assert.throws(() => other.raceMul(own, new Float64Array([1, 1])), /another copy of exporace/);
  assert.equal(ex.raceMul(own, new Float64Array([1, 1])).winner.token, 0);
  assert.equal(other.raceMul(foreign, new Float64Array([1, 1])).winner.token, 1);
  foreign.free();
  own.free();
});

test("a freed WasmArray's methods say it was freed; a second free() does nothing", () => {
  const w = ex.WasmArray.from(new Float32Array([1, 2]));
  w.free();
  for (const [what, use] of [["view", () => w.view()], ["length", () => w.length], ["dtype", () => w.dtype]]) {
    assert.throws(use, (e) => e instanceof ex.ExporaceError && e.code === "FREED_ARRAY" && e.message === `WasmArray.${what}: the WasmArray was freed`, what);
  }
  assert.equal(w.free(), undefined);
  assert.throws(() => ex.raceMul(w, new Float64Array(2)), (e) => e.code === "FREED_ARRAY");
  const fresh = ex.WasmArray.from(new Float32Array([0.25, 0.75]));
  assert.equal(ex.raceMul(fresh, new Float64Array([1, 1])).winner.token, 1);
  assert.equal(fresh.length, 2);
  fresh.free();
});
