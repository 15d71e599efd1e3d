//! `mpelog info`: a summary of a trace.

use crate::detect::{detect, Format};
use crate::error::{CliError, CliResult};
use crate::output::bytes_bar;
use clog2_format::record::rectype_name;
use clog2_format::Clog2Reader;
use serde::Serialize;
use std::collections::BTreeMap;
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
    /// Block size in bytes.
    pub block_size: u64,
    /// Number of blocks.
    pub blocks: u64,
    /// Number of processes (MPI_COMM_WORLD size) from the preamble, or the number of
    /// distinct process IDs seen.
    pub ranks: Option<i64>,
    /// Largest thread count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_threads: Option<i64>,
    /// Whether the file was finalized (merged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finalized: Option<bool>,
    /// Number of records, terminators included.
    pub records: u64,
    /// Records per type (type tags as in `print`).
    pub record_counts: BTreeMap<String, u64>,
    /// Earliest record time (terminators excluded), seconds.
    pub time_min: Option<f64>,
    /// Latest record time (terminators excluded), seconds.
    pub time_max: Option<f64>,
    /// Entries in the communicator table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comm_table_entries: Option<usize>,
}

/// Runs `mpelog info`.
pub fn run(path: &Path, json: bool) -> CliResult {
    let s = summarize(path)?;
    if json {
        println!(
            "{}",
            serde_json::to_string(&s).map_err(|e| CliError::Usage(e.to_string()))?
        );
    } else {
        print_text(path, &s);
    }
    Ok(())
}

fn print_text(path: &Path, s: &Summary) {
    println!("file:          {}", path.display());
    println!("format:        {} ({})", s.format, s.version);
    println!("byte order:    {}-endian", s.byte_order);
    if let Some(f) = s.finalized {
        println!(
            "finalized:     {}",
            if f { "yes (merged)" } else { "no (local file)" }
        );
    }
    println!("file size:     {} bytes", s.file_size);
    println!(
        "block size:    {} bytes ({} blocks)",
        s.block_size, s.blocks
    );
    if let Some(r) = s.ranks {
        match s.max_threads {
            Some(t) => println!("ranks:         {r} (max threads {t})"),
            None => println!("ranks:         {r}"),
        }
    }
    println!("records:       {}", s.records);
    for (k, v) in &s.record_counts {
        println!("  {k:<11} {v}");
    }
    match (s.time_min, s.time_max) {
        (Some(a), Some(b)) => println!("time range:    {a:?} .. {b:?} s"),
        _ => println!("time range:    (no timed records)"),
    }
    if let Some(n) = s.comm_table_entries {
        println!("comm table:    {n} entries");
    }
}

#[derive(Default)]
struct Tally {
    counts: BTreeMap<String, u64>,
    records: u64,
    tmin: Option<f64>,
    tmax: Option<f64>,
}

impl Tally {
    fn add(&mut self, name: &str, time: f64, terminator: bool) {
        self.records += 1;
        match self.counts.get_mut(name) {
            Some(c) => *c += 1,
            None => {
                self.counts.insert(name.to_string(), 1);
            }
        }
        if !terminator {
            self.tmin = Some(self.tmin.map_or(time, |t| t.min(time)));
            self.tmax = Some(self.tmax.map_or(time, |t| t.max(time)));
        }
    }
}

/// Reads the whole trace and builds its summary.
pub fn summarize(path: &Path) -> CliResult<Summary> {
    match detect(path)? {
        Format::Clog2 => summarize_clog2(path),
        Format::Clog => summarize_clog(path),
    }
}

fn summarize_clog2(path: &Path) -> CliResult<Summary> {
    let (file, len) = super::open(path)?;
    let bar = bytes_bar(len, "reading");
    let mut r = Clog2Reader::new(bar.wrap_read(file)).map_err(CliError::input(path))?;
    let mut t = Tally::default();
    while let Some(rec) = r.next_record().map_err(CliError::input(path))? {
        t.add(rectype_name(rec.rectype()), rec.time, rec.is_terminator());
    }
    let blocks = r.blocks_read();
    let table = r.finish().map_err(CliError::input(path))?;
    bar.finish_and_clear();
    let info = r.preamble().info();
    Ok(Summary {
        format: Format::Clog2.name(),
        version: info.version.to_string(),
        byte_order: if info.big_endian { "big" } else { "little" },
        file_size: len,
        block_size: info.block_size as u64,
        blocks,
        ranks: info.comm_world_size.map(i64::from),
        max_threads: info.max_thread_count.map(i64::from),
        finalized: info.finalized,
        records: t.records,
        record_counts: t.counts,
        time_min: t.tmin,
        time_max: t.tmax,
        comm_table_entries: table.map(|t| t.entries.len()),
    })
}

fn summarize_clog(path: &Path) -> CliResult<Summary> {
    let data = std::fs::read(path).map_err(CliError::io(path))?;
    let f = clog2_format::clog1::ClogFile::parse(&data).map_err(CliError::input(path))?;
    let mut t = Tally::default();
    let mut procs = std::collections::BTreeSet::new();
    for rec in f.blocks.iter().flat_map(|b| b.records.iter()) {
        t.add(rec.body.type_name(), rec.time, rec.is_terminator());
        if !rec.is_terminator() {
            procs.insert(rec.procid);
        }
    }
    Ok(Summary {
        format: Format::Clog.name(),
        version: "MPE1".into(),
        byte_order: "big",
        file_size: data.len() as u64,
        block_size: f.block_size as u64,
        blocks: f.blocks.len() as u64,
        ranks: Some(procs.len() as i64),
        max_threads: None,
        finalized: None,
        records: t.records,
        record_counts: t.counts,
        time_min: t.tmin,
        time_max: t.tmax,
        comm_table_entries: None,
    })
}
