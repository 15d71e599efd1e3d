//! SLOG-1, the trace format of MPE1's `slog_api` that Jumpshot-3 displays: a
//! lossless reader and writer, warnings, the text dump and the conversion to
//! SLOG-2. The normative description is `spec/slog1.md` in the mpelog repository.
//!
//! In short: no magic number (a file starts with version 0.9, `00000000
//! 00000009`), everything big-endian, a 74-byte [`Header`] whose file pointers
//! name the sections — [`Preview`], [`ThreadTable`], display [`Profile`] (text
//! lines of 35-byte fields), [`RecDefTable`], the [`FrameDir`] followed by the
//! frames, and the preview [`Statistics`]. A [`Frame`] is `frame_bytesize` bytes:
//! eight counts and four sectors of [`IntervalRecord`]s — `cur` (records that
//! start and end in the frame), `inc` and `pas` (copies of records that started
//! in an earlier frame and end in or after this one) and `out` (records that
//! start here and end later) — then unused bytes. A record's association and
//! argument counts are not stored in it: they come from the record definition
//! of its (interval type, bebits).
//!
//! * [`Slog1File::parse`] reads a whole file; any input gives a value or an
//!   error naming a byte offset, never a panic; counts are checked against the
//!   bytes left before anything is allocated for them. Bytes no section covers
//!   (reserved and stale table slots, unused directory slots) are kept in
//!   [`Slog1File::gaps`] and frame tails in [`Frame::tail`], so
//!   [`Slog1File::to_bytes`] gives the input back byte for byte.
//! * [`Slog1File::warnings`] lists what MPE never writes or Jumpshot-3
//!   mishandles (for example a split interval whose begin piece has no final
//!   piece, as in the corpus file `invalid.slog`).
//! * [`write::build`] makes a complete file from records and tables;
//!   [`Slog1File::lay_out`] places the sections of a model built by hand.
//! * [`dump::lines`] and [`dump::summary`] are what `mpelog print` and `mpelog
//!   info` show; [`crate::convert::slog1_to_slog2`] converts to SLOG-2, each interval
//!   once (its `cur` or `out` copy).
//!
//! ```
//! use slog2_format::slog1::*;
//! use slog2_format::write::TreeOptions;
//! use std::io::Cursor;
//!
//! let state = |t: u16, s: f64, d: f64, node: u16| IntervalRecord {
//!     rectype: 64, intvltype: t, bebits: 3, starttime: s, duration: d,
//!     origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
//!     instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
//! };
//! let input = BuildInput {
//!     threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
//!     profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
//!     recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
//!     records: (0..40).map(|i| state(1, i as f64, 0.5, (i % 2) as u16)).collect(),
//!     ..Default::default()
//! };
//! let file = build(&input, BuildOptions::default().frame_bytesize(256))?;
//! let bytes = file.to_bytes()?;
//! let back = Slog1File::parse(&bytes)?;
//! assert_eq!(back, file);
//! assert!(back.frames.len() > 1);
//! assert_eq!(back.home_records().count(), 40);
//! assert!(back.warnings().is_empty());
//!
//! let (_, stats) = slog2_format::convert::slog1_to_slog2(&back, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
//! assert_eq!(stats.tree.drawables, 40);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod check;
pub mod dump;
pub mod error;
pub mod read;
pub mod types;
pub mod write;

pub use check::Warning;
pub use error::{Error, Result};
pub use read::{looks_like, Part, RecordRef, Rejection, Slog1File};
pub use types::*;
pub use write::{build, BuildInput, BuildOptions};
