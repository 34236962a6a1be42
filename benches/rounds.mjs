// The medians over rounds of `wasm-bench.mjs`: each case is timed in rounds
// (native, then every wasm place), each row's ratios are formed against its
// own round's native rows, and a row's figure is the median over the rounds.

/** The median of the non-null numbers in `xs` (the mean of the middle two for an even count); null if none. */
export function median(xs) {
  const s = xs.filter((x) => x != null).sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** `[lowest, highest]` of `xs`, or null if any is null (or there are none). */
export function range(xs) {
  return xs.length === 0 || xs.some((x) => x == null) ? null : [Math.min(...xs), Math.max(...xs)];
}

const sameRow = (a, b) => a.case === b.case && a.build === b.build && a.threads === b.threads;

/**
 * One row per (case, build, threads) of the round-1 rows of `raw`, in their
 * order: the medians over that row's rounds of its times and ratios, with
 * `rounds`, `ratio_to_native_range`, and `winner_matches_native` true only if
 * every round's first winner matched.
 */
export function summarize(raw) {
  return raw
    .filter((r) => r.round === 1)
    .map((first) => {
      const all = raw.filter((r) => sameRow(r, first));
      const of = (key) => all.map((r) => r[key]);
      const { round: _round, thread_cpu_ms: _cpu, ...rest } = first;
      return {
        ...rest,
        rounds: all.length,
        median_ms: median(of("median_ms")),
        reps: median(of("reps")),
        ns_per_element: median(of("ns_per_element")),
        copy_ms: median(of("copy_ms")),
        timed_wall_ms: median(of("timed_wall_ms")),
        native_ms: median(of("native_ms")),
        ratio_to_native: median(of("ratio_to_native")),
        ratio_to_native_range: range(of("ratio_to_native")),
        ratio_to_portable: median(of("ratio_to_portable")),
        winner_matches_native: first.build === "native" ? null : all.every((r) => r.winner_matches_native),
      };
    });
}

/**
 * Speed-up of `threads` over 1 thread per case and build, formed within each
 * round (1-thread time over `threads` time) and given as the median over the
 * rounds with `speedup_range`; rounds missing either row are skipped.
 */
export function scalingOf(raw, cases, builds, threads) {
  const out = [];
  const rounds = [...new Set(raw.map((r) => r.round))];
  for (const name of cases) {
    for (const build of builds) {
      for (const t of threads) {
        const speedups = [];
        for (const round of rounds) {
          const at = (n) => raw.find((r) => r.case === name && r.build === build && r.threads === n && r.round === round);
          const [one, many] = [at(1), at(t)];
          if (one && many) speedups.push(one.median_ms / many.median_ms);
        }
        if (speedups.length) out.push({ case: name, build, threads: t, speedup_over_1: median(speedups), speedup_range: range(speedups) });
      }
    }
  }
  return out;
}
