//! [`Trace`]: the one way to open any input mpelog reads (CLOG2, old CLOG,
//! ALOG, SLOG-1, SLOG-2 plain or compressed, annotations, OTF2 archives, and
//! SLOG-2 files at `http(s)://` URLs), with what a tool needs of it: its
//! [`info`](Trace::info), its file's own facts ([`file_info`](Trace::file_info),
//! what `mpelog info` prints), its records as they are in the file
//! ([`print`](Trace::print)), [window queries](Trace::window), a one-pass
//! time-ordered stream of its drawables ([`drawables`](Trace::drawables)),
//! its [`stats`](Trace::stats), its [`analysis`](Trace::analyze) and its
//! [`check`](Trace::check).
//!
//! SLOG-2 files and annotations are queried through their trees; any other
//! format is converted once, on the first query that needs a tree, to a
//! temporary SLOG-2 file with `mpelog convert`'s default tree, kept (and
//! queried) for the `Trace`'s life and removed with it. Statistics and the
//! drawable stream of such a format need no tree: they read the trace in one
//! pass, its drawables put in time order in bounded memory.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("demo.clog2");
//! std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
//! let mut t = mpelog::Trace::open(&path)?;
//! let info = t.info()?;
//! assert_eq!(info.format.name(), "CLOG2");
//! let w = t.window(Some(info.start), Some(info.start + (info.end - info.start) / 10.0))?;
//! assert!(!w.drawables.is_empty());
//! let stats = t.stats(&mpelog::stats::Options::default())?;
//! assert!(stats.categories.iter().any(|c| c.name == "MPI_Send" && c.count > 0));
//! assert!(t.check(&Default::default())?.passes());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod analyze;
mod columns;
mod detect;
mod error;
mod file_info;
mod info;
mod pieces;
mod print;
pub(crate) mod read;
pub(crate) mod stop;
mod two_pass;
mod window;

pub use analyze::WaitSource;
pub use columns::{Columns, ColumnsBuilder, Select, TextColumn, TypedColumn, Validity};
pub use detect::{detect, local_copy, locate, url};
pub use error::{Error, Result};
pub use file_info::{Damage, FileInfo, MpeFileInfo, Otf2FileInfo, TreeFacts};
pub use info::{CategoryInfo, Info};
pub use mpelog_conformance::Format;
pub use pieces::InOrder;
pub use print::OUTPUT;
pub use stop::{AnnotationReader, Stoppable};
pub use two_pass::TwoPass;
pub use window::{bounds, check_window, Window};

use crate::export::{Counts, Sink};
use slog2_format::{Category, Slog2Reader};
use std::fs::File;
use std::path::{Path, PathBuf};

/// A source a SLOG-2 reader reads: a local file or a remote one.
pub trait ReadSeek: std::io::Read + std::io::Seek + Send {}
impl<T: std::io::Read + std::io::Seek + Send> ReadSeek for T {}

/// A SLOG-2 reader over a local or a remote file (what [`TreeMut::Slog2`]
/// lends).
pub type Reader = Slog2Reader<Box<dyn ReadSeek>>;

/// The tree of a trace, lent for the queries [`Trace`] does not make itself
/// (previews, depths, summaries, lenient reading, the reader's counters):
/// what [`Trace::tree_mut`] returns.
#[non_exhaustive]
pub enum TreeMut<'a> {
    /// A SLOG-2 file (local, remote, or the conversion of another format).
    Slog2(&'a mut Reader),
    /// An annotation, and the path of the trace it annotates.
    Annotation(&'a mut AnnotationReader, &'a Path),
}

/// What [`Trace::set_progress`] calls as a one-pass read goes on.
pub type Progress = Box<dyn FnMut(Step) + Send>;

/// How far a read of a format without a tree has come (a one-pass read, or
/// the one-time conversion to SLOG-2): what [`Trace::set_progress`] is told.
///
/// ```
/// let s = mpelog::trace::Step::Read { at: 10, total: 100 };
/// assert!(matches!(s, mpelog::trace::Step::Read { at: 10, .. }));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Step {
    /// `at` bytes of the input's `total` have been read.
    Read {
        /// The bytes read so far.
        at: u64,
        /// The input's size.
        total: u64,
    },
    /// `at` events of an OTF2 archive have been read (its conversion counts
    /// events: an archive's locations are read side by side, so no one byte
    /// position tells how far it has come).
    Events {
        /// The events read so far.
        at: u64,
    },
    /// The input has been read and its drawables put in time order, through
    /// `runs` sorted runs in a temporary file (none when they fit in the
    /// sort memory).
    Sorted {
        /// The drawables kept (those that meet the window).
        drawables: u64,
        /// The sorted runs written.
        runs: usize,
    },
    /// The input has been converted to a temporary SLOG-2 file (for a
    /// window query or the tree): what the conversion did, and what it
    /// could not pair.
    Converted(Box<slog2_format::convert::ConvertStats>),
}

/// The tree a window query reads.
enum Tree {
    /// A SLOG-2 file (local, remote, or the conversion of another format).
    Slog2(Box<Reader>),
    /// An annotation, and the path of the trace it annotates.
    Annotation(Box<AnnotationReader>, PathBuf),
}

/// An opened trace of any format (see the [module documentation](self)).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("demo.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let t = mpelog::Trace::open(&path)?;
/// assert_eq!(t.format(), mpelog::trace::Format::Clog2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Trace {
    /// The input as given (a path or a URL).
    given: PathBuf,
    /// The local file to read: the input, the copy of standard input or of a
    /// URL (`None` for a SLOG-2 file read where it is with Range requests).
    local: Option<PathBuf>,
    format: Format,
    tree: Option<Tree>,
    /// The temporary directory of the conversion to SLOG-2, if made.
    converted: Option<tempfile::TempDir>,
    /// The legend's row plan and the query buffer of
    /// [`window_columns`](Trace::window_columns), kept for the next query.
    plan: Option<Box<columns::Plan>>,
    /// The request counts of a SLOG-2 file read where it is.
    requests: Option<crate::remote::Counts>,
    /// Told how far a one-pass read has come.
    progress: Option<Progress>,
    /// A CLOG2 trace's first pass (legend, maps, time box, time order), kept
    /// from the first two-pass read for the next ones, and shared with the
    /// traces [`Trace::reopen`] makes.
    survey: read::Kept,
    /// The flag that stops its reads ([`Trace::set_stop`]), shared with the
    /// files its tree is read from.
    stop: stop::StopSlot,
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace")
            .field("given", &self.given)
            .field("format", &self.format)
            .field("converted", &self.converted.is_some())
            .finish()
    }
}

/// The bytes of decompressed tree nodes a SLOG-2 reader of a [`Trace`]
/// keeps between window queries (a plain file's nodes are not kept: the
/// page cache has them; what is kept of them is what each upper node's scan
/// found, a few hundred bytes a node).
const NODE_CACHE_BYTES: usize = 32 << 20;

/// The node cache of a SLOG-2 reader of a [`Trace`]: a window query reads
/// only what it shows of an upper node an earlier query scanned.
fn node_cache() -> std::sync::Arc<slog2_format::NodeCache> {
    std::sync::Arc::new(slog2_format::NodeCache::new(NODE_CACHE_BYTES))
}

impl Trace {
    /// Opens `path_or_url`: a local trace of any format mpelog reads (a file,
    /// an OTF2 archive's directory or anchor file, an annotation `X.idx`
    /// beside its trace `X`, or `-` for standard input), or a URL. A SLOG-2
    /// file at a URL is read where it is, with HTTP Range requests; any other
    /// trace at a URL through a local copy (as the CLI does).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] for a file that cannot be read, [`Error::Unrecognized`]
    /// for no known format, [`Error::Remote`] for a URL that cannot be read,
    /// and the format's error for a SLOG-2 file or an annotation whose header
    /// is bad (other formats are read when first queried).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("x.txt");
    /// std::fs::write(&path, "not a trace")?;
    /// let e = mpelog::Trace::open(&path).unwrap_err();
    /// assert!(matches!(e, mpelog::trace::Error::Unrecognized { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path_or_url: impl AsRef<Path>) -> Result<Trace> {
        Self::open_with_trace(path_or_url, None)
    }

    /// As [`Trace::open`], but an annotation is read with the trace `trace`
    /// when given (an annotation not named after its trace); `trace` is not
    /// used for any other input.
    ///
    /// # Errors
    ///
    /// As [`Trace::open`].
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let t = mpelog::Trace::open_with_trace(&path, Some(std::path::Path::new("unused")))?;
    /// assert_eq!(t.format().name(), "CLOG2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_with_trace(path_or_url: impl AsRef<Path>, trace: Option<&Path>) -> Result<Trace> {
        let given = path_or_url.as_ref();
        let local = match url(given) {
            Some(u) => {
                let f = crate::remote::HttpFile::open(u)?;
                let requests = f.counts();
                let stop = stop::StopSlot::default();
                let source: Box<dyn ReadSeek> = Box::new(stop::Stoppable::new(f, stop.clone()));
                match Slog2Reader::new(source) {
                    Ok(mut r) => {
                        r.set_node_cache(node_cache());
                        return Ok(Trace {
                            given: given.to_path_buf(),
                            local: None,
                            format: Format::Slog2,
                            tree: Some(Tree::Slog2(Box::new(r))),
                            converted: None,
                            plan: None,
                            requests: Some(requests),
                            progress: None,
                            survey: Default::default(),
                            stop,
                        });
                    }
                    Err(slog2_format::Error::NotSlog2 { .. }) => local_copy(given)?,
                    Err(source) => {
                        return Err(Error::Slog2 {
                            path: given.to_path_buf(),
                            source,
                        })
                    }
                }
            }
            None => local_copy(given)?,
        };
        Self::open_local(given, local, trace)
    }

    /// Opens the annotation `idx` of the trace `trace` (for an annotation
    /// not named after its trace, `TRACE.idx`).
    ///
    /// # Errors
    ///
    /// As [`Trace::open`]; [`Error::Unrecognized`] when `idx` is no annotation.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let trace = dir.path().join("demo.clog2");
    /// std::fs::write(&trace, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let e = mpelog::Trace::open_annotation(&trace, &trace).unwrap_err();
    /// assert_eq!(e.kind(), "unrecognized"); // a trace, not an annotation
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_annotation(idx: impl AsRef<Path>, trace: impl AsRef<Path>) -> Result<Trace> {
        let idx = idx.as_ref();
        let t = Self::open_local(idx, idx.to_path_buf(), Some(trace.as_ref()))?;
        match t.format {
            Format::Annotation => Ok(t),
            other => Err(Error::Unrecognized {
                path: idx.to_path_buf(),
                message: format!("a {} file, not an annotation", other.name()),
            }),
        }
    }

    fn open_local(given: &Path, local: PathBuf, trace: Option<&Path>) -> Result<Trace> {
        let format = detect(&local)?;
        let stop = stop::StopSlot::default();
        let tree = match format {
            Format::Slog2 | Format::Slog2Compressed => {
                // No read buffer: the reader reads each block with one read.
                let file = File::open(&local).map_err(Error::io(&local))?;
                let source: Box<dyn ReadSeek> = Box::new(stop::Stoppable::new(file, stop.clone()));
                let mut r = Slog2Reader::new(source).map_err(|source| Error::Slog2 {
                    path: given.to_path_buf(),
                    source,
                })?;
                r.set_node_cache(node_cache());
                Some(Tree::Slog2(Box::new(r)))
            }
            Format::Annotation => Some(open_annotation(&local, trace, &stop)?),
            _ => None,
        };
        Ok(Trace {
            given: given.to_path_buf(),
            local: Some(local),
            format,
            tree,
            converted: None,
            plan: None,
            requests: None,
            progress: None,
            survey: Default::default(),
            stop,
        })
    }

    /// Another `Trace` of the same input with readers of its own: what a
    /// reader on another thread takes, so that this one stays free for other
    /// queries meanwhile. Standard input or a URL is not copied again (the
    /// local copy is opened anew); a conversion to SLOG-2 is not carried over.
    /// A CLOG2 trace's first pass of a two-pass read ([`TwoPass`]) is shared:
    /// whichever of the two makes it first, the other reads the file once.
    ///
    /// # Errors
    ///
    /// As [`Trace::open`].
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let t = mpelog::Trace::open(&path)?;
    /// let mut other = t.reopen()?;
    /// assert_eq!((other.format(), other.path()), (t.format(), t.path()));
    /// let worker = std::thread::spawn(move || other.stats(&Default::default()).map(|s| s.messages.len()));
    /// assert!(worker.join().unwrap()? > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reopen(&self) -> Result<Trace> {
        match &self.local {
            // A SLOG-2 file read where it is, with Range requests.
            None => Trace::open(&self.given),
            Some(local) => {
                let trace = match (&self.tree, &self.converted) {
                    (Some(Tree::Annotation(_, trace)), None) => Some(trace.clone()),
                    _ => None,
                };
                let mut t = Self::open_local(&self.given, local.clone(), trace.as_deref())?;
                t.survey = self.survey.clone();
                Ok(t)
            }
        }
    }

    /// The format of the input.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// assert_eq!(mpelog::Trace::open(&path)?.format().name(), "CLOG2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn format(&self) -> Format {
        self.format
    }

    /// The input as given to [`Trace::open`] (a path or a URL).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// assert_eq!(mpelog::Trace::open(&path)?.path(), path);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.given
    }

    /// Whether the input was converted to a temporary SLOG-2 file (for a
    /// window query or the info of a format without a tree); the file stays
    /// for the `Trace`'s life, so the conversion happens once.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// assert!(!t.is_converted());
    /// t.window(None, None)?;
    /// assert!(t.is_converted());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_converted(&self) -> bool {
        self.converted.is_some()
    }

    /// The counts of the HTTP requests made so far, for a SLOG-2 file read
    /// where it is (at a URL); `None` for any other input.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// assert!(mpelog::Trace::open(&path)?.requests().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn requests(&self) -> Option<crate::remote::Counts> {
        self.requests.clone()
    }

    /// The trace an annotation annotates; `None` for any other input.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// assert!(mpelog::Trace::open(&path)?.annotated().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn annotated(&self) -> Option<&Path> {
        match (&self.tree, &self.converted) {
            (Some(Tree::Annotation(_, trace)), None) => Some(trace),
            _ => None,
        }
    }

    /// Has `f` told how far each read of a format without a tree has come
    /// ([`Step`]: the bytes read of the input, then the sort; a CLOG2 trace
    /// read in two passes ([`TwoPass`]) counts the bytes of both, of twice
    /// its size), as the CLI's progress bar and its note on sorted runs show
    /// it.
    ///
    /// ```
    /// use std::sync::{atomic::{AtomicU64, Ordering}, Arc};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let seen = Arc::new(AtomicU64::new(0));
    /// let s = seen.clone();
    /// t.set_progress(Box::new(move |step| {
    ///     if let mpelog::trace::Step::Read { at, .. } = step {
    ///         s.store(at, Ordering::Relaxed)
    ///     }
    /// }));
    /// t.stats(&Default::default())?;
    /// assert!(seen.load(Ordering::Relaxed) > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_progress(&mut self, f: Progress) {
        self.progress = Some(f);
    }

    /// Stops this trace's reads once `flag` is set: the read in progress
    /// (on another thread) ends with [`Error::Stopped`], as does every later
    /// one until another flag is given. What stops: the statistics, the
    /// analysis and the drawable stream of any input, its conversion to
    /// SLOG-2 (the one-time conversion of a window query, and
    /// [`write_slog2`](Self::write_slog2)), every read of a SLOG-2 file's or
    /// an annotation's tree (window queries too), and the check. Only the
    /// parse of an ALOG, SLOG-1 or old CLOG file, read whole before it is
    /// converted, ends in its own time. A read stopped leaves the trace as it
    /// was: the next call with a flag not set reads as if none had been
    /// stopped.
    ///
    /// ```
    /// use std::sync::{atomic::AtomicBool, Arc};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// t.set_stop(Arc::new(AtomicBool::new(true)));
    /// assert_eq!(t.stats(&Default::default()).unwrap_err().kind(), "stopped");
    /// t.set_stop(Arc::new(AtomicBool::new(false)));
    /// assert!(!t.stats(&Default::default())?.messages.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_stop(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.stop.set(flag);
    }

    /// `r`, as [`Error::Stopped`] when it failed with the stop flag set.
    fn stopped<T>(&self, r: Result<T>) -> Result<T> {
        match r {
            Err(_) if self.stop.is_set() => Err(Error::Stopped {
                path: self.given.clone(),
            }),
            r => r,
        }
    }

    /// The tree window queries read (the input's, or that of its one-time
    /// conversion to a temporary SLOG-2 file), lent for the queries this
    /// type does not make itself.
    ///
    /// # Errors
    ///
    /// The conversion's error, for a format without a tree.
    ///
    /// ```
    /// use mpelog::trace::TreeMut;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let TreeMut::Slog2(r) = t.tree_mut()? else { panic!("converted to SLOG-2") };
    /// let a = r.window_preview(0.0, 1.0, 100)?;
    /// assert!(!a.drawables.is_empty() || !a.shadows.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tree_mut(&mut self) -> Result<TreeMut<'_>> {
        Ok(match self.tree()? {
            Tree::Slog2(r) => TreeMut::Slog2(r),
            Tree::Annotation(a, trace) => TreeMut::Annotation(a, trace),
        })
    }

    /// The time box of the tree (its root's earliest and latest times), the
    /// input's or its conversion's; `None` for a tree without entries.
    ///
    /// # Errors
    ///
    /// The conversion's error, for a format without a tree.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let (start, end) = mpelog::Trace::open(&path)?.time_box()?.unwrap();
    /// assert!(start < end);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_box(&mut self) -> Result<Option<(f64, f64)>> {
        Ok(self.tree()?.time_box())
    }

    /// The local file to read for the input: itself, the copy of standard
    /// input, or of a URL (downloaded now, once, for a SLOG-2 file read
    /// where it is).
    ///
    /// # Errors
    ///
    /// [`Error::Remote`] when the download fails.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// assert_eq!(mpelog::Trace::open(&path)?.local_path()?, path);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn local_path(&mut self) -> Result<PathBuf> {
        self.local()
    }

    /// The local file of the input, downloaded first for a remote one.
    fn local(&mut self) -> Result<PathBuf> {
        if let Some(p) = &self.local {
            return Ok(p.clone());
        }
        let p = local_copy(&self.given)?;
        self.local = Some(p.clone());
        Ok(p)
    }

    /// The input's own tree (a SLOG-2 file's, an annotation's), not that of
    /// a conversion: statistics and the drawable stream read any other input
    /// in one pass, as the CLI does, converted or not.
    fn own_tree(&mut self) -> Option<&mut Tree> {
        match self.converted {
            Some(_) => None,
            None => self.tree.as_mut(),
        }
    }

    /// The tree window queries read: the input's, or that of its one-time
    /// conversion to a temporary SLOG-2 file.
    fn tree(&mut self) -> Result<&mut Tree> {
        if self.tree.is_none() {
            let local = self.local()?;
            let dir = tempfile::tempdir().map_err(Error::io(&std::env::temp_dir()))?;
            let progress = &mut self.progress;
            let mut tell = |step| {
                if let Some(p) = progress.as_mut() {
                    p(step)
                }
            };
            let stop = self.stop.flag();
            let converted = read::to_slog2(&local, self.format, dir.path(), &stop, &mut tell);
            let (slog2, stats) = self.stopped(converted)?;
            if let Some(p) = self.progress.as_mut() {
                p(Step::Converted(Box::new(stats)))
            }
            let file = File::open(&slog2).map_err(Error::io(&slog2))?;
            let source: Box<dyn ReadSeek> = Box::new(stop::Stoppable::new(file, self.stop.clone()));
            let mut r = Slog2Reader::new(source).map_err(|source| Error::Slog2 {
                path: slog2.clone(),
                source,
            })?;
            r.set_node_cache(node_cache());
            self.tree = Some(Tree::Slog2(Box::new(r)));
            self.converted = Some(dir);
        }
        Ok(self.tree.as_mut().expect("made above"))
    }

    /// The legend: every category of the trace (of its conversion for a
    /// format without a tree), in file order.
    ///
    /// # Errors
    ///
    /// The conversion's error, for a format without a tree.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// assert!(t.legend()?.iter().any(|c| c.name.text() == "MPI_Send"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn legend(&mut self) -> Result<Vec<Category>> {
        Ok(match self.tree()? {
            Tree::Slog2(r) => r.category_list().to_vec(),
            Tree::Annotation(a, _) => a.categories().categories.clone(),
        })
    }

    /// The statistics of the window of `opts` (per category and timeline,
    /// messages, histogram), the same as `mpelog stats --json` prints.
    ///
    /// # Errors
    ///
    /// The format's error where the input is bad (with its byte offset),
    /// [`Error::Io`] when the sorter's temporary runs fail.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let s = t.stats(&mpelog::stats::Options::default().bins(4))?;
    /// assert_eq!(s.bins.len(), 4);
    /// assert!(!s.messages.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stats(&mut self, opts: &crate::stats::Options) -> Result<crate::stats::Stats> {
        let r = self.stats_unstopped(opts);
        self.stopped(r)
    }

    fn stats_unstopped(&mut self, opts: &crate::stats::Options) -> Result<crate::stats::Stats> {
        let given = self.given.clone();
        match self.own_tree() {
            Some(Tree::Slog2(r)) => crate::stats::slog2(r, opts).map_err(|source| Error::Slog2 {
                path: given,
                source,
            }),
            Some(Tree::Annotation(a, trace)) => {
                crate::stats::annotation(a, opts).map_err(|e| annotation_error(&given, trace, e))
            }
            None => {
                let local = self.local()?;
                let window = crate::export::Options::default().window(opts.from, opts.to);
                let stop = self.stop.flag();
                let mut progress = &mut self.progress;
                if self.format == Format::Clog2 {
                    match TwoPass::open(&local, &window, stop.clone(), progress, &self.survey)? {
                        Ok(mut two) => {
                            let categories = two.categories().to_vec();
                            return crate::stats::of_tree(&mut two, &categories, opts);
                        }
                        Err(back) => progress = back,
                    }
                }
                let mut sorted = read::sorted(&local, self.format, &window, &stop, progress)?;
                crate::stats::one_pass(&mut sorted, opts).map_err(Error::io(&std::env::temp_dir()))
            }
        }
    }

    /// Streams the drawables that meet the window of `opts` to `sink`, in
    /// time order, with bounded memory (a CLOG2 trace in time order in two
    /// passes, [`TwoPass`]; another format without a tree paired and sorted,
    /// through temporary sorted runs when it does not fit in
    /// `opts.sort_memory`): what every `mpelog export` writer is fed.
    ///
    /// # Errors
    ///
    /// The format's error where the input is bad, [`Error::NoView`] for a
    /// view the trace lacks, [`Error::Io`] when `sink` fails.
    ///
    /// ```
    /// use mpelog::export::{chrome::ChromeJson, Options};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut t = mpelog::Trace::open(&path)?;
    /// let mut json = ChromeJson::new(Vec::new());
    /// let counts = t.drawables(&Options::default(), &mut json)?;
    /// assert!(counts.states > 0 && counts.arrows > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn drawables<S: Sink>(
        &mut self,
        opts: &crate::export::Options,
        sink: &mut S,
    ) -> Result<Counts> {
        let r = self.drawables_unstopped(opts, sink);
        self.stopped(r)
    }

    fn drawables_unstopped<S: Sink>(
        &mut self,
        opts: &crate::export::Options,
        sink: &mut S,
    ) -> Result<Counts> {
        use crate::export::Error as E;
        let given = self.given.clone();
        let common = |e: E<std::convert::Infallible>| match e {
            E::Write(source) => Error::Io {
                path: PathBuf::from("<output>"),
                source,
            },
            E::NoView { asked, known } => Error::NoView { asked, known },
            E::Read(never) => match never {},
        };
        match self.own_tree() {
            Some(Tree::Slog2(r)) => crate::export::slog2(r, opts, sink).map_err(|e| match e {
                E::Read(source) => Error::Slog2 {
                    path: given.clone(),
                    source,
                },
                E::Write(e) => common(E::Write(e)),
                E::NoView { asked, known } => common(E::NoView { asked, known }),
            }),
            Some(Tree::Annotation(a, trace)) => {
                crate::export::annotation(a, opts, sink).map_err(|e| match e {
                    E::Read(e) => annotation_error(&given, trace, e),
                    E::Write(e) => common(E::Write(e)),
                    E::NoView { asked, known } => common(E::NoView { asked, known }),
                })
            }
            None => {
                let local = self.local()?;
                let stop = self.stop.flag();
                let mut progress = &mut self.progress;
                if self.format == Format::Clog2 {
                    match TwoPass::open(&local, opts, stop.clone(), progress, &self.survey)? {
                        Ok(mut two) => {
                            let (categories, maps) =
                                (two.categories().to_vec(), two.maps().to_vec());
                            return crate::export::export(&mut two, &categories, &maps, opts, sink)
                                .map_err(|e| match e {
                                    E::Read(e) => e,
                                    E::Write(e) => common(E::Write(e)),
                                    E::NoView { asked, known } => {
                                        common(E::NoView { asked, known })
                                    }
                                });
                        }
                        Err(back) => progress = back,
                    }
                }
                let mut sorted = read::sorted(&local, self.format, opts, &stop, progress)?;
                crate::export::one_pass(&mut sorted, opts, sink).map_err(|e| match e {
                    E::Read(source) => Error::Io {
                        path: std::env::temp_dir(),
                        source,
                    },
                    E::Write(e) => common(E::Write(e)),
                    E::NoView { asked, known } => common(E::NoView { asked, known }),
                })
            }
        }
    }

    /// Writes the trace as a SLOG-2 file at `out`, converted with `mpelog
    /// convert`'s default tree (64 KiB leaves, 2 children, plain nodes),
    /// by the rules of [`crate::output`]: `out` is never the input, and
    /// appears whole or not at all ([`crate::convert`] for the other
    /// conversions and their summary).
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for a SLOG-2 file or an annotation (`mpelog
    /// convert` rewrites those), the format's error where the input is bad,
    /// [`Error::Output`] when `out` is the input or cannot be written,
    /// [`Error::Stopped`] once the trace's flag is set
    /// ([`set_stop`](Self::set_stop); then nothing is written). The
    /// conversion's progress goes where [`set_progress`](Self::set_progress)
    /// says.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let out = dir.path().join("demo.slog2");
    /// mpelog::Trace::open(&path)?.write_slog2(&out)?;
    /// let mut s = mpelog::Trace::open(&out)?;
    /// assert_eq!(s.format(), mpelog::trace::Format::Slog2);
    /// assert_eq!(s.write_slog2(&dir.path().join("again.slog2")).unwrap_err().kind(), "unsupported");
    /// // The input is never overwritten.
    /// assert_eq!(mpelog::Trace::open(&path)?.write_slog2(&path).unwrap_err().kind(), "output");
    /// assert!(clog2_format::Clog2Reader::from_slice(&std::fs::read(&path)?).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_slog2(&mut self, out: &Path) -> Result<()> {
        match self.format {
            Format::Slog2 | Format::Slog2Compressed | Format::Annotation => {
                Err(Error::Unsupported {
                    path: self.given.clone(),
                    what: format!(
                        "already has a tree ({}); `mpelog convert` rewrites it",
                        self.format.name()
                    ),
                })
            }
            _ => {
                let local = self.local()?;
                let out = crate::output::Output::create(out, &[&local], false)?;
                let opts = crate::convert::Options::default().stop(self.stop.flag());
                let progress = &mut self.progress;
                let mut tell = |step| {
                    if let Some(p) = progress.as_mut() {
                        p(step)
                    }
                };
                let done = crate::convert::convert(&local, Format::Slog2, &out, &opts, &mut tell);
                // Stopped, `out` is dropped: nothing is left.
                self.stopped(done)?;
                Ok(out.commit()?)
            }
        }
    }

    /// Checks the input against the rules of the format specifications, as
    /// `mpelog check` does (a remote file is downloaded first). An annotation
    /// is checked with the trace it was opened with ([`Trace::annotated`])
    /// unless `opts` names another; the check stops at the trace's flag
    /// ([`Trace::set_stop`]) unless `opts` gives one of its own.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be read at all (a bad file is a
    /// report with findings, not an error).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let report = mpelog::Trace::open(&path)?.check(&Default::default())?;
    /// assert!(report.passes());
    /// assert_eq!(report.format, Some(mpelog::trace::Format::Clog2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check(
        &mut self,
        opts: &mpelog_conformance::Options,
    ) -> Result<mpelog_conformance::Report> {
        let local = self.local()?;
        let mut opts = opts.clone();
        if let (Some(trace), None) = (self.annotated(), &opts.trace) {
            opts = opts.trace(Some(trace.to_path_buf()));
        }
        let stop = opts.stop.clone().unwrap_or_else(|| self.stop.flag());
        let opts = opts.stop(Some(stop.clone()));
        match mpelog_conformance::check_path(&local, &opts) {
            Err(_) if stop.load(std::sync::atomic::Ordering::Relaxed) => Err(Error::Stopped {
                path: self.given.clone(),
            }),
            r => r.map_err(Error::io(&self.given)),
        }
    }
}

/// Opens the annotation `idx` and the trace it annotates (`trace`, or the
/// annotation's path without `.idx`), unbuffered as the CLI reads them.
fn open_annotation(idx: &Path, trace: Option<&Path>, stop: &stop::StopSlot) -> Result<Tree> {
    let trace =
        match (trace, idx.extension()) {
            (Some(t), _) => t.to_path_buf(),
            (None, Some(e)) if e == "idx" => {
                let t = idx.with_extension("");
                if !t.exists() {
                    return Err(Error::NoTrace {
                        annotation: idx.to_path_buf(),
                        trace: t,
                    });
                }
                t
            }
            (None, _) => return Err(Error::NoTrace {
                annotation: idx.to_path_buf(),
                trace: PathBuf::from(
                    "TRACE (name the annotation TRACE.idx, or open it with Trace::open_annotation)",
                ),
            }),
        };
    let a = File::open(idx).map_err(Error::io(idx))?;
    let t = File::open(&trace).map_err(Error::io(&trace))?;
    let (a, t) = (
        stop::Stoppable::new(a, stop.clone()),
        stop::Stoppable::new(t, stop.clone()),
    );
    let ann =
        mpelog_annotate::Annotation::new(a, t).map_err(|e| annotation_error(idx, &trace, e))?;
    Ok(Tree::Annotation(Box::new(ann), trace))
}

/// Attributes an annotation error to the annotation or to its trace.
fn annotation_error(idx: &Path, trace: &Path, e: mpelog_annotate::Error) -> Error {
    use mpelog_annotate::Error as E;
    let path = match &e {
        E::Clog2(_) | E::Io { file: "trace", .. } => trace,
        _ => idx,
    };
    Error::Annotation {
        path: path.to_path_buf(),
        source: e,
    }
}
