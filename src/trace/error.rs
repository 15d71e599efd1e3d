//! Why a [`Trace`](super::Trace) could not be opened or read: one variant per
//! kind of failure, each naming the input, with the byte offset where the
//! format crates give one ([`Error::offset`]).

use std::path::PathBuf;

/// What [`Trace`](super::Trace) methods return.
pub type Result<T> = std::result::Result<T, Error>;

/// Why opening or reading a trace failed.
///
/// ```
/// let e = mpelog::Trace::open("no/such/trace.clog2").unwrap_err();
/// assert!(matches!(e, mpelog::trace::Error::Io { .. }));
/// assert_eq!(e.kind(), "io");
/// assert_eq!(e.offset(), None);
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be opened, read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file (or temporary directory).
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The input is no trace format mpelog knows.
    #[error("{}: {message}", .path.display())]
    Unrecognized {
        /// The input.
        path: PathBuf,
        /// What it starts with and what was expected.
        message: String,
    },
    /// A URL could not be read.
    #[error(transparent)]
    Remote(#[from] crate::remote::Error),
    /// A bad CLOG2 or old CLOG trace.
    #[error("{}: {source}", .path.display())]
    Clog2 {
        /// The input.
        path: PathBuf,
        /// What is wrong, with the byte offset.
        #[source]
        source: clog2_format::Error,
    },
    /// A bad SLOG-2 file.
    #[error("{}: {source}", .path.display())]
    Slog2 {
        /// The input.
        path: PathBuf,
        /// What is wrong, with the byte offset.
        #[source]
        source: slog2_format::Error,
    },
    /// A bad SLOG-1 file.
    #[error("{}: {source}", .path.display())]
    Slog1 {
        /// The input.
        path: PathBuf,
        /// What is wrong, with the byte offset.
        #[source]
        source: slog2_format::slog1::Error,
    },
    /// A bad ALOG file (or `.Z` file that does not unpack).
    #[error("{}: {source}", .path.display())]
    Alog {
        /// The input.
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: alog_format::Error,
    },
    /// A bad OTF2 archive.
    #[error("{}: {source}", .path.display())]
    Otf2 {
        /// The archive.
        path: PathBuf,
        /// What is wrong, with the file inside the archive and the byte offset.
        #[source]
        source: otf2_format::Error,
    },
    /// A bad or stale annotation, or a trace that changed since it was annotated.
    #[error("{}: {source}", .path.display())]
    Annotation {
        /// The annotation or its trace, whichever is at fault.
        path: PathBuf,
        /// What is wrong, with the byte offset.
        #[source]
        source: mpelog_annotate::Error,
    },
    /// An annotation whose trace is not where it should be.
    #[error("{}: the trace it annotates should be {}, which does not exist", .annotation.display(), .trace.display())]
    NoTrace {
        /// The annotation.
        annotation: PathBuf,
        /// Where its trace should be.
        trace: PathBuf,
    },
    /// A window that is not `from < to` with finite bounds.
    #[error("the window [{from}, {to}) is empty or not finite (give finite FROM < TO in seconds)")]
    BadWindow {
        /// The start asked for.
        from: f64,
        /// The end asked for.
        to: f64,
    },
    /// Something this input cannot do (say, converting a SLOG-2 file to
    /// SLOG-2 through [`Trace::write_slog2`](super::Trace::write_slog2)).
    #[error("{}: {what}", .path.display())]
    Unsupported {
        /// The input.
        path: PathBuf,
        /// What it cannot do, and why.
        what: String,
    },
    /// A view (line-ID map) the trace does not have.
    #[error("no view {asked:?} in the trace (its views: {known})")]
    NoView {
        /// The view asked for.
        asked: String,
        /// The trace's views.
        known: String,
    },
    /// An output that cannot be written: it is one of the inputs, a
    /// directory, or the file system refused it (the rules of
    /// [`crate::output`]).
    #[error(transparent)]
    Output(#[from] crate::output::Error),
    /// A SLOG-2 file whose drawables cannot be put into a new tree.
    #[error("{}: {source}", .path.display())]
    Filter {
        /// The input.
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: crate::filter::Error,
    },
    /// The read was stopped by its caller (the flag of
    /// [`Trace::scan_until`](super::Trace::scan_until) or
    /// [`Trace::set_stop`](super::Trace::set_stop)) before its end.
    #[error("{}: the read was stopped before its end", .path.display())]
    Stopped {
        /// The input.
        path: PathBuf,
    },
}

impl Error {
    /// The byte offset of the problem in the file at fault, where the format
    /// crate gives one.
    ///
    /// ```
    /// # use std::io::Cursor;
    /// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (slog2, _) = slog2_format::convert::clog2_to_slog2(&mut r, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// let slog2 = slog2.into_inner();
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("cut.slog2");
    /// std::fs::write(&path, &slog2[..slog2.len() / 2])?; // cut in half
    /// let e = match mpelog::Trace::open(&path) {
    ///     Err(e) => e,
    ///     Ok(mut t) => t.window(None, None).unwrap_err(),
    /// };
    /// assert_eq!(e.kind(), "slog2");
    /// assert!(e.offset().is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Clog2 { source, .. } => source.offset(),
            Error::Slog2 { source, .. } => source.offset(),
            Error::Slog1 { source, .. } => source.offset(),
            Error::Alog { source, .. } => source.offset(),
            Error::Otf2 { source, .. } => Some(source.offset()),
            Error::Annotation { source, .. } => source.offset(),
            _ => None,
        }
    }

    /// The kind of error as one word (what the Python package names its
    /// exceptions after): `io`, `unrecognized`, `remote`, `clog2`, `slog2`,
    /// `slog1`, `alog`, `otf2`, `annotation`, `no_trace`, `bad_window`,
    /// `unsupported`, `no_view`, `stopped`, `output`, `filter`.
    ///
    /// ```
    /// let e = mpelog::trace::Error::BadWindow { from: 1.0, to: 0.0 };
    /// assert_eq!(e.kind(), "bad_window");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Io { .. } => "io",
            Error::Unrecognized { .. } => "unrecognized",
            Error::Remote(_) => "remote",
            Error::Clog2 { .. } => "clog2",
            Error::Slog2 { .. } => "slog2",
            Error::Slog1 { .. } => "slog1",
            Error::Alog { .. } => "alog",
            Error::Otf2 { .. } => "otf2",
            Error::Annotation { .. } => "annotation",
            Error::NoTrace { .. } => "no_trace",
            Error::BadWindow { .. } => "bad_window",
            Error::NoView { .. } => "no_view",
            Error::Unsupported { .. } => "unsupported",
            Error::Stopped { .. } => "stopped",
            Error::Output(_) => "output",
            Error::Filter { .. } => "filter",
        }
    }

    /// `Io` at `path`, for `map_err`.
    pub(crate) fn io(path: &std::path::Path) -> impl Fn(std::io::Error) -> Error + '_ {
        move |source| Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A conversion's error: the input's (CLOG2 or OTF2 reader), the sorter's
    /// temporary runs, or the SLOG-2 side.
    pub(crate) fn conversion(path: &std::path::Path, e: slog2_format::Error) -> Error {
        let path = path.to_path_buf();
        match e {
            slog2_format::Error::Clog2(source) => Error::Clog2 {
                path,
                source: *source,
            },
            slog2_format::Error::Otf2(source) => Error::Otf2 {
                path,
                source: *source,
            },
            slog2_format::Error::Sink(e) => match e.downcast::<std::io::Error>() {
                Ok(source) => Error::Io {
                    path: std::env::temp_dir(),
                    source: *source,
                },
                Err(e) => Error::Slog2 {
                    path,
                    source: slog2_format::Error::Sink(e),
                },
            },
            source => Error::Slog2 { path, source },
        }
    }
}
