//! The race as a `rand` distribution ([`ExpRace`]), and the generator whose
//! draws are exporace's own addressed noise words ([`NoiseRng`]).
//!
//! [`ExpRace`] samples `argmax_i score(w_i, E_i)` with one `E_i ~ Exp(1)` per
//! token from any [`Rng`]: draw `i` is one `next_u64`, whose top 53 bits make
//! the uniform `u` on the grid `k 2^-53`, and `E = -ln_1p(-u)` in f64, rounded
//! once to the noise type (the "ideal" transform of [`crate::noise`]). Scores,
//! ties (the smallest index wins), NaN scores ([`NanPolicy`]) and zero
//! weights follow the core races. A token whose bound `w / u` shows it
//! cannot reach the runner-up is passed over without its logarithm, as in
//! the fused seeded race; the result is the same. With a [`NoiseRng`] the draws are the words
//! exporace's seeded races read, so a sample equals [`race_seeded`]'s winner
//! bit for bit.
//!
//! [`race_seeded`]: crate::race_seeded

use core::convert::Infallible;
use core::marker::PhantomData;

use rand::distr::Distribution;
use rand::{Rng, SeedableRng, TryRng};

use crate::arch::common::seeded_steps::MARGIN;
use crate::error::{Error, Result};
use crate::float::NoiseFloat;
use crate::noise::{self, Stream};
use crate::policy::NanPolicy;
use crate::standings::{Form, RaceResult, Standings};
use crate::validate;

/// An exponential race over fixed weights, sampled with any [`Rng`], at the
/// noise precision `T` (`f32` or `f64`).
///
/// ```
/// use exporace::distr::{ExpRace, NoiseRng};
/// use exporace::{Form, NanPolicy, noise::Stream, race_seeded};
/// use rand::distr::Distribution;
///
/// let weights = [0.5f32, 0.3, 0.2];
/// let race = ExpRace::<f32>::new(&weights)?;
/// // With exporace's own noise words, the sample is race_seeded's winner.
/// let token = race.sample(&mut NoiseRng::new(42, Stream::Race, 7));
/// let seeded = race_seeded::<f32>(Form::Mul, &weights, 42, Stream::Race, 7, NanPolicy::FirstNanWins)?;
/// assert_eq!(token, seeded.winner.token);
/// # Ok::<(), exporace::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ExpRace<'a, T> {
    weights: &'a [f32],
    form: Form,
    policy: NanPolicy,
    noise: PhantomData<T>,
}

impl<'a, T: NoiseFloat> ExpRace<'a, T> {
    /// A race over `weights` in vLLM's form `w * (1 / E)` ([`Form::Mul`]),
    /// with the first NaN score winning (as `torch.argmax`). The weights are
    /// checked as the core races check them: at least one, finite and not
    /// negative.
    ///
    /// ```
    /// use exporace::{Error, distr::ExpRace};
    /// assert!(matches!(ExpRace::<f64>::new(&[]), Err(Error::EmptyVocab)));
    /// assert!(matches!(ExpRace::<f64>::new(&[1.0, f32::NAN]), Err(Error::BadValue { at, .. }) if at.index == 1));
    /// ```
    pub fn new(weights: &'a [f32]) -> Result<Self> {
        validate::vocab(weights.len())?;
        validate::weights("weights", weights, 0)?;
        Ok(ExpRace {
            weights,
            form: Form::Mul,
            policy: NanPolicy::FirstNanWins,
            noise: PhantomData,
        })
    }

    /// The same race with scores in `form` (`w / E` for [`Form::Div`], as
    /// vLLM V1's `random_sample`).
    ///
    /// ```
    /// use exporace::{Form, distr::ExpRace};
    /// let race = ExpRace::<f32>::new(&[1.0, 2.0])?.with_form(Form::Div);
    /// assert_eq!(race.form(), Form::Div);
    /// # Ok::<(), exporace::Error>(())
    /// ```
    pub fn with_form(self, form: Form) -> Self {
        ExpRace { form, ..self }
    }

    /// The same race under NaN rule `policy`. A NaN score needs a zero weight
    /// and `E = 0` (probability 2^-53 per zero weight). Under
    /// [`NanPolicy::Reject`], [`Distribution::sample`] panics on one; use
    /// [`ExpRace::race`] to get it as an error.
    ///
    /// ```
    /// use exporace::{NanPolicy, distr::ExpRace};
    /// let race = ExpRace::<f32>::new(&[0.0, 1.0])?.with_nan_policy(NanPolicy::NanNeverWins);
    /// assert_eq!(race.nan_policy(), NanPolicy::NanNeverWins);
    /// # Ok::<(), exporace::Error>(())
    /// ```
    pub fn with_nan_policy(self, policy: NanPolicy) -> Self {
        ExpRace { policy, ..self }
    }

    /// The score form.
    ///
    /// ```
    /// use exporace::{Form, distr::ExpRace};
    /// assert_eq!(ExpRace::<f32>::new(&[1.0])?.form(), Form::Mul);
    /// # Ok::<(), exporace::Error>(())
    /// ```
    pub fn form(&self) -> Form {
        self.form
    }

    /// The NaN rule.
    ///
    /// ```
    /// use exporace::{NanPolicy, distr::ExpRace};
    /// assert_eq!(ExpRace::<f32>::new(&[1.0])?.nan_policy(), NanPolicy::FirstNanWins);
    /// # Ok::<(), exporace::Error>(())
    /// ```
    pub fn nan_policy(&self) -> NanPolicy {
        self.policy
    }

    /// One race with noise drawn from `rng`: the winner and the runner-up
    /// with their scores, or [`Error::NanScore`] under [`NanPolicy::Reject`].
    ///
    /// ```
    /// use exporace::distr::{ExpRace, NoiseRng};
    /// use exporace::noise::Stream;
    /// let r = ExpRace::<f64>::new(&[0.25, 0.75])?.race(&mut NoiseRng::new(1, Stream::Race, 0))?;
    /// assert!(r.margin_ulps().is_some());
    /// # Ok::<(), exporace::Error>(())
    /// ```
    pub fn race<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<RaceResult<T>> {
        let mut standings = Standings::new(self.policy);
        for (i, &w) in self.weights.iter().enumerate() {
            let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
            // The fused seeded race's bound: a token with `w (1 + 2^-19) <=
            // bar u` scores below the runner-up, and needs no logarithm.
            if let Some(bar) = standings.bar().map(T::to_f64)
                && bar > 0.0
                && bar.is_finite()
                && u > 0.0
                && w as f64 * MARGIN <= bar * u
            {
                continue;
            }
            let e = T::from_f64(noise::flipped_exp(u));
            let n = match self.form {
                Form::Mul => T::ONE / e,
                Form::Div => e,
            };
            standings.enter(self.form, i, w, n)?;
        }
        standings.finish().ok_or(Error::EmptyVocab)
    }
}

impl<T: NoiseFloat> Distribution<usize> for ExpRace<'_, T> {
    /// The winning token.
    ///
    /// # Panics
    ///
    /// Under [`NanPolicy::Reject`], on a NaN score (see
    /// [`ExpRace::with_nan_policy`]).
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        match self.race(rng) {
            Ok(r) => r.winner.token,
            Err(e) => panic!("ExpRace::sample: {e}"),
        }
    }
}

/// exporace's addressed noise words as a `rand` generator: draw `k` reads the
/// Philox block at (seed, stream, row, token `k`) of [`crate::noise`], and
/// `next_u64` gives its words 0 and 1 as `w0 << 32 | w1`, the order the noise
/// transform reads them. For [`Stream::Race`] and rows below 2^32 the block is
/// Triton's `tl.randint4x(seed, row << 32 | k)`. `next_u32` is the same
/// draw's `w0`. After token 2^32 - 1 the token wraps to 0.
///
/// ```
/// use exporace::distr::NoiseRng;
/// use exporace::noise::{Stream, words};
/// use rand::Rng;
/// let mut rng = NoiseRng::new(7, Stream::Race, 3);
/// let [w0, w1, _, _] = words(7, Stream::Race, 3, 0);
/// assert_eq!(rng.next_u64(), (w0 as u64) << 32 | w1 as u64);
/// assert_eq!(rng.next_u32(), words(7, Stream::Race, 3, 1)[0]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoiseRng {
    seed: u64,
    stream: Stream,
    row: u64,
    token: u32,
}

impl NoiseRng {
    /// The generator at token 0 of (seed, stream, row).
    ///
    /// ```
    /// use exporace::distr::NoiseRng;
    /// use exporace::noise::Stream;
    /// assert_eq!(NoiseRng::new(7, Stream::Race, 3), NoiseRng::at_token(7, Stream::Race, 3, 0));
    /// ```
    pub fn new(seed: u64, stream: Stream, row: u64) -> Self {
        Self::at_token(seed, stream, row, 0)
    }

    /// The generator whose next draw is token `token` of (seed, stream, row).
    ///
    /// ```
    /// use exporace::distr::NoiseRng;
    /// use exporace::noise::Stream;
    /// use rand::Rng;
    /// let mut a = NoiseRng::new(1, Stream::Bonus, 0);
    /// a.next_u64();
    /// assert_eq!(a, NoiseRng::at_token(1, Stream::Bonus, 0, 1));
    /// ```
    pub fn at_token(seed: u64, stream: Stream, row: u64, token: u32) -> Self {
        NoiseRng {
            seed,
            stream,
            row,
            token,
        }
    }

    #[inline]
    fn draw(&mut self) -> [u32; 4] {
        let w = noise::words(self.seed, self.stream, self.row, self.token);
        self.token = self.token.wrapping_add(1);
        w
    }
}

impl TryRng for NoiseRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> core::result::Result<u32, Infallible> {
        Ok(self.draw()[0])
    }

    fn try_next_u64(&mut self) -> core::result::Result<u64, Infallible> {
        let [w0, w1, _, _] = self.draw();
        Ok((w0 as u64) << 32 | w1 as u64)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> core::result::Result<(), Infallible> {
        rand::rand_core::utils::fill_bytes_via_next_word(dst, || self.try_next_u64())
    }
}

impl SeedableRng for NoiseRng {
    /// The seed as 8 little-endian bytes.
    type Seed = [u8; 8];

    /// Token 0 of row 0 of [`Stream::Race`] under the seed.
    fn from_seed(seed: [u8; 8]) -> Self {
        Self::new(u64::from_le_bytes(seed), Stream::Race, 0)
    }

    /// Token 0 of row 0 of [`Stream::Race`] under `state`, taken as the seed
    /// itself (as exporace's seeded calls take it).
    fn seed_from_u64(state: u64) -> Self {
        Self::new(state, Stream::Race, 0)
    }
}
