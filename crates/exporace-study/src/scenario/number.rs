//! Numbers in scenario JSON.
//!
//! JSON has no NaN or infinity and no way to say "these exact bits", so a number
//! may be written as a JSON number or as a string: `"inf"`, `"-inf"`, `"nan"`,
//! a decimal (`"0.1"`, parsed straight into the tensor's type), or raw IEEE bits
//! (`"0x3f800000"` for f32, `"0x3ff0000000000000"` for f64). JSON numbers are
//! read as f64 (correctly rounded) and then rounded to the tensor's type.
//! On output, finite values are JSON numbers (shortest round-trip form in
//! their own type) and non-finite values are the strings above.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize, Serializer};

use exporace::NoiseFloat;
use exporace::{Error, Result};

/// A number as written in a scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Num {
    /// A JSON number.
    Number(f64),
    /// A string: `inf`, `-inf`, `nan`, a decimal, or `0x` + 8 or 16 hex digits.
    Text(String),
}

/// Reads a JSON number or a string straight from the reader (an untagged
/// enum would first copy each value aside to try the variants in turn).
impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        struct NumVisitor;
        impl serde::de::Visitor<'_> for NumVisitor {
            type Value = Num;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a number, or a string: inf, -inf, nan, a decimal or 0x bits")
            }
            fn visit_f64<E>(self, v: f64) -> core::result::Result<Num, E> {
                Ok(Num::Number(v))
            }
            fn visit_u64<E>(self, v: u64) -> core::result::Result<Num, E> {
                Ok(Num::Number(v as f64))
            }
            fn visit_i64<E>(self, v: i64) -> core::result::Result<Num, E> {
                Ok(Num::Number(v as f64))
            }
            fn visit_str<E>(self, v: &str) -> core::result::Result<Num, E> {
                Ok(Num::Text(v.to_string()))
            }
        }
        d.deserialize_any(NumVisitor)
    }
}

fn bad(what: &str, index: usize, text: &str, why: &str) -> Error {
    Error::Scenario(format!("{what}[{index}] = {text:?}: {why}"))
}

impl Num {
    /// The value in type `T`; `what` and `index` name it in errors.
    pub fn to_float<T: NoiseFloat>(&self, what: &str, index: usize) -> Result<T> {
        let text = match self {
            Num::Number(x) => return Ok(T::from_f64(*x)),
            Num::Text(s) => s.trim(),
        };
        match text.to_ascii_lowercase().as_str() {
            "inf" | "+inf" | "infinity" => return Ok(T::INFINITY),
            "-inf" | "-infinity" => return Ok(-T::INFINITY),
            "nan" => return Ok(T::NAN),
            _ => {}
        }
        if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            let bits = u64::from_str_radix(hex, 16)
                .map_err(|_| bad(what, index, text, "not a hex bit pattern"))?;
            return match (hex.len(), T::BITS) {
                (8, 32) | (16, 64) => Ok(T::from_bits(bits)),
                (8, 64) => Ok(T::from_f32(f32::from_bits(bits as u32))),
                (16, 32) => Err(bad(
                    what,
                    index,
                    text,
                    "f64 bits given for an f32 tensor; give 8 hex digits",
                )),
                _ => Err(bad(
                    what,
                    index,
                    text,
                    "bit patterns have 8 (f32) or 16 (f64) hex digits",
                )),
            };
        }
        if T::BITS == 32 {
            text.parse::<f32>().map(T::from_f32)
        } else {
            text.parse::<f64>().map(T::from_f64)
        }
        .map_err(|_| {
            bad(
                what,
                index,
                text,
                "not a number (use a number, \"inf\", \"nan\" or \"0x...\" bits)",
            )
        })
    }
}

/// Converts a list of numbers to `T`.
pub fn floats<T: NoiseFloat>(what: &str, values: &[Num]) -> Result<Vec<T>> {
    values
        .iter()
        .enumerate()
        .map(|(i, n)| n.to_float(what, i))
        .collect()
}

/// A seed as written: a JSON integer, or a string (decimal or `0x` hex) for
/// 64-bit seeds that JavaScript numbers cannot hold exactly. A negative or
/// fractional number (`-1`, `-0.0`, `1.5`) is refused, naming the value.
///
/// ```
/// use exporace_study::scenario::SeedIn;
/// assert_eq!(serde_json::from_str::<SeedIn>("7")?, SeedIn::Int(7));
/// let e = serde_json::from_str::<SeedIn>("-0.0").unwrap_err();
/// assert!(e.to_string().contains("a seed is an integer in [0, 2^64)"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SeedIn {
    /// A JSON integer.
    Int(u64),
    /// A decimal or `0x` hex string.
    Text(String),
}

/// Reads a JSON integer or a string, and names what else was given.
impl<'de> Deserialize<'de> for SeedIn {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        struct SeedVisitor;
        impl serde::de::Visitor<'_> for SeedVisitor {
            type Value = SeedIn;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a seed: an integer in [0, 2^64), or a decimal or 0x string")
            }
            fn visit_u64<E>(self, v: u64) -> core::result::Result<SeedIn, E> {
                Ok(SeedIn::Int(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> core::result::Result<SeedIn, E> {
                u64::try_from(v)
                    .map(SeedIn::Int)
                    .map_err(|_| E::custom(format!("a seed is an integer in [0, 2^64); got {v}")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> core::result::Result<SeedIn, E> {
                Err(E::custom(format!(
                    "a seed is an integer in [0, 2^64) written without a fraction or exponent; got {v:?}"
                )))
            }
            fn visit_str<E>(self, v: &str) -> core::result::Result<SeedIn, E> {
                Ok(SeedIn::Text(v.to_string()))
            }
        }
        d.deserialize_any(SeedVisitor)
    }
}

impl SeedIn {
    /// The seed's value.
    pub fn value(&self) -> Result<u64> {
        match self {
            SeedIn::Int(s) => Ok(*s),
            SeedIn::Text(t) => {
                let t = t.trim();
                match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => t.parse::<u64>(),
                }
                .map_err(|_| {
                    Error::Scenario(format!("seed {t:?} is not an unsigned 64-bit integer"))
                })
            }
        }
    }
}

/// Serializes a noise-type value: a number in its own type's shortest form, or
/// `"inf"`, `"-inf"`, `"nan"`.
pub fn ser_float<T: NoiseFloat, S: Serializer>(
    x: &T,
    s: S,
) -> core::result::Result<S::Ok, S::Error> {
    let x = *x;
    if x.is_nan() {
        s.serialize_str("nan")
    } else if x.is_infinite() {
        s.serialize_str(if x.is_sign_negative() { "-inf" } else { "inf" })
    } else if T::BITS == 32 {
        s.serialize_f32(f32::from_bits(x.to_bits() as u32))
    } else {
        s.serialize_f64(x.to_f64())
    }
}

/// The IEEE bits of `x` as `0x` + 8 or 16 hex digits.
pub fn bits_hex<T: NoiseFloat>(x: T) -> String {
    if T::BITS == 32 {
        format!("0x{:08x}", x.to_bits())
    } else {
        format!("0x{:016x}", x.to_bits())
    }
}

/// The seed as a string, exact for JavaScript readers.
pub fn seed_text(seed: u64) -> String {
    seed.to_string()
}

/// A float of either precision, serialized in its own precision (shortest
/// round-trip number, or `"inf"` / `"nan"`), for answers whose precision is
/// chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnyFloat {
    /// The value, widened exactly.
    pub value: f64,
    /// The precision it was computed in.
    pub precision: exporace::Precision,
}

impl AnyFloat {
    /// Wraps a noise-type value.
    pub fn of<T: NoiseFloat>(x: T) -> Self {
        AnyFloat {
            value: x.to_f64(),
            precision: T::PRECISION,
        }
    }

    /// The IEEE bits in the value's own precision, as hex.
    pub fn bits(&self) -> String {
        match self.precision {
            exporace::Precision::F32 => bits_hex(self.value as f32),
            exporace::Precision::F64 => bits_hex(self.value),
        }
    }
}

impl Serialize for AnyFloat {
    fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        match self.precision {
            exporace::Precision::F32 => ser_float(&(self.value as f32), s),
            exporace::Precision::F64 => ser_float(&self.value, s),
        }
    }
}
