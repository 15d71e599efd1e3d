//! Why a run was slow (`mpelog analyze`, spec/analysis.md): Scalasca's MPI
//! wait-state patterns, the critical path and load imbalance, from the
//! time-ordered drawables every one-pass command reads, in one pass with
//! bounded memory.
//!
//! The drawables are fed to an [`Analyzer`] in start order (ties: the longer
//! first), as [`crate::stats`] takes them: states that are MPI calls
//! ([`Call`]) are matched with the messages (arrows) that start or end in
//! them and with the calls of the other ranks of their communicator, and each
//! wait state found is counted in its [`Pattern`] per timeline and per call
//! path. [`one_pass`], [`slog2`] and [`annotation`] read every input `stats`
//! reads.
//!
//! ```
//! use mpelog::analysis::{self, Options, Pattern};
//! let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
//! let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
//! let sink = mpelog::export::sorted::StartOrder::new();
//! let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
//! let report = analysis::one_pass(&mut sorted, &Options::default())?;
//! assert_eq!(report.timelines, [0, 1, 2, 3]);
//! assert!(report.counts.messages > 0 && report.counts.collectives > 0);
//! assert!(report.seconds(Pattern::LateSender) >= report.seconds(Pattern::LateSenderWrongOrder));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`to_cube`] makes a [`Report`] a CUBE4 report ([`crate::cube`], `mpelog
//! analyze -o REPORT.cubex`): its patterns carry Scalasca's metric names
//! ([`Pattern::id`]), parents ([`Pattern::parent`]) and seconds per call path
//! and timeline ([`PatternReport::cells`]).

mod calls;
mod collective;
mod comm_info;
pub mod critical_path;
mod cubex;
mod imbalance;
mod p2p;
mod report;
mod taken;

pub use calls::Call;
pub use critical_path::{CriticalCategory, CriticalPath};
pub use cubex::{to_cube, ROOT_REGION};
pub use report::{
    Cell, CollectiveProblem, Counts, ImbalanceRow, Instance, PathSeconds, Pattern, PatternReport,
    Report, Unmatched,
};

use crate::export::Ordered;
use crate::slices::Piece;
use collective::{Collectives, Part};
use report::Patterns;
use rustc_hash::FxHashMap;
use slog2_format::types::{topology, Category, LineIdMap};
use slog2_format::Slog2Reader;
use std::collections::BTreeSet;
use std::io::{Read, Seek};

/// How many pieces between two sweeps of the critical path.
const SWEEP_EVERY: u64 = 4096;

/// What to analyse.
///
/// ```
/// let o = mpelog::analysis::Options::default();
/// assert_eq!((o.from, o.to, o.root, o.instances), (None, None, 0, 10));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// Start of the window (inclusive): a wait state counts the part of it
    /// after this; `None`: the trace's start.
    pub from: Option<f64>,
    /// End of the window (exclusive); `None`: the trace's end.
    pub to: Option<f64>,
    /// The root's rank in its communicator for `MPI_Bcast`, `MPI_Reduce` and
    /// the other rooted collectives (MPE does not log it).
    pub root: i32,
    /// How many worst instances to keep per pattern.
    pub instances: usize,
    /// What the reading of the input dropped, when known (from the conversion).
    pub dropped: Option<(u64, u64)>,
    /// Whether to record every wait state and the critical path's segments
    /// ([`Report::recorded`], for [`crate::waits::WaitIndex`]).
    pub record: bool,
    /// When recording, how many bytes of wait states to hold in memory; the
    /// ones found before are spilled, sorted, to a temporary file
    /// ([`Recorded::spilled`]). `None`: all are held.
    pub record_memory: Option<usize>,
    /// Drawables between two sweeps of the critical path.
    sweep: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            from: None,
            to: None,
            root: 0,
            instances: 10,
            dropped: None,
            record: false,
            record_memory: None,
            sweep: SWEEP_EVERY,
        }
    }
}

impl Options {
    /// Counts the part of each wait state inside `[from, to)` (a missing
    /// bound: the trace's start or end), as every other time is clipped to it.
    ///
    /// ```
    /// let o = mpelog::analysis::Options::default().window(Some(1.0), None);
    /// assert_eq!((o.from, o.to), (Some(1.0), None));
    /// ```
    pub fn window(mut self, from: Option<f64>, to: Option<f64>) -> Options {
        self.from = from;
        self.to = to;
        self
    }

    /// Takes rank `root` of each communicator as the root of rooted collectives.
    ///
    /// ```
    /// assert_eq!(mpelog::analysis::Options::default().root(2).root, 2);
    /// ```
    pub fn root(mut self, root: i32) -> Options {
        self.root = root;
        self
    }

    /// Keeps the `n` worst instances of each pattern.
    ///
    /// ```
    /// assert_eq!(mpelog::analysis::Options::default().instances(3).instances, 3);
    /// ```
    pub fn instances(mut self, n: usize) -> Options {
        self.instances = n;
        self
    }

    /// Sweeps the critical path every `n` drawables (at least 1; the result
    /// does not depend on it, only the memory held between sweeps: for tests).
    ///
    /// ```
    /// let o = mpelog::analysis::Options::default().sweep_every(1);
    /// # let _ = o;
    /// ```
    #[doc(hidden)]
    pub fn sweep_every(mut self, n: u64) -> Options {
        self.sweep = n.max(1);
        self
    }

    /// Records every wait state and the critical path's segments
    /// ([`Report::recorded`]).
    ///
    /// ```
    /// assert!(mpelog::analysis::Options::default().record(true).record);
    /// ```
    pub fn record(mut self, on: bool) -> Options {
        self.record = on;
        self
    }

    /// When recording, holds at most `bytes` of wait states in memory and
    /// spills the ones found before, sorted, to a temporary file
    /// ([`Recorded::spilled`]; [`crate::waits::write_recorded`] writes an
    /// index from them without holding it).
    ///
    /// ```
    /// let o = mpelog::analysis::Options::default().record(true).record_memory(64 << 20);
    /// assert_eq!(o.record_memory, Some(64 << 20));
    /// ```
    pub fn record_memory(mut self, bytes: usize) -> Options {
        self.record_memory = Some(bytes);
        self
    }

    /// Records the sends and receives the reading dropped unmatched.
    ///
    /// ```
    /// let o = mpelog::analysis::Options::default().dropped(1, 2);
    /// assert_eq!(o.dropped, Some((1, 2)));
    /// ```
    pub fn dropped(mut self, sends: u64, receives: u64) -> Options {
        self.dropped = Some((sends, receives));
        self
    }
}

/// Where a line ID belongs: its timeline (location), communicator and rank in it.
#[derive(Debug, Clone, Copy)]
struct LineInfo {
    timeline: i32,
    comm: i32,
    rank: i32,
}

/// The line-ID maps read: per line its timeline and communicator, the ranks
/// per communicator, and the world's size when no map names communicators.
#[derive(Debug, Default)]
struct Lines {
    lines: FxHashMap<i32, LineInfo>,
    sizes: FxHashMap<i32, usize>,
    world: Option<usize>,
    /// Per timeline, its process and thread in the process view (its first
    /// two values; thread 0 for a view of one column).
    places: FxHashMap<i32, (i32, i32)>,
}

fn titled<'m>(maps: &'m [LineIdMap], prefix: &str) -> Option<&'m LineIdMap> {
    maps.iter().find(|m| {
        m.title
            .text()
            .to_ascii_lowercase()
            .starts_with(&prefix.to_ascii_lowercase())
    })
}

impl Lines {
    /// spec/analysis.md §3.1.
    fn of(maps: &[LineIdMap]) -> Lines {
        let mut l = Lines::default();
        // Timelines: lines with the same process (and thread) are one, named by
        // its smallest line ID.
        if let Some(m) = titled(maps, "Process") {
            let mut first: FxHashMap<&[i32], i32> = FxHashMap::default();
            for r in &m.rows {
                if r.values.first().is_some_and(|&w| w >= 0) {
                    let e = first.entry(&r.values[..]).or_insert(r.line_id);
                    *e = (*e).min(r.line_id);
                }
            }
            for r in &m.rows {
                let timeline = first.get(&r.values[..]).copied().unwrap_or(r.line_id);
                if let Some(&process) = r.values.first().filter(|&&p| p >= 0) {
                    let thread = r.values.get(1).copied().unwrap_or(0);
                    l.places.insert(timeline, (process, thread));
                }
                l.lines.insert(
                    r.line_id,
                    LineInfo {
                        timeline,
                        comm: 0,
                        rank: r.values.first().copied().unwrap_or(r.line_id),
                    },
                );
            }
        }
        if let Some(m) = titled(maps, "Communicator") {
            let mut ranks: FxHashMap<i32, BTreeSet<i32>> = FxHashMap::default();
            for r in &m.rows {
                let (Some(&comm), Some(&rank)) = (r.values.first(), r.values.get(1)) else {
                    continue;
                };
                ranks.entry(comm).or_default().insert(rank);
                let e = l.lines.entry(r.line_id).or_insert(LineInfo {
                    timeline: r.line_id,
                    comm,
                    rank,
                });
                e.comm = comm;
                e.rank = rank;
            }
            l.sizes = ranks.into_iter().map(|(c, r)| (c, r.len())).collect();
        } else {
            // No communicators: every timeline is in the world, its rank its
            // timeline's.
            let mut timelines: BTreeSet<i32> = l.lines.values().map(|i| i.timeline).collect();
            if timelines.is_empty() {
                if let Some(m) = maps.first() {
                    timelines = m.rows.iter().map(|r| r.line_id).collect();
                }
            }
            for i in l.lines.values_mut() {
                i.rank = i.timeline;
            }
            l.world = (!timelines.is_empty()).then_some(timelines.len());
        }
        l
    }

    fn get(&self, line: i32) -> LineInfo {
        self.lines.get(&line).copied().unwrap_or(LineInfo {
            timeline: line,
            comm: 0,
            rank: line,
        })
    }
}

/// A state still open on its timeline (for call paths and exclusive times).
#[derive(Debug, Clone, Copy)]
struct Open {
    start: f64,
    end: f64,
    category: i32,
    path: u32,
    exclusive: f64,
}

#[derive(Debug)]
struct Legend {
    name: String,
    topology: i32,
    call: Option<Call>,
    /// A collective record naming its communicator (an OTF2 conversion's).
    record: bool,
}

/// Finds the wait states, the critical path and the imbalance of drawables fed
/// in start order.
///
/// ```
/// use mpelog::analysis::{Analyzer, Options, Pattern};
/// use mpelog::slices::Piece;
/// use slog2_format::types::{topology, Category, JStr};
/// let state = |index, name: &str| Category { index, name: JStr::new(name), topology: topology::STATE, ..slog2_format::convert::arrow_category() };
/// let cats = [slog2_format::convert::arrow_category(), state(1, "MPI_Barrier")];
/// let mut a = Analyzer::new(&cats, &[], Options::default());
/// // A barrier entered at 1, 4 and 9 ms on three timelines, left at 10 ms.
/// for (line, enter) in [(0, 1e-3), (1, 4e-3), (2, 9e-3)] {
///     a.push_piece(Piece { category: 1, first: (enter, line), last: (10e-3, line), start: enter, end: 10e-3, info: &[] });
/// }
/// let r = a.finish();
/// assert!((r.seconds(Pattern::WaitAtBarrier) - 13e-3).abs() < 1e-9); // 8 + 5 + 0 ms
/// ```
#[derive(Debug)]
pub struct Analyzer {
    opts: Options,
    from: f64,
    to: f64,
    seen: (f64, f64),
    legend: FxHashMap<i32, Legend>,
    lines: Lines,
    stacks: FxHashMap<i32, Vec<Open>>,
    paths: Vec<(u32, i32)>,
    path_ids: FxHashMap<(u32, i32), u32>,
    exclusive: imbalance::Exclusive,
    /// Exclusive seconds per (call path, timeline).
    time: FxHashMap<(u32, i32), f64>,
    timelines: BTreeSet<i32>,
    p2p: p2p::P2p,
    coll: Collectives,
    held: comm_info::Pending,
    cp: critical_path::Cp,
    pats: Patterns,
    mpi_calls: u64,
    pieces: u64,
    recorded: Option<Recorded>,
}

/// What an [`Analyzer`] asked to [`record`](Analyzer::record) keeps: every
/// wait state (spec/waits.md §2) and the critical path as segments.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Recorded {
    /// Every wait state with positive seconds, of its most specific pattern,
    /// in the order found; when some were spilled
    /// ([`Options::record_memory`]), those found after the last spill.
    pub waits: Vec<crate::waits::Wait>,
    /// The wait states found before the last spill, when some were.
    pub spilled: Option<crate::waits::Spilled>,
    /// The critical path of the whole trace, in time order.
    pub path: Vec<crate::waits::Segment>,
    /// The names of the MPI calls' categories (index, name).
    pub calls: Vec<(i32, String)>,
    /// The root rank of rooted collectives the analysis used.
    pub root: i32,
    /// The trace's first enter and last leave (whatever the window).
    pub span: (f64, f64),
}

impl Analyzer {
    /// An analyzer over the legend `categories` and the line-ID maps `maps`
    /// (which name each line's process and communicator; without them every
    /// line is a timeline of the world communicator).
    ///
    /// ```
    /// use mpelog::analysis::{Analyzer, Options};
    /// let r = Analyzer::new(&[], &[], Options::default()).finish();
    /// assert!(r.patterns.is_empty() && r.timelines.is_empty());
    /// ```
    pub fn new(categories: &[Category], maps: &[LineIdMap], opts: Options) -> Analyzer {
        let legend: FxHashMap<i32, Legend> = categories
            .iter()
            .map(|c| {
                let name = c.name.text();
                let call = if c.topology == topology::STATE {
                    Call::of(&name)
                } else {
                    None
                };
                (
                    c.index,
                    Legend {
                        name,
                        topology: c.topology,
                        call,
                        record: comm_info::is_record(c),
                    },
                )
            })
            .collect();
        let from = opts.from.unwrap_or(f64::NEG_INFINITY);
        let to = opts.to.unwrap_or(f64::INFINITY);
        let lines = Lines::of(maps);
        let held = comm_info::Pending::new(legend.values().any(|l| l.record));
        let mut coll = Collectives::new(lines.sizes.clone(), lines.world, opts.root);
        coll.names = legend.iter().map(|(&i, l)| (i, l.name.clone())).collect();
        let mut states: Vec<i32> = categories
            .iter()
            .filter(|c| c.topology == topology::STATE)
            .map(|c| c.index)
            .collect();
        states.sort_unstable();
        let mut a = Analyzer {
            pats: Patterns::new(opts.instances, from, to),
            from,
            to,
            seen: (f64::INFINITY, f64::NEG_INFINITY),
            legend,
            lines,
            stacks: FxHashMap::default(),
            paths: vec![(0, i32::MIN)],
            path_ids: FxHashMap::default(),
            exclusive: imbalance::Exclusive::default(),
            time: FxHashMap::default(),
            timelines: BTreeSet::new(),
            p2p: p2p::P2p::new(),
            coll,
            held,
            cp: critical_path::Cp::new(&states, from, to),
            mpi_calls: 0,
            pieces: 0,
            recorded: None,
            opts,
        };
        if a.opts.record {
            a.record();
        }
        a
    }

    fn clipped(&self, a: f64, b: f64) -> f64 {
        (b.min(self.to) - a.max(self.from)).max(0.0)
    }

    /// Adds one drawable (states and arrows count; events are ignored).
    /// Drawables must come in start order (ties: the longer first).
    ///
    /// ```
    /// use mpelog::analysis::{Analyzer, Options, Pattern};
    /// use mpelog::slices::Piece;
    /// use slog2_format::types::{topology, Category, JStr};
    /// let state = |index, name: &str| Category { index, name: JStr::new(name), topology: topology::STATE, ..slog2_format::convert::arrow_category() };
    /// let cats = [slog2_format::convert::arrow_category(), state(1, "MPI_Send"), state(2, "MPI_Recv")];
    /// let mut a = Analyzer::new(&cats, &[], Options::default());
    /// let piece = |category, first: (f64, i32), last: (f64, i32)| Piece { category, first, last, start: first.0.min(last.0), end: first.0.max(last.0), info: &[] };
    /// // Timeline 1 enters MPI_Recv at 5 ms; timeline 0 enters MPI_Send at 30 ms.
    /// a.push_piece(piece(2, (5e-3, 1), (31e-3, 1)));
    /// a.push_piece(piece(1, (30e-3, 0), (30.5e-3, 0)));
    /// a.push_piece(piece(0, (30.1e-3, 0), (30.9e-3, 1))); // the message
    /// let r = a.finish();
    /// assert!((r.seconds(Pattern::LateSender) - 25e-3).abs() < 1e-9);
    /// ```
    pub fn push_piece(&mut self, p: Piece<'_>) {
        let cur = p.start;
        self.pieces += 1;
        self.p2p.advance(cur, &mut self.pats);
        self.drain_jumps();
        if self.pieces % self.opts.sweep == 0 {
            let p2p = self.p2p.low_bound(cur, &mut self.pats);
            self.drain_jumps();
            let safe = cur
                .min(p2p)
                .min(self.coll.low_bound())
                .min(self.held.low_bound());
            self.cp.step(safe);
        }
        let Some((topo, call, record)) = self
            .legend
            .get(&p.category)
            .map(|l| (l.topology, l.call, l.record))
        else {
            return;
        };
        match topo {
            topology::STATE => self.state(&p, call, record),
            topology::ARROW => {
                let (s, r) = (self.lines.get(p.first.1), self.lines.get(p.last.1));
                self.timelines.insert(s.timeline);
                self.timelines.insert(r.timeline);
                self.p2p
                    .push_message(s.timeline, p.first.0, r.timeline, p.last.0);
            }
            _ => {}
        }
        self.drain_jumps();
    }

    /// How many items the analysis holds now: calls in collective instances
    /// not yet complete, states and wait ends queued for the critical path
    /// (what bounds its memory, spec/analysis.md §3.3 and §6; for tests).
    ///
    /// ```
    /// let a = mpelog::analysis::Analyzer::new(&[], &[], Default::default());
    /// assert_eq!(a.held(), 0);
    /// ```
    #[doc(hidden)]
    pub fn held(&self) -> usize {
        self.coll.held() + self.cp.held()
    }

    fn drain_jumps(&mut self) {
        for (t, w, c) in self.pats.jumps.drain(..) {
            self.cp.jump(t, w, c);
        }
    }

    /// A collective call ready to be matched (spec/analysis.md §3.1, §3.3).
    fn collective(&mut self, (comm, part, size): comm_info::Ready) {
        if let Some(size) = size {
            self.coll.set_size(comm, size);
        }
        self.coll.push(comm, part, &mut self.pats);
    }

    fn state(&mut self, p: &Piece<'_>, call: Option<Call>, record: bool) {
        let (s, e) = (p.start, p.end);
        self.seen.0 = self.seen.0.min(s);
        self.seen.1 = self.seen.1.max(e);
        let info = self.lines.get(p.first.1);
        let tl = info.timeline;
        if self.held.active {
            if let Some(ready) = self.held.state(tl, s, e) {
                self.collective(ready);
            }
            if let Some(c) = record.then(|| comm_info::parse(p.info)).flatten() {
                if let Some(ready) = self.held.record(tl, s, e, c) {
                    self.collective(ready);
                }
            }
        }
        self.timelines.insert(tl);
        let inclusive = self.clipped(s, e);
        // Close the states that do not contain this one.
        let stack = self.stacks.entry(tl).or_default();
        while let Some(top) = stack.last() {
            if top.start <= s && e <= top.end {
                break;
            }
            let top = stack.pop().expect("checked");
            self.exclusive.add(top.category, tl, top.exclusive);
            *self.time.entry((top.path, tl)).or_insert(0.0) += top.exclusive;
        }
        let parent = stack.last().map_or(0, |t| t.path);
        if let Some(top) = stack.last_mut() {
            top.exclusive -= inclusive;
        }
        let path = match self.path_ids.get(&(parent, p.category)) {
            Some(&id) => id,
            None => {
                let id = self.paths.len() as u32;
                self.paths.push((parent, p.category));
                self.path_ids.insert((parent, p.category), id);
                id
            }
        };
        self.stacks.entry(tl).or_default().push(Open {
            start: s,
            end: e,
            category: p.category,
            path,
            exclusive: inclusive,
        });
        self.cp.state(tl, p.category, s, e);
        let Some(call) = call else {
            return;
        };
        self.mpi_calls += 1;
        if call.is_collective() {
            let part = Part {
                timeline: tl,
                rank: info.rank,
                enter: s,
                leave: e,
                call,
                category: p.category,
                path,
            };
            if !self.held.active {
                self.coll.push(info.comm, part, &mut self.pats);
            } else if let Some(ready) = self.held.call(info.comm, part) {
                self.collective(ready);
            }
        } else {
            let rec = p2p::CallRec::new(s, e, call, p.category, path);
            self.p2p.push_call(tl, rec, s, &mut self.pats);
        }
    }

    fn name(&self, category: i32) -> String {
        self.legend
            .get(&category)
            .map_or_else(|| format!("category {category}"), |l| l.name.clone())
    }

    fn path_name(&self, path: u32) -> String {
        self.path_parts(path).join(" > ")
    }

    /// The names of the states of call path `path`, outer first.
    /// The seconds per (call path, timeline) as report cells, by call path
    /// then timeline.
    fn sorted_cells(&self, seconds: &FxHashMap<(u32, i32), f64>) -> Vec<Cell> {
        let mut cells: Vec<Cell> = seconds
            .iter()
            .map(|(&(path, timeline), &seconds)| Cell {
                call_path: self.path_parts(path),
                timeline,
                seconds,
            })
            .collect();
        cells.sort_by(|x, y| {
            x.call_path
                .cmp(&y.call_path)
                .then(x.timeline.cmp(&y.timeline))
        });
        cells
    }

    fn path_parts(&self, mut path: u32) -> Vec<String> {
        let mut parts = Vec::new();
        while path != 0 {
            let (parent, c) = self.paths[path as usize];
            parts.push(self.name(c));
            path = parent;
        }
        parts.reverse();
        parts
    }

    /// Records every wait state and the critical path's segments into
    /// [`Report::recorded`], for [`crate::waits::WaitIndex`]: memory grows
    /// with the number of wait states, unless [`Options::record_memory`]
    /// bounds it. [`Options::record`] does the same.
    ///
    /// ```
    /// let mut a = mpelog::analysis::Analyzer::new(&[], &[], Default::default());
    /// a.record();
    /// let rec = a.finish().recorded.unwrap();
    /// assert!(rec.waits.is_empty() && rec.path.is_empty());
    /// ```
    pub fn record(&mut self) {
        // A wait held costs its own bytes and, while its run is sorted, a
        // 16-byte key.
        let limit = self.opts.record_memory.map_or(usize::MAX, |b| {
            b / (std::mem::size_of::<crate::waits::Wait>() + 16)
        });
        self.pats.log = Some(crate::waits::log::Log::new(limit));
        // The jumps of the critical path, 16 bytes each, in a quarter as
        // much.
        let jumps = self.opts.record_memory.map_or(usize::MAX, |b| b / 64);
        self.cp.record(jumps);
    }

    /// The report (with [`Report::recorded`] when [`record`](Self::record)
    /// was called).
    ///
    /// ```
    /// use mpelog::analysis::{Analyzer, Options, Pattern};
    /// use mpelog::slices::Piece;
    /// use slog2_format::types::{topology, Category, JStr};
    /// let state = |index, name: &str| Category { index, name: JStr::new(name), topology: topology::STATE, ..slog2_format::convert::arrow_category() };
    /// let cats = [slog2_format::convert::arrow_category(), state(1, "MPI_Barrier")];
    /// let mut a = Analyzer::new(&cats, &[], Options::default());
    /// a.record();
    /// for (line, enter) in [(0, 1e-3), (1, 4e-3), (2, 9e-3)] {
    ///     a.push_piece(Piece { category: 1, first: (enter, line), last: (10e-3, line), start: enter, end: 10e-3, info: &[] });
    /// }
    /// let rec = a.finish().recorded.unwrap();
    /// // Timelines 0 and 1 wait from their enter to the last enter (9 ms).
    /// let w: Vec<_> = rec.waits.iter().map(|w| (w.timeline, w.start, w.end, w.partner, w.cause)).collect();
    /// assert_eq!(w, [(0, 1e-3, 9e-3, Some(2), 9e-3), (1, 4e-3, 9e-3, Some(2), 9e-3)]);
    /// assert_eq!(rec.waits[0].pattern, Pattern::WaitAtBarrier);
    /// let r = Analyzer::new(&[], &[], Default::default()).finish();
    /// assert_eq!(r.total_seconds, 0.0);
    /// assert!(r.recorded.is_none());
    /// ```
    pub fn finish(mut self) -> Report {
        let mut r = self.finish_inner();
        r.recorded = self.recorded.take();
        r
    }

    fn finish_inner(&mut self) -> Report {
        for (tl, stack) in std::mem::take(&mut self.stacks) {
            for o in stack {
                self.exclusive.add(o.category, tl, o.exclusive);
                *self.time.entry((o.path, tl)).or_insert(0.0) += o.exclusive;
            }
        }
        for ready in self.held.drain() {
            self.collective(ready);
        }
        self.p2p.finish(&mut self.pats);
        self.coll.finish(self.timelines.len(), &mut self.pats);
        self.drain_jumps();
        let from = self.opts.from.unwrap_or(if self.seen.0.is_finite() {
            self.seen.0
        } else {
            0.0
        });
        let to = self.opts.to.unwrap_or(if self.seen.1.is_finite() {
            self.seen.1
        } else {
            from
        });
        let from_seen = if self.seen.0.is_finite() {
            self.seen.0
        } else {
            0.0
        };
        let to_seen = if self.seen.1.is_finite() {
            self.seen.1
        } else {
            from_seen
        };
        let timelines: Vec<i32> = self.timelines.iter().copied().collect();
        let total = (to - from).max(0.0) * timelines.len() as f64;
        let share = |s: f64| if total > 0.0 { s / total } else { 0.0 };
        let mut patterns: Vec<PatternReport> = Pattern::ALL
            .iter()
            .zip(&self.pats.acc)
            .filter(|(_, a)| a.count > 0)
            .map(|(&p, a)| {
                let mut per_call_path: Vec<PathSeconds> = a
                    .per_path
                    .iter()
                    .map(|(&path, &seconds)| PathSeconds {
                        call_path: self.path_name(path),
                        seconds,
                    })
                    .collect();
                per_call_path.sort_by(|x, y| {
                    y.seconds
                        .total_cmp(&x.seconds)
                        .then_with(|| x.call_path.cmp(&y.call_path))
                });
                let mut top = a.top.clone();
                top.sort_by(|x, y| {
                    y.seconds
                        .total_cmp(&x.seconds)
                        .then(x.time.total_cmp(&y.time))
                        .then(x.timeline.cmp(&y.timeline))
                });
                let cells = self.sorted_cells(&a.cells);
                PatternReport {
                    name: p.name(),
                    id: p.id(),
                    parent: p.parent().map(Pattern::name),
                    seconds: a.seconds,
                    share: share(a.seconds),
                    count: a.count,
                    per_timeline: a.per_timeline.clone(),
                    per_call_path,
                    instances: top
                        .iter()
                        .map(|i| Instance {
                            time: i.time,
                            start: i.start,
                            end: i.end,
                            timeline: i.timeline,
                            partner: i.partner,
                            seconds: i.seconds,
                            call: self.name(i.category),
                            call_path: self.path_name(i.path),
                        })
                        .collect(),
                    cells,
                }
            })
            .collect();
        patterns.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        let imbalance = self.exclusive.rows(&timelines, |c| self.name(c));
        let means: FxHashMap<String, f64> = imbalance
            .iter()
            .map(|r| (r.category.clone(), r.mean))
            .collect();
        let names: FxHashMap<i32, String> = self
            .legend
            .iter()
            .map(|(&i, l)| (i, l.name.clone()))
            .collect();
        let name_of = |c: i32| {
            names
                .get(&c)
                .cloned()
                .unwrap_or_else(|| format!("category {c}"))
        };
        let mean = |c: i32| means.get(&name_of(c)).copied().unwrap_or(0.0);
        let name = |c: i32| name_of(c);
        let cp = std::mem::replace(&mut self.cp, critical_path::Cp::new(&[], from, to));
        let (critical_path, segments) = cp.finish(name, mean);
        self.recorded = self.pats.log.take().map(|log| Recorded {
            waits: log.mem,
            spilled: log
                .spilled
                .map(|r| crate::waits::Spilled(std::sync::Arc::new(r))),
            path: segments.unwrap_or_default(),
            calls: self
                .legend
                .iter()
                .filter(|(_, l)| l.call.is_some())
                .map(|(&i, l)| (i, l.name.clone()))
                .collect(),
            root: self.opts.root,
            span: (from_seen, to_seen),
        });
        let (dropped_sends, dropped_receives) = match self.opts.dropped {
            Some((s, r)) => (Some(s), Some(r)),
            None => (None, None),
        };
        let time = self.sorted_cells(&self.time);
        let places = timelines
            .iter()
            .map(|t| self.lines.places.get(t).copied())
            .collect();
        Report {
            from,
            to,
            places,
            timelines,
            time,
            total_seconds: total,
            patterns,
            critical_path,
            imbalance,
            unmatched: Unmatched {
                dropped_sends,
                dropped_receives,
                message_ends_outside_calls: self.p2p.outside,
                p2p_clock_violations: self.p2p.clock_violations,
                collective_clock_violations: self.coll.clock_violations,
                incomplete_collectives: self.coll.incomplete,
                mismatched_collectives: self.coll.mismatched,
                collective_examples: std::mem::take(&mut self.coll.examples),
            },
            recorded: None,
            counts: Counts {
                mpi_calls: self.mpi_calls,
                messages: self.p2p.messages,
                collectives: self.coll.instances,
            },
        }
    }
}

/// The analysis of a SLOG-2 file (plain or compressed), read in slices of
/// leaves as [`crate::stats::slog2`] reads it.
///
/// # Errors
///
/// The [`slog2_format::Error`] of a node that cannot be read or resolved.
///
/// ```
/// use slog2_format::{convert::clog2_to_slog2, Slog2Reader};
/// use std::io::Cursor;
/// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
/// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
/// let report = mpelog::analysis::slog2(&mut r, &Default::default())?;
/// assert!(report.counts.collectives > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn slog2<R: Read + Seek>(
    r: &mut Slog2Reader<R>,
    opts: &Options,
) -> slog2_format::Result<Report> {
    let categories = r.category_list().to_vec();
    let maps = r
        .line_id_maps()
        .map(|m| m.value.maps.clone())
        .unwrap_or_default();
    of_tree(r, &categories, &maps, opts)
}

/// The analysis of a CLOG2 trace through its annotation file (the same as
/// that of the SLOG-2 file converted from the trace).
///
/// # Errors
///
/// The [`mpelog_annotate::Error`] of a node or leaf that cannot be read, or
/// of trace bytes that changed since the annotation was made.
///
/// ```
/// use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
/// use std::io::Cursor;
/// let trace = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
/// let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
/// let mut a = Annotation::new(Cursor::new(idx.into_inner()), Cursor::new(&trace[..]))?;
/// let report = mpelog::analysis::annotation(&mut a, &Default::default())?;
/// assert!(report.counts.messages > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn annotation<A: Read + Seek, T: Read + Seek>(
    ann: &mut mpelog_annotate::Annotation<A, T>,
    opts: &Options,
) -> mpelog_annotate::Result<Report> {
    let categories = ann.categories().categories.clone();
    let maps = ann.line_id_maps().maps.clone();
    of_tree(ann, &categories, &maps, opts)
}

/// The analysis of a conversion put in start order (CLOG2, old CLOG, ALOG,
/// SLOG-1, OTF2 read in one pass; [`crate::export::sorted`]).
///
/// # Errors
///
/// The I/O error of reading `src`'s sorted runs back.
///
/// ```
/// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let sink = mpelog::export::sorted::StartOrder::new();
/// let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
/// let report = mpelog::analysis::one_pass(&mut sorted, &Default::default())?;
/// assert!(report.counts.mpi_calls > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn one_pass(
    src: &mut crate::export::sorted::Sorted,
    opts: &Options,
) -> std::io::Result<Report> {
    let categories = src.categories().to_vec();
    let maps = src.maps().to_vec();
    of_tree(src, &categories, &maps, opts)
}

/// The whole trace is read (matching needs every call of the communicator's
/// order); the window only decides what is counted.
fn of_tree<T: Ordered>(
    tree: &mut T,
    categories: &[Category],
    maps: &[LineIdMap],
    opts: &Options,
) -> Result<Report, T::Error> {
    let span = tree.span(None, None);
    let mut a = Analyzer::new(categories, maps, opts.clone());
    tree.pieces(span, &mut |p| a.push_piece(p))?;
    Ok(a.finish())
}
