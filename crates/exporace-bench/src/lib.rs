//! The cases of the exporace benchmarks and their plain references: a
//! bandwidth probe over a buffer of the case's working-set size and a scalar
//! kernel written the plain way (one index-tracking loop), so that every figure
//! can be stated as a ratio measured in the same run.

use exporace::NoiseFloat;

mod hashed;
mod line_aligned;
mod pool;
pub use hashed::{HASHED_RECIPES, Hashed, hashed_logits};
pub use line_aligned::LineAligned;
pub use pool::{Pin, pool};

/// Draft positions per request in the recover cases.
pub const DRAFTS: usize = 4;
/// Request counts of the recover cases.
pub const BATCHES: [usize; 3] = [1, 8, 64];
/// Request counts of the recover cases with draft probabilities (at
/// [`PEER_VOCAB`] only: the peers' table of the benchmark README).
pub const RESIDUAL_BATCHES: [usize; 2] = [1, 64];
/// Vocabulary sizes: Llama 2, Llama 3, Qwen, Gemma 3.
pub const VOCABS: [usize; 4] = [32_000, 128_256, 152_064, 262_144];
/// Vocabulary sizes of the side-by-side group against `rand`: Llama 2, Qwen, Gemma 3.
pub const SIDE_BY_SIDE_VOCABS: &[usize] = &[32_000, 152_064, 262_144];
/// Thread counts.
pub const THREADS: [usize; 2] = [1, 2];
/// The vocabulary of the cases also timed against the plain C peers (Qwen's,
/// the peers' table in the benchmark README).
pub const PEER_VOCAB: usize = 152_064;

/// The plain C peers of [`plain_c`] in a noise type.
pub trait PlainC: NoiseFloat {
    /// The plain C recovered token of one n-gram draft position.
    fn plain_recover_row(p: &[f32], inv_q: &[Self], draft: usize) -> usize;
    /// The plain C recovered token of one draft position with draft
    /// probabilities `d`.
    fn plain_residual_row(p: &[f32], d: &[f32], inv_q: &[Self]) -> usize;
    /// Plain C `1 / E` noise from a seed.
    fn plain_noise(seed: u64, out: &mut [Self]);
}

impl PlainC for f32 {
    fn plain_recover_row(p: &[f32], inv_q: &[f32], draft: usize) -> usize {
        plain_c::recover_row_f32(p, inv_q, draft)
    }
    fn plain_residual_row(p: &[f32], d: &[f32], inv_q: &[f32]) -> usize {
        plain_c::residual_row_f32(p, d, inv_q)
    }
    fn plain_noise(seed: u64, out: &mut [f32]) {
        plain_c::noise_f32(seed, out)
    }
}

impl PlainC for f64 {
    fn plain_recover_row(p: &[f32], inv_q: &[f64], draft: usize) -> usize {
        plain_c::recover_row_f64(p, inv_q, draft)
    }
    fn plain_residual_row(p: &[f32], d: &[f32], inv_q: &[f64]) -> usize {
        plain_c::residual_row_f64(p, d, inv_q)
    }
    fn plain_noise(seed: u64, out: &mut [f64]) {
        plain_c::noise_f64(seed, out)
    }
}

/// The models of the exact many-tail case: vLLM's f32 CUDA noise and a
/// 64-bit classic recipe in f64.
pub const EXACT_MODELS: [&str; 2] = ["torch-cuda-f32", "u64-f64-classic"];

/// vLLM #43150's many-tail case: one head of weight 1 and 262144 tails of
/// weight `e^-20.5` rounded to f32.
pub fn many_tail() -> [exporace_study::win_probability::Group; 2] {
    use exporace_study::win_probability::Group;
    let tail = (-20.5f64).exp() as f32 as f64;
    [Group::new(1.0, 1), Group::new(tail, 262_144)]
}

/// A file of notes the benchmarks leave beside criterion's results: `name`
/// in criterion's directory (`CRITERION_HOME`, or `criterion` in
/// `CARGO_TARGET_DIR` or in the target directory holding the binary).
pub fn criterion_file(name: &str) -> Option<std::path::PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(std::path::PathBuf::from(home).join(name));
    }
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => std::path::PathBuf::from(d),
        None => std::env::current_exe()
            .ok()?
            .parent()?
            .parent()?
            .parent()?
            .to_path_buf(),
    };
    Some(target.join("criterion").join(name))
}

/// The file where the benchmarks note the load average as each group starts
/// (`loadavg.tsv`, a [`criterion_file`]).
pub fn load_file() -> Option<std::path::PathBuf> {
    criterion_file("loadavg.tsv")
}

/// The file where the benchmarks note whether their pools of two or more
/// threads had pinned workers (`pools.tsv`, a [`criterion_file`]): one line,
/// `pinned<TAB>true` or `pinned<TAB>false`.
pub fn pools_file() -> Option<std::path::PathBuf> {
    criterion_file("pools.tsv")
}

/// Writes [`pools_file`] (replacing it) with `pinned`.
pub fn note_pools(pinned: bool) {
    let Some(path) = pools_file() else {
        return;
    };
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(path, format!("pinned\t{pinned}\n"));
}

/// The 1, 5 and 15 minute load averages of `/proc/loadavg`, if readable.
pub fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = text.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// Appends `group<TAB>load1 load5 load15` to [`load_file`]; the last line of
/// a group is the one `bench-report` reports.
pub fn note_load(group: &str) {
    use std::io::Write;
    let (Some(path), Some([a, b, c])) = (load_file(), load_average()) else {
        return;
    };
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = writeln!(f, "{group}\t{a} {b} {c}");
    }
}

/// Reads every word of `buf` once (a vectorised wrapping sum): the read
/// bandwidth a kernel over the same number of bytes can hope for (over a
/// [`LineAligned`] buffer).
pub fn probe(buf: &[u32]) -> u32 {
    buf.iter().fold(0u32, |a, &x| a.wrapping_add(x))
}

/// [`probe`] over `threads` equal parts on rayon's pool.
pub fn probe_par(buf: &[u32], threads: usize) -> u32 {
    use rayon::prelude::*;
    let part = buf.len().div_ceil(threads.max(1)).max(1);
    buf.par_chunks(part)
        .map(probe)
        .reduce(|| 0, u32::wrapping_add)
}

/// A recover case: B requests with [`DRAFTS`] draft tokens each, target
/// probabilities, one `inv_q` row per request, and draft probabilities or
/// none: vLLM's recovered tokens from the residual `max(p - d, 0)`
/// (`residual/...` cases) or, for n-gram drafts, from `p` with the draft
/// token zeroed (`recover/...`). Each array starts on a cache line, as an
/// engine's tensors do ([`LineAligned`]).
pub struct Recover<T> {
    /// Vocabulary size.
    pub v: usize,
    /// Inclusive prefix sums of draft tokens.
    pub cu: Vec<i32>,
    /// Draft token ids.
    pub drafts: Vec<i32>,
    /// Target probabilities `[B * DRAFTS, V]`.
    pub target: LineAligned<f32>,
    /// Draft probabilities `[B * DRAFTS, V]`, if any.
    pub draft_probs: Option<LineAligned<f32>>,
    /// `1 / E` noise `[B, V]`.
    pub inv_q: LineAligned<T>,
}

impl<T: NoiseFloat> Recover<T> {
    /// An n-gram case (no draft probabilities) with random-looking target
    /// probabilities and seeded noise.
    pub fn new(b: usize, v: usize) -> Self {
        Self::build(b, v, false)
    }

    /// [`Recover::new`] with draft probabilities: the next `B * DRAFTS * V`
    /// values of the same generator, so about half of the residuals are 0.
    pub fn with_draft_probs(b: usize, v: usize) -> Self {
        Self::build(b, v, true)
    }

    fn build(b: usize, v: usize, drafted: bool) -> Self {
        let t = b * DRAFTS;
        let mut inv_q = LineAligned::filled(b * v, T::ZERO);
        for (r, row) in inv_q.chunks_mut(v).enumerate() {
            exporace::noise::fill_inv_q(7, exporace::noise::Stream::Race, r as u64, row);
        }
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 * (1.0 / (1u64 << 24) as f32) / v as f32
        };
        let target = LineAligned::from_fn(t * v, &mut next);
        let draft_probs = drafted.then(|| LineAligned::from_fn(t * v, &mut next));
        Recover {
            v,
            cu: (1..=b).map(|r| (r * DRAFTS) as i32).collect(),
            drafts: (0..t).map(|i| ((i * 7919) % v) as i32).collect(),
            target,
            draft_probs,
            inv_q,
        }
    }

    /// The borrowed batch.
    pub fn batch(&self) -> exporace::SpecBatch<'_> {
        exporace::SpecBatch {
            vocab_size: self.v,
            cu_num_draft_tokens: &self.cu,
            draft_token_ids: &self.drafts,
            target_probs: &self.target,
            draft_probs: self.draft_probs.as_ref().map(|d| &d[..]),
        }
    }

    /// Bytes a recover pass reads: the target rows, the draft rows and the
    /// noise rows.
    pub fn bytes(&self) -> usize {
        (self.target.len() + self.draft_probs.as_ref().map_or(0, |d| d.len())) * 4
            + self.inv_q.len() * core::mem::size_of::<T>()
    }

    /// Scores computed: one per draft position and token.
    pub fn elements(&self) -> usize {
        self.target.len()
    }

    /// Reads what the recover kernel reads, in its order, and does nothing
    /// else (a vectorised wrapping sum of the bits): per request, spans of
    /// 4 KiB of its `inv_q` row, each followed by the same tokens of its
    /// draft positions' target rows (and draft rows), the rows split over
    /// the current rayon pool as the kernel splits them (one chunk per
    /// thread, at least 8192 tokens). Each byte is read once, as by
    /// [`probe`], but from five (nine) interleaved streams; the time of this
    /// read, next to [`probe`]'s flat read of the same bytes, says how much
    /// of a kernel's distance from the probe is its access pattern.
    pub fn read_pattern(&self) -> u32 {
        use rayon::prelude::*;
        let v = self.v;
        let span = 4096 / core::mem::size_of::<T>();
        let chunk = (v.div_ceil(rayon::current_num_threads())).max(8192);
        let chunks = v.div_ceil(chunk);
        (0..self.cu.len() * chunks)
            .into_par_iter()
            .map(|job| {
                let (r, c) = (job / chunks, job % chunks);
                let noise = &self.inv_q[r * v..(r + 1) * v];
                let rows = &self.target[r * DRAFTS * v..(r + 1) * DRAFTS * v];
                let mut acc = 0u32;
                let mut s = c * chunk;
                let end = ((c + 1) * chunk).min(v);
                while s < end {
                    let e = (s + span).min(end);
                    acc = noise[s..e].iter().fold(acc, |a, &q| {
                        let q = q.to_bits();
                        a.wrapping_add(q as u32).wrapping_add((q >> 32) as u32)
                    });
                    for t in 0..DRAFTS {
                        let row = &rows[t * v + s..t * v + e];
                        acc = row.iter().fold(acc, |a, &w| a.wrapping_add(w.to_bits()));
                        if let Some(d) = &self.draft_probs {
                            let row = &d[(r * DRAFTS + t) * v + s..(r * DRAFTS + t) * v + e];
                            acc = row.iter().fold(acc, |a, &w| a.wrapping_add(w.to_bits()));
                        }
                    }
                    s = e;
                }
                acc
            })
            .reduce(|| 0, u32::wrapping_add)
    }

    /// The plain scalar reference: per position, one loop that tracks the
    /// best score and its index with a strict `>` (no runner-up, no NaN rule).
    pub fn scalar(&self) -> Vec<usize> {
        let v = self.v;
        (0..self.drafts.len())
            .map(|t| {
                let r = t / DRAFTS;
                let p = &self.target[t * v..(t + 1) * v];
                let n = &self.inv_q[r * v..(r + 1) * v];
                match &self.draft_probs {
                    Some(d) => plain_argmax(p.iter().zip(&d[t * v..(t + 1) * v]).zip(n).map(
                        |((&p, &d), &n)| {
                            let r = p - d;
                            T::from_f32(if r > 0.0 { r } else { 0.0 }) * n
                        },
                    )),
                    None => {
                        let draft = self.drafts[t] as usize;
                        plain_argmax(
                            p.iter().zip(n).enumerate().map(|(i, (&p, &n))| {
                                T::from_f32(if i == draft { 0.0 } else { p }) * n
                            }),
                        )
                    }
                }
            })
            .collect()
    }
}

impl<T: PlainC> Recover<T> {
    /// The plain C kernel on every draft position, positions split across
    /// the current rayon pool as the exporace kernel splits them.
    pub fn plain_c(&self) -> Vec<usize> {
        use rayon::prelude::*;
        let v = self.v;
        (0..self.drafts.len())
            .into_par_iter()
            .map(|t| {
                let r = t / DRAFTS;
                let (p, inv_q) = (
                    &self.target[t * v..(t + 1) * v],
                    &self.inv_q[r * v..(r + 1) * v],
                );
                match &self.draft_probs {
                    Some(d) => T::plain_residual_row(p, &d[t * v..(t + 1) * v], inv_q),
                    None => T::plain_recover_row(p, inv_q, self.drafts[t] as usize),
                }
            })
            .collect()
    }
}

/// The index of the first largest score, tracked with a strict `>` (no
/// runner-up, no NaN rule).
fn plain_argmax<T: NoiseFloat>(scores: impl Iterator<Item = T>) -> usize {
    let (mut best, mut arg) = (-T::INFINITY, 0);
    for (i, s) in scores.enumerate() {
        if s > best {
            best = s;
            arg = i;
        }
    }
    arg
}

/// The plain scalar `argmax_i w_i / q_i`.
pub fn scalar_div<T: NoiseFloat>(w: &[f32], q: &[T]) -> usize {
    plain_argmax(w.iter().zip(q).map(|(&w, &q)| T::from_f32(w) / q))
}

/// Parses a case name, `kind/precision/[B<b>/]V<v>` (as `results.json`
/// names the cases), into its kind, precision, batch (1 when absent) and
/// vocabulary (at least 1).
pub fn parse_case(name: &str) -> Option<(String, String, usize, usize)> {
    let mut parts = name.split('/');
    let kind = parts.next()?.to_string();
    let precision = parts.next()?.to_string();
    let (mut b, mut v) = (1, 0);
    for p in parts {
        if let Some(x) = p.strip_prefix('B') {
            b = x.parse().ok()?;
        } else if let Some(x) = p.strip_prefix('V') {
            v = x.parse().ok()?;
        } else {
            return None;
        }
    }
    (v > 0).then_some((kind, precision, b, v))
}

/// What [`paired_fraction`] finds in samples of a kernel and the probe
/// timed in alternation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairedFraction {
    /// The median of the samples' `probe / kernel` ratios.
    pub median: f64,
    /// Their 10th percentile (nearest rank).
    pub low: f64,
    /// Their 90th percentile (nearest rank).
    pub high: f64,
}

/// The bandwidth fraction of alternating samples `(kernel time, probe
/// time)`, each pair taken within the same second: the probe's time over
/// the kernel's per sample, so that a machine whose speed moves between
/// samples moves both sides of a ratio together (`None` without samples).
pub fn paired_fraction(samples: &[(f64, f64)]) -> Option<PairedFraction> {
    let mut r: Vec<f64> = samples.iter().map(|&(k, p)| p / k).collect();
    if r.is_empty() {
        return None;
    }
    r.sort_by(f64::total_cmp);
    let n = r.len();
    let rank = |q: f64| r[((n - 1) as f64 * q).round() as usize];
    Some(PairedFraction {
        median: median(r.clone()),
        low: rank(0.1),
        high: rank(0.9),
    })
}

/// The median of `v` (the mean of the middle two for an even count; NaN
/// for none).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

/// The fused seeded f32 or f64 race's winner over `w` at row `*row + 1`
/// (seed 7, the race stream, the first NaN winning); advances `*row`, so
/// every timed call draws fresh noise.
pub fn seeded_winner<T: exporace::NoiseFloat>(w: &[f32], row: &mut u64) -> usize {
    *row += 1;
    exporace::race_seeded::<T>(
        exporace::Form::Mul,
        std::hint::black_box(w),
        7,
        exporace::noise::Stream::Race,
        *row,
        exporace::NanPolicy::FirstNanWins,
    )
    .expect("the benchmarks race finite, non-negative weights")
    .winner
    .token
}

#[cfg(test)]
mod tests {
    use super::{LineAligned, PairedFraction, paired_fraction, parse_case};

    /// Every length and value type gets its values, in order, from a 64-byte
    /// boundary.
    #[test]
    fn line_aligned_starts_on_a_line() {
        for len in [0, 1, 15, 16, 17, 1000, 160_000] {
            let b = LineAligned::filled(len, 1u32);
            assert_eq!(b.len(), len);
            assert_eq!(b.as_ptr() as usize % 64, 0, "len {len}");
            assert!(b.iter().all(|&x| x == 1));
            let mut calls = Vec::new();
            let f = LineAligned::from_fn(len, |i| {
                calls.push(i);
                i as f64 * 0.5
            });
            assert_eq!(f.as_ptr() as usize % 64, 0, "len {len}");
            assert_eq!(calls, (0..len).collect::<Vec<_>>());
            assert!(f.iter().enumerate().all(|(i, &x)| x == i as f64 * 0.5));
        }
    }

    /// Ratios are probe over kernel per sample; the median of an even count
    /// is the mean of the middle two; the percentiles are nearest ranks.
    #[test]
    fn paired_fraction_is_the_median_of_the_ratios() {
        assert_eq!(paired_fraction(&[]), None);
        let one = paired_fraction(&[(2.0, 1.0)]).unwrap();
        assert_eq!(
            one,
            PairedFraction {
                median: 0.5,
                low: 0.5,
                high: 0.5
            }
        );
        // Ratios 0.5, 1, 2, 4 in shuffled order.
        let four = paired_fraction(&[(1.0, 4.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0)]).unwrap();
        assert_eq!(
            four,
            PairedFraction {
                median: 1.5,
                low: 0.5,
                high: 4.0
            }
        );
        // Eleven ratios 0.0 .. 1.0: ranks 1 and 9 of 0..=10.
        let s: Vec<(f64, f64)> = (0..=10).rev().map(|i| (10.0, f64::from(i))).collect();
        let f = paired_fraction(&s).unwrap();
        assert_eq!((f.median, f.low, f.high), (0.5, 0.1, 0.9));
    }

    #[test]
    fn case_names_parse() {
        let p = parse_case;
        assert_eq!(
            p("recover/f32/B64/V152064"),
            Some(("recover".into(), "f32".into(), 64, 152_064))
        );
        assert_eq!(
            p("race/f64/V32000"),
            Some(("race".into(), "f64".into(), 1, 32_000))
        );
        assert_eq!(p("race/f64"), None);
        assert_eq!(p("race/f64/V0"), None);
        assert_eq!(p("recover/f32/Bx/V10"), None);
        assert_eq!(p("recover/f32/X1/V10"), None);
    }
}
