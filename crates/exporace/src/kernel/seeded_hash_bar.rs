//! The best score any chunk of a hashed race has reached, shared by its
//! chunks so that a chunk filters with the best score found so far.

use core::sync::atomic::{AtomicU64, Ordering};

/// The best finite score of a race's chunks so far. Any token's score is a
/// bar for every other chunk: a token that scores below it is not the
/// row's first maximum, wherever the token that set it stands.
pub(crate) struct SharedScore(AtomicU64);

/// The bits of a finite f64 as an integer of the same order (negative
/// values complemented, the others with the sign bit set); above 0 for
/// every finite value.
fn key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 { !b } else { b | 1 << 63 }
}

/// The f64 of a [`key`].
fn value(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

impl SharedScore {
    /// No score yet.
    pub(crate) const fn new() -> Self {
        SharedScore(AtomicU64::new(0))
    }

    /// Enters a chunk's best score (`None` for none yet), and returns the
    /// best finite score to filter with: the higher of it and the shared
    /// one; `None` when neither is finite. Only finite scores are shared.
    #[inline]
    pub(crate) fn raise(&self, local: Option<f64>) -> Option<f64> {
        let local = local.filter(|s| s.is_finite());
        let before = match local {
            Some(s) => self.0.fetch_max(key(s), Ordering::Relaxed),
            None => self.0.load(Ordering::Relaxed),
        };
        let shared = (before != 0).then(|| value(before));
        match (local, shared) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys order finite values as the values, -0.0 just below +0.0,
    /// and the shared score is the largest entered.
    #[test]
    fn keys_keep_the_order() {
        let xs = [
            f64::MIN,
            -1e300,
            -1.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::from_bits(1),
            2.0,
            f64::MAX,
        ];
        for w in xs.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} {}", w[0], w[1]);
        }
        for x in xs {
            assert_eq!(value(key(x)).to_bits(), x.to_bits());
        }
        let s = SharedScore::new();
        assert_eq!(s.raise(None), None);
        assert_eq!(s.raise(Some(f64::NAN)), None);
        assert_eq!(s.raise(Some(-3.0)), Some(-3.0));
        assert_eq!(s.raise(Some(-7.0)), Some(-3.0));
        assert_eq!(s.raise(Some(f64::INFINITY)), Some(-3.0));
        assert_eq!(s.raise(Some(2.0)), Some(2.0));
        assert_eq!(s.raise(None), Some(2.0));
    }
}
