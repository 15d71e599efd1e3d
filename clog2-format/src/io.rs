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

/// Declares a format crate's `Error` enum, `#[non_exhaustive]`, whose first
/// variant is `Io { offset, source }` (the underlying reader or writer failed
/// at byte `offset`; shown as `byte {offset}: I/O error: {source}`), followed
/// by the variants given, and its `Result<T, E = Error>`. CLOG2 and old CLOG,
/// ALOG, SLOG-2 and SLOG-1 declare theirs with it. The caller writes the
/// `#[derive(Debug, thiserror::Error)]` (so that its variants' messages may
/// call methods of `self`).
///
/// ```
/// mod my {
///     clog2_format::error_with_io! {
///     /// What can go wrong.
///     #[derive(Debug, thiserror::Error)]
///     pub enum Error {
///         /// A byte that is not allowed.
///         #[error("byte {offset}: bad")]
///         Bad { offset: u64 },
///     }
///     }
/// }
/// let gone = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "gone");
/// let e = my::Error::Io { offset: 3, source: gone };
/// assert_eq!(e.to_string(), "byte 3: I/O error: gone");
/// let r: my::Result<()> = Err(my::Error::Bad { offset: 7 });
/// assert_eq!(r.unwrap_err().to_string(), "byte 7: bad");
/// ```
#[macro_export]
macro_rules! error_with_io {
    ($(#[$meta:meta])* pub enum Error { $($variants:tt)* }) => {
        /// A `Result` whose error is [`Error`].
        pub type Result<T, E = Error> = std::result::Result<T, E>;

        $(#[$meta])*
        #[non_exhaustive]
        pub enum Error {
            /// The underlying reader or writer failed.
            #[error("byte {offset}: I/O error: {source}")]
            Io {
                /// Offset in the file where the operation started (or how
                /// many bytes had been read or written before it failed).
                offset: u64,
                /// The I/O error.
                #[source]
                source: std::io::Error,
            },
            $($variants)*
        }
    };
}
