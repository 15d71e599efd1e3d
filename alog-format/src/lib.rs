//! Reader and canonical writer for ALOG, the line-oriented text
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
//! Entry points, the same as in every mpelog format crate:
//!
//! | job | entry point |
//! |---|---|
//! | detect | [`looks_like`] |
//! | read a whole file | [`AlogFile::parse`] (`&[u8]`), [`AlogFile::read`] (`impl Read`) |
//! | write a whole file | [`AlogFile::write_to`] (`W: Write`, gives `W` back), [`AlogFile::to_bytes`] |
//!
//! (ALOG is small text: there is no streaming reader.) The conversion to
//! SLOG-2 lives with the other conversions, in `slog2_format::convert::alog`.
//!
//! * [`AlogFile::parse`] reads a whole file: every whitespace and width variation
//!   the real writers produced (p4, MPE 1.0, `clog2alog`, TAU), CRLF, blank and `#`
//!   lines. Errors name the line and column ([`Error`]); no input makes it panic.
//! * [`AlogFile::to_bytes`] writes the canonical form; a file written in it (all
//!   MPE 1.0 and `clog2alog` output) reads and writes back byte for byte.
//! * [`record::Record::kind`], [`record::Record::state_def`] and
//!   [`record::Record::message`] interpret records; [`dump`] prints them.
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
pub mod text;
pub mod z;

pub use error::{Error, Field, Result, TokenProblem};
pub use file::{looks_like, AlogFile};
pub use record::{Comment, Kind, Record};
