//! Warnings about a SLOG-1 file that reads: things MPE's writer never makes or
//! that Jumpshot-3 mishandles, each with a byte offset (spec/slog1.md §13).

use super::read::Slog1File;
use super::types::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::fmt;

/// Warnings of one rule reported before the rest are only counted.
pub const MAX_PER_RULE: usize = 20;

/// What a SLOG-1 warning is about: one variant per warning rule of
/// spec/conformance.md §7.1 (the rule's ID, which `mpelog-conformance`
/// names, is in each variant's doc).
///
/// ```
/// use slog2_format::slog1::check::Problem;
/// assert_eq!(Problem::ALL.len(), 15);
/// assert!(Problem::ALL.contains(&Problem::BrokenSplit));
/// ```
// Declared in the order of the rule IDs' text, so that the "more warnings"
// lines of `warnings` come in the order they always did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Problem {
    /// `S1-DEF-001`: records of an (interval type, bebits) have no display-profile entry (no name or colour).
    NoProfile,
    /// `S1-DEF-002`: a profile entry's argument labels do not match its record definition's argument count.
    ArgumentLabels,
    /// `S1-DIR-001`: prevdir or nextdir is not 0: multi-directory files were never written, readers ignore them.
    LinkedDirectory,
    /// `S1-DIR-002`: the directory has more frames than max_Ndirframe slots.
    TooManyFrames,
    /// `S1-DIR-003`: directory entries do not tile time (a frame starts after it ends, or not where the previous one ends).
    FramesDoNotTile,
    /// `S1-J3-001`: an interval type above 32767 (Jumpshot-3 reads them as signed 16-bit).
    TypeAbove32767,
    /// `S1-J3-002`: an off-diagonal record type other than 192 (Jumpshot-3 draws it as a state).
    OffDiagonalType,
    /// `S1-REC-001`: a record's duration is negative or a time is not finite.
    BadTimes,
    /// `S1-SEC-001`: a record copy is in a sector whose time condition it does not meet.
    WrongSector,
    /// `S1-SEC-002`: an inc or pas copy has no home (cur or out) copy in an earlier frame: converters do not see it.
    NoHomeCopy,
    /// `S1-SEC-003`: the same record has home copies in two frames: converters see it twice.
    TwoHomeCopies,
    /// `S1-SPLIT-001`: pieces of a split interval do not form begin, middle..., final on their thread.
    BrokenSplit,
    /// `S1-STAT-001`: the preview statistics are empty (Nset or Nbin is 0): Jumpshot-3 refuses the file.
    NoStatistics,
    /// `S1-THR-001`: the thread table lists a (node, thread) twice (the writer refuses that).
    DuplicateThread,
    /// `S1-THR-002`: a record's (node, thread) is not in the thread table (Jumpshot-3 throws).
    UnknownThread,
}

impl Problem {
    /// Every problem, in the order of spec/conformance.md §7.1.
    pub const ALL: &'static [Problem] = &[
        Problem::NoStatistics,
        Problem::LinkedDirectory,
        Problem::TooManyFrames,
        Problem::FramesDoNotTile,
        Problem::WrongSector,
        Problem::NoHomeCopy,
        Problem::TwoHomeCopies,
        Problem::DuplicateThread,
        Problem::UnknownThread,
        Problem::NoProfile,
        Problem::ArgumentLabels,
        Problem::TypeAbove32767,
        Problem::OffDiagonalType,
        Problem::BadTimes,
        Problem::BrokenSplit,
    ];
}

/// A warning: what it is about, where, and what exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// What the warning is about.
    pub problem: Problem,
    /// Byte offset of the structure concerned.
    pub offset: u64,
    /// What is wrong.
    pub what: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "warning byte {}: {}", self.offset, self.what)
    }
}

struct Out {
    list: Vec<Warning>,
    counts: BTreeMap<Problem, (usize, u64)>,
    /// Warnings kept per rule; `None`: all, and no summary.
    limit: Option<usize>,
}

impl Out {
    fn new(limit: Option<usize>) -> Out {
        Out {
            list: Vec::new(),
            counts: BTreeMap::new(),
            limit,
        }
    }

    fn add(&mut self, problem: Problem, offset: u64, what: String) {
        let c = self.counts.entry(problem).or_insert((0, offset));
        c.0 += 1;
        if self.limit.is_none_or(|l| c.0 <= l) {
            self.list.push(Warning {
                problem,
                offset,
                what,
            });
        }
    }

    fn finish(mut self) -> Vec<Warning> {
        let Some(limit) = self.limit else {
            return self.list;
        };
        for (problem, (n, first)) in self.counts {
            if n > limit {
                self.list.push(Warning {
                    problem,
                    offset: first,
                    what: format!("{} more warnings of this rule not listed", n - limit),
                });
            }
        }
        self.list
    }
}

/// (node, thread, interval type) of a split interval's pieces.
type PieceKey = (u16, u32, u16);
/// A piece: start time, bebits code, byte offset.
type Piece = (f64, u8, u64);

fn task(t: &TaskLabel) -> String {
    format!("(node {}, thread {})", t.node, t.thread)
}

/// Every warning about `f`, rule by rule (at most [`MAX_PER_RULE`] of each, then
/// one saying how many more).
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
/// assert!(slog2_format::slog1::check::warnings(&file()?).is_empty()); // a built file is clean
/// # Ok::<(), slog2_format::slog1::Error>(())
/// ```
pub fn warnings(f: &Slog1File) -> Vec<Warning> {
    collect(f, Some(MAX_PER_RULE))
}

/// Every warning about `f`, rule by rule, all of them and without the "more
/// warnings" summaries of [`warnings`] (for callers that count and cap findings
/// themselves, such as `mpelog check`).
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
/// let mut f = file()?;
/// f.header.max_ndirframe = 0; // fewer directory slots than frames
/// let all = slog2_format::slog1::check::all_warnings(&f);
/// assert!(!all.is_empty());
/// assert!(all.len() >= slog2_format::slog1::check::warnings(&f).len() - 1);
/// # Ok::<(), slog2_format::slog1::Error>(())
/// ```
pub fn all_warnings(f: &Slog1File) -> Vec<Warning> {
    collect(f, None)
}

fn collect(f: &Slog1File, limit: Option<usize>) -> Vec<Warning> {
    let mut w = Out::new(limit);
    let h = &f.header;
    if f.statistics.nset == 0 || f.statistics.nbin == 0 {
        w.add(
            Problem::NoStatistics,
            h.fptr2statistics,
            format!(
                "Nset = {}, Nbin = {}: Jumpshot-3 refuses the file",
                f.statistics.nset, f.statistics.nbin
            ),
        );
    }
    if f.directory.prevdir != 0 || f.directory.nextdir != 0 {
        w.add(
            Problem::LinkedDirectory,
            h.fptr2framedata,
            format!(
                "prevdir = {}, nextdir = {} (ignored)",
                f.directory.prevdir, f.directory.nextdir
            ),
        );
    }
    if f.directory.entries.len() as u64 > h.max_ndirframe as u64 {
        w.add(
            Problem::TooManyFrames,
            h.fptr2framedata.saturating_add(16),
            format!(
                "{} frames, max_Ndirframe {}",
                f.directory.entries.len(),
                h.max_ndirframe
            ),
        );
    }
    let entry_at = |i: usize| {
        h.fptr2framedata
            .saturating_add(DIR_HEADER_LEN + DIR_ENTRY_LEN * i as u64)
    };
    for (i, e) in f.directory.entries.iter().enumerate() {
        let bad_start = i > 0 && e.starttime != f.directory.entries[i - 1].endtime;
        let ordered = e.starttime <= e.endtime;
        if !ordered || bad_start {
            w.add(
                Problem::FramesDoNotTile,
                entry_at(i),
                format!(
                    "frame {i} covers [{:?}, {:?}]{}",
                    e.starttime,
                    e.endtime,
                    if bad_start {
                        format!(
                            ", the previous one ends at {:?}",
                            f.directory.entries[i - 1].endtime
                        )
                    } else {
                        String::new()
                    }
                ),
            );
        }
    }

    let mut keys = FxHashSet::default();
    for (i, t) in f.threads.entries.iter().enumerate() {
        if !keys.insert((t.node_id, t.thread_id)) {
            w.add(
                Problem::DuplicateThread,
                h.fptr2threadtable
                    .saturating_add(4 + THREAD_ENTRY_LEN * i as u64),
                format!(
                    "(node {}, thread {}) is listed again",
                    t.node_id, t.thread_id
                ),
            );
        }
    }
    let mut prof_keys: FxHashMap<(u16, u8), usize> = FxHashMap::default();
    let mut prof_at = h.fptr2profile.saturating_add(4);
    let defs = f.recdefs.index();
    for (i, p) in f.profile.entries.iter().enumerate() {
        prof_keys.entry((p.itype(), p.bebits_code())).or_insert(i);
        if p.itype() > i16::MAX as u16 {
            w.add(
                Problem::TypeAbove32767,
                prof_at,
                format!("profile entry {i} has interval type {}", p.itype()),
            );
        }
        if let Some(&(_, nargs)) = defs.get(&(p.itype(), p.bebits_code())) {
            if p.nargs.is_some() && p.arg_labels.len() != nargs as usize {
                w.add(
                    Problem::ArgumentLabels,
                    prof_at,
                    format!(
                        "profile entry {i} (type {} {}) has {} argument labels, its definition {} arguments",
                        p.itype(),
                        bebits_name(p.bebits_code()),
                        p.arg_labels.len(),
                        nargs
                    ),
                );
            }
        }
        prof_at = prof_at.saturating_add(p.disk_len());
    }

    // Records: sector conditions, homes and copies, tasks, types.
    let mut homes: FxHashMap<Vec<u8>, usize> = FxHashMap::default();
    let mut no_profile: FxHashSet<(u16, u8)> = FxHashSet::default();
    let mut big_types: FxHashSet<u16> = FxHashSet::default();
    let mut odd_rectypes: FxHashSet<u16> = FxHashSet::default();
    let mut missing_tasks: FxHashSet<(u16, u32)> = FxHashSet::default();
    for r in f.records() {
        let rec = r.record;
        let Some(e) = f.directory.entries.get(r.frame) else {
            continue;
        };
        let (fs, fe) = (e.starttime, e.endtime);
        let (s, end) = (rec.starttime, rec.endtime());
        let ok = match r.sector {
            Sector::Cur => fs <= s && end <= fe,
            Sector::Inc => s < fs && fs <= end && end <= fe,
            Sector::Pas => s < fs && fe < end,
            Sector::Out => fs <= s && s <= fe && fe < end,
        };
        if !ok {
            w.add(
                Problem::WrongSector,
                r.offset,
                format!(
                    "a record of [{s:?}, {end:?}] is in the {} sector of frame {} [{fs:?}, {fe:?}]",
                    r.sector.name(),
                    r.frame
                ),
            );
        }
        let bytes = rec.encode();
        if r.sector.is_home() {
            if let Some(&other) = homes.get(&bytes) {
                if other != r.frame {
                    w.add(
                        Problem::TwoHomeCopies,
                        r.offset,
                        format!("this record's home copy is also in frame {other}"),
                    );
                }
            } else {
                homes.insert(bytes, r.frame);
            }
        } else if homes.get(&bytes).is_none_or(|&fr| fr >= r.frame) {
            w.add(
                Problem::NoHomeCopy,
                r.offset,
                format!(
                    "the {} copy in frame {} has no home copy in an earlier frame",
                    r.sector.name(),
                    r.frame
                ),
            );
        }
        if !r.sector.is_home() {
            continue;
        }
        let forward = rec.duration >= 0.0;
        if !forward || !rec.starttime.is_finite() || !rec.endtime().is_finite() {
            w.add(
                Problem::BadTimes,
                r.offset,
                format!("start {:?}, duration {:?}", rec.starttime, rec.duration),
            );
        }
        for t in std::iter::once(&rec.origin).chain(rec.destination.as_ref()) {
            if !keys.contains(&(t.node, t.thread)) && missing_tasks.insert((t.node, t.thread)) {
                w.add(
                    Problem::UnknownThread,
                    r.offset,
                    format!("{} is not in the thread table", task(t)),
                );
            }
        }
        if !prof_keys.contains_key(&(rec.intvltype, rec.bebits))
            && no_profile.insert((rec.intvltype, rec.bebits))
        {
            w.add(
                Problem::NoProfile,
                r.offset,
                format!(
                    "interval type {} {} has no profile entry",
                    rec.intvltype,
                    bebits_name(rec.bebits)
                ),
            );
        }
        if rec.intvltype > i16::MAX as u16 && big_types.insert(rec.intvltype) {
            w.add(
                Problem::TypeAbove32767,
                r.offset,
                format!("a record has interval type {}", rec.intvltype),
            );
        }
        if rec.is_arrow() && rec.rectype != 192 && odd_rectypes.insert(rec.rectype) {
            w.add(
                Problem::OffDiagonalType,
                r.offset,
                format!("an arrow record has record type {}", rec.rectype),
            );
        }
    }

    // Split intervals: per (node, thread, interval type), the pieces in start
    // order must read begin, middle*, final, begin, ...
    let mut pieces: BTreeMap<PieceKey, Vec<Piece>> = BTreeMap::new();
    for r in f.home_records() {
        let rec = r.record;
        if rec.bebits != 3 && !rec.is_arrow() {
            pieces
                .entry((rec.origin.node, rec.origin.thread, rec.intvltype))
                .or_default()
                .push((rec.starttime, rec.bebits, r.offset));
        }
    }
    for ((node, thread, itype), mut v) in pieces {
        v.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then(bebits_order(a.1).cmp(&bebits_order(b.1)))
        });
        let mut open: Option<(f64, u64)> = None;
        let label = |what: &str, t: f64| {
            format!("interval type {itype} on (node {node}, thread {thread}): {what} at {t:?}")
        };
        for (t, code, at) in v {
            match (code, open) {
                (1, Some((t0, at0))) => {
                    w.add(
                        Problem::BrokenSplit,
                        at0,
                        label("a begin piece without a final piece", t0),
                    );
                    open = Some((t, at));
                }
                (1, None) => open = Some((t, at)),
                (0, Some(_)) => {}
                (2, Some(_)) => open = None,
                (_, None) => w.add(
                    Problem::BrokenSplit,
                    at,
                    label(
                        &format!("a {} piece without a begin piece", bebits_name(code)),
                        t,
                    ),
                ),
                _ => {}
            }
        }
        if let Some((t0, at0)) = open {
            w.add(
                Problem::BrokenSplit,
                at0,
                label(
                    "a begin piece without a final piece (the interval never ends)",
                    t0,
                ),
            );
        }
    }
    w.finish()
}

impl Slog1File {
    /// The warnings about this file (see [`warnings`]).
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
    /// assert_eq!(f.warnings(), slog2_format::slog1::check::warnings(&f));
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn warnings(&self) -> Vec<Warning> {
        warnings(self)
    }
}
