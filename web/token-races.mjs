// Single tokens raced by the core, in both pipelines of a race: each token's
// score w × inv_q with its IEEE bits. Inline noise is raced at fp64 and at
// its fp32 cast; seeded noise is each model's draw at (seed, row, token).

/**
 * `ex`: the package; `race`: { tokens, weights (one per token), noise (one
 * inline entry per token, or null), models, seed, row }. Returns
 * [{ token, a: {score, bits}, b: {score, bits} }].
 */
export function tokenRaces(ex, { tokens, weights, noise, models, seed, row }) {
  const draw = (model, t) => {
    const d = ex.run({ exporace: 1, op: "noise", model, seed, row, start: t, count: 1 }).result;
    const v = d.draws[0].invQ === "inf" ? Infinity : Number(d.draws[0].invQ);
    return d.model.precision === "f64" ? Float64Array.of(v) : Float32Array.of(v);
  };
  const score = (w, invQ) => {
    const { score, bits } = ex.raceMul(Float32Array.of(w), invQ).winner;
    return { score, bits };
  };
  return tokens.map((t, k) => {
    let qa, qb;
    if (noise) {
      const v = typeof noise[k] === "number" ? noise[k] : ex.inspectFloat(noise[k]).f64.value;
      [qa, qb] = [Float64Array.of(v), Float32Array.of(v)];
    } else [qa, qb] = models.map((m) => draw(m, t));
    return { token: t, a: score(weights[k], qa), b: score(weights[k], qb) };
  });
}
