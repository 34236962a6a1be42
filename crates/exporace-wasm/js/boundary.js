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
 * The length of typed array `v`; -1 if its buffer was detached (transferred)
 * or shrunk under it, -2 if its length cannot be read (a Proxy around a typed
 * array, whose getters refuse the proxy).
 */
export function viewLength(v) {
  let n;
  try {
    n = v.length;
  } catch {
    return -2;
  }
  if (typeof n !== "number") return -2;
  // A detached or out-of-bounds view reads as empty, and copying it throws.
  if (n === 0) {
    try {
      v.slice(0, 0);
    } catch {
      return -1;
    }
  }
  return n;
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

/** An Error with a package error code, for the Rust side to keep. */
const coded = (code, message) => Object.assign(new Error(message), { code });

/** What a thrown value says: its message, or its text. */
function thrownMessage(e) {
  try {
    return String(e !== null && typeof e === "object" && "message" in e ? e.message : e);
  } catch {
    return "an exception that cannot be shown";
  }
}

/** A field path for messages: `seed`, `models[1].model`, or the object itself. */
const named = (path) => (path === "" ? "the object" : `field ${JSON.stringify(path)}`);

/**
 * Why `v`, at `path`, has no faithful JSON form (a non-finite number, a
 * function, a symbol, `undefined`), or null when it has one.
 */
function unwritable(v, path) {
  switch (typeof v) {
    case "number":
      return Number.isFinite(v)
        ? null
        : `${named(path)} is ${v}: JSON has no NaN or infinity (write "nan", "inf" or "-inf" as strings where a ` +
            "tensor value is meant; a seed or a count is a non-negative integer or a bigint)";
    case "function":
    case "symbol":
      return `${named(path)} is a ${typeof v}, which has no JSON form`;
    case "undefined":
      return path.endsWith("]")
        ? `${named(path)} is undefined (or a hole): every entry of an array needs a value`
        : `${named(path)} is undefined: leave the field out instead`;
    default:
      return null;
  }
}

/**
 * `value` as JSON text for the scenario reader: bigints written as exact
 * integers, `-0` as `-0.0`. Refuses with an Error naming the field path (its
 * `code` the package's error code where it is not "SCENARIO"): nesting deeper
 * than `maxDepth` objects and arrays (a cycle is one); more than `maxValues`
 * values in all, TOO_LARGE, counted from each array's own `length` before
 * any of its entries is read; a NaN or infinite number, a function, a symbol
 * or `undefined` anywhere; a getter or a proxy that throws, THREW; and
 * anything `JSON.stringify` refuses.
 */
export function scenarioText(value, maxDepth, maxValues) {
  // A bigint is written as its exact decimal digits (no JSON number of
  // JavaScript's holds 64 bits) and -0 as -0.0 (JSON.stringify writes 0):
  // marked as strings, then unquoted.
  const mark = "\u0000exporace-number:";
  const stack = [[value, 1, ""]];
  let values = 1;
  const read = (v, key, path) => {
    try {
      return v[key];
    } catch (e) {
      throw coded("THREW", `reading ${named(path)} threw: ${thrownMessage(e)}`);
    }
  };
  const visit = (child, path, depth) => {
    const why = unwritable(child, path);
    if (why !== null) throw new Error(why);
    if (child !== null && typeof child === "object") stack.push([child, depth + 1, path]);
    if (typeof child === "string" && child.startsWith(mark)) {
      throw new Error(`${named(path)} holds a string that starts with a NUL character`);
    }
  };
  while (stack.length > 0) {
    const [v, depth, path] = stack.pop();
    if (depth > maxDepth) throw new Error(`it nests deeper than ${maxDepth} levels`);
    let list;
    try {
      list = Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
    } catch (e) {
      throw coded("THREW", `reading ${named(path)} threw: ${thrownMessage(e)}`);
    }
    if (list) {
      // The length the caller gave, before any entry is read: a sparse
      // array of 10^8 holes is refused here, not written out.
      const n = read(v, "length", `${path}.length`);
      if (!(n <= maxValues - values)) {
        throw coded("TOO_LARGE", `${named(path)} has ${n} entries, over the limit of ${maxValues} values in a scenario`);
      }
      values += n;
      for (let i = 0; i < n; i++) visit(read(v, i, `${path}[${i}]`), `${path}[${i}]`, depth);
      continue;
    }
    let keys;
    try {
      keys = Object.keys(v);
    } catch (e) {
      throw coded("THREW", `listing the fields of ${path === "" ? "the object" : JSON.stringify(path)} threw: ${thrownMessage(e)}`);
    }
    if (keys.length > maxValues - values) {
      throw coded("TOO_LARGE", `${named(path)} has ${keys.length} fields, over the limit of ${maxValues} values in a scenario`);
    }
    values += keys.length;
    for (const k of keys) {
      const at = path === "" ? k : `${path}.${k}`;
      visit(read(v, k, at), at, depth);
    }
  }
  let text;
  try {
    text = JSON.stringify(value, (_, v) => {
      if (typeof v === "bigint") return mark + v.toString();
      if (Object.is(v, -0)) return `${mark}-0.0`;
      // Typed arrays are lists of numbers (or of bigints).
      return ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v) : v;
    });
  } catch (e) {
    throw new Error(`it cannot be written as JSON: ${thrownMessage(e)}`);
  }
  if (typeof text !== "string") throw new Error("it has no JSON form");
  return text.replace(/"\\u0000exporace-number:(-?[0-9]+(?:\.0)?)"/g, "$1");
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
