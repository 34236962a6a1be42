//! # exporace-io
//!
//! Engine dumps in and regression fixtures out, for [`exporace`]: readers
//! and writers for `.npy` (through `npyz`) and safetensors (through the
//! `safetensors` crate), with f16 and bf16 converted through `half`, the
//! vLLM dump layout ([`Dump`]), its audit ([`audit`]) and regression
//! fixtures ([`fixture`]).
//!
//! Everything that reads outside input returns a typed [`IoError`] and never
//! panics: sizes from a header are checked against the file's length before
//! anything is allocated from them, and a tensor over [`MAX_ELEMENTS`] (a
//! `2^31`-element tensor and up) is refused.
//!
//! ```
//! use exporace_io::{Data, Tensor, read_npy, write_npy};
//! let t = Tensor::new("x", vec![2, 2], Data::F32(vec![0.5, 0.25, 0.125, 0.125]))?;
//! let bytes = write_npy(&t)?;
//! assert_eq!(read_npy("x.npy", &bytes)?, t);
//! // A cut file is refused with the sizes involved.
//! let err = read_npy("x.npy", &bytes[..bytes.len() - 4]).unwrap_err();
//! assert_eq!(err.to_string(), "x.npy: the header declares 16 data bytes but the file holds 12");
//! # Ok::<(), exporace_io::IoError>(())
//! ```

pub mod audit;
mod dump;
mod dump_fixture;
mod error;
pub mod fixture;
mod limited_read;
mod npy;
mod safetensors_file;
pub mod scenario_fixture;
mod tensor;

pub use dump::{Dump, TENSOR_NAMES};
pub use error::{IoError, Result};
pub use limited_read::{
    MAX_FILE_BYTES, MAX_STREAM_BYTES, read_limited, read_stream, read_text_limited,
};
pub use npy::{MAX_HEADER_LEN, MAX_NESTING, read_npy, read_npy_file, write_npy, write_npy_file};
pub use safetensors_file::{
    read_safetensors, read_safetensors_file, write_safetensors, write_safetensors_file,
};
pub use tensor::{DType, Data, MAX_ELEMENTS, Tensor};

// The README's example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
