//! The mpelog conformance suite: format detection from the bytes, and a driver
//! that runs every reader entry point of a format on any bytes.
//!
//! Every parser of the workspace is meant to be total: any input gives a value or
//! an error naming the byte offset, never a panic, a hang or an allocation sized
//! by an unchecked field. [`exercise`] is the single place that knows which entry
//! points a format has; the tests of this crate feed it corrupted files (the
//! corruption sweep, `tests/corruption_sweep.rs`) and check that it returns.
//!
//! Entry points:
//!
//! | job | entry point |
//! |---|---|
//! | name a file's format from its bytes | [`detect`] (each format crate's `looks_like`, in a fixed order) |
//! | check a file against the rules of spec/conformance.md | [`check_path`], [`check_bytes`], [`check_format`], [`check_annotation`] ([`Options`]), giving a [`Report`] of [`Finding`]s whose rule IDs are typed constants ([`rules`]) |
//! | run every reader entry point of a format | [`exercise`] |
//!
//! The proptest strategies (`strategies`) and the corpus locator (`corpus`) are
//! test support, behind the non-default `test-support` feature, so a program that
//! only checks files links no proptest.
//!
//! ```
//! use mpelog_conformance::{detect, exercise, Format};
//! let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
//!     .ranks(2)
//!     .events(300)
//!     .seed(1)
//!     .block_size(1024))
//! .unwrap();
//! assert_eq!(detect(&clog2), Some(Format::Clog2));
//! assert!(exercise(Format::Clog2, &clog2).all_values());
//! let cut = exercise(Format::Clog2, &clog2[..clog2.len() - 5]);
//! assert!(cut.errors() > 0);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod check;
#[cfg(any(test, feature = "test-support"))]
pub mod corpus;
pub mod report;
pub mod rule;
pub mod rules;
#[cfg(feature = "test-support")]
pub mod strategies;

pub use check::{check_annotation, check_bytes, check_format, check_path, Options};
pub use report::{Finding, Report};
pub use rules::{Rule, Severity};

use slog2_format::write::TreeOptions;
use std::fmt;
use std::io::Cursor;

/// The trace file kinds of the workspace: the one format enum, which the
/// checker and the command line share (a format added later is a new
/// variant, hence `#[non_exhaustive]`).
///
/// ```
/// use mpelog_conformance::{detect, Format};
/// assert_eq!(detect(b"CLOG-02.44\0"), Some(Format::Clog2));
/// assert_eq!(Format::Slog2Compressed.name(), "SLOG-2Z");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Format {
    /// CLOG2 (`CLOG-02.xx` preamble), spec/clog2.md.
    Clog2,
    /// Old MPE1 CLOG (no preamble; big-endian 24-byte record headers), spec/clog.md.
    Clog,
    /// SLOG-2 with plain tree nodes (`SLOG 2.0.5`, `SLOG 2.0.6`), spec/slog2.md.
    Slog2,
    /// SLOG-2 with compressed tree nodes (`SLOG 2.0.6Z`), spec/slog2-compressed.md.
    Slog2Compressed,
    /// An mpelog annotation file (`MPELOGIX` magic) indexing a CLOG2 trace,
    /// spec/annotation.md.
    Annotation,
    /// ALOG text (upshot's format), or a Unix `compress` (`.Z`) file of it,
    /// spec/alog.md.
    Alog,
    /// SLOG-1 (Jumpshot-3's format), spec/slog1.md.
    Slog1,
    /// An OTF2 archive (Score-P's format), named by its anchor file
    /// (`traces.otf2`, chunk header then `OTF2\0`) or the directory holding
    /// it, spec/otf2.md.
    Otf2,
}

impl Format {
    /// Every format, in the order of this enum.
    pub const ALL: [Format; 8] = [
        Format::Clog2,
        Format::Clog,
        Format::Slog2,
        Format::Slog2Compressed,
        Format::Annotation,
        Format::Alog,
        Format::Slog1,
        Format::Otf2,
    ];

    /// A short name: `CLOG2`, `CLOG`, `SLOG-2`, `SLOG-2Z`, `annotation`, `ALOG`,
    /// `SLOG-1`, `OTF2`.
    ///
    /// ```
    /// use mpelog_conformance::Format;
    /// assert_eq!((Format::Clog2.name(), Format::Slog1.name()), ("CLOG2", "SLOG-1"));
    /// assert_eq!(Format::Otf2.to_string(), "OTF2");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Format::Clog2 => "CLOG2",
            Format::Clog => "CLOG",
            Format::Slog2 => "SLOG-2",
            Format::Slog2Compressed => "SLOG-2Z",
            Format::Annotation => "annotation",
            Format::Alog => "ALOG",
            Format::Slog1 => "SLOG-1",
            Format::Otf2 => "OTF2",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The version string of compressed SLOG-2 files.
const SLOG2Z_VERSION: &[u8] = b"SLOG 2.0.6Z";

/// Names the format of `bytes` from their first bytes, as `mpelog` does, or
/// `None` when no format matches.
///
/// The tests, in order: SLOG-1 (version 0.9,
/// [`slog2_format::slog1::looks_like`]); CLOG2 (starts with `CLOG-02.`);
/// annotation (`MPELOGIX`); SLOG-2 (bytes 2..8 are `SLOG 2`; compressed when the
/// length-prefixed version string is exactly `SLOG 2.0.6Z`); old CLOG
/// ([`clog2_format::clog::looks_like`]); ALOG
/// ([`alog_format::looks_like`], or the `.Z` magic,
/// [`alog_format::z::is_compress`]); an OTF2 anchor file
/// ([`otf2_format::looks_like`]).
///
/// ```
/// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
/// #     .ranks(2).events(300).seed(1).block_size(1024)).unwrap();
/// use mpelog_conformance::{detect, Format};
/// assert_eq!(detect(&clog2), Some(Format::Clog2));
/// assert_eq!(detect(b"-3 0 0 2 0 0\n1 0 0 0 0 10\n"), Some(Format::Alog));
/// assert_eq!(detect(b"MPELOGIX"), Some(Format::Annotation));
/// assert_eq!(detect(b"\x89PNG"), None);
/// ```
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if slog2_format::slog1::looks_like(bytes) {
        return Some(Format::Slog1);
    }
    if clog2_format::looks_like(bytes) {
        return Some(Format::Clog2);
    }
    if mpelog_annotate::looks_like(bytes) {
        return Some(Format::Annotation);
    }
    if slog2_format::looks_like(bytes) {
        let n = i16::from_be_bytes([bytes[0], bytes[1]]);
        let compressed = usize::try_from(n).ok() == Some(SLOG2Z_VERSION.len())
            && bytes[2..].starts_with(SLOG2Z_VERSION);
        return Some(if compressed {
            Format::Slog2Compressed
        } else {
            Format::Slog2
        });
    }
    if clog2_format::clog::looks_like(bytes) {
        return Some(Format::Clog);
    }
    if alog_format::z::is_compress(bytes) || alog_format::looks_like(bytes) {
        return Some(Format::Alog);
    }
    if otf2_format::looks_like(bytes) {
        return Some(Format::Otf2);
    }
    None
}

/// What one entry point gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepResult {
    /// A value (for `check`: no finding of error severity).
    Value,
    /// An error, as its message (for `check`: the first error finding).
    Error(String),
}

/// One entry point run by [`exercise`] and what it gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The entry point, e.g. `Clog2File::parse`.
    pub entry: &'static str,
    /// Its result.
    pub result: StepResult,
}

/// What [`exercise`] found: one [`Step`] per entry point run, in order. Steps
/// that need the value of an earlier one (a conversion of a parsed file) are
/// left out when that one failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The format the bytes were read as.
    pub format: Format,
    /// The entry points run.
    pub steps: Vec<Step>,
}

impl Outcome {
    fn new(format: Format) -> Outcome {
        Outcome {
            format,
            steps: Vec::new(),
        }
    }

    /// Records the result of `entry`; returns the value if there was one.
    fn record<T, E: fmt::Display>(
        &mut self,
        entry: &'static str,
        r: std::result::Result<T, E>,
    ) -> Option<T> {
        match r {
            Ok(v) => {
                self.steps.push(Step {
                    entry,
                    result: StepResult::Value,
                });
                Some(v)
            }
            Err(e) => {
                self.steps.push(Step {
                    entry,
                    result: StepResult::Error(e.to_string()),
                });
                None
            }
        }
    }

    /// How many entry points gave a value.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
    /// #     .ranks(2).events(300).seed(1).block_size(1024)).unwrap();
    /// let o = mpelog_conformance::exercise(mpelog_conformance::Format::Clog2, &clog2);
    /// assert_eq!(o.values(), o.steps.len()); // every entry point gave a value
    /// ```
    pub fn values(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.result == StepResult::Value)
            .count()
    }

    /// How many entry points gave an error.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
    /// #     .ranks(2).events(300).seed(1).block_size(1024)).unwrap();
    /// let o = mpelog_conformance::exercise(mpelog_conformance::Format::Clog2, &clog2[..2000]);
    /// assert!(o.errors() > 0);
    /// assert_eq!(o.errors() + o.values(), o.steps.len());
    /// ```
    pub fn errors(&self) -> usize {
        self.steps.len() - self.values()
    }

    /// Whether every entry point run gave a value.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
    /// #     .ranks(2).events(300).seed(1).block_size(1024)).unwrap();
    /// use mpelog_conformance::{exercise, Format};
    /// assert!(exercise(Format::Clog2, &clog2).all_values());
    /// assert!(!exercise(Format::Clog2, b"CLOG-02.44").all_values());
    /// ```
    pub fn all_values(&self) -> bool {
        self.errors() == 0
    }

    /// The first error: its entry point and message.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
    /// #     .ranks(2).events(300).seed(1).block_size(1024)).unwrap();
    /// use mpelog_conformance::{exercise, Format};
    /// assert_eq!(exercise(Format::Clog2, &clog2).first_error(), None);
    /// let (entry, _message) = exercise(Format::Clog2, &clog2[..100]).first_error().unwrap();
    /// assert_eq!(entry, "Clog2Reader::from_slice"); // the first entry point fails first
    /// ```
    pub fn first_error(&self) -> Option<(&'static str, &str)> {
        self.steps.iter().find_map(|s| match &s.result {
            StepResult::Error(m) => Some((s.entry, m.as_str())),
            StepResult::Value => None,
        })
    }
}

/// The largest unpacked size [`exercise`] lets a `.Z` ALOG file reach (4 MiB;
/// the corpus's `.Z` sample unpacks to 242 KiB).
pub const ALOG_Z_LIMIT: usize = 4 << 20;

/// The findings [`exercise`] asks `check` for (the checker stops after this many).
pub const CHECK_LIMIT: usize = 3;

/// The pixel count of the preview query [`exercise`] runs on SLOG-2 files.
pub const PREVIEW_PIXELS: u32 = 50;

/// Runs every reader entry point of `format` on `bytes` and reports, per entry
/// point, whether it gave a value or an error. It returns for any bytes unless a
/// reader panics, loops or exhausts memory, which is what the corruption sweep
/// looks for.
///
/// * CLOG2: [`clog2_format::Clog2Reader::from_slice`], every record
///   (`next_record` until the end or an error) and `finish`;
///   [`clog2_format::Clog2File::parse`]; [`slog2_format::convert::clog2_to_slog2`]
///   into memory.
/// * old CLOG: [`clog2_format::clog::ClogFile::parse`];
///   [`slog2_format::convert::clog_to_slog2`] into memory.
/// * SLOG-2, plain or compressed: [`slog2_format::Slog2File::parse`];
///   [`slog2_format::Slog2Reader::new`], then `window(-inf, inf)` and
///   `window_preview(-inf, inf, 50)`.
/// * annotation: [`mpelog_annotate::Annotation::new`] over an *empty* trace,
///   which reads the header only (it then fails as stale unless the annotation
///   names an empty trace); use [`exercise_annotation`] to give the trace.
/// * ALOG: for a `.Z` file, [`alog_format::z::decompress`] (up to
///   [`ALOG_Z_LIMIT`]) first; [`alog_format::AlogFile::parse`]; when it parses,
///   [`slog2_format::convert::alog_to_slog2`] into memory.
/// * SLOG-1: [`slog2_format::slog1::Slog1File::parse`]; when it parses,
///   `warnings` and [`slog2_format::convert::slog1::slog1_to_slog2`] into memory.
/// * OTF2: the anchor file alone, [`otf2_format::Anchor::parse`] (an
///   archive's other files are read by `otf2-format`'s own fuzz targets).
///
/// Last, for every format, the conformance checker [`check_format`] (at most
/// [`CHECK_LIMIT`] findings per rule); its step is an error when it finds an
/// error.
///
/// ```
/// use mpelog_conformance::{exercise, Format};
/// let alog = b"-3 0 0 1 0 0\n-13 0 1 2 0 0 red Work\n1 0 0 0 0 10 \n2 0 0 0 0 25 \n";
/// let o = exercise(Format::Alog, alog);
/// assert!(o.all_values());
/// assert!(o.steps.len() >= 2); // the parser, the conversion, the checker
/// assert!(!exercise(Format::Alog, b"1 2 x\n").all_values());
/// ```
pub fn exercise(format: Format, bytes: &[u8]) -> Outcome {
    let mut out = match format {
        Format::Clog2 => clog2(bytes),
        Format::Clog => clog(bytes),
        Format::Slog2 | Format::Slog2Compressed => slog2(format, bytes),
        Format::Annotation => return exercise_annotation(bytes, &[]),
        Format::Alog => alog(bytes),
        Format::Slog1 => slog1(bytes),
        Format::Otf2 => otf2(bytes),
    };
    let opts = Options::default().limit(CHECK_LIMIT);
    out.record(
        "check::check_format",
        first_error(check_format(format, bytes, &opts)),
    );
    out
}

/// `Ok` when a report has no error finding, else its first error as text.
fn first_error(r: Report) -> std::result::Result<(), String> {
    match r.findings.iter().find(|f| f.severity == Severity::Error) {
        Some(f) => Err(format!("{} at byte {}: {}", f.rule, f.offset, f.message)),
        None => Ok(()),
    }
}

/// Runs the annotation entry points on the annotation `annotation` of the CLOG2
/// trace `trace` (either may be corrupted): [`mpelog_annotate::Annotation::new`],
/// then `window(-inf, inf)` and a window over the middle quarter of the time range
/// the header names; then the checker, [`check_annotation`].
///
/// ```
/// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
/// #     .ranks(2).events(300).seed(1).block_size(1024)).unwrap();
/// use mpelog_annotate::{annotate, AnnotateOptions};
/// use std::io::Cursor;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// let opts = AnnotateOptions::default().trace(clog2.len() as u64, &clog2[..1024]);
/// let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {}).unwrap();
/// let idx = idx.into_inner();
/// assert!(mpelog_conformance::exercise_annotation(&idx, &clog2).all_values());
/// // Another trace: the annotation is stale.
/// assert!(!mpelog_conformance::exercise_annotation(&idx, &clog2[..clog2.len() - 1024]).all_values());
/// ```
pub fn exercise_annotation(annotation: &[u8], trace: &[u8]) -> Outcome {
    let mut out = Outcome::new(Format::Annotation);
    let opened = mpelog_annotate::Annotation::new(Cursor::new(annotation), Cursor::new(trace));
    if let Some(mut a) = out.record("Annotation::new", opened) {
        let r = a.window(f64::NEG_INFINITY, f64::INFINITY);
        out.record("Annotation::window(-inf, inf)", r);
        let (t0, t1) = (a.header().earliest, a.header().latest);
        let span = t1 - t0;
        let r = a.window(t0 + span * 0.375, t0 + span * 0.625);
        out.record("Annotation::window(middle quarter)", r);
    }
    let opts = Options::default().limit(CHECK_LIMIT);
    let r = check_annotation(Cursor::new(annotation), Cursor::new(trace), &opts);
    out.record("check::check_annotation", first_error(r));
    out
}

fn clog2(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::new(Format::Clog2);
    let opened = clog2_format::Clog2Reader::from_slice(bytes);
    if let Some(mut reader) = out.record("Clog2Reader::from_slice", opened) {
        let all = loop {
            match reader.next_record() {
                Ok(Some(_)) => {}
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        if out.record("Clog2Reader::next_record", all).is_some() {
            out.record("Clog2Reader::finish", reader.finish());
        }
    }
    out.record(
        "Clog2File::parse",
        clog2_format::Clog2File::parse(bytes).map(drop),
    );
    if let Ok(mut reader) = clog2_format::Clog2Reader::from_slice(bytes) {
        let r = slog2_format::convert::clog2_to_slog2(
            &mut reader,
            Cursor::new(Vec::new()),
            TreeOptions::default(),
            |_| {},
        );
        out.record("convert::clog2_to_slog2", r.map(drop));
    }
    out
}

fn clog(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::new(Format::Clog);
    out.record(
        "clog::ClogFile::parse",
        clog2_format::clog::ClogFile::parse(bytes).map(drop),
    );
    let r = clog2_format::clog::ClogRecords::new(bytes)
        .map_err(slog2_format::Error::from)
        .and_then(|records| {
            let out = Cursor::new(Vec::new());
            slog2_format::convert::clog_to_slog2(records, out, TreeOptions::default(), |_| {})
        });
    out.record("convert::clog_to_slog2", r.map(drop));
    out
}

fn slog2(format: Format, bytes: &[u8]) -> Outcome {
    let mut out = Outcome::new(format);
    out.record(
        "Slog2File::parse",
        slog2_format::Slog2File::parse(bytes).map(drop),
    );
    let opened = slog2_format::Slog2Reader::new(Cursor::new(bytes));
    if let Some(mut r) = out.record("Slog2Reader::new", opened) {
        let w = r.window(f64::NEG_INFINITY, f64::INFINITY);
        out.record("Slog2Reader::window(-inf, inf)", w.map(drop));
        let w = r.window_preview(f64::NEG_INFINITY, f64::INFINITY, PREVIEW_PIXELS);
        out.record("Slog2Reader::window_preview(-inf, inf, 50)", w.map(drop));
    }
    out
}

fn alog(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::new(Format::Alog);
    let unpacked;
    let text = if alog_format::z::is_compress(bytes) {
        let r = alog_format::z::decompress(bytes, ALOG_Z_LIMIT);
        match out.record("z::decompress", r) {
            Some(v) => {
                unpacked = v;
                &unpacked[..]
            }
            None => return out,
        }
    } else {
        bytes
    };
    if let Some(f) = out.record("AlogFile::parse", alog_format::AlogFile::parse(text)) {
        let r = slog2_format::convert::alog_to_slog2(
            &f,
            Cursor::new(Vec::new()),
            TreeOptions::default(),
            |_| {},
        );
        out.record("alog_to_slog2", r.map(drop));
    }
    out
}

fn slog1(bytes: &[u8]) -> Outcome {
    use slog2_format::{convert::slog1::slog1_to_slog2, slog1::Slog1File};
    let mut out = Outcome::new(Format::Slog1);
    if let Some(f) = out.record("slog1::Slog1File::parse", Slog1File::parse(bytes)) {
        let _ = f.warnings();
        out.record::<(), String>("slog1::Slog1File::warnings", Ok(()));
        let r = slog1_to_slog2(&f, Cursor::new(Vec::new()), TreeOptions::default(), |_| {});
        out.record("slog1::slog1_to_slog2", r.map(drop));
    }
    out
}

fn otf2(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::new(Format::Otf2);
    let r = otf2_format::Anchor::parse(bytes, std::path::Path::new("traces.otf2"));
    out.record("otf2::Anchor::parse", r.map(drop));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_knows_the_magic_numbers() {
        assert_eq!(detect(b""), None);
        assert_eq!(detect(b"CLOG-02.44\0"), Some(Format::Clog2));
        assert_eq!(detect(b"MPELOGIX\0\x01"), Some(Format::Annotation));
        assert_eq!(detect(b"\0\x0aSLOG 2.0.6"), Some(Format::Slog2));
        assert_eq!(detect(b"\0\x0aSLOG 2.0.5"), Some(Format::Slog2));
        assert_eq!(detect(b"\0\x0bSLOG 2.0.6Z"), Some(Format::Slog2Compressed));
        assert_eq!(detect(&[0, 0, 0, 0, 0, 0, 0, 9, 1]), Some(Format::Slog1));
        assert_eq!(detect(b"\x1f\x9d\x90"), Some(Format::Alog));
        assert_eq!(detect(b"-3 0 0 2 0 0\n"), Some(Format::Alog));
        assert_eq!(detect(b"\x03\x42OTF2\0\x03"), Some(Format::Otf2));
        assert_eq!(detect(b"\x7f\x7f\x7f"), None);
    }

    #[test]
    fn every_format_returns_on_empty_input() {
        for f in Format::ALL {
            let o = exercise(f, b"");
            assert!(o.errors() > 0, "{f}: {o:?}");
        }
    }
}
