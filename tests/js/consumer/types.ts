// Type-checked (tsc --strict) against the package's declarations: a consumer
// that uses every export with the declared types.
import init, {
  fillInvQ, fillQ, fillUniform, raceDiv, raceMul, raceSeeded, rand, randint, randint4x, sampleHashed,
  recoverTokens, rejectionSample, run, inspectFloat, weightsFromLogits, readSafetensors,
  readNpyTensor, writeNpy, writeSafetensors, WasmArray,
  type BarChart, type FloatView, type SafetensorsTensor, type Tensor,
  type NanPolicy, type RaceResult, type RejectionResult, type Report, type SpecBatch,
  type InitResult, type TracedRecover, recoverTokensTraced, threadCount,
} from "exporace";

const started: InitResult = await init({ threads: 2 });
const why: string | null = started.reason;
const pool: number = threadCount();
const policy: NanPolicy = "nan_never_wins";
const w = new Float32Array([0.5, 0.5]);
const invQ = new Float64Array(2);
const seed: bigint = fillInvQ(1n, "race", 0n, invQ);
fillQ(seed, "bonus", 1, new Float32Array(2));
fillUniform(null, "accept", 0n, new Float64Array(2));
const r: RaceResult = raceMul(w, invQ, { nanPolicy: policy });
const d: RaceResult = raceDiv(w, new Float32Array([1, 2]));
const f: RaceResult = raceSeeded(w, 3n, "race", 0, { form: "div", precision: "f64", nanPolicy: policy });
const picked: number = sampleHashed("vllm-0.33-f32", w, 7n, { pos: 3n, temperature: 0.7, draft: false });
const pickedCpu: number = sampleHashed("vllm-cpu-0.32", w, 7);
const margin: number | null = r.marginUlps;
const bits: string = d.winner.bits;
const batch: SpecBatch = {
  vocabSize: 2,
  cuNumDraftTokens: new Int32Array([1]),
  draftTokenIds: new Int32Array([0]),
  targetProbs: new Float32Array([0.5, 0.5]),
};
const races: RaceResult[] = recoverTokens(batch, invQ);
const out: RejectionResult = rejectionSample({
  batch, invQ, uniform: new Float64Array([0.5]), bonusTokenIds: new Int32Array([1]),
});
const ids: Int32Array = out.outputTokenIds;
const report: Report = run({ exporace: 1, op: "race", precision: "f32", seed: 1n, weights: [1] });
// The report narrows on its op.
let narrowed: number | boolean | string = 0;
switch (report.op) {
  case "race": narrowed = report.result.winner.token; break;
  case "recover": narrowed = report.result.positions.length; break;
  case "rejection": narrowed = report.result.maxSpecLen; break;
  case "models": narrowed = report.result.models[0].stream; break;
  case "noise": narrowed = report.result.draws[0].branch; break;
  case "compare": narrowed = report.result.flipped; break;
  case "overflow": narrowed = report.result.picks.length; break;
  case "dead_zone": narrowed = report.result.mass; break;
  case "exact": narrowed = report.result.probabilities.groups[0].probability; break;
  case "experiment": narrowed = report.result.report.fit.pValue; break;
  case "sample": narrowed = report.result.token; break;
}
use(narrowed);
const words: Uint32Array = randint4x(1n, 2n);
const x: number = rand(1n, 2n) + randint(1, 2);
const traced: TracedRecover = recoverTokensTraced(batch, invQ);
const view: FloatView = inspectFloat("0x3f800000", 2).f32;
const weights: Float32Array = weightsFromLogits(new Float64Array([0, -1]), 0.5);
const tensors: SafetensorsTensor[] = readSafetensors(new Uint8Array(0));
const first = tensors[0];
const tensorIds: Int32Array | null = first && first.dtype === "i32" ? first.data : null;
const npyBytes: Uint8Array = writeNpy({ shape: [1], data: new BigInt64Array([1n]) });
const fromNpy: Tensor = readNpyTensor("x", npyBytes);
const stBytes: Uint8Array = writeSafetensors([{ name: "p", dtype: "f32", data: new Float32Array([0.5]) }]);
const chart: BarChart = { title: "t", xLabel: "x", yLabel: "y", series: [{ name: "s", color: [1, 2, 3], values: weights }], logFloor: 1e-12 };
const resident = new WasmArray("float32", 2);
const residentView = resident.view();
residentView.set([0.5, 0.5]);
const residentNoise = WasmArray.from(new Float64Array(2));
fillInvQ(1n, "race", 0n, residentNoise);
const inPlace: RaceResult = raceMul(resident, residentNoise);
const residentBatch: SpecBatch = { ...batch, targetProbs: resident };
const residentDtype: "float32" | "float64" | "int32" = residentNoise.dtype;
use(inPlace.winner.token, recoverTokens(residentBatch, residentNoise).length, residentDtype, resident.length);
resident.free();
residentNoise.free();
use(why, pool, margin, bits, f.winner.token, races.length, ids.length, report.seed, words.length, x, traced, view.ulpsToOther, chart.series.length, tensorIds, fromNpy.dtype, stBytes.length);

/** Marks values as used (no console without the dom lib). */
function use(..._values: unknown[]): void {}
