//! The command-line tool's errors and their exit codes.

use crate::input::shown;
use std::path::{Path, PathBuf};

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// The input is not a valid CLOG2 or old CLOG trace (exit 1).
    #[error("{}: {source}{}", shown(.path), repair_hint(.path, .source, *.repairable))]
    BadInput {
        /// The input file.
        path: PathBuf,
        /// What is wrong, with the byte offset.
        #[source]
        source: clog2_format::Error,
        /// A CLOG2 file whose records before the problem `mpelog repair` recovers.
        repairable: bool,
    },
    /// The output cannot be written (exit 1): it is one of the inputs, a
    /// directory, a symlink loop, or the file system refused it.
    #[error(transparent)]
    File(#[from] mpelog::output::Error),
    /// A CUBE report cannot be built or written (exit 1).
    #[error(transparent)]
    Cube(#[from] mpelog::cube::Error),
    /// A wait index cannot be read or written (exit 1).
    #[error(transparent)]
    Waits(mpelog::waits::Error),
    /// The input is not a valid SLOG-2 file (exit 1).
    #[error("{}: {source}{}", shown(.path), check_rule(.source))]
    BadSlog2 {
        /// The input file.
        path: PathBuf,
        /// What is wrong, with the byte offset.
        #[source]
        source: slog2_format::Error,
    },
    /// The input is not a valid SLOG-1 file (exit 1).
    #[error("{}: {source}", shown(.path))]
    BadSlog1 {
        /// The input file.
        path: PathBuf,
        /// What is wrong, with the byte offset.
        #[source]
        source: slog2_format::slog1::Error,
    },
    /// The input is not a valid OTF2 archive (exit 1); the error names the
    /// archive's file and byte offset.
    #[error("{}: {source}", shown(.path))]
    BadOtf2 {
        /// The archive given.
        path: PathBuf,
        /// What is wrong, with the file and byte offset.
        #[source]
        source: otf2_format::Error,
    },
    /// The input's format could not be recognized (exit 1).
    #[error("{}: {message}", shown(.path))]
    Unrecognized {
        /// The input file.
        path: PathBuf,
        /// Explanation.
        message: String,
    },
    /// A file could not be opened, read or written (exit 1).
    #[error("{}: {source}", shown(.path))]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The input is not a valid ALOG file (exit 1).
    #[error("{}: {source}", shown(.path))]
    BadAlog {
        /// The input file.
        path: PathBuf,
        /// What is wrong, with the line number.
        #[source]
        source: alog_format::Error,
    },
    /// An annotation or the trace it annotates is bad or stale (exit 1).
    #[error("{}: {source}", shown(.path))]
    BadAnnotation {
        /// The annotation file (or the trace, for trace errors).
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: mpelog_annotate::Error,
    },
    /// `check` found errors in this many files (exit 1).
    #[error("{0} file(s) failed the check")]
    CheckFailed(usize),
    /// A remote file could not be read, or changed while it was read (exit 1).
    #[error(transparent)]
    Remote(#[from] mpelog::remote::Error),
    /// An export asks for a view the trace lacks (exit 2).
    #[error("no view {asked:?} in the file (its views: {known})")]
    NoView {
        /// The view asked for.
        asked: String,
        /// The file's views.
        known: String,
    },
    /// A picture asks for what the trace cannot give: a view it lacks, an
    /// empty window (exit 2).
    #[error(transparent)]
    Render(mpelog::render::Error),
    /// Filtering or re-treeing a SLOG-2 file failed on its content (exit 1).
    #[error("{}: {source}", shown(.path))]
    Filter {
        /// The input file.
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: mpelog::filter::Error,
    },
    /// The command line asks for something impossible (exit 2).
    #[error("{0}")]
    Usage(String),
    /// Options a SLOG-2 writer or query cannot use, such as a tree of one
    /// child per node (exit 2).
    #[error("{0}")]
    Options(slog2_format::error::OptionsProblem),
    /// Options the trace generator (`synth`) cannot use (exit 2).
    #[error("{0}")]
    SynthOptions(clog2_format::error::OptionsProblem),
}

impl CliError {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_)
            | CliError::Options(_)
            | CliError::SynthOptions(_)
            | CliError::NoView { .. }
            | CliError::Render(_) => 2,
            _ => 1,
        }
    }

    /// Wraps an I/O error on `path` (one that holds a remote file's error
    /// becomes [`CliError::Remote`]).
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CliError + '_ {
        move |source| Self::from_io(path, source)
    }

    fn from_io(path: &Path, source: std::io::Error) -> CliError {
        if source
            .get_ref()
            .is_some_and(|e| e.is::<mpelog::remote::Error>())
        {
            let inner = source.into_inner().expect("an inner error");
            let remote = inner
                .downcast::<mpelog::remote::Error>()
                .expect("a remote error");
            return CliError::Remote(*remote);
        }
        CliError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// Wraps an old-CLOG codec error on `path` (or a CLOG2 error on an output).
    pub fn input(path: &Path) -> impl FnOnce(clog2_format::Error) -> CliError + '_ {
        move |source| Self::from_clog2(path, source, false)
    }

    /// Wraps a CLOG2 reading error on the input `path`; one that `mpelog repair`
    /// can recover from says so, with the command.
    pub fn clog2(path: &Path) -> impl FnOnce(clog2_format::Error) -> CliError + '_ {
        move |source| {
            let repairable = source.repairable();
            Self::from_clog2(path, source, repairable)
        }
    }

    fn from_clog2(path: &Path, source: clog2_format::Error, repairable: bool) -> CliError {
        match source {
            clog2_format::Error::InvalidOptions(m) => CliError::SynthOptions(m),
            clog2_format::Error::Io { source, .. } => Self::from_io(path, source),
            source => CliError::BadInput {
                path: path.to_path_buf(),
                source,
                repairable,
            },
        }
    }
}

impl CliError {
    /// Wraps a SLOG-1 codec error on `path`.
    pub fn slog1(path: &Path) -> impl FnOnce(slog2_format::slog1::Error) -> CliError + '_ {
        move |source| match source {
            slog2_format::slog1::Error::Io { source, .. } => Self::from_io(path, source),
            source => CliError::BadSlog1 {
                path: path.to_path_buf(),
                source,
            },
        }
    }

    /// Wraps a SLOG-2 codec error on `path`.
    pub fn slog2(path: &Path) -> impl FnOnce(slog2_format::Error) -> CliError + '_ {
        move |source| match source {
            slog2_format::Error::InvalidOptions(m) => CliError::Options(m),
            slog2_format::Error::Io { source, .. } => Self::from_io(path, source),
            source => CliError::BadSlog2 {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

impl From<mpelog::trace::Error> for CliError {
    /// The CLI's error, with the CLI's message, for a [`mpelog::Trace`]'s.
    fn from(e: mpelog::trace::Error) -> CliError {
        use mpelog::trace::Error as E;
        match e {
            E::Io { path, source } => CliError::from_io(&path, source),
            E::Unrecognized { path, message } => CliError::Unrecognized { path, message },
            E::Remote(e) => CliError::Remote(e),
            // Only a CLOG2 input is one `mpelog repair` recovers (not an old
            // CLOG input, nor an output).
            E::Clog2 { path, source }
                if mpelog::trace::detect(&path).is_ok_and(|f| f == mpelog::trace::Format::Clog2) =>
            {
                CliError::clog2(&path)(source)
            }
            E::Clog2 { path, source } => CliError::input(&path)(source),
            E::Output(e) => CliError::File(e),
            E::Filter { path, source } => CliError::Filter { path, source },
            E::Slog2 { path, source } => CliError::slog2(&path)(source),
            E::Slog1 { path, source } => CliError::slog1(&path)(source),
            E::Alog { path, source } => CliError::BadAlog { path, source },
            E::Otf2 { path, source } => CliError::BadOtf2 { path, source },
            E::Annotation { path, source } => CliError::BadAnnotation { path, source },
            E::NoTrace { annotation, .. } if annotation.extension().is_none_or(|e| e != "idx") => {
                CliError::Usage(format!(
                    "{}: cannot tell which trace this annotation belongs to: name it TRACE.clog2.idx or give --trace TRACE.clog2",
                    annotation.display()
                ))
            }
            E::NoTrace { annotation, trace } => CliError::Usage(format!(
                "{}: the trace it annotates should be {}, which does not exist; give --trace TRACE.clog2",
                annotation.display(),
                trace.display()
            )),
            E::BadWindow { from, to } => CliError::Usage(format!(
                "window: --from {from} must be less than --to {to} (the window is [FROM, TO))"
            )),
            E::NoView { asked, known } => CliError::NoView { asked, known },
            e => CliError::Usage(e.to_string()),
        }
    }
}

/// Result of a command.
pub type CliResult<T = ()> = Result<T, CliError>;

/// For a SLOG-2 file a window query refuses because its header, maps or
/// TreeDir break a rule of `mpelog check`: the rule's ID, so that the user can
/// look it up (spec/conformance.md §8) or run the checker for the rest.
fn check_rule(e: &slog2_format::Error) -> String {
    match e {
        slog2_format::Error::BadTree { problem, .. } => match problem.file_rule() {
            Some(p) => format!(
                " (rule {} of `mpelog check`)",
                mpelog_conformance::check::slog2::rule(p).id
            ),
            None => String::new(),
        },
        _ => String::new(),
    }
}

/// The line that tells how to recover a damaged CLOG2 file.
fn repair_hint(path: &Path, e: &clog2_format::Error, repairable: bool) -> String {
    match (repairable, e.offset()) {
        (true, Some(at)) => format!(
            "\nmpelog: the records before byte {at} can be recovered: mpelog repair {} -o FIXED.clog2",
            shown(path)
        ),
        _ => String::new(),
    }
}
