//! Format conversion, and lossless rewriting through the codecs: what
//! `mpelog convert` and Python's `mpelog.convert` do, for any input
//! [`Trace::open`](crate::Trace::open) takes.
//!
//! Every format converts to SLOG-2 (CLOG2 and old CLOG as clog2TOslog2 and
//! clogTOslog2 do, ALOG, SLOG-1 and OTF2 by spec/conversion.md, SLOG-2 itself
//! into a new tree); each MPE format is rewritten to itself (byte-identical
//! for a canonical file). The output is an [`Output`]: never one of the
//! inputs, written beside its final name and only put there by its commit,
//! which is the caller's (after the conversion returned its [`Summary`]).
//!
//! ```
//! use mpelog::convert::{convert, Options};
//! use mpelog::output::Output;
//! use mpelog::trace::Format;
//!
//! let dir = tempfile::tempdir()?;
//! let input = dir.path().join("demo.clog2");
//! std::fs::write(&input, clog2_format::synth::generate_vec(&Default::default())?)?;
//! let path = dir.path().join("demo.slog2");
//! let out = Output::create(&path, &[&input], false)?;
//! let done = convert(&input, Format::Slog2, &out, &Options::default(), &mut |_| {})?;
//! out.commit()?;
//! assert_eq!((done.verb, done.source, done.output_format), ("converted", Format::Clog2, "SLOG 2.0.6"));
//! assert_eq!(done.output_bytes, std::fs::metadata(&path)?.len());
//! // The input is never the output.
//! assert!(matches!(Output::create(&input, &[&input], false), Err(mpelog::output::Error::SameFile { .. })));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod lines;
mod rewrite;
mod to_slog2;

pub use lines::{otf2_lines, tree_line, unmatched_line};

use crate::output::{OutWriter, Output};
use crate::trace::{Error, Format, Result, Step};
use slog2_format::write::TreeOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// How to convert: the tree of a SLOG-2 output, and whether a SLOG-2 input
/// gets a new tree.
///
/// ```
/// use mpelog::convert::Options;
/// use slog2_format::write::TreeOptions;
/// let o = Options::default().tree(TreeOptions::default().children(4)).retree(true);
/// assert_eq!(o.tree_options().children, 4);
/// assert!(o.retrees());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Options {
    tree: TreeOptions,
    retree: bool,
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Options {
    /// The tree a SLOG-2 output is written with (clog2TOslog2's defaults:
    /// 64 KiB leaves, 2 children, plain nodes). Its compression also applies
    /// to a SLOG-2 input rewritten to SLOG-2.
    ///
    /// ```
    /// use slog2_format::{frame::Compression, write::TreeOptions};
    /// let o = mpelog::convert::Options::default()
    ///     .tree(TreeOptions::default().compression(Compression::Columns(2)));
    /// assert!(o.tree_options().compression.is_framed());
    /// ```
    pub fn tree(mut self, tree: TreeOptions) -> Options {
        self.tree = tree;
        self
    }

    /// SLOG-2 to SLOG-2: every drawable into a new tree of [`Options::tree`]'s
    /// shape, rather than the input's tree kept (and only its nodes stored
    /// anew).
    ///
    /// ```
    /// assert!(!mpelog::convert::Options::default().retrees());
    /// assert!(mpelog::convert::Options::default().retree(true).retrees());
    /// ```
    pub fn retree(mut self, yes: bool) -> Options {
        self.retree = yes;
        self
    }

    /// The tree options.
    ///
    /// ```
    /// assert_eq!(mpelog::convert::Options::default().tree_options().children, 2);
    /// ```
    pub fn tree_options(&self) -> &TreeOptions {
        &self.tree
    }

    /// Whether a SLOG-2 input gets a new tree.
    ///
    /// ```
    /// assert!(!mpelog::convert::Options::default().retrees());
    /// ```
    pub fn retrees(&self) -> bool {
        self.retree
    }

    /// A flag that stops the conversion: a conversion during which it was
    /// set ends with [`Error::Stopped`], and its output must not be
    /// committed. Once it is set, a conversion that reads its input as it
    /// goes (CLOG2, SLOG-2) reads no further, and one that reads it whole
    /// first (ALOG, SLOG-1, old CLOG) or through its codec (an OTF2 archive)
    /// makes no further drawable. The rewrites of ALOG, SLOG-1 and old CLOG
    /// into themselves, made in memory, run on to their end.
    ///
    /// ```
    /// use mpelog::{convert::{convert, Options}, output::Output, trace::Format};
    /// use std::sync::{atomic::AtomicBool, Arc};
    /// let dir = tempfile::tempdir()?;
    /// let input = dir.path().join("demo.clog2");
    /// std::fs::write(&input, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let path = dir.path().join("demo.slog2");
    /// let out = Output::create(&path, &[&input], false)?;
    /// let opts = Options::default().stop(Arc::new(AtomicBool::new(true)));
    /// let e = convert(&input, Format::Slog2, &out, &opts, &mut |_| {}).unwrap_err();
    /// assert_eq!(e.kind(), "stopped");
    /// drop(out); // not committed: nothing is left
    /// assert!(!path.exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop(mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Options {
        self.stop = Some(flag);
        self
    }
}

/// What a conversion did: `mpelog convert`'s summary, in parts.
///
/// ```
/// # use mpelog::{convert::{convert, Options}, output::Output, trace::Format};
/// # let dir = tempfile::tempdir()?;
/// # let input = dir.path().join("demo.clog2");
/// # std::fs::write(&input, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let out = Output::create(&dir.path().join("again.clog2"), &[&input], false)?;
/// let done = convert(&input, Format::Clog2, &out, &Options::default(), &mut |_| {})?;
/// assert_eq!(done.verb, "rewrote");
/// assert_eq!(done.input_bytes, done.output_bytes); // a canonical file, byte for byte
/// assert!(done.records.unwrap() > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Summary {
    /// `converted`, `rewrote` or `re-treed`.
    pub verb: &'static str,
    /// The input read (a URL's local copy).
    pub input: PathBuf,
    /// The input's format.
    pub source: Format,
    /// The input's size.
    pub input_bytes: u64,
    /// The input's records, where its format counts them.
    pub records: Option<u64>,
    /// The output's format and version, as `mpelog info` names it.
    pub output_format: &'static str,
    /// The bytes written.
    pub output_bytes: u64,
    /// The lines after the summary: the tree, the events that could not be
    /// paired, warnings, or whether a rewrite is byte-identical.
    pub details: Vec<String>,
    /// A conversion to SLOG-2: the converter's numbers.
    pub stats: Option<slog2_format::convert::ConvertStats>,
}

/// The format a `--format` value or a file extension names (`clog2`, `clog`,
/// `slog2`, `alog` or `log`, `slog` or `slog1`), as a conversion's target.
///
/// ```
/// use mpelog::trace::Format;
/// assert_eq!(mpelog::convert::format_named("SLOG2"), Some(Format::Slog2));
/// assert_eq!(mpelog::convert::format_named("log"), Some(Format::Alog));
/// assert_eq!(mpelog::convert::format_named("otf2"), None);
/// ```
pub fn format_named(s: &str) -> Option<Format> {
    match s.to_ascii_lowercase().as_str() {
        "clog2" => Some(Format::Clog2),
        "clog" => Some(Format::Clog),
        "slog2" => Some(Format::Slog2),
        "alog" | "log" => Some(Format::Alog),
        "slog" | "slog1" => Some(Format::Slog1),
        _ => None,
    }
}

/// Converts or rewrites the trace `input` (a path or URL, any format
/// [`Trace::open`](crate::Trace::open) takes but an annotation) to the
/// format `target` in `out`, telling `progress` how far the read is. The
/// output is not committed: call [`Output::commit`] after.
///
/// # Errors
///
/// [`Error::Unsupported`] for a pair that does not convert (only SLOG-2 from
/// another format, or a format to itself); the input's errors with their
/// byte offsets; [`Error::Output`] when the output cannot be written.
///
/// ```
/// # use mpelog::{convert::{convert, Options}, output::Output, trace::Format};
/// # let dir = tempfile::tempdir()?;
/// # let input = dir.path().join("demo.clog2");
/// # std::fs::write(&input, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let out = Output::create(&dir.path().join("x.alog"), &[&input], false)?;
/// let e = convert(&input, Format::Alog, &out, &Options::default(), &mut |_| {}).unwrap_err();
/// assert_eq!(e.kind(), "unsupported");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert(
    input: impl AsRef<Path>,
    target: Format,
    out: &Output,
    opts: &Options,
    progress: &mut dyn FnMut(Step),
) -> Result<Summary> {
    let input = input.as_ref();
    let r = convert_unstopped(input, target, out, opts, progress);
    match &opts.stop {
        Some(stop) if stop.load(std::sync::atomic::Ordering::Relaxed) => Err(Error::Stopped {
            path: input.to_path_buf(),
        }),
        _ => r,
    }
}

fn convert_unstopped(
    input: &Path,
    target: Format,
    out: &Output,
    opts: &Options,
    progress: &mut dyn FnMut(Step),
) -> Result<Summary> {
    let (input, source) = crate::trace::locate(input)?;
    let input = input.as_path();
    let tree = opts.tree;
    let stop = &opts.stop.clone().unwrap_or_default();
    let done = match (source, target) {
        (Format::Clog2, Format::Clog2) => rewrite::clog2(input, out, stop, progress)?,
        (Format::Clog, Format::Clog) => rewrite::clog(input, out)?,
        (Format::Slog2 | Format::Slog2Compressed, Format::Slog2) if opts.retree => {
            rewrite::retree_slog2(input, out, tree, stop)?
        }
        (Format::Slog2 | Format::Slog2Compressed, Format::Slog2) => {
            rewrite::slog2(input, out, tree, stop, progress)?
        }
        (Format::Slog1, Format::Slog1) => rewrite::slog1(input, out)?,
        (Format::Alog, Format::Alog) => rewrite::alog(input, out)?,
        (Format::Clog2, Format::Slog2) => to_slog2::clog2(input, out, tree, stop, progress)?,
        (Format::Clog, Format::Slog2) => to_slog2::clog(input, out, tree, stop, progress)?,
        (Format::Alog, Format::Slog2) => to_slog2::alog(input, out, tree, stop)?,
        (Format::Slog1, Format::Slog2) => to_slog2::slog1(input, out, tree, stop)?,
        (Format::Otf2, Format::Slog2) => to_slog2::otf2(input, out, tree, stop, progress)?,
        (Format::Otf2, t) => {
            return Err(Error::Unsupported {
                path: input.to_path_buf(),
                what: format!(
                    "converting OTF2 to {} is not supported (OTF2 converts to SLOG-2)",
                    t.name()
                ),
            })
        }
        (s, t) => {
            return Err(Error::Unsupported {
                path: input.to_path_buf(),
                what: format!(
                    "converting {} to {} is not supported (to SLOG-2 from every format; each format to itself)",
                    s.name(),
                    t.name()
                ),
            })
        }
    };
    Ok(Summary {
        input: input.to_path_buf(),
        source,
        ..done
    })
}

/// A summary with the parts every conversion fills in.
fn done(
    verb: &'static str,
    input_bytes: u64,
    records: Option<u64>,
    output_format: &'static str,
    output_bytes: u64,
    details: Vec<String>,
) -> Summary {
    Summary {
        verb,
        input: PathBuf::new(),
        source: Format::Clog2,
        input_bytes,
        records,
        output_format,
        output_bytes,
        details,
        stats: None,
    }
}

/// The writer of `out`, or its error.
fn writer(out: &Output) -> Result<OutWriter> {
    Ok(out.writer()?)
}

/// Flushes `w` and returns how many bytes the output holds.
fn finish(mut w: OutWriter, out: &Output) -> Result<u64> {
    w.flush().map_err(Error::io(out.path()))?;
    w.get_ref()
        .metadata()
        .map(|m| m.len())
        .map_err(Error::io(out.path()))
}

/// Writes a whole in-memory result.
fn write_all(out: &Output, bytes: &[u8]) -> Result<u64> {
    let mut w = writer(out)?;
    w.write_all(bytes).map_err(Error::io(out.path()))?;
    finish(w, out)
}

/// The format name of a SLOG-2 output written with these options.
fn slog2_name(opts: &TreeOptions) -> &'static str {
    if opts.compression.is_framed() {
        "SLOG 2.0.6Z"
    } else {
        "SLOG 2.0.6"
    }
}

/// The line of a rewrite: identical bytes, or the canonical layout.
fn identical_or_not(input: u64, output: u64) -> String {
    if input == output {
        "every record parsed and written back (same size as the input)".into()
    } else {
        format!("every record parsed and written back in the canonical layout ({input} -> {output} bytes)")
    }
}

/// The size of the file at `path`.
fn size(path: &Path) -> Result<u64> {
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(Error::io(path))
}
