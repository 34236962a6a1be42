//! The cases of the exporace benchmarks and their plain references: a
//! bandwidth probe over a buffer of the case's working-set size and a scalar
//! kernel written the plain way (one index-tracking loop), so that every figure
//! can be stated as a ratio measured in the same run.

use exporace::NoiseFloat;

/// Draft positions per request in the recover cases.
pub const DRAFTS: usize = 4;
/// Request counts of the recover cases.
pub const BATCHES: [usize; 3] = [1, 8, 64];
/// Vocabulary sizes: Llama 2, Llama 3, Qwen, Gemma 3.
pub const VOCABS: [usize; 4] = [32_000, 128_256, 152_064, 262_144];
/// Thread counts.
pub const THREADS: [usize; 2] = [1, 2];

/// Reads every word of `buf` once (a vectorised wrapping sum): the read
/// bandwidth a kernel over the same number of bytes can hope for.
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
/// probabilities without draft probabilities, one `inv_q` row per request.
pub struct Recover<T> {
    /// Vocabulary size.
    pub v: usize,
    /// Inclusive prefix sums of draft tokens.
    pub cu: Vec<i32>,
    /// Draft token ids.
    pub drafts: Vec<i32>,
    /// Target probabilities `[B * DRAFTS, V]`.
    pub target: Vec<f32>,
    /// `1 / E` noise `[B, V]`.
    pub inv_q: Vec<T>,
}

impl<T: NoiseFloat> Recover<T> {
    /// A case with random-looking probabilities and seeded noise.
    pub fn new(b: usize, v: usize) -> Self {
        let t = b * DRAFTS;
        let mut inv_q = vec![T::ZERO; b * v];
        for (r, row) in inv_q.chunks_mut(v).enumerate() {
            exporace::noise::fill_inv_q(7, exporace::noise::Stream::Race, r as u64, row);
        }
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let target = (0..t * v)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 40) as f32 * (1.0 / (1u64 << 24) as f32) / v as f32
            })
            .collect();
        Recover {
            v,
            cu: (1..=b).map(|r| (r * DRAFTS) as i32).collect(),
            drafts: (0..t).map(|i| ((i * 7919) % v) as i32).collect(),
            target,
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
            draft_probs: None,
        }
    }

    /// Bytes a recover pass reads: the target rows and the noise rows.
    pub fn bytes(&self) -> usize {
        self.target.len() * 4 + self.inv_q.len() * core::mem::size_of::<T>()
    }

    /// Scores computed: one per draft position and token.
    pub fn elements(&self) -> usize {
        self.target.len()
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
                let draft = self.drafts[t] as usize;
                let (mut best, mut arg) = (-T::INFINITY, 0);
                for i in 0..v {
                    let w = if i == draft { 0.0 } else { p[i] };
                    let s = T::from_f32(w) * n[i];
                    if s > best {
                        best = s;
                        arg = i;
                    }
                }
                arg
            })
            .collect()
    }
}

/// The plain scalar `argmax_i w_i / q_i`.
pub fn scalar_div<T: NoiseFloat>(w: &[f32], q: &[T]) -> usize {
    let (mut best, mut arg) = (-T::INFINITY, 0);
    for (i, (&w, &q)) in w.iter().zip(q).enumerate() {
        let s = T::from_f32(w) / q;
        if s > best {
            best = s;
            arg = i;
        }
    }
    arg
}
