//! SLOG-2, the trace format of Jumpshot-4: declarative layouts, a random-access
//! reader and a lossless writer. See `spec/slog2.md` in the mpelog repository.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod build;
pub mod check;
mod columns;
pub mod dump;
pub mod error;
pub mod file;
pub mod frame;
pub mod info;
pub mod read;
pub mod size;
pub mod slog1;
pub mod types;
pub mod update;
pub mod validate;
pub mod window;

pub use error::{Error, Result};
pub use file::{FileBlock, Slog2File};
pub use read::{Counters, Dropped, Parsed, Slog2Reader, Validation, Version};
pub use types::*;
pub use window::{
    node_read_bound, DrawableRef, NotStorable, PrimitiveRef, ShadowRef, TimeWindow, WindowAnswer,
    WindowBuf,
};

/// Whether `data` starts like a SLOG-2 file: a big-endian 2-byte length, then
/// a version string that begins `SLOG 2` (`SLOG 2.0.5`, `SLOG 2.0.6`, or the
/// compressed `SLOG 2.0.6Z`; spec/slog2.md §3). Cheap: reads at most 8 bytes.
///
/// ```
/// assert!(slog2_format::looks_like(b"\x00\x0aSLOG 2.0.6"));
/// assert!(!slog2_format::looks_like(b"CLOG-02.44"));
/// ```
pub fn looks_like(data: &[u8]) -> bool {
    data.len() >= 8 && &data[2..8] == b"SLOG 2"
}
