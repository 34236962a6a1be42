//! The crate's error type: every variant names the file or tensor, and what
//! was expected against what was found.

/// Everything that can go wrong reading or writing a dump or a fixture.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IoError {
    /// The file ends before a part whose size it declares.
    #[error("{name}: the file is {actual} bytes, too short for {what} ({needed} bytes)")]
    Truncated {
        /// The file or tensor.
        name: String,
        /// The part that does not fit.
        what: &'static str,
        /// Bytes needed up to the end of that part.
        needed: u64,
        /// Bytes in the file.
        actual: u64,
    },
    /// The header's shape and dtype call for a data size the file does not have.
    #[error("{name}: the header declares {declared} data bytes but the file holds {actual}")]
    SizeMismatch {
        /// The file or tensor.
        name: String,
        /// `elements * item size` from the header.
        declared: u64,
        /// Data bytes present.
        actual: u64,
    },
    /// A header is larger than the reader accepts.
    #[error("{name}: a header of {size} bytes is over the limit of {limit}")]
    HeaderTooLarge {
        /// The file.
        name: String,
        /// The declared header size.
        size: u64,
        /// The largest accepted.
        limit: u64,
    },
    /// A tensor holds more elements than engines index with 32-bit ids.
    #[error("{name}: {elements} elements is over the limit of {limit}")]
    TooManyElements {
        /// The file or tensor.
        name: String,
        /// The element count (saturated at `u64::MAX` when it overflowed).
        elements: u64,
        /// The largest accepted (`i32::MAX`).
        limit: u64,
    },
    /// The tensor's element type is not one this input accepts.
    #[error("{name}: dtype {found} is not accepted here; expected {expected}")]
    WrongDtype {
        /// The file or tensor.
        name: String,
        /// The dtype found.
        found: String,
        /// The dtypes accepted.
        expected: &'static str,
    },
    /// The tensor's shape does not fit its role.
    #[error("{name}: shape {found:?} does not match the expected {expected}")]
    ShapeMismatch {
        /// The file or tensor.
        name: String,
        /// The shape found.
        found: Vec<u64>,
        /// The expected shape, spelled with its dimension names.
        expected: String,
    },
    /// A Fortran-order `.npy` array with more than one dimension.
    #[error("{name}: Fortran-order arrays are not supported; save the array in C order")]
    FortranOrder {
        /// The file.
        name: String,
    },
    /// The bytes are not a `.npy` file.
    #[error("{name}: not a valid .npy file: {detail}")]
    Npy {
        /// The file.
        name: String,
        /// What the parser said.
        detail: String,
    },
    /// The bytes are not a safetensors file.
    #[error("{name}: not a valid safetensors file: {detail}")]
    Safetensors {
        /// The file.
        name: String,
        /// What the parser said.
        detail: String,
    },
    /// A required tensor is absent.
    #[error("{file}: no tensor named {tensor}")]
    Missing {
        /// The file.
        file: String,
        /// The tensor.
        tensor: &'static str,
    },
    /// An integer id does not fit in 32 bits.
    #[error("{name}[{index}] = {value} does not fit in i32")]
    IdOutOfRange {
        /// The tensor.
        name: String,
        /// Flat index.
        index: usize,
        /// The value.
        value: i64,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    File {
        /// The path.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A file or stream is larger than the reader accepts (`size` is
    /// known for a regular file; a stream is refused as it passes the limit).
    #[error("{name}: {} over the limit of {limit} bytes", match size { Some(n) => format!("{n} bytes is"), None => "the input goes on".to_string() })]
    FileTooLarge {
        /// The file or stream.
        name: String,
        /// Its length, where the file tells it.
        size: Option<u64>,
        /// The largest accepted.
        limit: u64,
    },
    /// A fixture's JSON could not be written or read.
    #[error("{name}: {detail}")]
    Json {
        /// The file.
        name: String,
        /// What serde_json said.
        detail: String,
    },
    /// The inputs are invalid for the core (bad values, inconsistent layout).
    #[error(transparent)]
    Core(#[from] exporace::Error),
}

/// Shorthand for results in this crate.
pub type Result<T, E = IoError> = core::result::Result<T, E>;
