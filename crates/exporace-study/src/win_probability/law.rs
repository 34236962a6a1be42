//! The exact law of a model's `Q = inv_q`, by search over raw integers.

use crate::models::NoiseModel;
use exporace::NoiseFloat;

/// The exact law of a model's `Q = inv_q`, by search over raw integers.
pub(super) struct Law<'m, M> {
    pub(super) model: &'m M,
    /// Number of raw integers.
    pub(super) n: u128,
    pub(super) max: u64,
    /// Whether Q is non-increasing in raw (else non-decreasing).
    pub(super) forward: bool,
    /// The first step of a search from a guess: about the number of raw
    /// integers that round to one uniform near 1 (`n` over 2 to the noise
    /// type's mantissa digits), at least 1.
    pub(super) step: u128,
}

impl<'m, M: NoiseModel> Law<'m, M> {
    pub(super) fn new(model: &'m M) -> Self {
        let max = model.raw_max();
        let q = |raw| model.transform(raw).inv_q().to_f64();
        let n = max as u128 + 1;
        Law {
            model,
            n,
            max,
            forward: q(0) >= q(max),
            step: (n >> <M::Float as NoiseFloat>::MANTISSA_DIGITS).max(1),
        }
    }

    /// Q at position `i` of the order in which Q does not increase.
    pub(super) fn q_at(&self, i: u128) -> f64 {
        let i = i.min(self.max as u128) as u64;
        let raw = if self.forward { i } else { self.max - i };
        self.model.transform(raw).inv_q().to_f64()
    }

    /// The positions of the lattice cell ([`NoiseModel::cell`]) holding
    /// position `i`: Q is the same on all of them.
    pub(super) fn cell_at(&self, i: u128) -> (u128, u128) {
        let i = i.min(self.max as u128) as u64;
        let raw = if self.forward { i } else { self.max - i };
        let (a, b) = self.model.cell(raw);
        if self.forward {
            (a as u128, b as u128)
        } else {
            ((self.max - b) as u128, (self.max - a) as u128)
        }
    }

    /// [`Law::first`], stepping over the whole cell of each position it
    /// evaluates.
    pub(super) fn first_by_cells(
        &self,
        mut lo: u128,
        mut hi: u128,
        stop: impl Fn(f64) -> bool,
    ) -> u128 {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (a, b) = self.cell_at(mid);
            if stop(self.q_at(mid)) {
                hi = a.max(lo);
            } else {
                lo = (b + 1).min(hi);
            }
        }
        lo
    }

    /// The first position in `[lo, hi)` where `stop` holds (monotone), or `hi`.
    pub(super) fn first(&self, mut lo: u128, mut hi: u128, stop: impl Fn(f64) -> bool) -> u128 {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if stop(self.q_at(mid)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// [`Law::first`], searched outwards from `guess`: steps double from
    /// [`Law::step`] until they pass the answer, which is then bisected over
    /// lattice cells ([`Law::first_by_cells`]). The
    /// answer is the same for any guess; a guess within a step of it costs
    /// about `2 + log2(step)` transforms instead of `log2(hi - lo)`.
    pub(super) fn search(
        &self,
        lo: u128,
        hi: u128,
        guess: u128,
        stop: impl Fn(f64) -> bool,
    ) -> u128 {
        self.search_by(lo, hi, guess, self.step, stop)
    }

    /// [`Law::search`] with a first step of its own.
    pub(super) fn search_by(
        &self,
        lo: u128,
        hi: u128,
        guess: u128,
        mut step: u128,
        stop: impl Fn(f64) -> bool,
    ) -> u128 {
        if lo >= hi {
            return lo;
        }
        let g = guess.clamp(lo, hi - 1);
        if stop(self.q_at(g)) {
            // The answer is in [lo, g]; `stop` holds at `right`.
            let mut right = g;
            while right > lo {
                let probe = right.saturating_sub(step).max(lo);
                if !stop(self.q_at(probe)) {
                    return self.first_by_cells(probe + 1, right, &stop);
                }
                right = probe;
                step *= 2;
            }
            lo
        } else {
            // The answer is in (g, hi]; `stop` fails at `left`.
            let mut left = g;
            loop {
                let probe = left + step;
                if probe >= hi {
                    return self.first_by_cells(left + 1, hi, &stop);
                }
                if stop(self.q_at(probe)) {
                    return self.first_by_cells(left + 1, probe, &stop);
                }
                left = probe;
                step *= 2;
            }
        }
    }

    /// Where `#{Q >= y}` would be if Q were exactly `1 / E` with E ~ Exp(1):
    /// `n P(E <= 1 / y)`. Every model's E is Exp(1) up to its lattice, so
    /// searches start here.
    pub(super) fn guess(&self, y: f64) -> u128 {
        if y <= 0.0 {
            return self.n;
        }
        (-libm::expm1(-1.0 / y) * self.n as f64) as u128
    }

    /// `#{Q >= y}` and `#{Q > y}`, both known to lie in `[lo, hi]`; the
    /// first is searched from `guess`, the second from just below the first
    /// (they are equal unless `y` is an atom of Q's law).
    pub(super) fn counts(&self, y: f64, lo: u128, hi: u128, guess: u128) -> [u128; 2] {
        let ge = self.search(lo, hi, guess, |q| q < y);
        let gt = self.search(lo, ge, ge.saturating_sub(1), |q| q <= y);
        [ge, gt]
    }

    /// `ln((n - c) / n)`: the log of `P(Q < y)` from `c = #{Q >= y}`, or of
    /// `P(Q <= y)` from `c = #{Q > y}`.
    pub(super) fn ln_frac(&self, c: u128) -> f64 {
        self.ln_ratio(0, c)
    }

    /// `ln((n - big) / (n - small))` for counts `small <= big`.
    pub(super) fn ln_ratio(&self, small: u128, big: u128) -> f64 {
        let denom = self.n.saturating_sub(small);
        let d = big.saturating_sub(small);
        if denom == 0 || d == 0 {
            0.0
        } else if d >= denom {
            f64::NEG_INFINITY
        } else if 2 * d <= denom {
            libm::log1p(-(d as f64) / denom as f64)
        } else {
            libm::log((denom - d) as f64 / denom as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Law;
    use crate::models::{NoiseModel, TritonFlipped, U64Classic, U64Flipped};

    /// A search from any guess, with any first step, lands where plain
    /// bisection does: on atoms (where `>=` and `>` differ) and between them.
    fn search_equals_bisection<M: NoiseModel>(model: &M) {
        let law = Law::new(model);
        let n = law.n;
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for k in 0..400 {
            // Ranges anywhere, from single positions to the whole lattice.
            let a = next() as u128 % n;
            let b = next() as u128 % n;
            let (lo, hi) = if k % 4 == 0 {
                (0, n)
            } else {
                (a.min(b), a.max(b) + 1)
            };
            // Thresholds: atoms of the law (some just outside the range)
            // and values between atoms.
            let at = lo + next() as u128 % (hi - lo);
            let y = match k % 3 {
                0 => law.q_at(at),
                1 => law.q_at(at) * (1.0 + 1e-9),
                _ => law.q_at(at.saturating_sub(1)).next_down(),
            };
            let want_ge = law.first(lo, hi, |q| q < y);
            let want_gt = law.first(lo, want_ge, |q| q <= y);
            for guess in [lo, hi, at, next() as u128 % n, law.guess(y)] {
                assert_eq!(law.counts(y, lo, hi, guess), [want_ge, want_gt], "{k}");
                for step in [1, 7, 1 << 20, law.n] {
                    let got = law.search_by(lo, hi, guess, step, |q| q < y);
                    assert_eq!(got, want_ge, "{k} {guess} {step}");
                }
            }
        }
    }

    #[test]
    fn searches_from_a_guess_equal_bisection() {
        search_equals_bisection(&U64Classic::<f64>::new());
        search_equals_bisection(&U64Flipped::<f32>::new());
        search_equals_bisection(&TritonFlipped::<f32>::new());
    }
}
