//! SLOG-2, the trace format of Jumpshot-4 (`SLOG 2.0.5`, `SLOG 2.0.6`, and our
//! compressed `SLOG 2.0.6Z`), and, in [`slog1`], Jumpshot-3's SLOG-1: declarative
//! layouts, a random-access reader with window queries, a one-pass tree writer
//! and a lossless whole-file model. The normative text is `spec/slog2.md`,
//! `spec/slog2-compressed.md` and `spec/queries.md` in the mpelog repository.
//!
//! A SLOG-2 file is a header, a CategoryMap (legend), line-ID maps (timelines)
//! and a tree of nodes, each holding the drawables (states, arrows, events)
//! whose time span fits its box: a window query reads only the nodes that meet
//! the window, whatever the file's size.
//!
//! Entry points, the same as in every mpelog format crate:
//!
//! | job | entry point |
//! |---|---|
//! | detect | [`looks_like`] |
//! | read a whole file | [`Slog2File::parse`] (`&[u8]`), [`Slog2File::read`] (`impl Read + Seek`) |
//! | write a whole file | [`Slog2File::write_to`] (`W: Write`, gives `W` back), [`Slog2File::to_bytes`] |
//! | random access, windows | [`Slog2Reader::new`] (`impl Read + Seek`), [`Slog2Reader::with_options`] ([`ReadOptions`]: validation, a memory limit) |
//! | write a new file | [`write::TreeWriter`] (drawables in end-time order, one pass) |
//! | convert to SLOG-2 | [`convert`]: `clog2_to_slog2`, `clog_to_slog2`, `alog_to_slog2`, `slog1_to_slog2` |
//! | change the version, re-store nodes | [`write::update`], [`write::reframe()`] |
//!
//! ```
//! use slog2_format::convert::clog2_to_slog2;
//! use slog2_format::write::TreeOptions;
//! use slog2_format::{looks_like, Slog2File, Slog2Reader};
//! use std::io::Cursor;
//!
//! // A generated 4-rank MPE trace, converted to SLOG-2 in memory.
//! let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
//! let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
//! let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
//! let bytes = out.into_inner();
//! assert!(looks_like(&bytes));
//!
//! // A window: only the nodes that meet [0.1, 0.11) are read.
//! let mut r = Slog2Reader::new(Cursor::new(&bytes[..]))?;
//! let answer = r.window(0.1, 0.11)?;
//! assert!(answer.drawables.iter().all(|d| d.value.earliest() <= 0.11));
//!
//! // The whole file, written back byte for byte.
//! let file = Slog2File::parse(&bytes)?;
//! assert_eq!(file.write_to(Vec::new())?, bytes);
//! # Ok::<(), slog2_format::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod check;
mod columns;
pub mod convert;
mod counters;
pub mod dump;
pub mod error;
pub mod file;
pub mod frame;
pub mod info;
mod java_number;
mod node_cache;
mod query;
pub mod read;
pub mod size;
pub mod slog1;
pub mod types;
pub mod validate;
mod version;
pub mod window;
pub mod write;

pub use error::{Error, Result};
pub use file::{FileBlock, Slog2File};
pub use node_cache::NodeCache;
pub use read::{Counters, Dropped, Parsed, ReadOptions, Slog2Reader, Validation, Version};
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
