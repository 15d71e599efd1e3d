//! SLOG-1 → SLOG-2 (spec/conversion.md §7): every interval record once, as a state
//! (diagonal types) or an arrow (off-diagonal types), through the one-pass tree
//! writer.
//!
//! * **Once.** A record's home copy is in the frame its start falls in, in the
//!   `cur` or `out` sector; the `inc` and `pas` sectors of later frames hold
//!   copies. The converter takes the `cur` and `out` sectors of every frame and
//!   nothing else, so each interval is drawn once without comparing records
//!   (two identical home copies are two intervals and give two drawables).
//! * **Order.** The tree writer needs increasing end times; SLOG-1 orders frames
//!   by time but records within and across frames are not sorted by end, so the
//!   drawables (at most 64 bytes each) are made in memory and sorted by end time,
//!   then start time, then file order.
//! * **Categories.** One per (interval type, bebits, state or arrow) that records
//!   use, in that order (index 0 up): name = the profile label (pieces of split
//!   intervals get ` (begin)`, ` (middle)`, ` (final)`), colour = the profile
//!   colour looked up like a CLOG2 colour (spec/conversion.md §2.1 item 5), width 1 for
//!   states and 3 for arrows. Info: the record's argument words (groups
//!   flattened), big-endian, at most 8; the format names them with the profile's
//!   argument labels (`label=%d`), as many as every record of the category has.
//!   Associations, the CPU and the instruction address are not carried.
//! * **Timelines.** Line ID *i* is entry *i* of the thread table (key node,
//!   thread; the first entry of a key wins); a (node, thread) the table lacks
//!   gets the next IDs in key order. Maps: "Thread View" (node, thread),
//!   "Application View" (app, node, thread), "OS Process View" (OS process,
//!   OS thread; −1 for threads the table lacks), then the writer's identity map.
//!
//! SLOG-1 has no events: a zero-length interval stays a zero-length state.

use crate::convert::clog2::events::info_keys;
use crate::convert::colors::{argb, lookup, Fallback};
use crate::convert::stats::{from_memory, into_tree, ConvertStats, PairStats};
use crate::error::{Error, Result, ValueProblem};
use crate::slog1::read::{RecordRef, Slog1File};
use crate::slog1::types::*;
use crate::types::{topology, Category, JStr, LineIdMap, LineIdRow};
use crate::write::prim::{Prim, MAX_INFO};
use crate::write::{PrimSink, TreeOptions};
use std::collections::BTreeMap;
use std::io::{Seek, Write};

/// Largest number of argument words a drawable's info carries (32 bytes).
pub const MAX_ARGS: usize = MAX_INFO / 4;

/// The drawables, categories and line-ID maps of a SLOG-1 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Slog1Drawables {
    /// One primitive per interval record, sorted by end time (then start time,
    /// then file order).
    pub prims: Vec<Prim>,
    /// The categories records use.
    pub categories: Vec<Category>,
    /// "Thread View", "Application View" and "OS Process View".
    pub maps: Vec<LineIdMap>,
    /// (node, thread) pairs records use that the thread table lacks.
    pub undeclared_threads: usize,
    /// Records with more than [`MAX_ARGS`] argument words (the rest are dropped).
    pub truncated_args: u64,
}

/// A line-ID map column maker: thread-table entry (if any), (node, thread).
type RowValues = dyn Fn(Option<&ThreadInfo>, (u16, u32)) -> Vec<i32>;

/// Category key: interval type, bebits order, arrow.
type Key = (u16, u8, bool);

/// Makes the drawables of `f` (see the module documentation).
///
/// # Errors
///
/// [`Error::BadValue`] naming the record's byte offset when a record's
/// start or end time is not finite (SLOG-2 cannot hold it).
///
/// # Examples
///
/// ```
/// use slog2_format::slog1::*;
/// use slog2_format::convert::slog1::drawables;
///
/// let state = |s: f64, node: u16| IntervalRecord {
///     rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 0.5,
///     origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
///     instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
/// };
/// let f = build(&BuildInput {
///     // The thread table names node 0 only: node 1 is undeclared.
///     threads: vec![ThreadInfo { node_id: 0, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: 0 }],
///     profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
///     recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
///     records: (0..4).map(|i| state(i as f64, (i % 2) as u16)).collect(),
///     ..Default::default()
/// }, BuildOptions::default())?;
/// let d = drawables(&f)?;
/// assert_eq!(d.prims.len(), 4);
/// assert_eq!(d.categories[0].name.to_string(), "Compute");
/// assert_eq!(d.maps.len(), 3); // thread, application and OS process views
/// assert_eq!(d.undeclared_threads, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn drawables(f: &Slog1File) -> Result<Slog1Drawables> {
    // Timelines.
    let mut lines: BTreeMap<(u16, u32), i32> = BTreeMap::new();
    let mut rows: Vec<(i32, Option<&ThreadInfo>, (u16, u32))> = Vec::new();
    for t in &f.threads.entries {
        let k = (t.node_id, t.thread_id);
        if let std::collections::btree_map::Entry::Vacant(v) = lines.entry(k) {
            let id = rows.len() as i32;
            v.insert(id);
            rows.push((id, Some(t), k));
        }
    }
    let homes: Vec<RecordRef<'_>> = f.home_records().collect();
    let mut extra: BTreeMap<(u16, u32), ()> = BTreeMap::new();
    for r in &homes {
        for t in std::iter::once(&r.record.origin).chain(r.record.destination.as_ref()) {
            if !lines.contains_key(&(t.node, t.thread)) {
                extra.insert((t.node, t.thread), ());
            }
        }
    }
    let undeclared_threads = extra.len();
    for k in extra.into_keys() {
        let id = rows.len() as i32;
        lines.insert(k, id);
        rows.push((id, None, k));
    }

    // Categories: key → smallest argument count among its records.
    let mut keys: BTreeMap<Key, usize> = BTreeMap::new();
    for r in &homes {
        let rec = r.record;
        let n = rec.args.values().len().min(MAX_ARGS);
        let k = (rec.intvltype, bebits_order(rec.bebits), rec.is_arrow());
        let e = keys.entry(k).or_insert(n);
        *e = (*e).min(n);
    }
    let index: BTreeMap<Key, i32> = keys
        .keys()
        .enumerate()
        .map(|(i, k)| (*k, i as i32))
        .collect();
    let mut fallback = Fallback::default();
    let categories: Vec<Category> = keys
        .iter()
        .map(|(&(itype, order, arrow), &n)| {
            let bebits = bebits_order(order); // the order map is its own inverse
            let entry = f
                .profile
                .entries
                .iter()
                .find(|p| p.itype() == itype && p.bebits_code() == bebits);
            let label = entry.map(|p| p.label.as_text()).filter(|l| !l.is_empty());
            let mut name = label.unwrap_or_else(|| format!("type {itype}"));
            if bebits != 3 {
                name.push_str(&format!(" ({})", bebits_name(bebits)));
            }
            if arrow && keys.contains_key(&(itype, order, false)) {
                name.push_str(" (arrow)");
            }
            let rgb = entry
                .and_then(|p| lookup(&p.color.as_text()))
                .unwrap_or_else(|| fallback.next_rgb());
            let labels = entry.map(ProfileEntry::label_texts).unwrap_or_default();
            let format: String = (0..n)
                .map(|i| {
                    let l = labels
                        .get(i)
                        .filter(|l| !l.is_empty())
                        .cloned()
                        .unwrap_or(format!("arg{i}"));
                    format!("{}{l}=%d", if i > 0 { ", " } else { "" })
                })
                .collect();
            let (keys, types) = info_keys(&format);
            Category {
                index: index[&(itype, order, arrow)],
                name: JStr::new(&name),
                topology: if arrow {
                    topology::ARROW
                } else {
                    topology::STATE
                },
                argb: argb(rgb, 255),
                modifiable: 1,
                width: if arrow { 3 } else { 1 },
                keys,
                types,
                methods: Vec::new(),
                summary: None,
            }
        })
        .collect();

    // Drawables.
    let mut truncated_args = 0;
    let mut prims: Vec<(Prim, usize)> = Vec::with_capacity(homes.len());
    for (i, r) in homes.iter().enumerate() {
        let rec = r.record;
        let (s, e) = (rec.starttime, rec.endtime());
        if !s.is_finite() || !e.is_finite() {
            return Err(Error::BadValue {
                offset: r.offset,
                problem: ValueProblem::NotFinite {
                    interval_type: rec.intvltype.into(),
                    start: s,
                    end: e,
                },
            });
        }
        let values = rec.args.values();
        if values.len() > MAX_ARGS {
            truncated_args += 1;
        }
        let info: Vec<u8> = values
            .iter()
            .take(MAX_ARGS)
            .flat_map(|v| v.to_be_bytes())
            .collect();
        let cat = index[&(rec.intvltype, bebits_order(rec.bebits), rec.is_arrow())];
        let from = lines[&(rec.origin.node, rec.origin.thread)];
        let p = match &rec.destination {
            Some(d) if rec.is_arrow() => {
                let to = lines[&(d.node, d.thread)];
                Prim::two(cat, topology::ARROW, (s, from), (e, to), &info)
            }
            _ => Prim::two(cat, topology::STATE, (s, from), (e, from), &info),
        };
        prims.push((p, i));
    }
    prims.sort_by(|(a, i), (b, j)| {
        a.latest()
            .total_cmp(&b.latest())
            .then(a.earliest().total_cmp(&b.earliest()))
            .then(i.cmp(j))
    });

    let map = |title: &str, labels: &[&str], vals: &RowValues| LineIdMap {
        title: JStr::new(title),
        ncols: labels.len() as i32,
        labels: labels.iter().map(|l| JStr::new(l)).collect(),
        rows: rows
            .iter()
            .map(|&(id, t, k)| LineIdRow {
                line_id: id,
                values: vals(t, k),
            })
            .collect(),
        methods: Vec::new(),
    };
    let maps = vec![
        map("Thread View", &["node", "thread"], &|_, k| {
            vec![k.0 as i32, k.1 as i32]
        }),
        map("Application View", &["app", "node", "thread"], &|t, k| {
            vec![t.map_or(-1, |t| t.app_id as i32), k.0 as i32, k.1 as i32]
        }),
        map("OS Process View", &["OSprocess", "OSthread"], &|t, _| {
            vec![
                t.map_or(-1, |t| t.os_process_id as i32),
                t.map_or(-1, |t| t.os_thread_id as i32),
            ]
        }),
    ];
    Ok(Slog1Drawables {
        prims: prims.into_iter().map(|(p, _)| p).collect(),
        categories,
        maps,
        undeclared_threads,
        truncated_args,
    })
}

/// Converts `f` to SLOG-2 written to `out` (which must be at its start) with the
/// given tree shape. Returns the writer and the tree writer's figures
/// (`drawables` = the number of interval records).
///
/// # Errors
///
/// A record with a non-finite time ([`Error::BadValue`] at its offset);
/// a file without interval records or bad options ([`Error::Write`]); I/O errors.
///
/// # Examples
///
/// ```
/// use slog2_format::slog1::*;
/// let state = |s: f64, node: u16| IntervalRecord {
///     rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 0.5,
///     origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
///     instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
/// };
/// let f = build(&BuildInput {
///     threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
///     profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
///     recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
///     records: (0..6).map(|i| state(i as f64, (i % 2) as u16)).collect(),
///     ..Default::default()
/// }, BuildOptions::default())?;
/// let (out, stats) = slog2_format::convert::slog1_to_slog2(&f, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// assert_eq!(stats.tree.drawables, 6);
/// assert!(slog2_format::looks_like(out.get_ref()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn slog1_to_slog2<W: Write + Seek>(
    f: &Slog1File,
    out: W,
    opts: TreeOptions,
    progress: impl FnMut(u64),
) -> Result<(W, ConvertStats)> {
    into_tree(out, opts, |tree| slog1_into(f, tree, progress))
}

/// Hands the drawables of `f` ([`drawables`]) to `sink` in increasing end
/// time, then the legend and the line-ID maps; `progress` as
/// [`slog1_to_slog2`]'s.
///
/// # Errors
///
/// As [`slog1_to_slog2`], and the sink's errors.
///
/// # Examples
///
/// ```
/// use slog2_format::slog1::*;
/// let state = |s: f64, node: u16| IntervalRecord {
///     rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 0.5,
///     origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
///     instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
/// };
/// let f = build(&BuildInput {
///     threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
///     profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
///     recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
///     records: (0..6).map(|i| state(i as f64, (i % 2) as u16)).collect(),
///     ..Default::default()
/// }, BuildOptions::default())?;
/// let tree = slog2_format::write::TreeWriter::new(std::io::Cursor::new(Vec::new()), Default::default())?;
/// let ((_, tree_stats), pair_stats) = slog2_format::convert::slog1_into(&f, tree, |_| {})?;
/// assert_eq!(tree_stats.drawables, 6);
/// assert_eq!(pair_stats.records, 6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn slog1_into<P: PrimSink>(
    f: &Slog1File,
    sink: P,
    progress: impl FnMut(u64),
) -> Result<(P::Output, PairStats)> {
    let d = drawables(f)?;
    let records = d.prims.len() as u64;
    let unmatched = Default::default();
    from_memory(
        (d.prims, &d.categories, d.maps),
        sink,
        records,
        unmatched,
        progress,
    )
}
