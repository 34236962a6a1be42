//! Reading a whole file or stream with a cap on its size: a regular file
//! larger than the cap is refused from its length before any byte is read,
//! and a pipe or device (`/dev/zero`, an endless pipe) is refused as soon
//! as it passes the cap, never held in memory first.

use std::io::Read;
use std::path::Path;

use crate::error::{IoError, Result};

/// The most bytes read from a dump or fixture file (4 GiB): more than any
/// dump whose tensors engines index with 32-bit ids holds in practice.
pub const MAX_FILE_BYTES: u64 = 1 << 32;

/// The most bytes read from a pipe or device (256 MiB): such a stream
/// tells no length up front, so it is held in memory as it arrives; a
/// larger dump is read from a file.
pub const MAX_STREAM_BYTES: u64 = 1 << 28;

/// Reads all of `path`: at most `file_limit` bytes from a regular file, at
/// most `stream_limit` from anything else.
///
/// ```
/// use exporace_io::{IoError, read_limited};
/// let e = read_limited(std::path::Path::new("/dev/zero"), 1 << 20, 1 << 20).unwrap_err();
/// assert!(matches!(e, IoError::FileTooLarge { limit: 1_048_576, .. }));
/// ```
pub fn read_limited(path: &Path, file_limit: u64, stream_limit: u64) -> Result<Vec<u8>> {
    let name = path.display().to_string();
    let file_err = |source| IoError::File {
        path: name.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(file_err)?;
    let meta = file.metadata().map_err(file_err)?;
    if meta.is_dir() {
        return Err(file_err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory, not a file",
        )));
    }
    let (limit, hint) = if meta.is_file() {
        if meta.len() > file_limit {
            return Err(IoError::FileTooLarge {
                name,
                size: Some(meta.len()),
                limit: file_limit,
            });
        }
        (file_limit, meta.len())
    } else {
        (stream_limit, 0)
    };
    read_stream(&name, file, limit, hint)
}

/// Reads `reader` to its end, refusing it once it passes `limit` bytes;
/// `name` names it in errors, `hint` is its expected length.
///
/// ```
/// use exporace_io::{IoError, read_stream};
/// assert_eq!(read_stream("stdin", &b"abc"[..], 3, 0)?, b"abc");
/// let e = read_stream("stdin", std::io::repeat(0), 1000, 0).unwrap_err();
/// assert!(matches!(e, IoError::FileTooLarge { size: None, limit: 1000, .. }));
/// # Ok::<(), IoError>(())
/// ```
pub fn read_stream(name: &str, reader: impl Read, limit: u64, hint: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let hint = usize::try_from(hint.min(limit)).unwrap_or(0);
    out.try_reserve_exact(hint).map_err(|_| IoError::File {
        path: name.to_string(),
        source: std::io::ErrorKind::OutOfMemory.into(),
    })?;
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|source| IoError::File {
            path: name.to_string(),
            source,
        })?;
    if out.len() as u64 > limit {
        return Err(IoError::FileTooLarge {
            name: name.to_string(),
            size: None,
            limit,
        });
    }
    Ok(out)
}

/// Reads all of `path` as UTF-8 text, with the caps of [`read_limited`].
///
/// ```
/// let e = exporace_io::read_text_limited(std::path::Path::new("/dev/zero"), 64, 64).unwrap_err();
/// assert!(e.to_string().contains("over the limit of 64 bytes"));
/// ```
pub fn read_text_limited(path: &Path, file_limit: u64, stream_limit: u64) -> Result<String> {
    let bytes = read_limited(path, file_limit, stream_limit)?;
    String::from_utf8(bytes).map_err(|e| IoError::File {
        path: path.display().to_string(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
    })
}
