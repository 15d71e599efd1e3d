//! `mpelog print`: every record, one line each.

use crate::detect::Format;
use crate::error::{CliError, CliResult};
use clog2_format::{dump, Clog2Reader};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Runs `mpelog print`, writing to stdout; `tree` is `--tree`'s lowest depth.
pub fn run(path: &Path, tree: Option<i16>) -> CliResult {
    let (path, format) = mpelog::trace::locate(path)?;
    let path = &path;
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let res = match tree {
        Some(depth) => write_tree(path, format, depth, &mut out),
        None => write_dump(path, format, &mut out),
    }
    .and_then(|()| out.flush().map_err(CliError::io(Path::new("<stdout>"))));
    match res {
        // A closed pipe (`mpelog print x | head`) is not an error.
        Err(CliError::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            Ok(())
        }
        other => other,
    }
}

/// Writes the dump of `path` to `out`.
pub fn write_dump<W: Write>(path: &Path, format: Format, out: &mut W) -> CliResult {
    let o = CliError::io(Path::new("<stdout>"));
    match format {
        Format::Slog1 => {
            let (f, _) = super::slog1::read(path)?;
            (|| -> std::io::Result<()> {
                for line in slog2_format::slog1::dump::lines(&f) {
                    writeln!(out, "{line}")?;
                }
                for w in f.warnings() {
                    let rule = mpelog_conformance::check::slog1::rule(w.problem);
                    writeln!(out, "warning {} byte {}: {}", rule.id, w.offset, w.what)?;
                }
                Ok(())
            })()
            .map_err(o)
        }
        Format::Alog => {
            let (f, _) = super::alog::read(path)?;
            (|| -> std::io::Result<()> {
                for line in alog_format::dump::lines(&f) {
                    writeln!(out, "{line}")?;
                }
                Ok(())
            })()
            .map_err(o)
        }
        Format::Annotation => Err(CliError::Unrecognized {
            path: path.to_path_buf(),
            message: "this is an mpelog annotation file; query it with `mpelog window`".into(),
        }),
        Format::Clog2 => {
            let (file, _) = super::open(path)?;
            let mut r = Clog2Reader::new(file).map_err(CliError::clog2(path))?;
            let res = (|| -> std::io::Result<Result<(), clog2_format::Error>> {
                for line in dump::preamble_lines(r.preamble().info()) {
                    writeln!(out, "# {line}")?;
                }
                loop {
                    match r.next_record() {
                        Ok(Some(rec)) => writeln!(out, "{}", dump::record(&rec))?,
                        Ok(None) => break,
                        Err(e) => return Ok(Err(e)),
                    }
                }
                match r.finish() {
                    Ok(Some(t)) => {
                        for e in &t.entries {
                            writeln!(out, "# {}", dump::comm_entry(e))?;
                        }
                    }
                    Ok(None) => {}
                    Err(e) => return Ok(Err(e)),
                }
                Ok(Ok(()))
            })();
            res.map_err(o)?.map_err(CliError::clog2(path))
        }
        Format::Slog2 | Format::Slog2Compressed => write_slog2(path, out),
        Format::Clog => {
            let data = std::fs::read(path).map_err(CliError::io(path))?;
            let f = clog2_format::clog::ClogFile::parse(&data).map_err(CliError::input(path))?;
            (|| -> std::io::Result<()> {
                writeln!(out, "# CLOG (MPE1) block_size = {}", f.block_size)?;
                for rec in f.blocks.iter().flat_map(|b| b.records.iter()) {
                    writeln!(out, "{}", rec.display())?;
                }
                Ok(())
            })()
            .map_err(o)
        }
        Format::Otf2 => super::otf2::print(path, out),
        format => Err(CliError::Unrecognized {
            path: path.to_path_buf(),
            message: format!("this is a {format} file; print reads CLOG2, old CLOG, SLOG-2, ALOG, SLOG-1 and OTF2 files"),
        }),
    }
}

/// Writes `print --tree`: the SLOG-2 tree depth first, down to `depth`.
pub fn write_tree<W: Write>(path: &Path, format: Format, depth: i16, out: &mut W) -> CliResult {
    if !matches!(format, Format::Slog2 | Format::Slog2Compressed) {
        return Err(CliError::Usage(
            "--tree prints the tree of a SLOG-2 file; convert the trace first".into(),
        ));
    }
    let (file, _) = super::open(path)?;
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file))
        .map_err(CliError::slog2(path))?;
    let mut written = Ok(());
    slog2_format::dump::tree(&mut r, depth, |l| {
        if written.is_ok() {
            written = writeln!(out, "{l}");
        }
    })
    .map_err(CliError::slog2(path))?;
    written.map_err(CliError::io(Path::new("<stdout>")))
}

fn write_slog2<W: Write>(path: &Path, out: &mut W) -> CliResult {
    use slog2_format::{dump as d, Slog2Reader};
    let (file, _) = super::open(path)?;
    let mut r = Slog2Reader::new(std::io::BufReader::new(file)).map_err(CliError::slog2(path))?;
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
        writeln!(out, "{l}").map_err(CliError::io(Path::new("<stdout>")))?;
    }
    for e in &entries {
        let n = r.read_node(e.ptr).map_err(CliError::slog2(path))?;
        for l in d::node(&n.value, &n.trailing) {
            writeln!(out, "{l}").map_err(CliError::io(Path::new("<stdout>")))?;
        }
    }
    Ok(())
}
