//! The fused hashed races against scoring every token: the gate's bound,
//! the first maximum and the contenders, with noise at the words' bound
//! (the filter's margin at its thinnest), Gumbel noise from the hash,
//! planted ties, every special logit, and pools of threads.

use alloc::vec;
use alloc::vec::Vec;

use crate::arch::common::seeded_hash_steps::{Gate, HashSteps, Logit, Words, passes};
use crate::arch::common::sizes::LANES;
use crate::arch::generic::seeded_hash::next_loud_hashed as generic_next_loud;
use crate::arch::next_loud_hashed;
use crate::kernel::seeded_hash::{HashedNoise, race_hashed};
use crate::kernel::seeded_hash_contenders::hashed_contenders;
use crate::test_inputs::Mix;

/// The largest noise the words allow: `32 ln 2 - ln w + 2^-14`, or 109.
fn bound(w: u32) -> f64 {
    if w < 2 {
        109.0
    } else {
        32.0 * core::f64::consts::LN_2 - libm::log(w as f64) + 1.0 / 16384.0
    }
}

/// A recipe for the tests: `fl32(x / t) + G` with `G` at the words' bound
/// (`tight`) or `-ln(-ln(1 - v))` of the word's uniform `v`, in f64.
#[derive(Clone, Copy)]
struct Toy {
    words: Words,
    temperature: f32,
    tight: bool,
}

impl<L: Logit + Into<f64>> HashedNoise for ToyOf<L> {
    type Logit = L;
    fn words(&self) -> Words {
        self.0.words
    }
    fn scale(&self) -> f32 {
        1.0 / self.0.temperature
    }
    fn score(&self, token: u32, logit: L) -> f64 {
        let w = self.0.words.word(token);
        let g = if self.0.tight {
            bound(w)
        } else {
            let v = (w as f64 + 0.5) / 4_294_967_296.0;
            -libm::log(-libm::log1p(-v))
        };
        let x: f64 = logit.into();
        (x / self.0.temperature as f64) as f32 as f64 + g
    }
}

/// [`Toy`] over logits of type `L`.
struct ToyOf<L>(Toy, core::marker::PhantomData<L>);

fn toy<L>(mix: &mut Mix, case: usize) -> ToyOf<L> {
    let words = match case % 3 {
        0 => Words::Murmur3 {
            prefix: mix.next() as u32,
            flip: false,
        },
        1 => Words::Murmur3 {
            prefix: mix.next() as u32,
            flip: true,
        },
        _ => Words::SplitMix64 { key: mix.next() },
    };
    let temperature = [1.0, 0.7, 3.0, 1e-3, 0.25][mix.below(5) as usize];
    let tight = case.is_multiple_of(2);
    ToyOf(
        Toy {
            words,
            temperature,
            tight,
        },
        core::marker::PhantomData,
    )
}

/// Logits: log-weights over a spread of nats, with special values
/// (`specials`), large magnitudes, and ties planted on the noise.
fn logits(mix: &mut Mix, n: usize, noise: &ToyOf<f32>, specials: bool) -> Vec<f32> {
    let spread = [1.0, 10.0, 40.0, 1e4][mix.below(4) as usize];
    let shift = [0.0, -30.0, 1e6][mix.below(3) as usize] as f32;
    let mut x: Vec<f32> = (0..n)
        .map(|_| shift - (mix.unit() * spread) as f32)
        .collect();
    if specials {
        for _ in 0..1 + n / 200 {
            let i = mix.below(n as u64) as usize;
            x[i] = [f32::NEG_INFINITY, f32::INFINITY, f32::NAN, -3e38, 3e38][mix.below(5) as usize];
        }
    }
    // Ties: a few tokens given the score of a token already there.
    if mix.below(2) == 0 && n > 2 {
        let target = noise.score(0, x[0]);
        for _ in 0..3 {
            let i = 1 + mix.below(n as u64 - 1) as usize;
            let g = noise.score(i as u32, 0.0);
            let want = ((target - g) * noise.0.temperature as f64) as f32;
            x[i] = want;
        }
    }
    x
}

/// The first maximum of every token's score, a NaN the largest.
fn first_max<N: HashedNoise>(noise: &N, x: &[N::Logit]) -> usize {
    let mut best = (0, noise.score(0, x[0]));
    for (i, &v) in x.iter().enumerate().skip(1) {
        let s = noise.score(i as u32, v);
        if !best.1.is_nan() && (s.is_nan() || s > best.1) {
            best = (i, s);
        }
    }
    best.0
}

/// A lane that passes scores below the bar by the margin, for the worst
/// scaled logit the recipe may have and noise at the words' bound.
#[test]
fn a_lane_that_passes_is_below_the_bar() {
    let mut mix = Mix(0x6A7E_0001);
    let mut passed = 0;
    for case in 0..200_000 {
        let t = [1.0f32, 0.7, 3.0, 1e-3, 0.25, 1e3][case % 6];
        let bar = match mix.below(4) {
            0 => mix.unit() * 40.0 - 20.0,
            1 => (mix.unit() - 0.5) * 1e7,
            2 => -(mix.unit() * 1e-3),
            _ => (mix.unit() - 0.5) * 1e18,
        };
        let Some(g) = Gate::new(1.0 / t, bar) else {
            continue;
        };
        let w = match mix.below(4) {
            0 => mix.below(4) as u32,
            1 => u32::MAX - mix.below(4) as u32,
            _ => mix.next() as u32 >> mix.below(32),
        };
        // A logit near the bar less the noise's bound, or anywhere.
        let near = (bar - bound(w)) * t as f64;
        let x = match mix.below(3) {
            0 => (near * (1.0 + (mix.unit() - 0.5) * 1e-5)) as f32,
            1 => (near + (mix.unit() - 0.5) * 1e-2) as f32,
            _ => f32::from_bits(mix.next() as u32),
        };
        if !passes(g, x, w) {
            continue;
        }
        passed += 1;
        let a = x as f64 / t as f64;
        let worst = a + a.abs() * (1.0 / (1u64 << 22) as f64);
        let m = 1.0 / 4096.0 + bar.abs() / (1u64 << 20) as f64;
        assert!(
            worst + bound(w) < bar - m,
            "x {x:e} t {t} w {w} bar {bar:e}: {} vs {}",
            worst + bound(w),
            bar - m
        );
    }
    assert!(passed > 20_000, "only {passed} passed");
    for bad in [f64::NAN, f64::INFINITY, -f64::INFINITY, 1e30] {
        assert_eq!(Gate::new(1.0, bad), None);
    }
    assert_eq!(Gate::new(f32::INFINITY, 1.0), None);
    let g = Gate::new(1.0, 0.0).unwrap();
    assert!(!passes(g, f32::NAN, u32::MAX) && !passes(g, f32::INFINITY, u32::MAX));
    assert!(passes(g, f32::NEG_INFINITY, 0));
}

/// The build's filter finds the generic lanes' step and lanes.
#[test]
fn the_builds_filter_is_the_generic_one() {
    let mut mix = Mix(0x6A7E_0002);
    for case in 0..600 {
        let steps = |mix: &mut Mix| (1 + mix.below(40) as usize) * LANES;
        let (noise, x) = case_row(&mut mix, case, steps, case.is_multiple_of(4));
        let n = x.len() / LANES;
        let (steps, _) = x.as_chunks::<LANES>();
        let first = if case.is_multiple_of(5) {
            u32::MAX - 40
        } else {
            mix.next() as u32
        };
        let at = HashSteps {
            logits: steps,
            words: noise.0.words,
            first,
        };
        let bar = noise.score(first, x[mix.below(x.len() as u64) as usize]);
        let Some(g) = Gate::new(noise.scale(), bar) else {
            continue;
        };
        for from in [0, n / 2, n] {
            assert_eq!(
                next_loud_hashed(at, from, g),
                generic_next_loud(at, from, g),
                "case {case} from {from}"
            );
        }
        let xs: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let (steps, _) = xs.as_chunks::<LANES>();
        let at = HashSteps {
            logits: steps,
            words: noise.0.words,
            first,
        };
        assert_eq!(next_loud_hashed(at, 0, g), generic_next_loud(at, 0, g));
    }
}

/// A case's recipe and a row of its logits, `len(mix)` of them (drawn
/// after the recipe), with special values where `specials`.
fn case_row(
    mix: &mut Mix,
    case: usize,
    len: impl FnOnce(&mut Mix) -> usize,
    specials: bool,
) -> (ToyOf<f32>, Vec<f32>) {
    let noise = toy::<f32>(mix, case);
    let n = len(mix);
    let x = logits(mix, n, &noise, specials);
    (noise, x)
}

/// Up to 3000 tokens, every 20th case up to 60000.
fn mostly_short(case: usize) -> impl FnOnce(&mut Mix) -> usize {
    let most = if case.is_multiple_of(20) {
        60_000
    } else {
        3000
    };
    move |mix| 1 + mix.below(most) as usize
}

/// The first maximum, for f32 and f64 logits, on rows of every length.
#[test]
fn race_hashed_is_the_first_maximum() {
    let mut mix = Mix(0x6A7E_0003);
    for case in 0..800 {
        let (noise, x) = case_row(&mut mix, case, mostly_short(case), case.is_multiple_of(3));
        let n = x.len();
        assert_eq!(
            race_hashed(&noise, &x).unwrap(),
            first_max(&noise, &x),
            "case {case} n {n}"
        );
        let wide = ToyOf::<f64>(noise.0, core::marker::PhantomData);
        let xs: Vec<f64> = x.iter().map(|&v| v as f64 * (1.0 + 1e-12)).collect();
        assert_eq!(
            race_hashed(&wide, &xs).unwrap(),
            first_max(&wide, &xs),
            "case {case} f64"
        );
    }
    let noise = toy::<f32>(&mut mix, 0);
    assert!(race_hashed(&noise, &[]).is_err());
}

/// A sequential leader that takes a token only when its score beats the
/// leader's takes only contenders, and the replay over them ends on its
/// answer.
#[test]
fn contenders_hold_every_leader() {
    let mut mix = Mix(0x6A7E_0004);
    let mut kept_total = 0;
    for case in 0..600 {
        let (noise, x) = case_row(&mut mix, case, mostly_short(case), case.is_multiple_of(3));
        let n = x.len();
        let kept = hashed_contenders(&noise, &x).unwrap();
        kept_total += kept.len();
        assert!(
            kept.windows(2).all(|w| w[0] < w[1]),
            "case {case}: out of order"
        );
        let leaders = |tokens: &mut dyn Iterator<Item = usize>| {
            let mut taken = vec![];
            let mut best = f64::NEG_INFINITY;
            for i in tokens {
                if x[i] == f32::NEG_INFINITY {
                    continue;
                }
                let s = noise.score(i as u32, x[i]);
                if taken.is_empty() || s > best {
                    taken.push(i);
                    best = s;
                }
            }
            taken
        };
        let all = leaders(&mut (0..n));
        for t in &all {
            assert!(
                kept.binary_search(t).is_ok(),
                "case {case}: leader {t} left out"
            );
        }
        assert_eq!(leaders(&mut kept.iter().copied()).last(), all.last());
    }
    assert!(kept_total < 600 * 200, "{kept_total} kept");
}

/// The number of threads changes neither answer.
#[cfg(feature = "parallel")]
#[test]
fn threads_do_not_change_the_answers() {
    let mut mix = Mix(0x6A7E_0005);
    for case in 0..12 {
        let long = |mix: &mut Mix| 300_000 + mix.below(300_000) as usize;
        let (noise, x) = case_row(&mut mix, case, long, case.is_multiple_of(2));
        let one = (
            race_hashed(&noise, &x).unwrap(),
            hashed_contenders(&noise, &x).unwrap(),
        );
        for threads in [2, 3] {
            let got = crate::test_inputs::pool(threads).install(|| {
                (
                    race_hashed(&noise, &x).unwrap(),
                    hashed_contenders(&noise, &x).unwrap(),
                )
            });
            assert_eq!(got.0, one.0, "case {case} threads {threads}");
            assert_eq!(got.0, first_max(&noise, &x));
            let last = |k: &[usize]| {
                let mut best = (usize::MAX, f64::NEG_INFINITY);
                for &i in k {
                    let s = noise.score(i as u32, x[i]);
                    if best.0 == usize::MAX || s > best.1 {
                        best = (i, s);
                    }
                }
                best.0
            };
            assert_eq!(last(&got.1), last(&one.1), "case {case} threads {threads}");
        }
    }
}
