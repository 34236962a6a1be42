// What the fuzz tests share (fuzz.test.mjs, hostile-values.test.mjs): their
// generator and a race whose winner is known.
import * as ex from "exporace";

/** xorshift64*, the fuzzer's own generator. */
export function rng(seed) {
  let s = BigInt(seed) | 1n;
  const M = (1n << 64n) - 1n;
  return () => {
    s ^= s >> 12n;
    s ^= (s << 25n) & M;
    s ^= s >> 27n;
    return Number(((s * 2685821657736338717n) & M) >> 11n) / 2 ** 53;
  };
}

/** The winner of a race whose answer is known (token 1): the module still works. */
export const known = () => ex.raceMul(new Float32Array([0.25, 0.75]), new Float64Array([1, 1])).winner.token;
