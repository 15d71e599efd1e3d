//! Whole-file I/O shared by the format crates' `read` and `write_to`
//! (old CLOG here; SLOG-1 and SLOG-2 in `slog2-format`): read a source to its
//! end, or write a file's bytes, and turn an I/O failure into the calling
//! crate's error with the offset it happened at.

use std::io::{Read, Write};

/// Reads `inner` to its end.
///
/// # Errors
///
/// The first I/O error, as `io_error(offset, error)` where `offset` is how
/// many bytes had been read before it.
///
/// ```
/// let data = clog2_format::io::read_all(&b"abc"[..], |_, e| e)?;
/// assert_eq!(data, b"abc");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_all<R: Read, E>(
    mut inner: R,
    io_error: impl FnOnce(u64, std::io::Error) -> E,
) -> Result<Vec<u8>, E> {
    let mut data = Vec::new();
    match inner.read_to_end(&mut data) {
        Ok(_) => Ok(data),
        Err(source) => Err(io_error(data.len() as u64, source)),
    }
}

/// Writes `bytes` to `out` and gives `out` back.
///
/// # Errors
///
/// The I/O error, as `io_error(error)`.
///
/// ```
/// let out = clog2_format::io::write_all(Vec::new(), b"abc", |e| e)?;
/// assert_eq!(out, b"abc");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_all<W: Write, E>(
    mut out: W,
    bytes: &[u8],
    io_error: impl FnOnce(std::io::Error) -> E,
) -> Result<W, E> {
    out.write_all(bytes).map_err(io_error)?;
    Ok(out)
}
