//! The checker: detects a file's format and checks it against the rules of
//! `spec/` (the table is [`crate::rules`]).
//!
//! Every format module has a `RULES` table and a `check` function. Parse errors
//! of the format's reader become the `…-REJ-NNN` finding of the spec row they
//! break, with the reader's byte offset; a file that parses is then checked
//! for the rules beyond parsing (definitions, order, pairing, …).
//!
//! ```
//! use mpelog_conformance::check::{check_bytes, Options};
//! let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
//!     .ranks(2)
//!     .events(300)
//!     .seed(1)
//!     .block_size(1024))
//! .unwrap();
//! assert!(check_bytes(&clog2, &Options::default()).passes());
//! let cut = check_bytes(&clog2[..3000], &Options::default());
//! assert_eq!(cut.rule_ids(), ["C2-REJ-009"]);
//! ```

pub mod alog;
pub mod annotation;
pub mod clog;
pub mod clog2;
pub mod otf2;
pub mod slog1;
pub mod slog2;

use crate::report::{Collector, Report};
use crate::{detect, Format};
use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// How to check.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Findings kept per rule (the count of the rest is not reported); at least 1.
    pub limit: usize,
    /// For an annotation file: the trace it annotates. When `None`,
    /// [`check_path`] takes the annotation's name without `.idx`.
    pub trace: Option<PathBuf>,
    /// A flag that stops [`check_path`] once set: it reads no further (an
    /// OTF2 archive: no further event) and returns an error of kind
    /// `Interrupted`.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            limit: 20,
            trace: None,
            stop: None,
        }
    }
}

/// Setters, one per field (the struct is `#[non_exhaustive]`: start from
/// [`Default`]).
impl Options {
    /// Sets `limit` (see the field).
    ///
    /// ```
    /// use mpelog_conformance::Options;
    /// assert_eq!(Options::default().limit, 20);
    /// assert_eq!(Options::default().limit(3).limit, 3);
    /// ```
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Sets `trace` (see the field).
    ///
    /// ```
    /// use mpelog_conformance::Options;
    /// use std::path::{Path, PathBuf};
    /// let opts = Options::default().trace(Some(PathBuf::from("run.clog2")));
    /// assert_eq!(opts.trace.as_deref(), Some(Path::new("run.clog2")));
    /// ```
    pub fn trace(mut self, trace: Option<PathBuf>) -> Self {
        self.trace = trace;
        self
    }

    /// Sets `stop` (see the field).
    ///
    /// ```
    /// use mpelog_conformance::{check_path, Options};
    /// use std::sync::{atomic::AtomicBool, Arc};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("run.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let stopped = Options::default().stop(Some(Arc::new(AtomicBool::new(true))));
    /// let e = check_path(&path, &stopped).unwrap_err();
    /// assert_eq!(e.kind(), std::io::ErrorKind::Interrupted);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop(mut self, stop: Option<Arc<AtomicBool>>) -> Self {
        self.stop = stop;
        self
    }
}

/// A file [`check_path`] reads: its reads fail once the flag of
/// [`Options::stop`] is set.
struct Stoppable<R> {
    inner: R,
    stop: Option<Arc<AtomicBool>>,
}

/// Whether the flag of [`Options::stop`] is given and set.
fn stopped(stop: &Option<Arc<AtomicBool>>) -> bool {
    stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
}

impl<R: Read> Read for Stoppable<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if stopped(&self.stop) {
            return Err(io::Error::other("the check was stopped"));
        }
        self.inner.read(buf)
    }
}

impl<R: Seek> Seek for Stoppable<R> {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// Checks `bytes` as the format [`detect`] finds. An annotation is checked
/// without its trace ([`check_annotation`] takes both).
///
/// ```
/// use mpelog_conformance::{check_bytes, Format, Options};
///
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// let report = check_bytes(&clog2, &Options::default());
/// assert_eq!(report.format, Some(Format::Clog2));
/// assert_eq!(report.errors(), 0);
///
/// let cut = check_bytes(&clog2[..clog2.len() - 5], &Options::default());
/// assert!(!cut.passes());
///
/// let unknown = check_bytes(b"hello", &Options::default());
/// assert_eq!((unknown.format, unknown.rule_ids()), (None, vec!["FORMAT-001"]));
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn check_bytes(bytes: &[u8], opts: &Options) -> Report {
    match detect(bytes) {
        Some(f) => check_format(f, bytes, opts),
        None => unrecognized(bytes.len()),
    }
}

/// Checks `bytes` as a file of `format`, whatever [`detect`] would say.
///
/// ```
/// use mpelog_conformance::{check_format, Format, Options};
///
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// assert!(check_format(Format::Clog2, &clog2, &Options::default()).passes());
/// let as_slog2 = check_format(Format::Slog2, &clog2, &Options::default());
/// assert_eq!(as_slog2.format, Some(Format::Slog2));
/// assert!(as_slog2.errors() > 0);
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn check_format(format: Format, bytes: &[u8], opts: &Options) -> Report {
    let mut c = Collector::new(format, opts.limit);
    match format {
        Format::Clog2 => clog2::check(io::Cursor::new(bytes), &mut c),
        Format::Clog => clog::check(bytes, &mut c),
        Format::Alog => alog::check(bytes, &mut c),
        Format::Slog1 => slog1::check(bytes, &mut c),
        Format::Slog2 | Format::Slog2Compressed => slog2::check(io::Cursor::new(bytes), &mut c),
        Format::Annotation => {
            annotation::check(io::Cursor::new(bytes), None::<io::Cursor<&[u8]>>, &mut c)
        }
        Format::Otf2 => otf2::check_anchor(bytes, &mut c),
    }
    c.finish()
}

/// Checks the annotation `annotation` of the CLOG2 trace `trace`: its structure
/// and every node, and that it still describes the trace (size, preamble and
/// every leaf's checksum).
///
/// ```
/// use mpelog_annotate::{annotate, AnnotateOptions};
/// use mpelog_conformance::{check_annotation, Options};
/// use std::io::Cursor;
///
/// let trace = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
/// let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
/// let idx = idx.into_inner();
/// let report = check_annotation(Cursor::new(&idx), Cursor::new(&trace), &Options::default());
/// assert_eq!(report.errors(), 0);
///
/// // A byte of the first leaf (after the 1024-byte preamble) changed since.
/// let mut changed = trace.clone();
/// changed[1024 + 100] ^= 0xff;
/// let stale = check_annotation(Cursor::new(&idx), Cursor::new(&changed), &Options::default());
/// assert!(stale.rule_ids().iter().any(|id| id.starts_with("IDX-STALE")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_annotation<A, T>(annotation: A, trace: T, opts: &Options) -> Report
where
    A: Read + Seek,
    T: Read + Seek,
{
    let mut c = Collector::new(Format::Annotation, opts.limit);
    annotation::check(annotation, Some(trace), &mut c);
    c.finish()
}

/// Checks the file at `path`. CLOG2, SLOG-2 and annotations are streamed (memory
/// stays bounded whatever the file size); the older formats are read whole.
/// An annotation's trace is `opts.trace`, or the annotation's path without
/// `.idx`. An OTF2 archive is named by its anchor file or the directory
/// holding it, and streamed location by location. Only I/O errors on opening
/// or reading are returned as `Err` (an archive's other files are its own
/// findings).
///
/// # Errors
///
/// The I/O error of opening or reading the file.
///
/// ```
/// use mpelog_conformance::{check_path, Format, Options};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("run.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let report = check_path(&path, &Options::default())?;
/// assert_eq!((report.format, report.errors()), (Some(Format::Clog2), 0));
///
/// let missing = check_path(&dir.path().join("none.clog2"), &Options::default());
/// assert_eq!(missing.unwrap_err().kind(), std::io::ErrorKind::NotFound);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_path(path: &Path, opts: &Options) -> io::Result<Report> {
    let report = check_path_unstopped(path, opts);
    if stopped(&opts.stop) {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "the check was stopped (Options::stop)",
        ));
    }
    report
}

fn check_path_unstopped(path: &Path, opts: &Options) -> io::Result<Report> {
    if path.is_dir() {
        let mut c = Collector::new(Format::Otf2, opts.limit);
        otf2::check_archive_until(path, &mut c, &opts.stop.clone().unwrap_or_default());
        return Ok(c.finish());
    }
    let mut f = File::open(path)?;
    let mut head = Vec::with_capacity(64);
    (&mut f).take(64).read_to_end(&mut head)?;
    f.rewind()?;
    let Some(format) = detect(&head) else {
        return Ok(unrecognized(f.metadata()?.len() as usize));
    };
    let stoppable = |inner| Stoppable {
        inner,
        stop: opts.stop.clone(),
    };
    let mut c = Collector::new(format, opts.limit);
    match format {
        Format::Clog2 => clog2::check(BufReader::with_capacity(1 << 16, stoppable(f)), &mut c),
        Format::Slog2 | Format::Slog2Compressed => {
            slog2::check(BufReader::with_capacity(1 << 16, stoppable(f)), &mut c)
        }
        Format::Otf2 => {
            otf2::check_archive_until(path, &mut c, &opts.stop.clone().unwrap_or_default())
        }
        Format::Annotation => {
            let trace = match &opts.trace {
                Some(t) => t.clone(),
                None => trace_of(path),
            };
            match File::open(&trace) {
                Ok(t) => annotation::check(
                    BufReader::new(stoppable(f)),
                    Some(BufReader::new(stoppable(t))),
                    &mut c,
                ),
                Err(e) => {
                    annotation::no_trace(&trace, e, &mut c);
                    annotation::check(BufReader::new(stoppable(f)), None::<File>, &mut c);
                }
            }
        }
        _ => {
            let mut bytes = Vec::new();
            stoppable(f).read_to_end(&mut bytes)?;
            return Ok(check_format(format, &bytes, opts));
        }
    }
    Ok(c.finish())
}

/// The trace an annotation at `idx` belongs to by name: `X.idx` → `X`.
///
/// ```
/// use mpelog_conformance::check::trace_of;
/// use std::path::Path;
/// assert_eq!(trace_of(Path::new("runs/a.clog2.idx")), Path::new("runs/a.clog2"));
/// ```
pub fn trace_of(idx: &Path) -> PathBuf {
    match idx.to_str().and_then(|s| s.strip_suffix(".idx")) {
        Some(t) => PathBuf::from(t),
        None => idx.with_extension(""),
    }
}

fn unrecognized(len: usize) -> Report {
    Report {
        format: None,
        findings: vec![crate::report::Finding {
            rule: "FORMAT-001",
            severity: crate::rule::Severity::Error,
            offset: 0,
            place: None,
            message: format!(
                "the {len}-byte file is none of ALOG, CLOG, CLOG2, SLOG-1, SLOG-2 (plain or compressed) an mpelog annotation or an OTF2 anchor file; check that it is a trace and not cut at its start"
            ),
        }],
    }
}
