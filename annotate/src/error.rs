//! Typed errors; errors about bytes name the file and the byte offset.

mod change;
mod damage;

pub use change::Change;
pub(crate) use damage::{binrw_damage, binrw_words};
pub use damage::{Block, Damage};

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing failed.
    #[error("{file} byte {offset}: I/O error: {source}")]
    Io {
        /// "annotation" or "trace".
        file: &'static str,
        /// Where.
        offset: u64,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The trace is not valid CLOG2.
    #[error("trace: {0}")]
    Clog2(#[from] clog2_format::Error),
    /// A SLOG-2 structure of the annotation is bad.
    #[error("annotation: {0}")]
    Slog2(#[from] slog2_format::Error),
    /// The annotation file is malformed.
    #[error("annotation byte {offset}: {damage}")]
    BadAnnotation {
        /// Where (see [`Damage`]).
        offset: u64,
        /// What is wrong ([`Damage::problem`] is the rule of
        /// spec/conformance.md §9 it breaks, which `mpelog-conformance` names).
        damage: Damage,
    },
    /// The trace changed since it was annotated.
    #[error("stale annotation: {change}; annotate the trace again")]
    Stale {
        /// Where, in the trace (see [`Change`]).
        offset: u64,
        /// What differs ([`Change::problem`] is the rule of
        /// spec/conformance.md §9 it breaks).
        change: Change,
    },
    /// The input cannot be annotated as asked.
    #[error("cannot annotate: {0}")]
    Write(WriteProblem),
    /// Options that cannot be used (a caller's mistake, not bad input).
    #[error("invalid options: {0}")]
    InvalidOptions(OptionsProblem),
}

/// What is wrong with an annotation, or how its trace changed: one variant
/// per rule of spec/conformance.md §9 that [`Error::BadAnnotation`] and
/// [`Error::Stale`] report (the rule's ID is in each variant's doc).
///
/// ```
/// use mpelog_annotate::error::Problem;
/// assert!(Problem::LeafChanged.is_stale());
/// assert!(!Problem::NotAnnotation.is_stale());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Problem {
    /// `IDX-HDR-001`: the file does not start with the MPELOGIX magic, or its header is cut short or unreadable.
    NotAnnotation,
    /// `IDX-HDR-002`: the header's format_version is not 1.
    Version,
    /// `IDX-HDR-003`: the header's children per node is below 2.
    FewChildren,
    /// `IDX-BLK-001`: a block pointer lies outside the file or exceeds max_block.
    BadPointer,
    /// `IDX-BLK-002`: a block does not parse.
    Unparsable,
    /// `IDX-LEAF-001`: the leaf table's count differs from the header's leaves.
    LeafCount,
    /// `IDX-LEAF-002`: a leaf's trace range is not whole blocks inside the trace.
    LeafRange,
    /// `IDX-STALE-001`: the trace's size differs from the one recorded.
    TraceSize,
    /// `IDX-STALE-002`: the CRC-32 of the trace's preamble differs from the one recorded.
    PreambleChanged,
    /// `IDX-STALE-003`: the CRC-32 of a leaf's trace range differs from the one recorded.
    LeafChanged,
}

impl Problem {
    /// Every problem, in the order of spec/conformance.md §9.
    pub const ALL: &'static [Problem] = &[
        Problem::NotAnnotation,
        Problem::Version,
        Problem::FewChildren,
        Problem::BadPointer,
        Problem::Unparsable,
        Problem::LeafCount,
        Problem::LeafRange,
        Problem::TraceSize,
        Problem::PreambleChanged,
        Problem::LeafChanged,
    ];

    /// Whether the problem is a change of the trace since it was annotated
    /// (an [`Error::Stale`]), not damage to the annotation.
    ///
    /// ```
    /// use mpelog_annotate::error::Problem;
    /// assert!(Problem::TraceSize.is_stale()); // the trace changed
    /// assert!(!Problem::NotAnnotation.is_stale()); // the annotation is damaged
    /// ```
    pub fn is_stale(self) -> bool {
        matches!(
            self,
            Problem::TraceSize | Problem::PreambleChanged | Problem::LeafChanged
        )
    }
}

/// Why an annotation cannot be written, or a leaf not be read
/// ([`Error::Write`]).
///
/// ```
/// use mpelog_annotate::error::WriteProblem;
/// let p = WriteProblem::NoSuchLeaf { index: 9, leaves: 3 };
/// assert_eq!(p.to_string(), "leaf 9 does not exist (3 leaves)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteProblem {
    /// The trace holds no records: there is nothing to index.
    #[error("the trace has no records")]
    NoRecords,
    /// A block would be larger than a SLOG-2 block pointer can say (2 GiB).
    #[error("block over 2 GiB")]
    BlockTooLarge,
    /// A tree node would be larger than a SLOG-2 block pointer can say.
    #[error("node over 2 GiB")]
    NodeTooLarge,
    /// A structure could not be encoded (the encoder's words).
    #[error("{0}")]
    Encode(String),
    /// A leaf asked for that the annotation does not have.
    #[error("leaf {index} does not exist ({leaves} leaves)")]
    NoSuchLeaf {
        /// The leaf asked for.
        index: usize,
        /// How many leaves there are.
        leaves: usize,
    },
    /// A leaf's trace range is not whole blocks inside the trace (opening
    /// the annotation refuses that first, as `IDX-LEAF-002`).
    #[error("the leaf's trace range is not whole blocks inside the trace")]
    LeafRange,
}

/// Why [`AnnotateOptions`](crate::AnnotateOptions) are refused
/// ([`Error::InvalidOptions`]).
///
/// ```
/// use mpelog_annotate::error::OptionsProblem;
/// assert_eq!(
///     OptionsProblem::Children(1).to_string(),
///     "children per node must be 2 to 32767, not 1"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionsProblem {
    /// The options do not name the trace ([`AnnotateOptions::trace`](crate::AnnotateOptions::trace)).
    #[error("the options do not name the trace (AnnotateOptions::trace)")]
    NoTrace,
    /// Children per node outside 2..=32767.
    #[error("children per node must be 2 to 32767, not {0}")]
    Children(u16),
}

impl Error {
    /// The message without its byte offset (which [`Self::offset`] gives): what
    /// a report that shows the offset beside it prints.
    ///
    /// ```
    /// use mpelog_annotate::{error::Problem, Error};
    /// use mpelog_annotate::error::Damage;
    /// let e = Error::BadAnnotation { offset: 8, damage: Damage::Version { found: 2 } };
    /// assert_eq!(e.to_string(), "annotation byte 8: format version 2 (this reader knows 1)");
    /// assert_eq!(e.detail(), "annotation: format version 2 (this reader knows 1)");
    /// assert_eq!(e.offset(), Some(8));
    /// assert_eq!(e.problem(), Some(Problem::Version));
    /// ```
    pub fn detail(&self) -> String {
        match self {
            Error::Io { file, source, .. } => format!("{file}: I/O error: {source}"),
            Error::Clog2(e) => format!("trace: {}", e.detail()),
            Error::Slog2(e) => format!("annotation: {}", e.detail()),
            Error::BadAnnotation { damage, .. } => format!("annotation: {damage}"),
            Error::Stale { .. } | Error::Write(_) | Error::InvalidOptions(_) => self.to_string(),
        }
    }

    /// The byte offset the error concerns (in the file [`Self::detail`] names),
    /// if it concerns bytes.
    ///
    /// ```
    /// use mpelog_annotate::error::{OptionsProblem, Problem};
    /// use mpelog_annotate::Error;
    /// assert_eq!(Error::InvalidOptions(OptionsProblem::Children(1)).offset(), None);
    /// use mpelog_annotate::error::Change;
    /// let change = Change::Leaf { leaf: 2, offset: 4096, len: 1024 };
    /// let stale = Error::Stale { offset: 4096, change };
    /// assert_eq!(stale.offset(), Some(4096));
    /// ```
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Io { offset, .. } | Error::BadAnnotation { offset, .. } => Some(*offset),
            Error::Clog2(e) => e.offset(),
            Error::Slog2(e) => e.offset(),
            Error::Stale { offset, .. } => Some(*offset),
            Error::Write(_) | Error::InvalidOptions(_) => None,
        }
    }

    /// The rule of spec/conformance.md §9 that a [`Error::BadAnnotation`] or
    /// [`Error::Stale`] breaks; `None` for another error.
    ///
    /// ```
    /// use mpelog_annotate::error::{Change, Problem};
    /// use mpelog_annotate::Error;
    /// let stale = Error::Stale { offset: 0, change: Change::Preamble };
    /// assert_eq!(stale.problem(), Some(Problem::PreambleChanged));
    /// ```
    pub fn problem(&self) -> Option<Problem> {
        match self {
            Error::BadAnnotation { damage, .. } => Some(damage.problem()),
            Error::Stale { change, .. } => Some(change.problem()),
            _ => None,
        }
    }
}
