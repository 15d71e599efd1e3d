//! Annotation files (`.clog2.idx`, spec/annotation.md): index an existing CLOG2
//! trace without rewriting it. The file holds a tree of time boxes like SLOG-2's;
//! its leaves are byte ranges of the trace (whole CLOG2 blocks) with the events
//! still waiting for a partner at their start, and its upper nodes hold, as SLOG-2
//! nodes do, the drawables whose two ends lie in different leaves. A window query
//! reads the annotation's nodes that meet the window and only the trace bytes of
//! the leaves that meet it, and pairs the events found there.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod error;
pub mod format;
mod pair;
pub mod read;
pub mod write;

pub use error::{Error, Result};
pub use read::{Annotation, AnnotationAnswer, Counters};
pub use write::{annotate, AnnotateOptions, AnnotateStats};

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
