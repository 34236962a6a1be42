//! The lattice cell of a raw integer where a recipe's uniform is a
//! non-decreasing function of it that merges neighbours irregularly (a
//! conversion to f32 that rounds, a sum of two words): found by bisection.

/// The interval `[a, b]` of raw integers in `[0, max]` holding `raw` on which
/// `key` equals `key(raw)`, for `key` non-decreasing in the raw integer.
///
/// No example: crate-internal; the JAX and MLX models' `cell` show it.
pub(crate) fn cell_of<K: PartialOrd>(raw: u64, max: u64, key: impl Fn(u64) -> K) -> (u64, u64) {
    let at = key(raw);
    // The first integer whose key is not below raw's.
    let (mut lo, mut hi) = (0, raw);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if key(mid) < at {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let first = lo;
    // The last integer whose key is not above raw's.
    let (mut lo, mut hi) = (raw, max);
    while lo < hi {
        let mid = hi - (hi - lo) / 2;
        if key(mid) > at {
            hi = mid - 1;
        } else {
            lo = mid;
        }
    }
    (first, lo)
}

#[cfg(test)]
mod tests {
    use super::cell_of;

    #[test]
    fn cells_of_a_rounding_conversion() {
        // Integers to f32 above 2^24 merge in runs that ties-to-even splits
        // unevenly: 2^24 + 1 rounds down to 2^24, 2^24 + 3 up to 2^24 + 4.
        let key = |r: u64| ((1u64 << 24) + r) as f32;
        assert_eq!(cell_of(0, 100, key), (0, 1));
        assert_eq!(cell_of(1, 100, key), (0, 1));
        assert_eq!(cell_of(2, 100, key), (2, 2));
        assert_eq!(cell_of(3, 100, key), (3, 5));
        assert_eq!(cell_of(100, 100, key), (99, 100));
    }
}
