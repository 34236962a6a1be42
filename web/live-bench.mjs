// Times the core's recovered-token kernel in this page: vLLM's layout with B
// requests of k drafts over V tokens, seeded noise from the core. Used on the
// main thread (single-threaded build) and in the pool worker (threaded build).

/** Builds the batch once, then reports the median wall time of `reps` calls. */
export function timeRecover(ex, { requests, drafts, vocab, precision, reps }) {
  const t = requests * drafts;
  const batch = {
    vocabSize: vocab,
    cuNumDraftTokens: Int32Array.from({ length: requests }, (_, r) => (r + 1) * drafts),
    draftTokenIds: Int32Array.from({ length: t }, (_, i) => (13 * i) % vocab),
    targetProbs: new Float32Array(t * vocab).fill(1 / vocab),
  };
  const invQ = new (precision === "f64" ? Float64Array : Float32Array)(requests * vocab);
  for (let r = 0; r < requests; r++) ex.fillInvQ(1n, "race", BigInt(r), invQ.subarray(r * vocab, (r + 1) * vocab));
  const times = [];
  let winner = -1;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    winner = ex.recoverTokens(batch, invQ)[0].winner.token;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)];
  return { ms, nsPerElement: (ms * 1e6) / (t * vocab), elements: t * vocab, firstWinner: winner };
}
