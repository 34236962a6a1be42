//! Input checks shared by every public entry point. Each returns the first
//! problem it finds as a typed [`Error`] naming the tensor, index and value.

use crate::error::{Error, Position, Result, ValueProblem};
use crate::float::NoiseFloat;

/// The largest size engines index with 32-bit ids.
pub const MAX_SIZE: usize = i32::MAX as usize;

/// Values checked together by the value checks before they look for the
/// first problem one by one: blocks that run in SIMD lanes.
const LANE_BLOCK: usize = 256;

/// Checks a size against [`MAX_SIZE`].
///
/// ```
/// use exporace::{Error, validate::{MAX_SIZE, size}};
/// assert!(size("rows", MAX_SIZE).is_ok());
/// assert!(matches!(size("rows", MAX_SIZE + 1), Err(Error::TooLarge { limit: 2147483647, .. })));
/// ```
pub fn size(what: &'static str, size: usize) -> Result<()> {
    if size > MAX_SIZE {
        return Err(Error::TooLarge {
            what,
            size: size as u64,
            limit: MAX_SIZE as u64,
        });
    }
    Ok(())
}

/// `a * b` as a tensor element count, checked for overflow. A `[T, V]` matrix
/// may hold more than `i32::MAX` elements; only its dimensions are limited.
///
/// ```
/// use exporace::{Error, validate::product};
/// assert_eq!(product("q", 3, 4)?, 12);
/// assert!(matches!(product("q", usize::MAX, 2), Err(Error::TooLarge { .. })));
/// # Ok::<(), Error>(())
/// ```
pub fn product(what: &'static str, a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or(Error::TooLarge {
        what,
        size: u64::MAX,
        limit: usize::MAX as u64,
    })
}

/// Checks that `actual == expected`.
///
/// ```
/// use exporace::{Error, validate::len};
/// assert!(len("q", 3, 3).is_ok());
/// assert!(matches!(len("q", 3, 2), Err(Error::LengthMismatch { expected: 3, actual: 2, .. })));
/// ```
pub fn len(what: &'static str, expected: usize, actual: usize) -> Result<()> {
    if expected != actual {
        return Err(Error::LengthMismatch {
            what,
            expected,
            actual,
        });
    }
    Ok(())
}

/// Checks a vocabulary size: non-zero and at most [`MAX_SIZE`].
///
/// ```
/// use exporace::{Error, validate::vocab};
/// assert!(vocab(1).is_ok());
/// assert!(matches!(vocab(0), Err(Error::EmptyVocab)));
/// ```
pub fn vocab(vocab_size: usize) -> Result<()> {
    if vocab_size == 0 {
        return Err(Error::EmptyVocab);
    }
    size("vocabulary size", vocab_size)
}

/// Weights and probabilities: finite and not negative (`-0.0` is allowed).
///
/// ```
/// use exporace::{Error, ValueProblem, validate::weights};
/// assert!(weights("w", &[1.0, -0.0, 0.0], 0).is_ok());
/// let bad = weights("w", &[1.0, -1.0], 0);
/// assert!(matches!(bad, Err(Error::BadValue { at, problem: ValueProblem::Negative, .. }) if at.index == 1));
/// ```
pub fn weights(tensor: &'static str, values: &[f32], row_len: usize) -> Result<()> {
    // All of them checked in lanes first (no exit per value); the loop below
    // finds the first problem.
    let clean = values.chunks(LANE_BLOCK).all(|c| {
        c.iter()
            .fold(true, |ok, &v| ok & (0.0..f32::INFINITY).contains(&v))
    });
    if clean {
        return Ok(());
    }
    for (index, &v) in values.iter().enumerate() {
        let problem = if v.is_nan() {
            ValueProblem::Nan
        } else if v.is_infinite() {
            ValueProblem::Infinite
        } else if v < 0.0 {
            ValueProblem::Negative
        } else {
            continue;
        };
        return Err(Error::BadValue {
            tensor,
            at: Position { index, row_len },
            value: v as f64,
            problem,
        });
    }
    Ok(())
}

/// Noise (`q` or `inv_q`): never negative, and never `-0.0` (which `w / q`
/// turns into `-inf` where `+0` gives `+inf`). `+inf` (from `q = 0`) and NaN
/// are legal here; what a NaN score does is the race's [`crate::NanPolicy`].
///
/// ```
/// use exporace::{Error, ValueProblem, validate::noise};
/// assert!(noise("inv_q", &[f32::INFINITY, f32::NAN, 0.0], 0).is_ok());
/// assert!(matches!(noise("inv_q", &[-1.0f64], 0), Err(Error::BadValue { problem: ValueProblem::Negative, .. })));
/// assert!(matches!(noise("q", &[1.0, -0.0f32], 0), Err(Error::BadValue { problem: ValueProblem::NegativeZero, .. })));
/// ```
pub fn noise<T: NoiseFloat>(tensor: &'static str, values: &[T], row_len: usize) -> Result<()> {
    let clean = values.chunks(LANE_BLOCK).all(|c| {
        c.iter()
            .fold(true, |ok, &v| ok & (!v.is_sign_negative() | v.is_nan()))
    });
    if clean {
        return Ok(());
    }
    for (index, &v) in values.iter().enumerate() {
        // NaN carries a sign bit too, and is legal whatever its sign.
        if v.is_sign_negative() && !v.is_nan() {
            return Err(Error::BadValue {
                tensor,
                at: Position { index, row_len },
                value: v.to_f64(),
                problem: if v == T::ZERO {
                    ValueProblem::NegativeZero
                } else {
                    ValueProblem::Negative
                },
            });
        }
    }
    Ok(())
}

/// Uniforms: inside the closed interval [0, 1], NaN excluded.
///
/// ```
/// use exporace::{Error, ValueProblem, validate::uniforms};
/// assert!(uniforms("u", &[0.0, 1.0]).is_ok());
/// assert!(matches!(uniforms("u", &[1.5]), Err(Error::BadValue { problem: ValueProblem::OutsideUnitInterval, .. })));
/// assert!(matches!(uniforms("u", &[f64::NAN]), Err(Error::BadValue { problem: ValueProblem::Nan, .. })));
/// ```
pub fn uniforms(tensor: &'static str, values: &[f64]) -> Result<()> {
    for (index, &v) in values.iter().enumerate() {
        if !(0.0..=1.0).contains(&v) {
            return Err(Error::BadValue {
                tensor,
                at: Position { index, row_len: 0 },
                value: v,
                problem: if v.is_nan() {
                    ValueProblem::Nan
                } else {
                    ValueProblem::OutsideUnitInterval
                },
            });
        }
    }
    Ok(())
}

/// A token id in [0, V).
///
/// ```
/// use exporace::{Error, validate::token};
/// assert_eq!(token("ids", 0, 3, 4)?, 3);
/// assert!(matches!(token("ids", 0, 4, 4), Err(Error::TokenOutOfRange { id: 4, .. })));
/// assert!(matches!(token("ids", 0, -1, 4), Err(Error::TokenOutOfRange { id: -1, .. })));
/// # Ok::<(), Error>(())
/// ```
pub fn token(tensor: &'static str, index: usize, id: i64, vocab_size: usize) -> Result<usize> {
    if id < 0 || id as u64 >= vocab_size as u64 {
        return Err(Error::TokenOutOfRange {
            tensor,
            index,
            id,
            vocab_size,
        });
    }
    Ok(id as usize)
}
