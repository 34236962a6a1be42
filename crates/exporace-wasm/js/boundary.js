// The JavaScript side of the package's calls: the few steps of a call that
// cost less made here, in one call from wasm, than as one wasm-to-JavaScript
// call per field. They take and give what the Rust side computed; no value
// is computed here. ES module; the nodejs build gets a CommonJS copy
// (scripts/build-pkg.sh), so only `export function` declarations export.

// Two hex digits per byte value.
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const hex8 = (w) => HEX[w >>> 24] + HEX[(w >>> 16) & 255] + HEX[(w >>> 8) & 255] + HEX[w & 255];
// `0x` and 8 hex digits (an f32's bits, `hi`) or 16 (an f64's, `hi` then `lo`).
const bits = (hi, lo, wide) => (wide ? "0x" + hex8(hi) + hex8(lo) : "0x" + hex8(hi));

/**
 * `{ winner, runnerUp, marginUlps }`: `rt < 0` for no runner-up, `margin < 0`
 * for no margin.
 */
export function raceResult(wt, ws, whi, wlo, rt, rs, rhi, rlo, margin, wide) {
  return {
    winner: { token: wt, score: ws, bits: bits(whi, wlo, wide) },
    runnerUp: rt < 0 ? null : { token: rt, score: rs, bits: bits(rhi, rlo, wide) },
    marginUlps: margin < 0 ? null : margin,
  };
}

// This copy of the module: every WasmArray it makes reports it.
const MODULE = Object.freeze({ exporace: "module" });

/** The object that identifies this copy of the module. */
export function moduleToken() {
  return MODULE;
}

/**
 * The id of `v` if it is a `WasmArray` of this copy of the module (its
 * constructor's name is "WasmArray"), -1 if it is not one, -2 if reading its
 * id throws or gives no number (a freed array), -3 if it belongs to another
 * copy of the module.
 */
export function arrayId(v) {
  let name;
  try {
    name = v.constructor.name;
  } catch {
    return -1;
  }
  if (name !== "WasmArray") return -1;
  let id;
  try {
    id = v.exporaceArrayId;
  } catch {
    return -2;
  }
  if (typeof id !== "number") return -2;
  try {
    return v.exporaceModule === MODULE ? id : -3;
  } catch {
    return -3;
  }
}

/**
 * The first own string key of `obj` that is not in `names` (symbols are not
 * fields), `undefined` if there is none, `null` if listing the keys throws.
 */
export function unknownField(obj, names) {
  let keys;
  try {
    keys = Reflect.ownKeys(obj);
  } catch {
    return null;
  }
  for (const k of keys) if (typeof k === "string" && !names.includes(k)) return k;
  return undefined;
}

/**
 * `value` as JSON text for the scenario reader, bigints written as exact
 * integers. Throws an Error on
 * nesting deeper than `maxDepth` objects and arrays (a cycle is one), on more
 * than `maxValues` values in all, and on anything `JSON.stringify` refuses.
 */
export function scenarioText(value, maxDepth, maxValues) {
  // A bigint is written as its exact decimal digits (no JSON number of
  // JavaScript's holds 64 bits): marked as a string, then unquoted.
  const mark = "\u0000exporace-bigint:";
  const stack = [[value, 1]];
  let values = 1;
  while (stack.length > 0) {
    const [v, depth] = stack.pop();
    if (depth > maxDepth) throw new Error(`it nests deeper than ${maxDepth} levels`);
    for (const k of Object.keys(v)) {
      if (++values > maxValues) throw new Error(`it holds more than ${maxValues} values`);
      const child = v[k];
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
      if (typeof child === "string" && child.startsWith(mark)) {
        throw new Error(`field ${JSON.stringify(k)} holds a string that starts with a NUL character`);
      }
    }
  }
  const text = JSON.stringify(value, (_, v) => {
    if (typeof v === "bigint") return mark + v.toString();
    // Typed arrays are lists of numbers (or of bigints).
    return ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v) : v;
  });
  if (typeof text !== "string") throw new Error("it has no JSON form");
  return text.replace(/"\\u0000exporace-bigint:(-?[0-9]+)"/g, "$1");
}

/**
 * Every error the package throws: an `Error` with a stable `code` (see the
 * declarations for the list) and a message naming the argument at fault.
 */
export class ExporaceError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "ExporaceError";
    this.code = code;
  }
}
