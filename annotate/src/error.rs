//! Typed errors; errors about bytes name the file and the byte offset.

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
    #[error("annotation byte {offset}: {what}")]
    BadAnnotation {
        /// The rule of spec/conformance.md §9 it breaks (`IDX-HDR-001`, …).
        rule: &'static str,
        /// Where.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// The trace changed since it was annotated.
    #[error("stale annotation: {what}; annotate the trace again")]
    Stale {
        /// The rule of spec/conformance.md §9 it breaks (`IDX-STALE-001`, …).
        rule: &'static str,
        /// Where, in the trace (0 for its size).
        offset: u64,
        /// What differs.
        what: String,
    },
    /// The input cannot be annotated as asked.
    #[error("cannot annotate: {0}")]
    Write(String),
    /// Options that cannot be used (a caller's mistake, not bad input).
    #[error("invalid options: {0}")]
    InvalidOptions(String),
}

impl Error {
    /// The message without its byte offset (which [`Self::offset`] gives): what
    /// a report that shows the offset beside it prints.
    ///
    /// ```
    /// use mpelog_annotate::Error;
    /// let e = Error::BadAnnotation { rule: "IDX-HDR-001", offset: 8, what: "not a header".into() };
    /// assert_eq!(e.to_string(), "annotation byte 8: not a header");
    /// assert_eq!(e.detail(), "annotation: not a header");
    /// assert_eq!(e.offset(), Some(8));
    /// ```
    pub fn detail(&self) -> String {
        match self {
            Error::Io { file, source, .. } => format!("{file}: I/O error: {source}"),
            Error::Clog2(e) => format!("trace: {}", e.detail()),
            Error::Slog2(e) => format!("annotation: {}", e.detail()),
            Error::BadAnnotation { what, .. } => format!("annotation: {what}"),
            Error::Stale { .. } | Error::Write(_) | Error::InvalidOptions(_) => self.to_string(),
        }
    }

    /// The byte offset the error concerns (in the file [`Self::detail`] names),
    /// if it concerns bytes.
    ///
    /// ```
    /// use mpelog_annotate::Error;
    /// assert_eq!(Error::InvalidOptions("children".into()).offset(), None);
    /// let stale = Error::Stale { rule: "IDX-STALE-003", offset: 4096, what: "checksum".into() };
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
}
