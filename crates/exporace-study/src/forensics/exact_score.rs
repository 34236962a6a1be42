//! Exact comparison of race scores: `w * n` and `w / q` compared without
//! rounding, through error-free products (`fma`, from libm, the same on
//! every target). An f32 weight times an f64 noise value needs 77 bits; a
//! double-double holds it exactly.

use core::cmp::Ordering;

use exporace::Form;
use exporace::NanPolicy;

/// A score known exactly: NaN, +inf, or a non-negative ratio `num / den`
/// with `num` held as an exact double-double product.
///
/// No example: a value type; [`ExactScore::new`] and [`ExactScore::cmp_non_nan`] show it in use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ExactScore {
    /// `0 * inf` or `0 / 0`, or NaN noise.
    Nan,
    /// `w * inf` or `w / 0` with `w > 0`.
    Infinite,
    /// `w * n` (den = 1) or `w / q`.
    Finite {
        /// The weight.
        w: f64,
        /// The multiplier: `inv_q`, or 1 for division.
        n: f64,
        /// The divisor: `q`, or 1 for multiplication.
        d: f64,
    },
}

/// The exact product `a * b` as `(hi, lo)` with `hi + lo = a * b` (finite inputs).
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let hi = a * b;
    if !hi.is_finite() {
        return (hi, 0.0);
    }
    (hi, libm::fma(a, b, -hi))
}

/// Compares two double-doubles `(hi, lo)`.
fn cmp_dd(a: (f64, f64), b: (f64, f64)) -> Ordering {
    a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1))
}

impl ExactScore {
    /// The exact score of weight `w` against noise `noise` in `form`.
    ///
    /// ```
    /// use exporace::Form;
    /// use exporace_study::forensics::exact_score::ExactScore;
    /// assert_eq!(ExactScore::new(Form::Mul, 0.0, f64::INFINITY), ExactScore::Nan);
    /// assert_eq!(ExactScore::new(Form::Div, 2.0, 0.0), ExactScore::Infinite);
    /// assert_eq!(ExactScore::new(Form::Div, 2.0, 4.0), ExactScore::Finite { w: 2.0, n: 1.0, d: 4.0 });
    /// ```
    pub fn new(form: Form, w: f32, noise: f64) -> Self {
        let w = w as f64;
        if noise.is_nan() {
            return ExactScore::Nan;
        }
        match form {
            Form::Mul if noise.is_infinite() => {
                if w == 0.0 {
                    ExactScore::Nan
                } else {
                    ExactScore::Infinite
                }
            }
            Form::Div if noise == 0.0 => {
                if w == 0.0 {
                    ExactScore::Nan
                } else {
                    ExactScore::Infinite
                }
            }
            Form::Div if noise.is_infinite() => ExactScore::Finite {
                w: 0.0,
                n: 1.0,
                d: 1.0,
            },
            Form::Mul => ExactScore::Finite {
                w,
                n: noise,
                d: 1.0,
            },
            Form::Div => ExactScore::Finite {
                w,
                n: 1.0,
                d: noise,
            },
        }
    }

    /// Exact order of two non-NaN scores: `w1 n1 / d1` against `w2 n2 / d2`,
    /// by cross-multiplication `(w1 n1) d2` against `(w2 n2) d1`.
    ///
    /// `(1 + 2^-23)(1 + 2^-30)` exceeds `1 + 2^-23 + 2^-30` by `2^-53`, which f64
    /// rounds away:
    ///
    /// ```
    /// use core::cmp::Ordering;
    /// use exporace::Form;
    /// use exporace_study::forensics::exact_score::ExactScore;
    /// let (a, b) = (1.0 + 2f64.powi(-30), 1.0 + 2f64.powi(-23) + 2f64.powi(-30));
    /// assert_eq!((1.0 + f32::EPSILON) as f64 * a, b);
    /// let s = ExactScore::new(Form::Mul, 1.0 + f32::EPSILON, a);
    /// assert_eq!(s.cmp_non_nan(&ExactScore::new(Form::Mul, 1.0, b)), Ordering::Greater);
    /// ```
    pub fn cmp_non_nan(&self, other: &Self) -> Ordering {
        match (self, other) {
            (ExactScore::Infinite, ExactScore::Infinite) => Ordering::Equal,
            (ExactScore::Infinite, _) => Ordering::Greater,
            (_, ExactScore::Infinite) => Ordering::Less,
            (
                ExactScore::Finite {
                    w: w1,
                    n: n1,
                    d: d1,
                },
                ExactScore::Finite {
                    w: w2,
                    n: n2,
                    d: d2,
                },
            ) => {
                // One of n, d is 1 on each side, so each product has at most
                // three factors with one of them 1: two exact products suffice.
                let (a, b) = if *d2 == 1.0 {
                    (*w1, *n1)
                } else {
                    (*w1 * *n1, *d2)
                };
                let (c, d) = if *d1 == 1.0 {
                    (*w2, *n2)
                } else {
                    (*w2 * *n2, *d1)
                };
                // Rounding is monotonic: rounded products that differ order
                // the exact ones, and only a tie needs the low parts.
                match (a * b).total_cmp(&(c * d)) {
                    Ordering::Equal => cmp_dd(two_prod(a, b), two_prod(c, d)),
                    order => order,
                }
            }
            _ => Ordering::Equal,
        }
    }

    /// True for NaN.
    ///
    /// ```
    /// use exporace::Form;
    /// use exporace_study::forensics::exact_score::ExactScore;
    /// assert!(ExactScore::new(Form::Div, 0.0, 0.0).is_nan());
    /// assert!(!ExactScore::new(Form::Div, 1.0, 0.0).is_nan());
    /// ```
    pub fn is_nan(&self) -> bool {
        matches!(self, ExactScore::Nan)
    }

    /// `ln` of the score in f64 (approximate; for ranking how close two are).
    ///
    /// ```
    /// use exporace::Form;
    /// use exporace_study::forensics::exact_score::ExactScore;
    /// assert_eq!(ExactScore::new(Form::Div, 1.0, 1.0).ln(), 0.0);
    /// assert_eq!(ExactScore::new(Form::Mul, 1.0, f64::INFINITY).ln(), f64::INFINITY);
    /// ```
    pub fn ln(&self) -> f64 {
        match self {
            ExactScore::Nan => f64::NAN,
            ExactScore::Infinite => f64::INFINITY,
            ExactScore::Finite { w, n, d } => libm::log(*w) + libm::log(*n) - libm::log(*d),
        }
    }
}

/// Whether `challenger` (at a later index) takes the lead from `leader`
/// under `policy`, with exact comparison.
///
/// ```
/// use exporace::{Form, NanPolicy};
/// use exporace_study::forensics::exact_score::{ExactScore, beats};
/// let (nan, one) = (ExactScore::Nan, ExactScore::new(Form::Mul, 1.0, 1.0));
/// assert!(beats(NanPolicy::FirstNanWins, &nan, &one));
/// assert!(!beats(NanPolicy::NanNeverWins, &nan, &one));
/// assert!(!beats(NanPolicy::FirstNanWins, &one, &one)); // a tie keeps the leader
/// ```
pub fn beats(policy: NanPolicy, challenger: &ExactScore, leader: &ExactScore) -> bool {
    match (challenger.is_nan(), leader.is_nan()) {
        (_, true) => policy != NanPolicy::FirstNanWins && !challenger.is_nan(),
        (true, false) => policy == NanPolicy::FirstNanWins,
        (false, false) => challenger.cmp_non_nan(leader) == Ordering::Greater,
    }
}

/// The exact winner of a race (ties to the smallest id). `weights` and
/// `noise` must have the same non-zero length.
///
/// The two scores round to the same f64 (see [`ExactScore::cmp_non_nan`]);
/// exactly, token 1's is larger by `2^-53`:
///
/// ```
/// use exporace::{Form, NanPolicy};
/// use exporace_study::forensics::exact_score::exact_argmax;
/// let noise = [1.0 + 2f64.powi(-23) + 2f64.powi(-30), 1.0 + 2f64.powi(-30)];
/// assert_eq!(exact_argmax(Form::Mul, &[1.0, 1.0 + f32::EPSILON], &noise, NanPolicy::FirstNanWins), 1);
/// ```
pub fn exact_argmax(form: Form, weights: &[f32], noise: &[f64], policy: NanPolicy) -> usize {
    let finite = weights.iter().all(|w| w.is_finite()) && noise.iter().all(|n| n.is_finite());
    if form == Form::Mul && finite {
        // No score is NaN or infinite, and rounding is monotonic: only a
        // tie of the rounded products needs the exact comparison.
        let mut best = 0;
        let mut top = weights[0] as f64 * noise[0];
        for i in 1..weights.len() {
            let s = weights[i] as f64 * noise[i];
            if s > top
                || (s == top
                    && product_less(
                        weights[best] as f64,
                        noise[best],
                        weights[i] as f64,
                        noise[i],
                    ))
            {
                best = i;
                top = s;
            }
        }
        return best;
    }
    let mut best = 0;
    let mut best_score = ExactScore::new(form, weights[0], noise[0]);
    for i in 1..weights.len() {
        let s = ExactScore::new(form, weights[i], noise[i]);
        if beats(policy, &s, &best_score) {
            best = i;
            best_score = s;
        }
    }
    best
}

/// Exact `a * ea < b * eb` for non-negative finite f64 values.
///
/// ```
/// use exporace_study::forensics::exact_score::product_less;
/// let (a, b) = (1.0 + 2f64.powi(-23) + 2f64.powi(-30), 1.0 + 2f64.powi(-23));
/// let c = 1.0 + 2f64.powi(-30);
/// assert_eq!(1.0 * a, b * c); // rounded, the products tie
/// assert!(product_less(1.0, a, b, c)); // exactly, b c = a + 2^-53
/// ```
#[inline]
pub fn product_less(a: f64, ea: f64, b: f64, eb: f64) -> bool {
    // Rounding is monotonic: rounded products that differ order the exact
    // ones, and only a tie needs the products' low parts.
    match (a * ea).total_cmp(&(b * eb)) {
        Ordering::Equal => cmp_dd(two_prod(a, ea), two_prod(b, eb)) == Ordering::Less,
        order => order == Ordering::Less,
    }
}
