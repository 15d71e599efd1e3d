//! [`Trace::print`] and [`Trace::print_tree`]: a file's records, one line
//! each, as they are in the file (what `mpelog print` writes).

use super::error::{Error, Result};
use super::{Format, Trace};
use std::io::Write;
use std::path::Path;

/// The path an [`Error::Io`] names when the output of [`Trace::print`] or
/// [`Trace::print_tree`] cannot be written (a closed pipe, a full disk).
///
/// ```
/// assert_eq!(mpelog::trace::OUTPUT, "<output>");
/// ```
pub const OUTPUT: &str = "<output>";

/// `Io` for a write to the output.
fn written(source: std::io::Error) -> Error {
    Error::Io {
        path: OUTPUT.into(),
        source,
    }
}

impl Trace {
    /// Writes every record of the file, one line each, in file order (the
    /// dumps of spec/README.md and spec/otf2.md §10): a CLOG2's preamble and
    /// communicator table as `# ` lines around its records; a SLOG-2's
    /// header, legend, line-ID maps, tree directory and nodes; ALOG, old
    /// CLOG and SLOG-1 records (SLOG-1's warnings with their rule); an OTF2
    /// archive's anchor, definitions and events in time order. The file is
    /// read as it is, never converted.
    ///
    /// # Errors
    ///
    /// The reader's error (with the lines before it written);
    /// [`Error::Io`] naming [`OUTPUT`] when `out` cannot be written;
    /// [`Error::Unrecognized`] for an annotation.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut out = Vec::new();
    /// mpelog::Trace::open(&path)?.print(&mut out)?;
    /// let text = String::from_utf8(out)?;
    /// assert!(text.starts_with("# "));
    /// assert!(text.lines().count() > 100);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn print(&mut self, out: &mut dyn Write) -> Result<()> {
        let path = &self.local()?;
        match self.format {
            Format::Slog1 => {
                let f = super::read::slog1(path)?;
                for line in slog2_format::slog1::dump::lines(&f) {
                    writeln!(out, "{line}").map_err(written)?;
                }
                for w in f.warnings() {
                    let rule = mpelog_conformance::check::slog1::rule(w.problem);
                    writeln!(out, "warning {} byte {}: {}", rule.id, w.offset, w.what)
                        .map_err(written)?;
                }
                Ok(())
            }
            Format::Alog => {
                for line in alog_format::dump::lines(&super::read::alog(path)?) {
                    writeln!(out, "{line}").map_err(written)?;
                }
                Ok(())
            }
            Format::Clog2 => clog2(path, out),
            Format::Slog2 | Format::Slog2Compressed => slog2(path, out),
            Format::Clog => {
                let data = std::fs::read(path).map_err(Error::io(path))?;
                let f = clog2_format::clog::ClogFile::parse(&data).map_err(|source| {
                    Error::Clog2 {
                        path: path.clone(),
                        source,
                    }
                })?;
                writeln!(out, "# CLOG (MPE1) block_size = {}", f.block_size).map_err(written)?;
                for rec in f.blocks.iter().flat_map(|b| b.records.iter()) {
                    writeln!(out, "{}", rec.display()).map_err(written)?;
                }
                Ok(())
            }
            Format::Otf2 => otf2(path, out),
            Format::Annotation => Err(Error::Unrecognized {
                path: path.clone(),
                message: "this is an mpelog annotation file; query it with `mpelog window`".into(),
            }),
            format => Err(Error::Unrecognized {
                path: path.clone(),
                message: format!("this is a {format} file; print reads CLOG2, old CLOG, SLOG-2, ALOG, SLOG-1 and OTF2 files"),
            }),
        }
    }

    /// Writes the tree of a SLOG-2 file depth first, from the root down to
    /// `depth` (`mpelog print --tree`).
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for any other format (convert it first); the
    /// reader's error; [`Error::Io`] naming [`OUTPUT`] when `out` cannot be
    /// written.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let e = mpelog::Trace::open(&path)?.print_tree(0, &mut Vec::new()).unwrap_err();
    /// assert_eq!(e.kind(), "unsupported");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn print_tree(&mut self, depth: i16, out: &mut dyn Write) -> Result<()> {
        let path = &self.local()?;
        if !matches!(self.format, Format::Slog2 | Format::Slog2Compressed) {
            return Err(Error::Unsupported {
                path: path.clone(),
                what: "--tree prints the tree of a SLOG-2 file; convert the trace first".into(),
            });
        }
        let bad = |source| Error::Slog2 {
            path: path.clone(),
            source,
        };
        let file = std::fs::File::open(path).map_err(Error::io(path))?;
        let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file)).map_err(bad)?;
        let mut result = Ok(());
        slog2_format::dump::tree(&mut r, depth, |l| {
            if result.is_ok() {
                result = writeln!(out, "{l}");
            }
        })
        .map_err(bad)?;
        result.map_err(written)
    }
}

fn clog2(path: &Path, out: &mut dyn Write) -> Result<()> {
    use clog2_format::dump;
    let bad = |source| Error::Clog2 {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(Error::io(path))?;
    let mut r = clog2_format::Clog2Reader::new(file).map_err(bad)?;
    for line in dump::preamble_lines(r.preamble().info()) {
        writeln!(out, "# {line}").map_err(written)?;
    }
    while let Some(rec) = r.next_record().map_err(bad)? {
        writeln!(out, "{}", dump::record(&rec)).map_err(written)?;
    }
    if let Some(t) = r.finish().map_err(bad)? {
        for e in &t.entries {
            writeln!(out, "# {}", dump::comm_entry(e)).map_err(written)?;
        }
    }
    Ok(())
}

fn slog2(path: &Path, out: &mut dyn Write) -> Result<()> {
    use slog2_format::dump as d;
    let bad = |source| Error::Slog2 {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(Error::io(path))?;
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file)).map_err(bad)?;
    let mut lines = d::header(r.header(), r.version());
    if let Some(c) = r.categories() {
        lines.extend(c.value.categories.iter().map(d::category));
    }
    if let Some(m) = r.line_id_maps() {
        for map in &m.value.maps {
            lines.extend(d::line_id_map(map));
        }
    }
    let entries = r
        .tree_dir()
        .map(|t| t.value.entries.clone())
        .unwrap_or_default();
    lines.extend(entries.iter().map(d::tree_dir_entry));
    for l in &lines {
        writeln!(out, "{l}").map_err(written)?;
    }
    for e in &entries {
        let n = r.read_node(e.ptr).map_err(bad)?;
        for l in d::node(&n.value, &n.trailing) {
            writeln!(out, "{l}").map_err(written)?;
        }
    }
    Ok(())
}

/// The dump of spec/otf2.md §10 ([`otf2_format::dump`]): the anchor as `# `
/// comment lines, the definitions, then the events in time order.
fn otf2(path: &Path, out: &mut dyn Write) -> Result<()> {
    let a = super::read::otf2(path)?;
    let bad = |source| Error::Otf2 {
        path: path.to_path_buf(),
        source,
    };
    let d = otf2_format::dump::Dumper::new(&a.defs);
    let (v0, v1, v2) = a.anchor.version;
    writeln!(
        out,
        "# OTF2 archive {}: libotf2 {v0}.{v1}.{v2}, creator {:?}, {} locations",
        crate::names::shown(a.anchor_path()),
        a.anchor.creator,
        a.defs.locations.len()
    )
    .map_err(written)?;
    writeln!(out, "=== Global Definitions ===").map_err(written)?;
    for l in d.definitions() {
        writeln!(out, "{l}").map_err(written)?;
    }
    writeln!(out, "=== Events ===\n{}", otf2_format::dump::EVENTS_HEADER).map_err(written)?;
    let mut events = a.events().map_err(bad)?;
    while let Some(e) = events.next_event().map_err(bad)? {
        writeln!(out, "{}", d.event(&e)).map_err(written)?;
    }
    Ok(())
}
