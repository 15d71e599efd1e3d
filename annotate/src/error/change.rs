//! How a trace changed since it was annotated ([`Error::Stale`](super::Error::Stale)),
//! with its values.

use super::Problem;

/// How the trace changed since it was annotated, with the values the message
/// names; [`Self::problem`] gives the rule of spec/conformance.md §9.
///
/// ```
/// use mpelog_annotate::error::{Change, Problem};
/// let c = Change::TraceSize { now: 4096, then: 8192 };
/// assert_eq!(c.to_string(), "the trace has 4096 bytes, it had 8192 when annotated");
/// assert_eq!(c.problem(), Problem::TraceSize);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// The trace's size differs from the one recorded (`IDX-STALE-001`).
    /// Offset: the trace's size.
    TraceSize {
        /// The trace's size now.
        now: u64,
        /// The size recorded.
        then: u64,
    },
    /// The CRC-32 of the trace's preamble differs from the one recorded
    /// (`IDX-STALE-002`). Offset: 0.
    Preamble,
    /// The CRC-32 of a leaf's trace range differs from the one recorded
    /// (`IDX-STALE-003`). Offset: the range.
    Leaf {
        /// The leaf's index.
        leaf: usize,
        /// Its range's offset in the trace.
        offset: u64,
        /// Its range's length.
        len: u32,
    },
}

impl Change {
    /// The rule the change breaks.
    ///
    /// ```
    /// use mpelog_annotate::error::{Change, Problem};
    /// assert_eq!(Change::Preamble.problem(), Problem::PreambleChanged);
    /// ```
    pub fn problem(&self) -> Problem {
        match self {
            Change::TraceSize { .. } => Problem::TraceSize,
            Change::Preamble => Problem::PreambleChanged,
            Change::Leaf { .. } => Problem::LeafChanged,
        }
    }
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Change::TraceSize { now, then } => {
                write!(f, "the trace has {now} bytes, it had {then} when annotated")
            }
            Change::Preamble => f.write_str("the trace's preamble changed since it was annotated"),
            Change::Leaf { leaf, offset, len } => write!(
                f,
                "the trace's bytes {offset}..{} (leaf {leaf}) changed since it was annotated",
                offset + u64::from(*len)
            ),
        }
    }
}
