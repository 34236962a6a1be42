// Runs in a module Web Worker (the main thread may not wait for the pool):
// the package's one entry starts a pool of 4 workers through
// init({ threads: 4 }), answers the golden scenarios and the synthetic
// recover batch on it, and reports which pool threads did the work.
import init, * as ex from "/pkg/web/index.js";
import { SCENARIOS, allBits, largeBatch, sameBits } from "/tests/js/golden.mjs";

const text = async (p) => (await fetch(p)).text();

try {
  const started = await init({ threads: 4 });
  const report = { started, poolSize: ex.threadCount(), scenarioBits: 0, largeBits: 0, residentBits: 0, threadIndices: [] };
  for (const name of SCENARIOS) {
    const answer = ex.run(await text(`/tests/golden/${name}.scenario.json`));
    const golden = JSON.parse(await text(`/tests/golden/${name}.result.json`));
    report.scenarioBits += sameBits(`threads ${name}`, allBits(answer), allBits(golden));
  }
  const params = JSON.parse(await text("/tests/golden/recover_large.params.json"));
  const golden = allBits(JSON.parse(await text("/tests/golden/recover_large.result.json")));
  const { batch, invQ } = largeBatch(params, ex.fillInvQ);
  report.largeBits = sameBits("threads recoverTokens", allBits(ex.recoverTokens(batch, invQ)), golden);
  // The same batch from WasmArrays in the shared memory, filled through
  // their views and read in place by the pool.
  const resident = (dtype, a) => {
    const w = new ex.WasmArray(dtype, a.length);
    w.view().set(a);
    return w;
  };
  const arrays = [
    resident("int32", batch.cuNumDraftTokens),
    resident("int32", batch.draftTokenIds),
    resident("float32", batch.targetProbs),
    resident(invQ instanceof Float64Array ? "float64" : "float32", invQ),
  ];
  const [cu, drafts, probs, noise] = arrays;
  const inPlace = { vocabSize: batch.vocabSize, cuNumDraftTokens: cu, draftTokenIds: drafts, targetProbs: probs };
  report.residentBits = sameBits(
    "threads recoverTokens from WasmArrays",
    allBits(ex.recoverTokens(inPlace, noise)),
    golden,
  );
  arrays.forEach((a) => a.free());
  // Work stealing decides who runs what; a few rounds make it all but certain
  // that more than one worker takes part. Every round must give the golden bits.
  const seen = new Set();
  for (let round = 0; round < 8 && seen.size < 2; round++) {
    const traced = ex.recoverTokensTraced(batch, invQ);
    sameBits(`threads recoverTokensTraced round ${round}`, allBits(traced.results), golden);
    traced.threadIndices.forEach((t) => seen.add(t));
  }
  report.threadIndices = [...seen].sort((a, b) => a - b);
  postMessage({ ok: true, report });
} catch (e) {
  postMessage({ ok: false, error: String((e && e.stack) || e) });
}
