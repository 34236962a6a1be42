//! The cases of the exporace benchmarks and their plain references: a
//! bandwidth probe over a buffer of the case's working-set size and a scalar
//! kernel written the plain way (one index-tracking loop), so that every figure
//! can be stated as a ratio measured in the same run.

use exporace::NoiseFloat;

/// Draft positions per request in the recover cases.
pub const DRAFTS: usize = 4;
/// Request counts of the recover cases.
pub const BATCHES: [usize; 3] = [1, 8, 64];
/// Request counts of the recover cases with draft probabilities (at
/// [`PEER_VOCAB`] only: the peers' table of the benchmark README).
pub const RESIDUAL_BATCHES: [usize; 2] = [1, 64];
/// Vocabulary sizes: Llama 2, Llama 3, Qwen, Gemma 3.
pub const VOCABS: [usize; 4] = [32_000, 128_256, 152_064, 262_144];
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
pub fn many_tail() -> [exporace::exact::Group; 2] {
    use exporace::exact::Group;
    let tail = (-20.5f64).exp() as f32 as f64;
    [Group::new(1.0, 1), Group::new(tail, 262_144)]
}

/// The file where the benchmarks note the load average as each group starts:
/// `loadavg.tsv` in criterion's directory (`CRITERION_HOME`, or `criterion`
/// in `CARGO_TARGET_DIR` or in the target directory holding the binary).
pub fn load_file() -> Option<std::path::PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(std::path::PathBuf::from(home).join("loadavg.tsv"));
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
    Some(target.join("criterion").join("loadavg.tsv"))
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

/// `len` words, each 1, that start on a 64-byte boundary (a cache line):
/// [`probe`]'s buffer. A buffer this large comes from the allocator 16 bytes
/// into a page (glibc's chunk header), and 256-bit reads of it then split a
/// cache line every other load: in L2 the probe took 1.4x as long as over a
/// line-aligned buffer of the same size (Xeon, 640 KB: 10.6 to 11.2 against
/// 7.6 to 7.9 us), and so understated what a read can reach.
pub struct ProbeBuffer {
    words: Vec<u32>,
    start: usize,
    len: usize,
}

impl ProbeBuffer {
    /// A line-aligned buffer of `len` words.
    pub fn new(len: usize) -> Self {
        let words = vec![1u32; len + 16];
        let start = (64 - words.as_ptr() as usize % 64) % 64 / 4;
        Self { words, start, len }
    }

    /// The words, from the line boundary.
    pub fn words(&self) -> &[u32] {
        &self.words[self.start..self.start + self.len]
    }
}

/// Reads every word of `buf` once (a vectorised wrapping sum): the read
/// bandwidth a kernel over the same number of bytes can hope for (over a
/// [`ProbeBuffer`]).
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
/// token zeroed (`recover/...`).
pub struct Recover<T> {
    /// Vocabulary size.
    pub v: usize,
    /// Inclusive prefix sums of draft tokens.
    pub cu: Vec<i32>,
    /// Draft token ids.
    pub drafts: Vec<i32>,
    /// Target probabilities `[B * DRAFTS, V]`.
    pub target: Vec<f32>,
    /// Draft probabilities `[B * DRAFTS, V]`, if any.
    pub draft_probs: Option<Vec<f32>>,
    /// `1 / E` noise `[B, V]`.
    pub inv_q: Vec<T>,
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
        let mut inv_q = vec![T::ZERO; b * v];
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
        let target = (0..t * v).map(&mut next).collect();
        let draft_probs = drafted.then(|| (0..t * v).map(&mut next).collect());
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
            draft_probs: self.draft_probs.as_deref(),
        }
    }

    /// Bytes a recover pass reads: the target rows, the draft rows and the
    /// noise rows.
    pub fn bytes(&self) -> usize {
        (self.target.len() + self.draft_probs.as_ref().map_or(0, Vec::len)) * 4
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

#[cfg(test)]
mod tests {
    use super::ProbeBuffer;

    /// Every length gets its words of 1 from a 64-byte boundary.
    #[test]
    fn probe_buffer_starts_on_a_line() {
        for len in [0, 1, 15, 16, 17, 1000, 160_000] {
            let b = ProbeBuffer::new(len);
            let w = b.words();
            assert_eq!(w.len(), len);
            assert_eq!(w.as_ptr() as usize % 64, 0, "len {len}");
            assert!(w.iter().all(|&x| x == 1));
        }
    }
}
