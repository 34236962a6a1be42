//! safetensors files through the `safetensors` crate, which checks the
//! header length against the buffer, every offset against the data section
//! and every shape product for overflow before it hands out a view.

use crate::limited_read::{MAX_FILE_BYTES, MAX_STREAM_BYTES};
use std::collections::BTreeMap;

use safetensors::tensor::{Dtype, SafeTensors, TensorView};

use crate::error::{IoError, Result};
use crate::tensor::{DType, Data, Tensor, element_count};

fn st_err(name: &str, detail: impl Into<String>) -> IoError {
    IoError::Safetensors {
        name: name.to_string(),
        detail: detail.into(),
    }
}

fn dtype_of(name: &str, tensor: &str, d: Dtype) -> Result<DType> {
    Ok(match d {
        Dtype::F16 => DType::F16,
        Dtype::BF16 => DType::BF16,
        Dtype::F32 => DType::F32,
        Dtype::F64 => DType::F64,
        Dtype::I32 => DType::I32,
        Dtype::I64 => DType::I64,
        other => {
            return Err(IoError::WrongDtype {
                name: format!("{name}: {tensor}"),
                found: format!("{other:?}"),
                expected: "F16, BF16, F32, F64, I32 or I64",
            });
        }
    })
}

/// Reads every tensor of a safetensors file held in memory, by name.
pub fn read_safetensors(name: &str, bytes: &[u8]) -> Result<BTreeMap<String, Tensor>> {
    if bytes.len() < 8 {
        return Err(IoError::Truncated {
            name: name.to_string(),
            what: "the safetensors header length",
            needed: 8,
            actual: bytes.len() as u64,
        });
    }
    let mut n = [0u8; 8];
    n.copy_from_slice(&bytes[..8]);
    let header_len = u64::from_le_bytes(n);
    if header_len > (bytes.len() - 8) as u64 {
        return Err(IoError::Truncated {
            name: name.to_string(),
            what: "the safetensors header",
            needed: header_len.saturating_add(8),
            actual: bytes.len() as u64,
        });
    }
    let file = SafeTensors::deserialize(bytes).map_err(|e| st_err(name, e.to_string()))?;
    let mut out = BTreeMap::new();
    for (tensor, view) in file.iter() {
        let label = format!("{name}: {tensor}");
        let dtype = dtype_of(name, tensor, view.dtype())?;
        element_count(&label, view.shape().iter().map(|&d| d as u64))?;
        // The crate checked that the data is exactly shape * dtype bytes.
        let data = Data::from_le_bytes(dtype, view.data());
        out.insert(
            tensor.to_string(),
            Tensor::new(&label, view.shape().to_vec(), data)?,
        );
    }
    Ok(out)
}

/// Reads a safetensors file from disk.
pub fn read_safetensors_file(path: &std::path::Path) -> Result<BTreeMap<String, Tensor>> {
    let name = path.display().to_string();
    let bytes = crate::limited_read::read_limited(path, MAX_FILE_BYTES, MAX_STREAM_BYTES)?;
    read_safetensors(&name, &bytes)
}

fn st_dtype(d: DType) -> Dtype {
    match d {
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
    }
}

/// Writes named tensors as a safetensors file.
pub fn write_safetensors(tensors: &[(&str, &Tensor)]) -> Result<Vec<u8>> {
    // The format keeps this key for the header's metadata: a tensor of that
    // name would make a file no reader accepts.
    if let Some((name, _)) = tensors.iter().find(|(n, _)| *n == "__metadata__") {
        return Err(st_err(
            name,
            "the name __metadata__ is reserved by the safetensors format for the header's metadata",
        ));
    }
    let bytes: Vec<(String, DType, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|(n, t)| {
            (
                n.to_string(),
                t.dtype(),
                t.shape.clone(),
                t.data.to_le_bytes(),
            )
        })
        .collect();
    let views = bytes
        .iter()
        .map(|(n, d, s, b)| {
            TensorView::new(st_dtype(*d), s.clone(), b)
                .map(|v| (n.clone(), v))
                .map_err(|e| st_err(n, e.to_string()))
        })
        .collect::<Result<Vec<_>>>()?;
    safetensors::serialize(views, None).map_err(|e| st_err("output", e.to_string()))
}

/// Writes named tensors to a safetensors file on disk.
pub fn write_safetensors_file(path: &std::path::Path, tensors: &[(&str, &Tensor)]) -> Result<()> {
    std::fs::write(path, write_safetensors(tensors)?).map_err(|source| IoError::File {
        path: path.display().to_string(),
        source,
    })
}
