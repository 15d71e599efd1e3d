//! Lossless reader and writer for MPE's CLOG2 trace files (`CLOG-02.10` to
//! `CLOG-02.44`) and, in [`clog`], the older MPE1 CLOG format.
//!
//! The normative description is `spec/clog2.md` and `spec/clog.md` in the mpelog
//! repository. In short, a CLOG2 file is a 1024-byte text preamble ([`Preamble`]),
//! fixed-size blocks of records ([`Record`], ended by ENDBLOCK or, in the last block,
//! ENDLOG) and, from 02.43 on, a communicator table ([`CommTable`]).
//!
//! Entry points, the same as in every mpelog format crate:
//!
//! | job | CLOG2 | old CLOG ([`clog`]) |
//! |---|---|---|
//! | detect | [`looks_like`] | [`clog::looks_like`] |
//! | read a whole file | [`Clog2File::parse`] (`&[u8]`), [`Clog2File::read`] (`impl Read`) | [`clog::ClogFile::parse`], [`clog::ClogFile::read`] |
//! | write a whole file | [`Clog2File::write_to`] (`W: Write`, gives `W` back), [`Clog2File::to_bytes`] | [`clog::ClogFile::write_to`], [`clog::ClogFile::to_bytes`] |
//! | stream | [`Clog2Reader::from_slice`], [`Clog2Reader::new`], [`Clog2Reader::with_options`] ([`ReadOptions`]: a memory limit); [`Clog2Writer`] | [`clog::ClogRecords::new`]; [`clog::ClogWriter`] |
//! | summarise | [`dump::summary`] | [`clog::ClogFile::summary`] |
//!
//! * [`Clog2Reader`] reads block by block from any [`std::io::Read`], or in place from
//!   a byte slice or memory map ([`Clog2Reader::from_slice`]), with memory bounded
//!   by the block size.
//! * [`BlockWriter`] writes parsed blocks back byte for byte (pad fields and stale
//!   bytes after terminators included); [`Clog2Writer`] packs new records into
//!   blocks the way MPE's merger does.
//! * [`Clog2File`] holds a whole file in memory.
//! * [`synth`] generates realistic MPE-like traces of any size.
//!
//! Every parser is total: any input gives a value or an [`Error`] naming the byte
//! offset, never a panic, and no allocation is sized by an unchecked field.
//!
//! ```
//! use clog2_format::{synth, Clog2File, Clog2Reader};
//! let bytes = synth::generate_vec(&synth::Options::default().ranks(2).events(500).seed(1)).unwrap();
//! let mut reader = Clog2Reader::from_slice(&bytes).unwrap();
//! let n = reader.records().count();
//! assert!(n > 400);
//! // Lossless: parse and write back.
//! assert_eq!(Clog2File::parse(&bytes).unwrap().to_bytes().unwrap(), bytes);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bytes;
pub mod clog;
pub mod codec;
pub mod commtable;
pub mod dump;
pub mod error;
pub mod escape;
pub mod file;
pub mod io;
pub mod preamble;
pub mod read;
pub mod record;
pub mod repair;
pub mod synth;
pub mod version;
pub mod write;

pub use bytes::FixedBytes;
pub use codec::{Block, BlockRecords, Layout, RecordRef};
pub use commtable::{CommEntry, CommTable};
pub use error::{Error, Result};
pub use file::Clog2File;
pub use preamble::{Preamble, PreambleInfo, RawPreamble};
pub use read::{Clog2Reader, ReadOptions, ReadSource, SliceSource, Source};
pub use record::{Body, Record};
pub use version::Version;
pub use write::{BlockWriter, Clog2Writer};

/// Whether `data` starts like a CLOG2 file (its preamble's version token).
///
/// ```
/// let bytes = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// assert!(clog2_format::looks_like(&bytes));
/// assert!(!clog2_format::looks_like(b"\x00\x0aSLOG 2.0.6"));
/// ```
pub fn looks_like(data: &[u8]) -> bool {
    data.starts_with(b"CLOG-02.")
}
