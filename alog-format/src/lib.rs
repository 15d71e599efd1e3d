//! Reader, canonical writer and SLOG-2 converter for ALOG, the line-oriented text
//! trace format of MPICH-1's p4 ALOG library and MPE 1.x, read by the upshot and
//! nupshot viewers.
//!
//! The normative description is `spec/alog.md` in the mpelog repository. In short,
//! an ALOG file is one record per line, six decimal fields and an optional comment:
//!
//! ```text
//! type process task data cycle timestamp [comment]
//! ```
//!
//! Types -100 … -1 are header and definition records (counts, start and end time,
//! state definitions `-13`), types ≥ 0 user events and types ≤ -101 system events
//! (`-101`/`-102` message send/receive). Timestamps are microseconds.
//!
//! * [`AlogFile::parse`] reads a whole file: every whitespace and width variation
//!   the real writers produced (p4, MPE 1.0, `clog2alog`, TAU), CRLF, blank and `#`
//!   lines. Errors name the line and column ([`Error`]); no input makes it panic.
//! * [`AlogFile::to_bytes`] writes the canonical form; a file written in it (all
//!   MPE 1.0 and `clog2alog` output) reads and writes back byte for byte.
//! * [`record::Record::kind`], [`record::Record::state_def`] and
//!   [`record::Record::message`] interpret records; [`dump`] prints them.
//! * [`slog2::alog_to_slog2`] converts to SLOG-2 (states, arrows, events as upshot
//!   draws them).
//! * [`z::decompress`] unpacks Unix `compress` (`.Z`) files.
//!
//! ```
//! use alog_format::AlogFile;
//! let text = b"-3 0 0 2 0 0\n-13 0 1 2 0 0 red:gray Work\n1 0 0 0 0 10 \n2 0 0 0 0 25 \n";
//! let f = AlogFile::parse(text)?;
//! assert_eq!(f.records.len(), 4);
//! assert_eq!(f.records[1].state_def().unwrap().text.name, b"Work");
//! assert_eq!(f.to_bytes(), text); // canonical: byte for byte
//! let s = alog_format::dump::summary(&f);
//! assert_eq!(s.time_range_s(), Some((10e-6, 25e-6)));
//! # Ok::<(), alog_format::Error>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod dump;
pub mod error;
pub mod file;
pub mod record;
pub mod slog2;
pub mod text;
pub mod z;

pub use error::{Error, Field, Result, TokenProblem};
pub use file::{looks_like_alog, AlogFile};
pub use record::{Comment, Kind, Record};
pub use slog2::{alog_to_slog2, Unmatched};
