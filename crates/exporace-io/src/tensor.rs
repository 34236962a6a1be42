//! An owned tensor in one of the six element types a dump may hold, and the
//! conversions each input of exporace accepts.

use core::fmt;

use half::{bf16, f16};

use crate::error::{IoError, Result};

/// The largest element count accepted in one tensor: engines index with
/// 32-bit ids, so a `2^31`-element tensor is refused before it is read.
pub const MAX_ELEMENTS: u64 = i32::MAX as u64;

/// An element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// IEEE half precision.
    F16,
    /// bfloat16 (stored in `.npy` as `<V2`, as NumPy writes `ml_dtypes.bfloat16`).
    BF16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
    /// 32-bit signed integer.
    I32,
    /// 64-bit signed integer.
    I64,
}

impl DType {
    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            DType::F16 | DType::BF16 => 2,
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 => 8,
        }
    }

    /// The lower-case name (`f16`, `bf16`, `f32`, `f64`, `i32`, `i64`).
    pub const fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I32 => "i32",
            DType::I64 => "i64",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The elements of a tensor, row-major (C order).
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// Half precision values.
    F16(Vec<f16>),
    /// bfloat16 values.
    BF16(Vec<bf16>),
    /// Single precision values.
    F32(Vec<f32>),
    /// Double precision values.
    F64(Vec<f64>),
    /// 32-bit integers.
    I32(Vec<i32>),
    /// 64-bit integers.
    I64(Vec<i64>),
}

impl Data {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Data::F16(_) => DType::F16,
            Data::BF16(_) => DType::BF16,
            Data::F32(_) => DType::F32,
            Data::F64(_) => DType::F64,
            Data::I32(_) => DType::I32,
            Data::I64(_) => DType::I64,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Data::F16(v) => v.len(),
            Data::BF16(v) => v.len(),
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::I64(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements as little-endian bytes.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Data::F16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::BF16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    /// Elements of type `dtype` from little-endian bytes; `bytes.len()` must
    /// be a multiple of the element size (the readers check it first).
    pub(crate) fn from_le_bytes(dtype: DType, bytes: &[u8]) -> Data {
        fn chunks<const N: usize, T>(bytes: &[u8], f: fn([u8; N]) -> T) -> Vec<T> {
            bytes
                .chunks_exact(N)
                .map(|c| {
                    let mut a = [0u8; N];
                    a.copy_from_slice(c);
                    f(a)
                })
                .collect()
        }
        match dtype {
            DType::F16 => Data::F16(chunks(bytes, f16::from_le_bytes)),
            DType::BF16 => Data::BF16(chunks(bytes, bf16::from_le_bytes)),
            DType::F32 => Data::F32(chunks(bytes, f32::from_le_bytes)),
            DType::F64 => Data::F64(chunks(bytes, f64::from_le_bytes)),
            DType::I32 => Data::I32(chunks(bytes, i32::from_le_bytes)),
            DType::I64 => Data::I64(chunks(bytes, i64::from_le_bytes)),
        }
    }
}

/// A named role's view of a tensor: its shape and its elements.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// The shape; the product of its dimensions is the element count.
    pub shape: Vec<usize>,
    /// The elements, row-major.
    pub data: Data,
}

impl Tensor {
    /// A tensor of `shape` holding `data`; the element count must match the
    /// shape and stay within [`MAX_ELEMENTS`].
    pub fn new(name: &str, shape: Vec<usize>, data: Data) -> Result<Tensor> {
        let elements = element_count(name, shape.iter().map(|&d| d as u64))?;
        if elements != data.len() as u64 {
            return Err(IoError::ShapeMismatch {
                name: name.to_string(),
                found: shape.iter().map(|&d| d as u64).collect(),
                expected: format!("{} elements", data.len()),
            });
        }
        Ok(Tensor { shape, data })
    }

    /// A one-dimensional tensor.
    pub fn vector(data: Data) -> Tensor {
        Tensor {
            shape: vec![data.len()],
            data,
        }
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    fn wrong(&self, name: &str, expected: &'static str) -> IoError {
        IoError::WrongDtype {
            name: name.to_string(),
            found: self.dtype().to_string(),
            expected,
        }
    }

    /// Probabilities as f32: f32 as is, f16 and bf16 widened exactly.
    pub fn probs_f32(&self, name: &str) -> Result<Vec<f32>> {
        match &self.data {
            Data::F32(v) => Ok(v.clone()),
            Data::F16(v) => Ok(v.iter().map(|x| x.to_f32()).collect()),
            Data::BF16(v) => Ok(v.iter().map(|x| x.to_f32()).collect()),
            _ => Err(self.wrong(name, "f32, f16 or bf16")),
        }
    }

    /// [`Tensor::probs_f32`] of a tensor given up: f32 elements are moved,
    /// not copied.
    pub fn into_probs_f32(self, name: &str) -> Result<Vec<f32>> {
        if let Data::F32(v) = self.data {
            return Ok(v);
        }
        self.probs_f32(name)
    }

    /// [`Tensor::floats_f64`] of a tensor given up: f64 elements are moved,
    /// not copied.
    pub fn into_floats_f64(self, name: &str) -> Result<Vec<f64>> {
        if let Data::F64(v) = self.data {
            return Ok(v);
        }
        self.floats_f64(name)
    }

    /// Noise or uniforms as f64: f64 as is, f32 widened exactly.
    pub fn floats_f64(&self, name: &str) -> Result<Vec<f64>> {
        match &self.data {
            Data::F64(v) => Ok(v.clone()),
            Data::F32(v) => Ok(v.iter().map(|&x| x as f64).collect()),
            _ => Err(self.wrong(name, "f32 or f64")),
        }
    }

    /// Token ids or prefix sums as i32: i32 as is, i64 checked into range.
    pub fn ids_i32(&self, name: &str) -> Result<Vec<i32>> {
        match &self.data {
            Data::I32(v) => Ok(v.clone()),
            Data::I64(v) => v
                .iter()
                .enumerate()
                .map(|(index, &value)| {
                    i32::try_from(value).map_err(|_| IoError::IdOutOfRange {
                        name: name.to_string(),
                        index,
                        value,
                    })
                })
                .collect(),
            _ => Err(self.wrong(name, "i32 or i64")),
        }
    }
}

/// The product of `dims`, refused above [`MAX_ELEMENTS`]; every partial
/// product of non-zero dimensions is bounded too, so no reader downstream
/// can overflow computing strides.
pub(crate) fn element_count(name: &str, dims: impl Iterator<Item = u64>) -> Result<u64> {
    let (mut nonzero, mut zero) = (1u64, false);
    for d in dims {
        if d == 0 {
            zero = true;
        } else {
            nonzero = nonzero.saturating_mul(d);
        }
    }
    if nonzero > MAX_ELEMENTS {
        return Err(IoError::TooManyElements {
            name: name.to_string(),
            elements: nonzero,
            limit: MAX_ELEMENTS,
        });
    }
    Ok(if zero { 0 } else { nonzero })
}
