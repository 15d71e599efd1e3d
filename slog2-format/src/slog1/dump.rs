//! The text form of `mpelog print` for SLOG-1 ([`lines`]: the header, every
//! table, the directory, the statistics, then every frame with every copy of
//! every interval record and all its fields), and the figures of `mpelog info`
//! ([`summary`]). Times print in the shortest form that reads back to the same
//! double.

use super::check::Warning;
use super::read::Slog1File;
use super::types::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Bytes as a quoted string in the notation of [`clog2_format::escape`].
fn quoted(b: &[u8]) -> String {
    clog2_format::escape::QuotedBytes(b).to_string()
}

fn q(s: &str) -> String {
    quoted(s.as_bytes())
}

fn tasklabel(t: &TaskLabel) -> String {
    format!("({},{},{})", t.node, t.cpu, t.thread)
}

fn words(v: &[u32]) -> String {
    let v: Vec<String> = v.iter().map(u32::to_string).collect();
    format!("[{}]", v.join(","))
}

/// One interval record, every field: `rectype=64 (state) type=100 bebits=3
/// (whole) start=0.02 dur=0.08 end=0.1 orig=(node,cpu,thread) [dest=(...)]
/// iaddr=0x22b8 assocs=[...] args=[...]` (variable-size arguments as groups).
///
/// ```
/// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
/// #     use slog2_format::slog1::*;
/// #     let state = |s: f64, node: u16| IntervalRecord {
/// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
/// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
/// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
/// #     };
/// #     let input = BuildInput {
/// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
/// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
/// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
/// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
/// #         ..Default::default()
/// #     };
/// #     build(&input, BuildOptions::default().frame_bytesize(256))
/// # }
/// let f = file()?;
/// let first = f.home_records().next().unwrap();
/// let line = slog2_format::slog1::dump::record(first.record);
/// assert!(line.starts_with("size="));
/// assert!(line.contains(" rectype=64 (state) type=1 bebits=3 (whole) start=0.0 dur=1.5 end=1.5 "));
/// # Ok::<(), slog2_format::slog1::Error>(())
/// ```
pub fn record(r: &IntervalRecord) -> String {
    let kind = match (r.is_arrow(), is_variable(r.rectype)) {
        (false, false) => "state",
        (false, true) => "variable state",
        (true, false) => "arrow",
        (true, true) => "variable arrow",
    };
    let mut s = format!(
        "size={} rectype={} ({kind}) type={} bebits={} ({}) start={:?} dur={:?} end={:?} orig={}",
        r.disk_len(),
        r.rectype,
        r.intvltype,
        r.bebits,
        bebits_name(r.bebits),
        r.starttime,
        r.duration,
        r.endtime(),
        tasklabel(&r.origin)
    );
    if let Some(d) = &r.destination {
        let _ = write!(s, " dest={}", tasklabel(d));
    }
    let _ = write!(s, " iaddr={:#x} assocs={}", r.instr_addr, words(&r.assocs));
    match &r.args {
        RecordArgs::Fixed(v) => {
            let _ = write!(s, " args={}", words(v));
        }
        RecordArgs::Variable(g) => {
            let g: Vec<String> = g.iter().map(|g| words(&g.values)).collect();
            let _ = write!(s, " args=[{}]", g.join(","));
        }
    }
    s
}

/// Every line `mpelog print` shows for a SLOG-1 file, but its warnings
/// ([`Slog1File::warnings`], which `mpelog print` follows with the rule each
/// breaks).
///
/// ```
/// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
/// #     use slog2_format::slog1::*;
/// #     let state = |s: f64, node: u16| IntervalRecord {
/// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
/// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
/// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
/// #     };
/// #     let input = BuildInput {
/// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
/// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
/// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
/// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
/// #         ..Default::default()
/// #     };
/// #     build(&input, BuildOptions::default().frame_bytesize(256))
/// # }
/// let lines = slog2_format::slog1::dump::lines(&file()?);
/// assert_eq!(lines[0], "SLOG-1 version 0.9");
/// assert!(lines[1].starts_with("header frame_bytesize=256 "));
/// # Ok::<(), slog2_format::slog1::Error>(())
/// ```
pub fn lines(f: &Slog1File) -> Vec<String> {
    let h = &f.header;
    let mut out = vec![
        format!("SLOG-1 version {}.{}", h.version[0], h.version[1]),
        format!(
            "header frame_bytesize={} frame_reserved_size={} max_Ndirframe={} IsIncreasingStarttime={} IsIncreasingEndtime={} HasReserveSpaceBeenUsed={}",
            h.frame_bytesize,
            h.frame_reserved_size,
            h.max_ndirframe,
            h.is_increasing_starttime,
            h.is_increasing_endtime,
            h.has_reserve_space_been_used
        ),
        format!(
            "pointers statistics={} preview={} profile={} threadtable={} recdefs={} framedata={}",
            h.fptr2statistics, h.fptr2preview, h.fptr2profile, h.fptr2threadtable, h.fptr2recdefs, h.fptr2framedata
        ),
        format!("preview @{} bytes={} {}", h.fptr2preview, f.preview.bytes.len(), quoted(&f.preview.bytes)),
        format!("threadtable @{} entries={}", h.fptr2threadtable, f.threads.entries.len()),
    ];
    for (i, t) in f.threads.entries.iter().enumerate() {
        out.push(format!(
            "thread {i} node={} thread={} OSprocess={} OSthread={} app={}",
            t.node_id, t.thread_id, t.os_process_id, t.os_thread_id, t.app_id
        ));
    }
    out.push(format!(
        "profile @{} entries={}",
        h.fptr2profile,
        f.profile.entries.len()
    ));
    for (i, p) in f.profile.entries.iter().enumerate() {
        let labels: Vec<String> = p.label_texts().iter().map(|l| q(l)).collect();
        out.push(format!(
            "profile {i} type={} bebits={} ({}) class={} label={} color={} arg_labels=[{}]",
            p.itype(),
            p.bebits_code(),
            bebits_name(p.bebits_code()),
            q(&p.classtype.as_text()),
            q(&p.label.as_text()),
            q(&p.color.as_text()),
            labels.join(",")
        ));
    }
    out.push(format!(
        "recdefs @{} entries={}",
        h.fptr2recdefs,
        f.recdefs.entries.len()
    ));
    for (i, d) in f.recdefs.entries.iter().enumerate() {
        out.push(format!(
            "recdef {i} type={} bebits={} ({}) nassocs={} nargs={}",
            d.intvltype,
            d.bebits,
            bebits_name(d.bebits),
            d.nassocs,
            d.nargs
        ));
    }
    out.push(format!(
        "directory @{} prevdir={} nextdir={} frames={}",
        h.fptr2framedata,
        f.directory.prevdir,
        f.directory.nextdir,
        f.directory.entries.len()
    ));
    for (i, e) in f.directory.entries.iter().enumerate() {
        out.push(format!(
            "dir {i} frame@{} start={:?} end={:?}",
            e.fptr2framehdr, e.starttime, e.endtime
        ));
    }
    let st = &f.statistics;
    match &st.body {
        None => out.push(format!(
            "statistics @{} nset={} nbin={} (empty)",
            h.fptr2statistics, st.nset, st.nbin
        )),
        Some(b) => {
            out.push(format!(
                "statistics @{} nset={} nbin={} start={:?} end={:?}",
                h.fptr2statistics, st.nset, st.nbin, b.starttime, b.endtime
            ));
            for (i, s) in b.sets.iter().enumerate() {
                let bins: Vec<String> = s.bins.iter().map(|v| format!("{v:?}")).collect();
                out.push(format!(
                    "stat {i} rectype={} type={} label={} bins=[{}]",
                    s.rectype,
                    s.intvltype,
                    q(&s.label_text()),
                    bins.join(",")
                ));
            }
        }
    }
    let mut recs = f.records().peekable();
    for (i, fr) in f.frames.iter().enumerate() {
        let e = f.directory.entries.get(i);
        let n = |s: Sector| {
            let r = fr.sector(s);
            format!(
                "{}=({},{})",
                s.name(),
                r.iter().map(IntervalRecord::disk_len).sum::<u64>(),
                r.len()
            )
        };
        out.push(format!(
            "frame {i} @{} start={:?} end={:?} {} {} {} {} tail={}",
            e.map_or(0, |e| e.fptr2framehdr),
            e.map_or(f64::NAN, |e| e.starttime),
            e.map_or(f64::NAN, |e| e.endtime),
            n(Sector::Cur),
            n(Sector::Inc),
            n(Sector::Pas),
            n(Sector::Out),
            fr.tail.len()
        ));
        while let Some(r) = recs.next_if(|r| r.frame == i) {
            out.push(format!(
                "  {} @{} {}",
                r.sector.name(),
                r.offset,
                record(r.record)
            ));
        }
    }
    for (at, g) in &f.gaps {
        let nonzero = g.iter().filter(|&&b| b != 0).count();
        out.push(format!("gap @{at} bytes={} nonzero={nonzero}", g.len()));
    }
    out
}

/// Records of one (interval type, bebits).
#[derive(Debug, Clone, PartialEq)]
pub struct TypeCount {
    /// Interval type.
    pub intvltype: u16,
    /// Bebits code.
    pub bebits: u8,
    /// Profile label (empty if the profile has no entry).
    pub label: String,
    /// Records (home copies).
    pub records: u64,
}

/// The figures of `mpelog info` for a SLOG-1 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Version (always 0.9).
    pub version: [u32; 2],
    /// Frame size in bytes.
    pub frame_bytesize: u32,
    /// Frames.
    pub frames: usize,
    /// Directory capacity.
    pub max_ndirframe: u32,
    /// Thread-table entries.
    pub threads: usize,
    /// Distinct nodes in the thread table.
    pub nodes: usize,
    /// Distinct processes in the thread table: (node, OS process ID) pairs.
    pub processes: usize,
    /// Distinct application IDs in the thread table.
    pub apps: usize,
    /// Distinct (node, thread) pairs records use.
    pub threads_used: usize,
    /// Display-profile entries.
    pub profile_entries: usize,
    /// Record definitions.
    pub recdefs: usize,
    /// Interval records, each counted once (their home copies).
    pub records: u64,
    /// Copies per sector (cur, inc, pas, out); cur + out = `records`.
    pub copies: [u64; 4],
    /// Records that are states (diagonal types).
    pub states: u64,
    /// Records that are arrows (off-diagonal types).
    pub arrows: u64,
    /// Records per bebits code (index = code: middle, begin, final, whole).
    pub by_bebits: [u64; 4],
    /// Records per record type.
    pub by_rectype: BTreeMap<u16, u64>,
    /// Records per (interval type, bebits), by key.
    pub by_type: Vec<TypeCount>,
    /// Earliest start and latest end of the records.
    pub time_range: Option<(f64, f64)>,
    /// The directory's time range (first frame start, last frame end).
    pub frame_range: Option<(f64, f64)>,
    /// Statistics sets and bins.
    pub statistics: (u32, u32),
    /// Bytes no section covers (reserved or stale slots, unused directory slots).
    pub gap_bytes: u64,
    /// Everything [`Slog1File::warnings`] reports.
    pub warnings: Vec<Warning>,
}

/// The summary of `f`.
///
/// ```
/// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
/// #     use slog2_format::slog1::*;
/// #     let state = |s: f64, node: u16| IntervalRecord {
/// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
/// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
/// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
/// #     };
/// #     let input = BuildInput {
/// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
/// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
/// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
/// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
/// #         ..Default::default()
/// #     };
/// #     build(&input, BuildOptions::default().frame_bytesize(256))
/// # }
/// let s = slog2_format::slog1::dump::summary(&file()?);
/// assert!(s.warnings.is_empty());
/// assert_eq!(s.version, [0, 9]);
/// # Ok::<(), slog2_format::slog1::Error>(())
/// ```
pub fn summary(f: &Slog1File) -> Summary {
    let t = &f.threads.entries;
    let count =
        |k: &dyn Fn(&ThreadInfo) -> (u64, u64)| t.iter().map(k).collect::<BTreeSet<_>>().len();
    let mut copies = [0u64; 4];
    let mut by_bebits = [0u64; 4];
    let mut by_rectype = BTreeMap::new();
    let mut by_key: BTreeMap<(u16, u8), u64> = BTreeMap::new();
    let mut used = BTreeSet::new();
    let (mut states, mut arrows, mut records) = (0, 0, 0);
    let mut range: Option<(f64, f64)> = None;
    for r in f.records() {
        copies[r.sector as usize] += 1;
        if !r.sector.is_home() {
            continue;
        }
        let rec = r.record;
        records += 1;
        if rec.is_arrow() {
            arrows += 1;
        } else {
            states += 1;
        }
        by_bebits[(rec.bebits & 3) as usize] += 1;
        *by_rectype.entry(rec.rectype).or_insert(0) += 1;
        *by_key.entry((rec.intvltype, rec.bebits)).or_insert(0) += 1;
        used.insert((rec.origin.node, rec.origin.thread));
        if let Some(d) = &rec.destination {
            used.insert((d.node, d.thread));
        }
        let (s, e) = (
            rec.starttime.min(rec.endtime()),
            rec.starttime.max(rec.endtime()),
        );
        range = Some(match range {
            None => (s, e),
            Some((a, b)) => (a.min(s), b.max(e)),
        });
    }
    let labels: BTreeMap<(u16, u8), String> = f
        .profile
        .entries
        .iter()
        .rev()
        .map(|p| ((p.itype(), p.bebits_code()), p.label.as_text()))
        .collect();
    Summary {
        version: f.header.version,
        frame_bytesize: f.header.frame_bytesize,
        frames: f.frames.len(),
        max_ndirframe: f.header.max_ndirframe,
        threads: t.len(),
        nodes: count(&|t| (t.node_id as u64, 0)),
        processes: count(&|t| (t.node_id as u64, t.os_process_id as u64)),
        apps: count(&|t| (t.app_id as u64, 0)),
        threads_used: used.len(),
        profile_entries: f.profile.entries.len(),
        recdefs: f.recdefs.entries.len(),
        records,
        copies,
        states,
        arrows,
        by_bebits,
        by_rectype,
        by_type: by_key
            .into_iter()
            .map(|((intvltype, bebits), records)| TypeCount {
                intvltype,
                bebits,
                label: labels
                    .get(&(intvltype, bebits))
                    .cloned()
                    .unwrap_or_default(),
                records,
            })
            .collect(),
        time_range: range,
        frame_range: f.frame_range(),
        statistics: (f.statistics.nset, f.statistics.nbin),
        gap_bytes: f.gaps.values().map(|g| g.len() as u64).sum(),
        warnings: f.warnings(),
    }
}

impl Summary {
    /// The summary as text lines (what `mpelog info` can print).
    ///
    /// ```
    /// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
    /// #     use slog2_format::slog1::*;
    /// #     let state = |s: f64, node: u16| IntervalRecord {
    /// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
    /// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
    /// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
    /// #     };
    /// #     let input = BuildInput {
    /// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
    /// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
    /// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
    /// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
    /// #         ..Default::default()
    /// #     };
    /// #     build(&input, BuildOptions::default().frame_bytesize(256))
    /// # }
    /// let lines = slog2_format::slog1::dump::summary(&file()?).lines();
    /// assert_eq!(lines[0], "format SLOG-1 version 0.9 (big-endian)");
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn lines(&self) -> Vec<String> {
        let mut v = vec![
            format!(
                "format SLOG-1 version {}.{} (big-endian)",
                self.version[0], self.version[1]
            ),
            format!(
                "frames {} of {} bytes (directory slots {})",
                self.frames, self.frame_bytesize, self.max_ndirframe
            ),
            format!(
                "threads {} (nodes {}, processes {}, applications {}; used by records {})",
                self.threads, self.nodes, self.processes, self.apps, self.threads_used
            ),
            format!(
                "profile entries {}, record definitions {}",
                self.profile_entries, self.recdefs
            ),
            format!(
                "records {} (states {}, arrows {}); copies cur {} inc {} pas {} out {}",
                self.records,
                self.states,
                self.arrows,
                self.copies[0],
                self.copies[1],
                self.copies[2],
                self.copies[3]
            ),
            format!(
                "pieces whole {} begin {} middle {} final {}",
                self.by_bebits[3], self.by_bebits[1], self.by_bebits[0], self.by_bebits[2]
            ),
        ];
        for (rt, n) in &self.by_rectype {
            v.push(format!("rectype {rt}: {n}"));
        }
        for t in &self.by_type {
            v.push(format!(
                "type {} {} {}: {}",
                t.intvltype,
                bebits_name(t.bebits),
                q(&t.label),
                t.records
            ));
        }
        match self.time_range {
            Some((a, b)) => v.push(format!("time range {a:?} .. {b:?}")),
            None => v.push("time range none".into()),
        }
        if let Some((a, b)) = self.frame_range {
            v.push(format!("frame range {a:?} .. {b:?}"));
        }
        v.push(format!(
            "statistics {} sets x {} bins",
            self.statistics.0, self.statistics.1
        ));
        v.push(format!("unused bytes {}", self.gap_bytes));
        v.push(format!("warnings {}", self.warnings.len()));
        v.extend(self.warnings.iter().map(Warning::to_string));
        v
    }
}
