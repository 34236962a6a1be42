//! The fused seeded race: Philox, the Exp(1) transform and the race in one
//! pass, with the noise never stored.
//!
//! The noise of token `i` is [`noise::exp1`] at (seed, stream, row, i): the
//! 53-bit uniform `u`, `E = -ln_1p(-u)` in f64, rounded to `T`; the score is
//! `w * (1 / E)` ([`Form::Mul`], as after [`noise::fill_inv_q`]) or `w / E`
//! ([`Form::Div`], as after [`noise::fill_q`]). Since `-ln(1 - u) >= u`, every
//! such score is at most `(w / u) * (1 + 2^-21)` once the roundings (the log's
//! last bit, the rounding to `T`, the inverse, the product) are counted. Each
//! step of [`LANES`] tokens draws its Philox words on lanes and compares
//! `w * (1 + 2^-19) <= bar * u` in f64, a bound with room for the two roundings
//! of that compare; a step where every token passes cannot change the
//! standings and needs no logarithm. The other steps go token by token through
//! the exact transform and [`Standings::push`](crate::standings::Standings), so the
//! result is the unfused path's, bit for bit.
//!
//! The search for the next step that may change the standings is the
//! instruction set's `next_loud` (`crate::arch`).

use core::sync::atomic::{AtomicU64, Ordering};

use super::scan::Scan;
use super::split::{Cost, split};
use crate::arch::common::seeded_steps::Steps;
use crate::arch::common::sizes::LANES;
use crate::arch::next_loud;
use crate::error::Result;
use crate::float::NoiseFloat;
use crate::noise::{self, Stream};
use crate::policy::NanPolicy;
use crate::standings::{Form, RaceResult};
use crate::validate;

/// The noise value the unfused path stores for token `token`: `1 / E` for
/// [`Form::Mul`], `E` for [`Form::Div`].
#[inline]
fn stored<T: NoiseFloat>(form: Form, seed: u64, stream: Stream, row: u64, token: usize) -> T {
    let e = noise::exp1::<T>(seed, stream, row, token as u32);
    match form {
        Form::Mul => T::ONE / e,
        Form::Div => e,
    }
}

/// The race of `weights` against seeded Exp(1) noise at (seed, stream, row),
/// without storing the noise: the same bits as drawing the row with
/// [`noise::fill_inv_q`] (or [`noise::fill_q`] for [`Form::Div`]) and then
/// calling [`race`](crate::race()). Weights must be finite and not negative;
/// the vocabulary is at most `2^32` tokens (token ids are Philox counters).
///
/// ```
/// use exporace::{noise, race_mul, race_seeded, Form, NanPolicy};
/// let w = [0.5f32, 0.2, 0.3];
/// let mut inv_q = [0f32; 3];
/// noise::fill_inv_q(42, noise::Stream::Race, 7, &mut inv_q);
/// let fused = race_seeded::<f32>(Form::Mul, &w, 42, noise::Stream::Race, 7, NanPolicy::Reject)?;
/// assert_eq!(fused, race_mul(&w, &inv_q, NanPolicy::Reject)?);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn race_seeded<T: NoiseFloat>(
    form: Form,
    weights: &[f32],
    seed: u64,
    stream: Stream,
    row: u64,
    policy: NanPolicy,
) -> Result<RaceResult<T>> {
    validate::vocab(weights.len())?;
    validate::size("vocabulary size", weights.len())?;
    let shared = SharedBar::new();
    let at = |offset| Address {
        seed,
        stream,
        row,
        offset,
    };
    let scan = split(weights.len(), Cost::SEEDED, |r| {
        scan_seeded::<T>(form, &weights[r.clone()], at(r.start), policy, &shared)
    });
    conclude(form, weights, at(0), scan)
}

/// The race's result from the merged scan of all of `weights`: the full
/// weight checks first where the scan doubted them or halted.
fn conclude<T: NoiseFloat>(
    form: Form,
    weights: &[f32],
    at: Address,
    scan: Scan<T>,
) -> Result<RaceResult<T>> {
    if !scan.clean || scan.halt.is_some() {
        validate::weights("weights", weights, 0)?;
    }
    let Address {
        seed, stream, row, ..
    } = at;
    scan.finish(|i| (weights[i], stored::<T>(form, seed, stream, row, i).to_f64()))
}

/// The highest bar any chunk of one race has reached, shared by its chunks
/// so that a chunk starts from the best bar found so far instead of none.
///
/// Every bar shared is the runner-up's score of some chunk's standings, so
/// at least two tokens of the row score at least as much, and the row's
/// runner-up scores at least as much as every bar shared. A step the
/// filters find quiet holds only tokens that score strictly less than the
/// bar (the module's bound, for a finite bar above `+0.0`), so no token of
/// the row's top two is ever filtered out: each chunk's standings hold every
/// token of its range that is in the row's top two, with the same order,
/// and the merged standings are the row's, whatever bar each chunk saw
/// when. The result does not depend on the threads or their timing; a
/// chunk's own standings may.
pub(crate) struct SharedBar(AtomicU64);

impl SharedBar {
    /// No bar yet.
    pub(crate) const fn new() -> Self {
        SharedBar(AtomicU64::new(0))
    }

    /// Enters a chunk's bar, and returns the best bar for the chunk to
    /// filter with: the higher of it and the shared one. Only finite bars
    /// above `+0.0` are shared; the bits of those order as their values.
    #[inline]
    pub(crate) fn raise(&self, local: Option<f64>) -> Option<f64> {
        if let Some(bar) = local.filter(|b| *b > 0.0 && b.is_finite()) {
            let before = self.0.fetch_max(bar.to_bits(), Ordering::Relaxed);
            return Some(bar.max(f64::from_bits(before)));
        }
        match self.0.load(Ordering::Relaxed) {
            0 => local,
            bits => Some(local.map_or(f64::from_bits(bits), |b| b.max(f64::from_bits(bits)))),
        }
    }
}

/// Where a chunk's noise comes from: token `offset + i` of the chunk's
/// weights `i` draws the noise of (seed, stream, row, offset + i).
#[derive(Clone, Copy)]
struct Address {
    /// The noise's seed.
    seed: u64,
    /// The noise's stream.
    stream: Stream,
    /// The noise's row.
    row: u64,
    /// The chunk's first token.
    offset: usize,
}

/// Scans tokens `offset..offset + weights.len()`, filtering with the
/// higher of its own bar and `shared`'s, and sharing its own.
fn scan_seeded<T: NoiseFloat>(
    form: Form,
    weights: &[f32],
    at: Address,
    policy: NanPolicy,
    shared: &SharedBar,
) -> Scan<T> {
    let Address {
        seed,
        stream,
        row,
        offset,
    } = at;
    let mut out = Scan::<T>::new(policy);
    let (steps, rest) = weights.as_chunks::<LANES>();
    let exact = |out: &mut Scan<T>, i: usize, w: f32| {
        let s: T = form.score(w, stored::<T>(form, seed, stream, row, i));
        if s.is_nan() && policy == NanPolicy::Reject {
            out.halt = Some(i);
            return false;
        }
        out.standings.push(i, s);
        true
    };
    // A weight is finite and not negative (`+0.0`, not `-0.0`) exactly when
    // its bits are below those of `+inf`: each lane keeps the largest bits
    // it saw, checked once at the end (a range check per weight compiled to
    // scalar code, about 12 instructions per token). `-0.0` is a doubt,
    // which the full checks accept.
    let mut tops = [0u32; LANES];
    let valid = |tops: &[u32; LANES]| tops.iter().all(|&t| t < f32::INFINITY.to_bits());
    // The chunk's own bar changes only when tokens are entered.
    let mut bar = shared.raise(None);
    let mut c = 0;
    while c < steps.len() {
        if let Some(bar) = bar {
            let at = Steps {
                weights: steps,
                seed,
                stream,
                row,
                first: offset,
            };
            c = next_loud(at, c, bar, &mut tops);
            if c == steps.len() {
                break;
            }
        }
        let (w, first) = (&steps[c], offset + c * LANES);
        for l in 0..LANES {
            tops[l] = tops[l].max(w[l].to_bits());
        }
        for (l, &x) in w.iter().enumerate() {
            if !exact(&mut out, first + l, x) {
                out.clean &= valid(&tops);
                return out;
            }
        }
        bar = shared.raise(out.standings.bar().map(NoiseFloat::to_f64));
        c += 1;
    }
    out.clean &= valid(&tops);
    let first = offset + steps.len() * LANES;
    for (l, &x) in rest.iter().enumerate() {
        out.clean &= (0.0..f32::INFINITY).contains(&x);
        if !exact(&mut out, first + l, x) {
            return out;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use alloc::vec;
    use alloc::vec::Vec;

    use super::*;
    use crate::arch::common::seeded_steps::word_scale;
    use crate::arch::generic::philox::top_words16;
    use crate::arch::generic::seeded::next_loud_words;
    use crate::kernel::tests::both_precisions;
    use crate::kernel::weights::Weights;
    use crate::race::scalar;
    use crate::test_inputs::{Mix, key as bits};

    fn fused_equals_unfused<T: NoiseFloat>() {
        let mut mix = Mix(0xF05E_D006);
        for case in 0..300 {
            let n = 1 + mix.below(if case % 10 == 0 {
                3 * Cost::SEEDED.chunk() as u64
            } else {
                2000
            }) as usize;
            let seed = mix.next();
            let row = mix.next() >> mix.below(64);
            let stream = [Stream::Race, Stream::Bonus, Stream::Draft][mix.below(3) as usize];
            let w: alloc::vec::Vec<f32> = (0..n)
                .map(|_| match mix.below(8) {
                    0 => 0.0,
                    1 => -0.0,
                    2 | 3 => mix.below(4) as f32 * 0.25,
                    _ => (mix.next() >> 40) as f32 * (1.0 / (1u64 << 24) as f32),
                })
                .collect();
            for form in [Form::Mul, Form::Div] {
                let mut q = vec![T::ZERO; n];
                match form {
                    Form::Mul => noise::fill_inv_q(seed, stream, row, &mut q),
                    Form::Div => noise::fill_q(seed, stream, row, &mut q),
                }
                for policy in NanPolicy::ALL {
                    let want = bits(scalar(form, Weights::Plain(&w), &q, policy));
                    let got = bits(race_seeded::<T>(form, &w, seed, stream, row, policy));
                    assert_eq!(got, want, "case {case} n {n} {form:?} {policy}");
                }
            }
        }
    }

    /// A row scanned in chunks taken in a shuffled order, all sharing one
    /// bar, so that a chunk often filters with a bar reached by chunks of
    /// later tokens, gives the unfused path's result bit for bit: no token
    /// of the row's top two is ever filtered out. A third of the rows are
    /// weights on a grid of quarters and small integers. In the others most
    /// weights are the token's own Exp(1) value or its uniform `u`, times 1
    /// or 1 plus or minus `2^-20`: many scores are then 1 to within a few
    /// ulps or exactly (ties and near-ties at the top), or the top scores
    /// are within about `1/n` of each other where the filters' bound
    /// `w / u` is tight, so that a bar shared 1% too high filters out one
    /// of the top two and fails the test.
    fn shared_bar_keeps_the_result<T: NoiseFloat>() {
        let mut mix = Mix(0x5BA2_BA25);
        let mut changed = 0;
        for case in 0..300 {
            let n = 2 + mix.below(3000) as usize;
            let (seed, row) = (mix.next(), mix.below(1 << 40));
            let mut e = vec![T::ZERO; n];
            noise::fill_q(seed, Stream::Race, row, &mut e);
            let level = [
                1.0,
                1.0 + 1.0 / (1 << 20) as f64,
                1.0 - 1.0 / (1 << 20) as f64,
            ];
            let w: Vec<f32> = (0..n)
                .map(|i| match (case % 3, mix.below(8)) {
                    (_, 0) => 0.0,
                    (_, 1) => -0.0,
                    (0, 2..=4) => mix.below(4) as f32 * 0.25,
                    (0, _) => (mix.below(3) + 1) as f32,
                    (1, _) => (e[i].to_f64() * level[mix.below(3) as usize]) as f32,
                    (_, _) => {
                        let u = noise::uniform53(seed, Stream::Race, row, i as u32);
                        (u * level[mix.below(3) as usize]) as f32
                    }
                })
                .collect();
            // Chunk bounds, then an order to scan them in.
            let mut bounds = vec![0];
            while *bounds.last().unwrap() < n {
                let next = bounds.last().unwrap() + 1 + mix.below(400) as usize;
                bounds.push(next.min(n));
            }
            let k = bounds.len() - 1;
            let mut order: Vec<usize> = (0..k).collect();
            for i in (1..k).rev() {
                order.swap(i, mix.below(i as u64 + 1) as usize);
            }
            let at = |offset| Address {
                seed,
                stream: Stream::Race,
                row,
                offset,
            };
            for form in [Form::Mul, Form::Div] {
                let mut q = vec![T::ZERO; n];
                match form {
                    Form::Mul => noise::fill_inv_q(seed, Stream::Race, row, &mut q),
                    Form::Div => noise::fill_q(seed, Stream::Race, row, &mut q),
                }
                for policy in NanPolicy::ALL {
                    let shared = SharedBar::new();
                    let mut scans: Vec<Option<Scan<T>>> = (0..k).map(|_| None).collect();
                    for &c in &order {
                        let r = bounds[c]..bounds[c + 1];
                        let alone = SharedBar::new();
                        let own =
                            scan_seeded::<T>(form, &w[r.clone()], at(r.start), policy, &alone);
                        let got =
                            scan_seeded::<T>(form, &w[r.clone()], at(r.start), policy, &shared);
                        changed += usize::from(
                            own.standings.finish().map(|x| x.winner.token)
                                != got.standings.finish().map(|x| x.winner.token),
                        );
                        scans[c] = Some(got);
                    }
                    let scan = scans
                        .into_iter()
                        .map(|s| s.expect("every chunk scanned"))
                        .reduce(|acc, later| {
                            if acc.halt.is_some() {
                                acc
                            } else {
                                acc.then(later)
                            }
                        })
                        .expect("a chunk");
                    let want = bits(scalar(form, Weights::Plain(&w), &q, policy));
                    let got = bits(conclude(form, &w, at(0), scan));
                    assert_eq!(got, want, "case {case} n {n} {form:?} {policy}");
                }
            }
        }
        // The shared bar did filter: many chunks kept another leader than
        // they would alone (none, mostly).
        assert!(changed > 1000, "only {changed} chunks changed");
    }

    /// On a pool of 3 threads a row is split into many jobs
    /// taken in whatever order the threads reach them; the result is the
    /// unfused path's, bit for bit, whatever the threads' timing.
    #[cfg(feature = "parallel")]
    #[test]
    fn split_seeded_race_equals_unfused() {
        let pool = crate::test_inputs::pool(3);
        let mut mix = Mix(0x7A2E_E000);
        for case in 0..12 {
            let chunk = Cost::SEEDED.chunk();
            let n = 4 * chunk + mix.below(4 * chunk as u64) as usize;
            let seed = mix.next();
            let w: Vec<f32> = (0..n)
                .map(|_| match mix.below(4) {
                    0 => mix.below(4) as f32 * 0.25,
                    _ => (mix.next() >> 40) as f32 * (1.0 / (1u64 << 24) as f32),
                })
                .collect();
            let mut q = vec![0f32; n];
            noise::fill_inv_q(seed, Stream::Draft, 3, &mut q);
            for policy in NanPolicy::ALL {
                let want = bits(scalar(Form::Mul, Weights::Plain(&w), &q, policy));
                for _ in 0..3 {
                    let got = pool.install(|| {
                        race_seeded::<f32>(Form::Mul, &w, seed, Stream::Draft, 3, policy)
                    });
                    assert_eq!(bits(got), want, "case {case} n {n} {policy}");
                }
            }
        }
    }

    both_precisions! {
        fused_equals_unfused => fused_equals_unfused_f32, fused_equals_unfused_f64;
        shared_bar_keeps_the_result => shared_bar_keeps_the_result_f32,
            shared_bar_keeps_the_result_f64;
    }

    /// The word filter's scale is `(1 + 2^-17) 2^32 / bar` rounded up to
    /// f32 (the least f32 at least the f64 quotient), and `None` for bars
    /// that are not above `+0.0`.
    #[test]
    fn word_scale_rounds_up() {
        let lift = 4_294_967_296.0 * (1.0 + 1.0 / 131_072.0);
        let mut mix = Mix(0x5CA1_E000);
        for _ in 0..10_000 {
            let bar = f64::from_bits(mix.next() >> 2);
            let quotient = lift / bar;
            let scale = word_scale(bar).unwrap();
            assert!(f64::from(scale) >= quotient, "bar {bar:e}");
            assert!(f64::from(scale.next_down()) < quotient, "bar {bar:e}");
        }
        for bar in [0.0, -0.0, f64::NAN, -1.0] {
            assert_eq!(word_scale(bar), None);
        }
        assert_eq!(word_scale(f64::INFINITY), Some(0.0));
        assert_eq!(word_scale(f64::MIN_POSITIVE), Some(f32::INFINITY));
    }

    /// Every token of a step the word filter finds quiet scores below the
    /// bar, in both forms and noise types: valid weights (zeros, tiny,
    /// huge), bars at the top score, just below and above it, and at the
    /// second.
    #[test]
    fn word_filter_passes_no_token_above_the_bar() {
        let mut mix = Mix(0x0AD5_F00D);
        let mut quiet_steps = 0;
        for case in 0..300 {
            let n = 1 + mix.below(12) as usize;
            let seed = mix.next();
            let row = mix.next() >> mix.below(64);
            let first = mix.below(1 << 20) as usize * LANES;
            let steps: Vec<[f32; LANES]> = (0..n)
                .map(|_| {
                    core::array::from_fn(|_| match mix.below(16) {
                        0 => 0.0,
                        1 => f32::from_bits(1 + mix.below(1000) as u32),
                        2 => 1e30,
                        _ => (mix.next() >> 40) as f32 * (1.0 / (1u64 << 24) as f32),
                    })
                })
                .collect();
            let score = |form: Form, s: usize, l: usize, f64_noise: bool| -> f64 {
                let i = first + s * LANES + l;
                let w = steps[s][l];
                if f64_noise {
                    form.score(w, stored::<f64>(form, seed, Stream::Race, row, i))
                } else {
                    form.score(w, stored::<f32>(form, seed, Stream::Race, row, i))
                        .into()
                }
            };
            // The bar at, below or above the top score, or at the second.
            let mut all: Vec<f64> = (0..n * LANES)
                .map(|i| score(Form::Mul, i / LANES, i % LANES, case % 2 == 0))
                .collect();
            all.sort_by(|a, b| b.total_cmp(a));
            let bar = match case % 4 {
                0 => all[0],
                1 => all[0] * (1.0 - 1e-6),
                2 => all[0] * (1.0 + 1e-6),
                _ => all[1],
            };
            let Some(scale) = word_scale(bar) else {
                continue;
            };
            for step in 0..n {
                let mut tops = [0; LANES];
                let at = Steps::at(&steps, (seed, Stream::Race, row, first));
                let loud = next_loud_words(at, step, scale, &mut tops, top_words16);
                if loud == step {
                    continue;
                }
                quiet_steps += 1;
                for l in 0..LANES {
                    for form in [Form::Mul, Form::Div] {
                        for f64_noise in [false, true] {
                            let x = score(form, step, l, f64_noise);
                            assert!(
                                x < bar,
                                "case {case} step {step} lane {l}: {x:e} vs {bar:e}"
                            );
                        }
                    }
                }
            }
        }
        assert!(quiet_steps > 1000, "only {quiet_steps} quiet steps");
    }

    #[test]
    fn bad_weights_are_reported() {
        let mut w = vec![0.5f32; 100];
        w[70] = f32::NAN;
        let err = race_seeded::<f32>(Form::Mul, &w, 1, Stream::Race, 0, NanPolicy::NanNeverWins)
            .unwrap_err();
        let want = validate::weights("weights", &w, 0).unwrap_err();
        assert_eq!(alloc::format!("{err:?}"), alloc::format!("{want:?}"));
    }
}
