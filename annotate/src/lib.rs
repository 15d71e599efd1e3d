//! Annotation files (`.clog2.idx`, spec/annotation.md): index an existing CLOG2
//! trace without rewriting it. The file holds a tree of time boxes like SLOG-2's;
//! its leaves are byte ranges of the trace (whole CLOG2 blocks) with the events
//! still waiting for a partner at their start, and its upper nodes hold, as SLOG-2
//! nodes do, the drawables whose two ends lie in different leaves. A window query
//! reads the annotation's nodes that meet the window and only the trace bytes of
//! the leaves that meet it, and pairs the events found there.
//!
//! Entry points, the same as in every mpelog format crate:
//!
//! | job | entry point |
//! |---|---|
//! | detect | [`looks_like`] |
//! | write an annotation | [`annotate`] (a [`clog2_format::Clog2Reader`] over the trace, `W: Write + Seek`, [`AnnotateOptions`]) |
//! | read it, query windows | [`Annotation::new`] (the annotation and its trace, each `impl Read + Seek`), [`Annotation::window`] |
//!
//! ```
//! use mpelog_annotate::{annotate, looks_like, AnnotateOptions, Annotation};
//! use std::io::Cursor;
//!
//! let trace = clog2_format::synth::generate_vec(&Default::default()).unwrap();
//! let mut reader = clog2_format::Clog2Reader::from_slice(&trace).unwrap();
//! let opts = AnnotateOptions::default().tree(slog2_format::write::TreeOptions::default().leaf_bytes(4096));
//! let (idx, stats) = annotate(&mut reader, Cursor::new(Vec::new()), opts.trace(trace.len() as u64, &trace[..1024]), |_| {})?;
//! let idx = idx.into_inner();
//! assert!(looks_like(&idx));
//! assert!(stats.leaves > 1);
//!
//! // A window reads only the annotation nodes and trace blocks that meet it.
//! let mut a = Annotation::new(Cursor::new(&idx[..]), Cursor::new(&trace[..]))?;
//! let answer = a.window(0.1, 0.11)?;
//! assert!(!answer.drawables.is_empty());
//! # Ok::<(), mpelog_annotate::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod error;
pub mod format;
mod pair;
pub mod read;
pub mod write;

pub use error::{Error, Result};
pub use read::{Annotation, AnnotationAnswer, Counters};
pub use write::{annotate, AnnotateOptions, AnnotateStats, TraceStamp};

/// Whether `data` starts like an annotation file (its `MPELOGIX` magic,
/// spec/annotation.md).
///
/// ```
/// assert!(mpelog_annotate::looks_like(b"MPELOGIX\x00\x01"));
/// assert!(!mpelog_annotate::looks_like(b"CLOG-02.44"));
/// ```
pub fn looks_like(data: &[u8]) -> bool {
    data.starts_with(format::MAGIC)
}
