// Single tokens raced by the core, in both pipelines of a race: each token's
// score w × inv_q with its IEEE bits. Inline noise is raced at fp64 and at
// its fp32 cast; seeded noise is each model's draw at (seed, row, token).
// And which tokens the race view shows for a compare.

/**
 * `ex`: the package; `race`: { tokens, weights (one per token), noise (one
 * inline entry per token, or null), models, seed, row }. Returns
 * [{ token, a: {score, bits}, b: {score, bits} }].
 */
export function tokenRaces(ex, { tokens, weights, noise, models, seed, row }) {
  const draw = (model, t) => {
    const d = ex.noise({ model, seed, row, start: t, count: 1 }).result;
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

/** The two tokens that decided compare `r`'s race (the two winners of a flip, else the winner and pipeline A's runner-up; one when there is no runner-up). */
export const decidingPair = (r) => (r.flipped ? [r.a.winner.token, r.b.winner.token] : [r.a.winner.token, r.a.runnerUp?.token]);

/** The tokens whose scores are drawn for compare `r` of `vocab` tokens: the winners, runner-ups, differing tokens and the first tokens, up to 16. */
export function shownTokens(vocab, r) {
  const tokens = new Set([r.a.winner.token, r.b.winner.token]);
  for (const race of [r.a, r.b]) if (race.runnerUp) tokens.add(race.runnerUp.token);
  r.differing.slice(0, 6).forEach((d) => tokens.add(d.token));
  for (let t = 0; tokens.size < Math.min(vocab, 16); t++) tokens.add(t);
  return [...tokens].sort((x, y) => x - y);
}

/**
 * The races of the tokens the view shows for compare `r` (shownTokens and
 * decidingPair), given the race's `weights`, inline `noise` (or null),
 * `models`, `seed` and `row`.
 */
export function comparedTokenRaces(ex, r, { weights, noise, models, seed, row }) {
  const tokens = [...new Set([...shownTokens(weights.length, r), ...decidingPair(r).filter((t) => t !== undefined)])];
  return tokenRaces(ex, {
    tokens,
    weights: tokens.map((t) => weights[t]),
    noise: noise ? tokens.map((t) => noise[t]) : null,
    models,
    seed,
    row,
  });
}
