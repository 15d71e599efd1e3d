//! [`Trace::file_info`]: a file's own facts (what `mpelog info` prints),
//! read in one pass over the file as it is, never converted.

use super::error::{Error, Result};
use super::{Format, Step, Trace};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// What [`Trace::file_info`] says of a file: the facts of an MPE-family file
/// (CLOG2, old CLOG, ALOG, SLOG-1, SLOG-2), or of an OTF2 archive. As JSON
/// each is the object of its variant (`mpelog info --json`).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("demo.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let mut t = mpelog::Trace::open(&path)?;
/// let mpelog::trace::FileInfo::Mpe(info) = t.file_info()? else { panic!("an MPE file") };
/// assert_eq!((info.format, info.version.as_str()), ("CLOG2", "CLOG-02.44"));
/// assert!(!t.is_converted()); // read as it is
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum FileInfo {
    /// A CLOG2, old CLOG, ALOG, SLOG-1 or SLOG-2 file.
    Mpe(Box<MpeFileInfo>),
    /// An OTF2 archive.
    Otf2(Box<Otf2FileInfo>),
}

/// The facts of an MPE-family file. Keys a format does not have are left
/// out of the JSON.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("demo.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let mpelog::trace::FileInfo::Mpe(info) = mpelog::Trace::open(&path)?.file_info()? else {
///     panic!("an MPE file")
/// };
/// assert!(info.records.unwrap() > 0 && info.damaged.is_none());
/// let json = serde_json::to_value(&info)?;
/// assert_eq!(json["format"], "CLOG2");
/// assert!(json.get("tree").is_none()); // SLOG-2 only
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct MpeFileInfo {
    /// Format name (`CLOG2`, `CLOG`, `ALOG`, `SLOG-1`, `SLOG-2`).
    pub format: &'static str,
    /// Version string (`CLOG-02.44`; `MPE1` for old CLOG).
    pub version: String,
    /// `big`, `little`, or `text` (ALOG).
    pub byte_order: &'static str,
    /// File size in bytes.
    pub file_size: u64,
    /// Block size in bytes (CLOG2, CLOG; frame size of SLOG-1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_size: Option<u64>,
    /// Number of blocks (CLOG2, CLOG; frames of SLOG-1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<u64>,
    /// Number of processes (MPI_COMM_WORLD size) from the preamble, or the
    /// number of distinct process IDs seen.
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
    /// Records per type (type tags as in `mpelog print`), or for SLOG-2
    /// drawables per kind.
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
    pub tree: Option<TreeFacts>,
    /// For a damaged file: the problem that stopped reading. Everything
    /// above then describes what came before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub damaged: Option<Damage>,
}

impl MpeFileInfo {
    /// The facts of a `file_size`-byte file of `format` with nothing else
    /// known yet; each format's reading sets the fields it has over it.
    fn of(format: Format, version: String, byte_order: &'static str, file_size: u64) -> Self {
        MpeFileInfo {
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
///
/// ```
/// let d = mpelog::trace::Damage::default();
/// assert!(d.offset.is_none() && d.error().is_none());
/// ```
#[derive(Debug, Clone, Default, Serialize)]
#[non_exhaustive]
pub struct Damage {
    /// Byte offset of the problem.
    pub offset: Option<u64>,
    /// What is wrong.
    pub message: String,
    /// The command that recovers the records before it, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair: Option<String>,
    /// The reader's error (not in the JSON).
    #[serde(skip)]
    error: Option<std::sync::Arc<Error>>,
}

impl Damage {
    /// The reader's error that stopped reading, typed.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_deref()
    }

    /// Takes the reader's error out, owned (`None` once taken, or while a
    /// clone of this `Damage` still shares it).
    ///
    /// ```
    /// assert!(mpelog::trace::Damage::default().take_error().is_none());
    /// ```
    pub fn take_error(&mut self) -> Option<Error> {
        std::sync::Arc::try_unwrap(self.error.take()?).ok()
    }
}

/// The tree of a SLOG-2 file.
///
/// ```
/// let t = mpelog::trace::TreeFacts::default();
/// assert_eq!(t.nodes, 0);
/// ```
#[derive(Debug, Clone, Default, Serialize)]
#[non_exhaustive]
pub struct TreeFacts {
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

/// The facts of an OTF2 archive: its anchor, its definitions counted, its
/// events by kind and their time range (every event read once). As JSON,
/// the keys in alphabetical order.
///
/// ```
/// let i = mpelog::trace::Otf2FileInfo::default();
/// assert_eq!(serde_json::to_value(&i)?["format"], "OTF2");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Otf2FileInfo {
    /// Always `OTF2`.
    pub format: &'static str,
    /// The anchor file.
    pub path: std::path::PathBuf,
    /// The version of libotf2 that wrote it (`3.0.3`).
    pub version: String,
    /// The program that wrote it.
    pub creator: String,
    /// Bytes per event chunk.
    pub chunk_size_events: u64,
    /// Bytes per definition chunk.
    pub chunk_size_defs: u64,
    /// Clock ticks per second.
    pub timer_resolution: u64,
    /// Locations defined.
    pub locations: usize,
    /// Location groups defined.
    pub location_groups: usize,
    /// Regions defined.
    pub regions: usize,
    /// Strings defined.
    pub strings: usize,
    /// Communicators defined.
    pub comms: usize,
    /// Metrics defined.
    pub metrics: usize,
    /// Definition records read.
    pub definition_records: u64,
    /// Events read.
    pub events: u64,
    /// Events per kind (`Enter`, `MpiSend`, ..., `type N` for the others).
    pub events_by_kind: BTreeMap<String, u64>,
    /// The first and last event's time (seconds), when there are events.
    pub time_range: Option<(f64, f64)>,
}

impl Default for Otf2FileInfo {
    fn default() -> Self {
        Otf2FileInfo {
            format: "OTF2",
            path: Default::default(),
            version: String::new(),
            creator: String::new(),
            chunk_size_events: 0,
            chunk_size_defs: 0,
            timer_resolution: 0,
            locations: 0,
            location_groups: 0,
            regions: 0,
            strings: 0,
            comms: 0,
            metrics: 0,
            definition_records: 0,
            events: 0,
            events_by_kind: BTreeMap::new(),
            time_range: None,
        }
    }
}

impl Trace {
    /// The file's own facts (`mpelog info`), read in one pass over the file
    /// as it is (downloaded first when remote), never converted: for a
    /// CLOG2, its preamble, blocks and records per type; for a SLOG-2, its
    /// tree; for OTF2, its anchor and definitions. A CLOG2 file damaged after
    /// a point gives the facts of what comes before it, with
    /// [`MpeFileInfo::damaged`] set. Reports [`Step::Read`] progress.
    ///
    /// # Errors
    ///
    /// The reader's error when nothing could be read; [`Error::Unrecognized`]
    /// for an annotation (an index, not a file of events).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// std::fs::write(&path, &bytes[..bytes.len() - 100])?; // cut short
    /// let mpelog::trace::FileInfo::Mpe(info) = mpelog::Trace::open(&path)?.file_info()? else {
    ///     panic!("an MPE file")
    /// };
    /// let damage = info.damaged.expect("damaged");
    /// assert!(damage.repair.is_some() && damage.error().is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn file_info(&mut self) -> Result<FileInfo> {
        let path = self.local()?;
        let total = std::fs::metadata(&path).map_or(0, |m| m.len());
        let mut progress = self.progress.take();
        let mut tell = |at: u64| {
            if let Some(p) = progress.as_mut() {
                p(Step::Read { at, total })
            }
        };
        let info = match self.format {
            Format::Clog2 => clog2(&path, &mut tell).map(mpe),
            Format::Clog => clog(&path).map(mpe),
            Format::Slog2 | Format::Slog2Compressed => slog2(&path, &mut tell).map(mpe),
            Format::Alog => alog(&path).map(mpe),
            Format::Slog1 => slog1(&path).map(mpe),
            Format::Otf2 => otf2(&path).map(|i| FileInfo::Otf2(Box::new(i))),
            Format::Annotation => Err(Error::Unrecognized {
                path: path.clone(),
                message: "this is an mpelog annotation file; query it with `mpelog window`, check it with `mpelog check`".into(),
            }),
            format => Err(Error::Unrecognized {
                path: path.clone(),
                message: format!("this is a {format} file; info reads CLOG2, old CLOG, SLOG-2, ALOG, SLOG-1 files and OTF2 archives"),
            }),
        };
        self.progress = progress;
        info
    }
}

fn mpe(i: MpeFileInfo) -> FileInfo {
    FileInfo::Mpe(Box::new(i))
}

/// Counts by name, as the JSON shows them.
fn counts(per: &BTreeMap<&'static str, u64>) -> BTreeMap<String, u64> {
    per.iter().map(|(k, n)| (k.to_string(), *n)).collect()
}

fn open(path: &Path) -> Result<(std::fs::File, u64)> {
    let f = std::fs::File::open(path).map_err(Error::io(path))?;
    let len = f.metadata().map_err(Error::io(path))?.len();
    Ok((f, len))
}

/// A reader that tells how far it has read.
struct Told<R, F> {
    inner: R,
    at: u64,
    tell: F,
}

impl<R: Read, F: FnMut(u64)> Read for Told<R, F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at += n as u64;
        (self.tell)(self.at);
        Ok(n)
    }
}

fn clog2(path: &Path, tell: &mut dyn FnMut(u64)) -> Result<MpeFileInfo> {
    let (file, len) = open(path)?;
    let bad = |source| Error::Clog2 {
        path: path.to_path_buf(),
        source,
    };
    let told = Told {
        inner: file,
        at: 0,
        tell,
    };
    let mut r = clog2_format::Clog2Reader::new(told).map_err(bad)?;
    let (t, failure) = clog2_format::dump::summary(&mut r);
    let info = r.preamble().info();
    let byte_order = if info.big_endian { "big" } else { "little" };
    let damaged = failure.map(|e| Damage {
        offset: e.offset(),
        message: e.to_string(),
        repair: e
            .repairable()
            .then(|| format!("mpelog repair {} -o FIXED.clog2", crate::names::shown(path))),
        error: Some(std::sync::Arc::new(bad(e))),
    });
    Ok(MpeFileInfo {
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
        damaged,
        ..MpeFileInfo::of(Format::Clog2, info.version.to_string(), byte_order, len)
    })
}

fn slog2(path: &Path, tell: &mut dyn FnMut(u64)) -> Result<MpeFileInfo> {
    let bad = |source| Error::Slog2 {
        path: path.to_path_buf(),
        source,
    };
    let (file, len) = open(path)?;
    let mut r = slog2_format::Slog2Reader::new(std::io::BufReader::new(file)).map_err(bad)?;
    let mut at = 0;
    let s = slog2_format::dump::summary(&mut r, |n| {
        at += n;
        tell(at)
    })
    .map_err(bad)?;
    let h = r.header();
    Ok(MpeFileInfo {
        record_counts: counts(&s.per_kind),
        time_min: s.time_range.map(|t| t.0),
        time_max: s.time_range.map(|t| t.1),
        tree: Some(TreeFacts {
            nodes: s.nodes,
            depth: h.max_treedepth as i64,
            children_per_node: h.num_children_per_node as i64,
            leaf_bytesize: h.treeleaf_bytesize as i64,
            max_buffer_bytesize: h.max_buffer_bytesize as i64,
            categories: s.categories,
            line_id_maps: s.line_id_maps,
        }),
        ..MpeFileInfo::of(Format::Slog2, r.version().as_str().to_string(), "big", len)
    })
}

fn alog(path: &Path) -> Result<MpeFileInfo> {
    let len = std::fs::metadata(path).map_err(Error::io(path))?.len();
    let f = super::read::alog(path)?;
    let s = alog_format::dump::summary(&f);
    let record_counts = s
        .per_type
        .iter()
        .map(|(t, n)| (format!("{t}"), *n))
        .collect();
    Ok(MpeFileInfo {
        ranks: Some(s.processes as i64),
        records: Some(s.records),
        record_counts,
        time_min: s.time_range_s().map(|r| r.0),
        time_max: s.time_range_s().map(|r| r.1),
        ..MpeFileInfo::of(Format::Alog, "ALOG".into(), "text", len)
    })
}

fn slog1(path: &Path) -> Result<MpeFileInfo> {
    let len = std::fs::metadata(path).map_err(Error::io(path))?.len();
    let f = super::read::slog1(path)?;
    let s = slog2_format::slog1::dump::summary(&f);
    let mut record_counts = BTreeMap::new();
    record_counts.insert("states".to_string(), s.states);
    record_counts.insert("arrows".to_string(), s.arrows);
    record_counts.insert("warnings".to_string(), s.warnings.len() as u64);
    let version = format!("SLOG {}.{}", s.version[0], s.version[1]);
    Ok(MpeFileInfo {
        block_size: Some(s.frame_bytesize as u64),
        blocks: Some(s.frames as u64),
        ranks: Some(s.processes as i64),
        max_threads: Some(s.threads as i64),
        records: Some(s.records),
        record_counts,
        time_min: s.time_range.map(|r| r.0),
        time_max: s.time_range.map(|r| r.1),
        ..MpeFileInfo::of(Format::Slog1, version, "big", len)
    })
}

fn clog(path: &Path) -> Result<MpeFileInfo> {
    let data = std::fs::read(path).map_err(Error::io(path))?;
    let f = clog2_format::clog::ClogFile::parse(&data).map_err(|source| Error::Clog2 {
        path: path.to_path_buf(),
        source,
    })?;
    let t = f.summary();
    Ok(MpeFileInfo {
        block_size: Some(t.block_size),
        blocks: Some(t.blocks),
        ranks: t.processes.map(|p| p as i64),
        records: Some(t.records),
        record_counts: counts(&t.per_type),
        time_min: t.time_range.map(|r| r.0),
        time_max: t.time_range.map(|r| r.1),
        ..MpeFileInfo::of(Format::Clog, "MPE1".into(), "big", data.len() as u64)
    })
}

fn otf2(path: &Path) -> Result<Otf2FileInfo> {
    let a = super::read::otf2(path)?;
    let bad = |source| Error::Otf2 {
        path: path.to_path_buf(),
        source,
    };
    // By label: borrowed, so that counting an event allocates nothing.
    let mut kinds: BTreeMap<std::borrow::Cow<'static, str>, u64> = BTreeMap::new();
    let (mut first, mut last) = (u64::MAX, 0u64);
    let mut events = a.events().map_err(bad)?;
    while let Some(e) = events.next_event().map_err(bad)? {
        first = first.min(e.time);
        last = last.max(e.time);
        *kinds.entry(e.kind.label()).or_insert(0) += 1;
    }
    let d = &a.defs;
    let res = d.clock.timer_resolution.max(1) as f64;
    let secs = |t: u64| (i128::from(t) - i128::from(d.clock.global_offset)) as f64 / res;
    let events: u64 = kinds.values().sum();
    let (v0, v1, v2) = a.anchor.version;
    Ok(Otf2FileInfo {
        format: "OTF2",
        path: a.anchor_path().to_path_buf(),
        version: format!("{v0}.{v1}.{v2}"),
        creator: a.anchor.creator.clone(),
        chunk_size_events: a.anchor.chunk_size_events,
        chunk_size_defs: a.anchor.chunk_size_defs,
        timer_resolution: d.clock.timer_resolution,
        locations: d.locations.len(),
        location_groups: d.location_groups.len(),
        regions: d.regions.len(),
        strings: d.strings.len(),
        comms: d.comms.len(),
        metrics: d.metrics.len(),
        definition_records: d.records,
        events,
        events_by_kind: kinds
            .into_iter()
            .map(|(k, n)| (k.into_owned(), n))
            .collect(),
        time_range: (events > 0).then(|| (secs(first), secs(last))),
    })
}
