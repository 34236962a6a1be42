//! `.npy` files (NumPy format versions 1 to 3, C order) through `npyz`.
//!
//! The reader works on the whole file in memory and checks, before any
//! element is read or any buffer sized from the header is allocated: the
//! preamble and header fit in the file, the header is at most
//! [`MAX_HEADER_LEN`] bytes and nested at most [`MAX_NESTING`] deep, every
//! dimension product stays within [`MAX_ELEMENTS`], and the data section holds
//! exactly `elements * item size` bytes.

use crate::limited_read::{MAX_FILE_BYTES, MAX_STREAM_BYTES};
use half::{bf16, f16};
use npyz::{DType as NpyDType, FixedSizeBytes, TypeStr, WriterBuilder};
use py_literal::Value;

use crate::error::{IoError, Result};
use crate::tensor::{DType, Data, Tensor, element_count};

/// The largest header accepted, as NumPy's own `max_header_size` default.
pub const MAX_HEADER_LEN: usize = 10_000;

/// The deepest bracket nesting accepted in a header: a real one has 2 (the
/// dict and the shape tuple). The Python-literal parser backtracks
/// exponentially in the depth, so deeper headers are refused unparsed.
pub const MAX_NESTING: usize = 4;

const MAGIC: &[u8] = b"\x93NUMPY";

fn npy_err(name: &str, detail: impl Into<String>) -> IoError {
    IoError::Npy {
        name: name.to_string(),
        detail: detail.into(),
    }
}

fn truncated(name: &str, what: &'static str, needed: usize, actual: usize) -> IoError {
    IoError::Truncated {
        name: name.to_string(),
        what,
        needed: needed as u64,
        actual: actual as u64,
    }
}

/// What the header says, checked against the file before anything is read.
struct Header {
    dtype: DType,
    shape: Vec<usize>,
}

fn nesting(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for c in text.bytes() {
        match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn dim(name: &str, v: &Value) -> Result<u64> {
    let Value::Integer(i) = v else {
        return Err(npy_err(name, "a dimension of 'shape' is not an integer"));
    };
    let s = i.to_string();
    if s.starts_with('-') {
        return Err(npy_err(name, format!("dimension {s} is negative")));
    }
    // Digits beyond u64 saturate: the element limit refuses them next.
    Ok(s.parse::<u64>().unwrap_or(u64::MAX))
}

fn dtype_of(name: &str, descr: &str) -> Result<DType> {
    let wrong = || IoError::WrongDtype {
        name: name.to_string(),
        found: descr.to_string(),
        expected: "f16, bf16 (<V2), f32, f64, i32 or i64",
    };
    let t: TypeStr = descr.parse().map_err(|_| wrong())?;
    let code = descr.trim_start_matches(['<', '>', '|', '=']);
    let big = descr.starts_with('>');
    let dtype = match code {
        "f2" => DType::F16,
        "f4" => DType::F32,
        "f8" => DType::F64,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "V2" => DType::BF16,
        _ => return Err(wrong()),
    };
    if big && dtype != DType::BF16 {
        return Err(IoError::WrongDtype {
            name: name.to_string(),
            found: t.to_string(),
            expected: "little-endian f16, bf16 (<V2), f32, f64, i32 or i64",
        });
    }
    Ok(dtype)
}

fn parse_header(name: &str, bytes: &[u8]) -> Result<Header> {
    if bytes.len() < 10 {
        return Err(truncated(name, "the .npy preamble", 10, bytes.len()));
    }
    if &bytes[..6] != MAGIC {
        return Err(npy_err(name, "the magic string \\x93NUMPY is missing"));
    }
    let (header_len, prefix) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err(truncated(name, "the .npy preamble", 12, bytes.len()));
            }
            let n = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
            (usize::try_from(n).unwrap_or(usize::MAX), 12)
        }
        v => {
            return Err(npy_err(
                name,
                format!("format version {v} is not supported"),
            ));
        }
    };
    if header_len > MAX_HEADER_LEN {
        return Err(IoError::HeaderTooLarge {
            name: name.to_string(),
            size: header_len as u64,
            limit: MAX_HEADER_LEN as u64,
        });
    }
    let data_start = prefix + header_len;
    if bytes.len() < data_start {
        return Err(truncated(name, "the .npy header", data_start, bytes.len()));
    }
    let text = std::str::from_utf8(&bytes[prefix..data_start])
        .map_err(|_| npy_err(name, "the header is not UTF-8"))?;
    let text = text.trim_end_matches(['\n', ' ', '\0']);
    if nesting(text) > MAX_NESTING {
        return Err(npy_err(
            name,
            format!("the header nests deeper than {MAX_NESTING}"),
        ));
    }
    let value: Value = text
        .parse()
        .map_err(|e| npy_err(name, format!("the header is not a Python literal: {e}")))?;
    let Value::Dict(entries) = value else {
        return Err(npy_err(name, "the header is not a dict"));
    };
    let get = |key: &str| {
        entries
            .iter()
            .find(|(k, _)| k.as_string().is_some_and(|s| s == key))
            .map(|(_, v)| v)
            .ok_or_else(|| npy_err(name, format!("the header has no '{key}'")))
    };
    let dims = match get("shape")? {
        Value::Tuple(d) | Value::List(d) => d
            .iter()
            .map(|v| dim(name, v))
            .collect::<Result<Vec<u64>>>()?,
        _ => return Err(npy_err(name, "'shape' is not a tuple")),
    };
    let elements = element_count(name, dims.iter().copied())?;
    let fortran = match get("fortran_order")? {
        Value::Boolean(b) => *b,
        _ => return Err(npy_err(name, "'fortran_order' is not a bool")),
    };
    if fortran && dims.iter().filter(|&&d| d > 1).count() > 1 {
        return Err(IoError::FortranOrder {
            name: name.to_string(),
        });
    }
    let descr = match get("descr")? {
        Value::String(s) => s.as_str(),
        other => {
            return Err(IoError::WrongDtype {
                name: name.to_string(),
                found: other.to_string(),
                expected: "f16, bf16 (<V2), f32, f64, i32 or i64",
            });
        }
    };
    let dtype = dtype_of(name, descr)?;
    // elements <= MAX_ELEMENTS < 2^31, so this product cannot overflow.
    let declared = elements * dtype.size() as u64;
    let actual = (bytes.len() - data_start) as u64;
    if declared != actual {
        return Err(IoError::SizeMismatch {
            name: name.to_string(),
            declared,
            actual,
        });
    }
    Ok(Header {
        dtype,
        shape: dims.iter().map(|&d| d as usize).collect(),
    })
}

fn read_all<T: npyz::Deserialize>(name: &str, bytes: &[u8]) -> Result<Vec<T>> {
    let file = npyz::NpyFile::new(bytes).map_err(|e| npy_err(name, e.to_string()))?;
    file.into_vec::<T>()
        .map_err(|e| npy_err(name, e.to_string()))
}

/// Reads a `.npy` file held in memory. `name` labels errors.
pub fn read_npy(name: &str, bytes: &[u8]) -> Result<Tensor> {
    let h = parse_header(name, bytes)?;
    let data = match h.dtype {
        DType::F16 => Data::F16(read_all::<f16>(name, bytes)?),
        DType::F32 => Data::F32(read_all::<f32>(name, bytes)?),
        DType::F64 => Data::F64(read_all::<f64>(name, bytes)?),
        DType::I32 => Data::I32(read_all::<i32>(name, bytes)?),
        DType::I64 => Data::I64(read_all::<i64>(name, bytes)?),
        DType::BF16 => Data::BF16(
            read_all::<FixedSizeBytes<2>>(name, bytes)?
                .into_iter()
                .map(|b| bf16::from_le_bytes(b.0))
                .collect(),
        ),
    };
    Tensor::new(name, h.shape, data)
}

/// Reads a `.npy` file from disk.
pub fn read_npy_file(path: &std::path::Path) -> Result<Tensor> {
    let name = path.display().to_string();
    let bytes = crate::limited_read::read_limited(path, MAX_FILE_BYTES, MAX_STREAM_BYTES)?;
    read_npy(&name, &bytes)
}

fn write_all<T: npyz::Serialize + Copy>(
    descr: &str,
    shape: &[u64],
    items: &[T],
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let ty: TypeStr = descr.parse().map_err(|e| npy_err(descr, format!("{e}")))?;
    let mut w = npyz::WriteOptions::new()
        .dtype(NpyDType::Plain(ty))
        .shape(shape)
        .writer(&mut out)
        .begin_nd()
        .map_err(|e| npy_err(descr, e.to_string()))?;
    w.extend(items.iter().copied())
        .and_then(|()| w.finish())
        .map_err(|e| npy_err(descr, e.to_string()))?;
    Ok(out)
}

/// Writes a tensor as a `.npy` file (format version 1, C order, little
/// endian; bf16 as `<V2`).
pub fn write_npy(tensor: &Tensor) -> Result<Vec<u8>> {
    let shape: Vec<u64> = tensor.shape.iter().map(|&d| d as u64).collect();
    match &tensor.data {
        Data::F16(v) => write_all("<f2", &shape, v),
        Data::F32(v) => write_all("<f4", &shape, v),
        Data::F64(v) => write_all("<f8", &shape, v),
        Data::I32(v) => write_all("<i4", &shape, v),
        Data::I64(v) => write_all("<i8", &shape, v),
        Data::BF16(v) => {
            let raw: Vec<FixedSizeBytes<2>> =
                v.iter().map(|x| FixedSizeBytes(x.to_le_bytes())).collect();
            write_all("<V2", &shape, &raw)
        }
    }
}

/// Writes a tensor to a `.npy` file on disk.
pub fn write_npy_file(path: &std::path::Path, tensor: &Tensor) -> Result<()> {
    std::fs::write(path, write_npy(tensor)?).map_err(|source| IoError::File {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::MAX_ELEMENTS;

    #[test]
    fn limits_are_what_the_docs_say() {
        assert_eq!(MAX_ELEMENTS, 2_147_483_647);
        assert_eq!(nesting("{'a': ((1,),)}"), 3);
    }
}
