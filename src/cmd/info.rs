//! `mpelog info`: a summary of a trace.

use crate::detect::Format;
use crate::error::{CliError, CliResult};
use crate::progress::bytes_bar;
use clog2_format::Clog2Reader;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// What `info` reports. Keys absent from a format are omitted from the JSON.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// Format name (`CLOG2`, `CLOG`).
    pub format: &'static str,
    /// Version string (`CLOG-02.44`; `MPE1` for old CLOG).
    pub version: String,
    /// `big` or `little`.
    pub byte_order: &'static str,
    /// File size in bytes.
    pub file_size: u64,
    /// Block size in bytes (CLOG2, CLOG).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_size: Option<u64>,
    /// Number of blocks (CLOG2, CLOG).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<u64>,
    /// Number of processes (MPI_COMM_WORLD size) from the preamble, or the number of
    /// distinct process IDs seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<i64>,
    /// Largest thread count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_threads: Option<i64>,
    /// Whether the file was finalized (merged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finalized: Option<bool>,
    /// Number of records, terminators included (CLOG2, CLOG).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<u64>,
    /// Records per type (type tags as in `print`), or for SLOG-2 drawables per kind.
    pub record_counts: BTreeMap<String, u64>,
    /// Earliest record time (terminators excluded), seconds.
    pub time_min: Option<f64>,
    /// Latest record time (terminators excluded), seconds.
    pub time_max: Option<f64>,
    /// Entries in the communicator table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comm_table_entries: Option<usize>,
    /// SLOG-2 tree facts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<TreeSummary>,
    /// For a damaged file: the problem that stopped reading. Everything above
    /// then describes what came before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub damaged: Option<Damage>,
}

impl Summary {
    /// The summary of a `file_size`-byte file of `format` with nothing else
    /// known yet; each format's summary sets the fields it has over it.
    fn of(format: Format, version: String, byte_order: &'static str, file_size: u64) -> Summary {
        Summary {
            format: format.name(),
            version,
            byte_order,
            file_size,
            block_size: None,
            blocks: None,
            ranks: None,
            max_threads: None,
            finalized: None,
            records: None,
            record_counts: BTreeMap::new(),
            time_min: None,
            time_max: None,
            comm_table_entries: None,
            tree: None,
            damaged: None,
        }
    }
}

/// Where and why reading a damaged file stopped.
#[derive(Debug, Serialize)]
pub struct Damage {
    /// Byte offset of the problem.
    pub offset: Option<u64>,
    /// What is wrong.
    pub message: String,
    /// The command that recovers the records before it, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair: Option<String>,
}

/// The tree of a SLOG-2 file.
#[derive(Debug, Serialize)]
pub struct TreeSummary {
    /// Tree nodes.
    pub nodes: u64,
    /// Depth of the root (leaves are 0).
    pub depth: i64,
    /// Children per node.
    pub children_per_node: i64,
    /// Leaf size limit the writer used.
    pub leaf_bytesize: i64,
    /// Largest block.
    pub max_buffer_bytesize: i64,
    /// Categories in the legend.
    pub categories: u64,
    /// Line-ID maps.
    pub line_id_maps: u64,
}

/// Runs `mpelog info`.
pub fn run(path: &Path, json: bool) -> CliResult {
    let (path, format) = mpelog::trace::locate(path)?;
    if format == Format::Otf2 {
        return super::otf2::info(&path, json);
    }
    let path = &path;
    let (s, failure) = match summarize(path, format) {
        Ok(s) => (s, None),
        Err(Failure::Partial(partial)) => {
            let (s, e) = *partial;
            (s, Some(e))
        }
        Err(Failure::Nothing(e)) => return Err(e),
    };
    let text = if json {
        let mut t = mpelog::json_text::to_string(&s);
        t.push('\n');
        t
    } else {
        text(path, &s)
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        // A closed pipe (`mpelog info x | head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.map_err(CliError::io(Path::new("<stdout>")))?,
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Why a summary is not complete.
pub enum Failure {
    /// The file is damaged after a point: what came before, and the error
    /// (boxed together: a `CliError` is large).
    Partial(Box<(Summary, CliError)>),
    /// Nothing could be read.
    Nothing(CliError),
}

impl From<CliError> for Failure {
    fn from(e: CliError) -> Failure {
        Failure::Nothing(e)
    }
}

fn text(path: &Path, s: &Summary) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    // Writing to a String cannot fail.
    let _ = (|| -> std::fmt::Result {
        writeln!(o, "file:          {}", crate::input::shown(path))?;
        writeln!(o, "format:        {} ({})", s.format, s.version)?;
        if s.byte_order == "text" {
            writeln!(o, "encoding:      text")?;
        } else {
            writeln!(o, "byte order:    {}-endian", s.byte_order)?;
        }
        if let Some(f) = s.finalized {
            writeln!(
                o,
                "finalized:     {}",
                if f { "yes (merged)" } else { "no (local file)" }
            )?;
        }
        writeln!(o, "file size:     {} bytes", s.file_size)?;
        if let (Some(bs), Some(n)) = (s.block_size, s.blocks) {
            writeln!(o, "block size:    {bs} bytes ({n} blocks)")?;
        }
        if let Some(t) = &s.tree {
            writeln!(
                o,
                "tree:          {} nodes, depth {}, {} children per node, leaves up to {} bytes, largest block {} bytes",
                t.nodes, t.depth, t.children_per_node, t.leaf_bytesize, t.max_buffer_bytesize
            )?;
            writeln!(
                o,
                "legend:        {} categories, {} line-ID maps",
                t.categories, t.line_id_maps
            )?;
        }
        if let Some(r) = s.ranks {
            match s.max_threads {
                Some(t) => writeln!(o, "ranks:         {r} (max threads {t})")?,
                None => writeln!(o, "ranks:         {r}")?,
            }
        }
        match s.records {
            Some(n) => writeln!(o, "records:       {n}")?,
            None => writeln!(o, "drawables:")?,
        }
        for (k, v) in &s.record_counts {
            writeln!(o, "  {k:<11} {v}")?;
        }
        match (s.time_min, s.time_max) {
            (Some(a), Some(b)) => writeln!(o, "time range:    {a:?} .. {b:?} s")?,
            _ => writeln!(o, "time range:    (no timed records)")?,
        }
        if let Some(n) = s.comm_table_entries {
            writeln!(o, "comm table:    {n} entries")?;
        }
        if let Some(d) = &s.damaged {
            match d.offset {
                Some(at) => writeln!(
                    o,
                    "damaged:       at byte {at}; the counts above are of what comes before"
                )?,
                None => writeln!(
                    o,
                    "damaged:       the counts above are of what could be read"
                )?,
            }
        }
        Ok(())
    })();
    o
}

/// Reads the whole trace and builds its summary; for a damaged CLOG2 file, the
/// summary of what comes before the damage, with the error.
pub fn summarize(path: &Path, format: Format) -> Result<Summary, Failure> {
    Ok(match format {
        Format::Clog2 => return summarize_clog2(path),
        Format::Clog => summarize_clog(path)?,
        Format::Slog2 | Format::Slog2Compressed => summarize_slog2(path)?,
        Format::Alog => summarize_alog(path)?,
        Format::Slog1 => summarize_slog1(path)?,
        Format::Annotation => {
            return Err(Failure::Nothing(CliError::Unrecognized {
                path: path.to_path_buf(),
                message: "this is an mpelog annotation file; query it with `mpelog window`, check it with `mpelog check`".into(),
            }))
        }
        format => {
            return Err(Failure::Nothing(CliError::Unrecognized {
                path: path.to_path_buf(),
                message: format!("this is a {format} file; info reads CLOG2, old CLOG, SLOG-2, ALOG and SLOG-1 files"),
            }))
        }
    })
}

fn summarize_slog2(path: &Path) -> CliResult<Summary> {
    use slog2_format::Slog2Reader;
    let (file, len) = super::open(path)?;
    let mut r = Slog2Reader::new(std::io::BufReader::new(file)).map_err(CliError::slog2(path))?;
    let total = r.tree_dir().map_or(0, |t| {
        t.value
            .entries
            .iter()
            .map(|e| e.ptr.size.max(0) as u64)
            .sum()
    });
    let bar = bytes_bar(total, "reading");
    let s = slog2_format::dump::summary(&mut r, |n| bar.inc(n)).map_err(CliError::slog2(path))?;
    bar.finish_and_clear();
    let h = r.header();
    Ok(Summary {
        record_counts: counts(&s.per_kind),
        time_min: s.time_range.map(|t| t.0),
        time_max: s.time_range.map(|t| t.1),
        comm_table_entries: None,
        tree: Some(TreeSummary {
            nodes: s.nodes,
            depth: h.max_treedepth as i64,
            children_per_node: h.num_children_per_node as i64,
            leaf_bytesize: h.treeleaf_bytesize as i64,
            max_buffer_bytesize: h.max_buffer_bytesize as i64,
            categories: s.categories,
            line_id_maps: s.line_id_maps,
        }),
        ..Summary::of(Format::Slog2, r.version().as_str().to_string(), "big", len)
    })
}

/// Counts by name, as the JSON shows them.
fn counts(per: &BTreeMap<&'static str, u64>) -> BTreeMap<String, u64> {
    per.iter().map(|(k, n)| (k.to_string(), *n)).collect()
}

fn summarize_clog2(path: &Path) -> Result<Summary, Failure> {
    let (file, len) = super::open(path)?;
    let bar = bytes_bar(len, "reading");
    let mut r = Clog2Reader::new(bar.wrap_read(file)).map_err(CliError::clog2(path))?;
    let (t, failure) = clog2_format::dump::summary(&mut r);
    bar.finish_and_clear();
    let info = r.preamble().info();
    let byte_order = if info.big_endian { "big" } else { "little" };
    let summary = Summary {
        block_size: Some(info.block_size as u64),
        blocks: Some(t.blocks),
        ranks: info.comm_world_size.map(i64::from),
        max_threads: info.max_thread_count.map(i64::from),
        finalized: info.finalized,
        records: Some(t.records),
        record_counts: counts(&t.per_type),
        time_min: t.time_range.map(|r| r.0),
        time_max: t.time_range.map(|r| r.1),
        comm_table_entries: t.comm_table_entries,
        ..Summary::of(Format::Clog2, info.version.to_string(), byte_order, len)
    };
    match failure {
        None => Ok(summary),
        Some(e) => {
            let damage = Damage {
                offset: e.offset(),
                message: e.to_string(),
                repair: e
                    .repairable()
                    .then(|| format!("mpelog repair {} -o FIXED.clog2", crate::input::shown(path))),
            };
            let err = CliError::clog2(path)(e);
            let summary = Summary {
                damaged: Some(damage),
                ..summary
            };
            Err(Failure::Partial(Box::new((summary, err))))
        }
    }
}

fn summarize_alog(path: &Path) -> CliResult<Summary> {
    let (f, len) = super::alog::read(path)?;
    let s = alog_format::dump::summary(&f);
    let record_counts = s
        .per_type
        .iter()
        .map(|(t, n)| (format!("{t}"), *n))
        .collect();
    Ok(Summary {
        ranks: Some(s.processes as i64),
        records: Some(s.records),
        record_counts,
        time_min: s.time_range_s().map(|r| r.0),
        time_max: s.time_range_s().map(|r| r.1),
        ..Summary::of(Format::Alog, "ALOG".into(), "text", len)
    })
}

fn summarize_slog1(path: &Path) -> CliResult<Summary> {
    let (f, len) = super::slog1::read(path)?;
    let s = slog2_format::slog1::dump::summary(&f);
    let mut record_counts = BTreeMap::new();
    record_counts.insert("states".to_string(), s.states);
    record_counts.insert("arrows".to_string(), s.arrows);
    record_counts.insert("warnings".to_string(), s.warnings.len() as u64);
    let version = format!("SLOG {}.{}", s.version[0], s.version[1]);
    Ok(Summary {
        block_size: Some(s.frame_bytesize as u64),
        blocks: Some(s.frames as u64),
        ranks: Some(s.processes as i64),
        max_threads: Some(s.threads as i64),
        records: Some(s.records),
        record_counts,
        time_min: s.time_range.map(|r| r.0),
        time_max: s.time_range.map(|r| r.1),
        ..Summary::of(Format::Slog1, version, "big", len)
    })
}

fn summarize_clog(path: &Path) -> CliResult<Summary> {
    let data = std::fs::read(path).map_err(CliError::io(path))?;
    let f = clog2_format::clog::ClogFile::parse(&data).map_err(CliError::input(path))?;
    let t = f.summary();
    Ok(Summary {
        block_size: Some(t.block_size),
        blocks: Some(t.blocks),
        ranks: t.processes.map(|p| p as i64),
        records: Some(t.records),
        record_counts: counts(&t.per_type),
        time_min: t.time_range.map(|r| r.0),
        time_max: t.time_range.map(|r| r.1),
        ..Summary::of(Format::Clog, "MPE1".into(), "big", data.len() as u64)
    })
}
