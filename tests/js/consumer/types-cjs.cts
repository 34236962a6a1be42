// Type-checked (tsc --strict, nodenext) as a CommonJS consumer: require()
// gives the same declarations as import.
import ex = require("exporace");

const r: ex.RaceResult = ex.raceMul(new Float32Array([0.5, 0.5]), new Float64Array([1, 2]));
const e: typeof ex.ExporaceError = ex.ExporaceError;
const code: ex.ErrorCode = "BAD_TYPE";
ex.initSync(new Uint8Array(0));
use(r.winner.token, e.name, code);

/** Marks values as used (no console without the dom lib). */
function use(..._values: unknown[]): void {}
