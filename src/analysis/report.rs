//! What `mpelog analyze` reports ([`Report`]) and the per-pattern
//! accumulators the passes fill: seconds in total, per timeline, per call
//! path, and the worst instances.

use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::BTreeMap;

/// A wait-state pattern, as Scalasca names it (spec/analysis.md §5).
///
/// ```
/// use mpelog::analysis::Pattern;
/// assert_eq!(Pattern::LateSender.name(), "Late Sender");
/// assert_eq!(Pattern::LateSenderWrongOrder.parent(), Some(Pattern::LateSender));
/// assert_eq!(Pattern::WaitAtNxN.scalasca_name(), "MPI Wait at N x N");
/// assert_eq!(Pattern::ALL.len(), 14);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Pattern {
    /// A blocking receive entered before its message's send.
    LateSender,
    /// The part of Late Sender whose message was received before one sent earlier.
    LateSenderWrongOrder,
    /// Wrong order, the messages from different sources.
    LswoDifferentSource,
    /// Wrong order, the messages from the same source.
    LswoSameSource,
    /// A blocking send entered before its receive was posted.
    LateReceiver,
    /// Time in `MPI_Barrier` until the last rank entered.
    WaitAtBarrier,
    /// Time in `MPI_Barrier` after the first rank left.
    BarrierCompletion,
    /// Time in an n-to-n collective until the last rank entered.
    WaitAtNxN,
    /// Time in an n-to-n collective after the first rank left.
    NxNCompletion,
    /// Time of non-root ranks in a one-to-n collective before the root entered.
    LateBroadcast,
    /// Time of the root in an n-to-one collective before the last sender entered.
    EarlyReduce,
    /// Time in `MPI_Scan`/`MPI_Exscan` before the last lower rank entered.
    EarlyScan,
    /// Time in `MPI_Finalize` until the last rank entered.
    WaitAtFinalize,
    /// Time in `MPI_Init` after the first rank left.
    InitCompletion,
}

impl Pattern {
    /// Every pattern, parents before their sub-patterns.
    pub const ALL: [Pattern; 14] = [
        Pattern::LateSender,
        Pattern::LateSenderWrongOrder,
        Pattern::LswoDifferentSource,
        Pattern::LswoSameSource,
        Pattern::LateReceiver,
        Pattern::WaitAtBarrier,
        Pattern::BarrierCompletion,
        Pattern::WaitAtNxN,
        Pattern::NxNCompletion,
        Pattern::LateBroadcast,
        Pattern::EarlyReduce,
        Pattern::EarlyScan,
        Pattern::WaitAtFinalize,
        Pattern::InitCompletion,
    ];

    /// Scalasca's name (its pattern documentation's, without the `MPI ` prefix).
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// assert_eq!(Pattern::LswoSameSource.name(), "Late Sender, wrong order (same source)");
    /// ```
    pub fn name(self) -> &'static str {
        &self.scalasca_name()[4..]
    }

    /// Scalasca's display name (`MPI.pattern`'s `NAME`, as CUBE shows it).
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// assert_eq!(Pattern::InitCompletion.scalasca_name(), "MPI Initialization Completion");
    /// ```
    pub fn scalasca_name(self) -> &'static str {
        match self {
            Pattern::LateSender => "MPI Late Sender",
            Pattern::LateSenderWrongOrder => "MPI Late Sender, wrong order",
            Pattern::LswoDifferentSource => "MPI Late Sender, wrong order (different source)",
            Pattern::LswoSameSource => "MPI Late Sender, wrong order (same source)",
            Pattern::LateReceiver => "MPI Late Receiver",
            Pattern::WaitAtBarrier => "MPI Wait at Barrier",
            Pattern::BarrierCompletion => "MPI Barrier Completion",
            Pattern::WaitAtNxN => "MPI Wait at N x N",
            Pattern::NxNCompletion => "MPI N x N Completion",
            Pattern::LateBroadcast => "MPI Late Broadcast",
            Pattern::EarlyReduce => "MPI Early Reduce",
            Pattern::EarlyScan => "MPI Early Scan",
            Pattern::WaitAtFinalize => "MPI Wait at Finalize",
            Pattern::InitCompletion => "MPI Initialization Completion",
        }
    }

    /// Scalasca's unique metric name (`MPI.pattern`'s `PATTERN` key, lower
    /// case, as a CUBE file's `uniq_name`).
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// assert_eq!(Pattern::LateSender.id(), "mpi_latesender");
    /// ```
    pub fn id(self) -> &'static str {
        match self {
            Pattern::LateSender => "mpi_latesender",
            Pattern::LateSenderWrongOrder => "mpi_latesender_wo",
            Pattern::LswoDifferentSource => "mpi_lswo_different",
            Pattern::LswoSameSource => "mpi_lswo_same",
            Pattern::LateReceiver => "mpi_latereceiver",
            Pattern::WaitAtBarrier => "mpi_barrier_wait",
            Pattern::BarrierCompletion => "mpi_barrier_completion",
            Pattern::WaitAtNxN => "mpi_wait_nxn",
            Pattern::NxNCompletion => "mpi_nxn_completion",
            Pattern::LateBroadcast => "mpi_latebroadcast",
            Pattern::EarlyReduce => "mpi_earlyreduce",
            Pattern::EarlyScan => "mpi_earlyscan",
            Pattern::WaitAtFinalize => "mpi_finalize_wait",
            Pattern::InitCompletion => "mpi_init_completion",
        }
    }

    /// The pattern whose seconds include this one's.
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// assert_eq!(Pattern::LswoSameSource.parent(), Some(Pattern::LateSenderWrongOrder));
    /// assert_eq!(Pattern::LateSender.parent(), None);
    /// ```
    pub fn parent(self) -> Option<Pattern> {
        match self {
            Pattern::LateSenderWrongOrder => Some(Pattern::LateSender),
            Pattern::LswoDifferentSource | Pattern::LswoSameSource => {
                Some(Pattern::LateSenderWrongOrder)
            }
            _ => None,
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// Its code in a wait index and in summaries (spec/waits.md §3): its
    /// position in [`Pattern::ALL`].
    ///
    /// ```
    /// use mpelog::analysis::Pattern;
    /// assert_eq!(Pattern::LateSender.code(), 0);
    /// assert_eq!(Pattern::InitCompletion.code(), 13);
    /// assert_eq!(Pattern::from_code(5), Some(Pattern::WaitAtBarrier));
    /// ```
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The pattern of code `c` (`None` past the last).
    pub fn from_code(c: u8) -> Option<Pattern> {
        Pattern::ALL.get(usize::from(c)).copied()
    }
}

/// One wait state: where a user goes to see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Instance {
    /// The enter time of the waiting call.
    pub time: f64,
    /// Where the wait starts on the waiting timeline (spec/waits.md §2: the
    /// part of the call the pattern's seconds measure is `[start, end)`).
    pub start: f64,
    /// Where the wait ends.
    pub end: f64,
    /// The timeline that waits.
    pub timeline: i32,
    /// The timeline it waits for (the sender, the receiver, the last to enter,
    /// the root), when known.
    pub partner: Option<i32>,
    /// The waiting time inside the window, in seconds (`end − start` when
    /// the window holds the whole wait).
    pub seconds: f64,
    /// The waiting call (its state's name).
    pub call: String,
    /// The call path of the waiting call (user states it is nested in, outer first).
    pub call_path: String,
}

/// A pattern's seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PatternReport {
    /// Scalasca's name ([`Pattern::name`]).
    pub name: &'static str,
    /// Scalasca's metric name ([`Pattern::id`]).
    pub id: &'static str,
    /// The enclosing pattern's name, if any (its seconds include these).
    pub parent: Option<&'static str>,
    /// Total seconds (sub-patterns included).
    pub seconds: f64,
    /// Its share of the total time (the window's width times the timelines).
    pub share: f64,
    /// How many wait states.
    pub count: u64,
    /// Seconds per timeline.
    pub per_timeline: BTreeMap<i32, f64>,
    /// Seconds per call path, the largest first.
    pub per_call_path: Vec<PathSeconds>,
    /// The worst instances, the largest first.
    pub instances: Vec<Instance>,
    /// Seconds per (call path, timeline), the call path as its states' names
    /// (outer first), in call-path then timeline order: what
    /// [`crate::analysis::to_cube`] writes. Not in the JSON or CSV forms
    /// (their `per_timeline` and `per_call_path` are its sums).
    #[serde(skip)]
    pub cells: Vec<Cell>,
}

/// The seconds of a pattern at one call path on one timeline.
///
/// ```
/// use mpelog::analysis::{Analyzer, Options, Pattern};
/// use mpelog::slices::Piece;
/// use slog2_format::types::{topology, Category, JStr};
/// let state = |index, name: &str| Category { index, name: JStr::new(name), topology: topology::STATE, ..slog2_format::convert::arrow_category() };
/// let cats = [slog2_format::convert::arrow_category(), state(1, "MPI_Barrier")];
/// let mut a = Analyzer::new(&cats, &[], Options::default());
/// for (line, enter) in [(0, 1e-3), (1, 4e-3), (2, 9e-3)] {
///     a.push_piece(Piece { category: 1, first: (enter, line), last: (10e-3, line), start: enter, end: 10e-3, info: &[] });
/// }
/// let r = a.finish();
/// let cells = &r.pattern(Pattern::WaitAtBarrier).unwrap().cells;
/// assert_eq!(cells.len(), 2); // timelines 0 and 1 wait; 2 is the last
/// assert_eq!((cells[0].call_path.as_slice(), cells[0].timeline), (&["MPI_Barrier".to_string()][..], 0));
/// assert!((cells[0].seconds - 8e-3).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The call path: the names of the states it is nested in, outer first,
    /// ending with the waiting MPI call.
    pub call_path: Vec<String>,
    /// The timeline.
    pub timeline: i32,
    /// Seconds.
    pub seconds: f64,
}

/// Seconds of one call path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathSeconds {
    /// The call path (`Outer > Middle > MPI_Recv`).
    pub call_path: String,
    /// Seconds.
    pub seconds: f64,
}

/// What could not be matched or was inconsistent (spec/analysis.md §3.4).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Unmatched {
    /// Sends the reading dropped for want of a receive (from the converter,
    /// when the input was converted in this run).
    pub dropped_sends: Option<u64>,
    /// Receives the reading dropped for want of a send (as above).
    pub dropped_receives: Option<u64>,
    /// Message ends (arrow ends) that lie in no MPI call.
    pub message_ends_outside_calls: u64,
    /// Messages received before they were sent (receive time before send
    /// time): counted, and their waits clamped.
    pub p2p_clock_violations: u64,
    /// Collective participants that left before the last one entered.
    pub collective_clock_violations: u64,
    /// Collective instances some rank of the communicator never reached (a cut
    /// trace, a rank missing).
    pub incomplete_collectives: u64,
    /// Collective instances whose ranks called different functions at the same
    /// place of the communicator's call order.
    pub mismatched_collectives: u64,
    /// The first incomplete or mismatched collectives (communicator, call,
    /// position in the call order, the timelines present).
    pub collective_examples: Vec<CollectiveProblem>,
}

/// A collective instance that could not be analysed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollectiveProblem {
    /// `incomplete` or `mismatched`.
    pub problem: &'static str,
    /// The communicator's ID (0: world).
    pub communicator: i32,
    /// Position in the communicator's call order (0 first).
    pub position: u64,
    /// The calls (state names) of the ranks present.
    pub calls: Vec<String>,
    /// The timelines present.
    pub timelines: Vec<i32>,
    /// How many ranks the communicator has.
    pub size: usize,
}

/// The imbalance of one state category (exclusive time per timeline).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImbalanceRow {
    /// The category's name.
    pub category: String,
    /// Mean exclusive seconds over all timelines (those that never visit it count 0).
    pub mean: f64,
    /// The largest.
    pub max: f64,
    /// `max / mean` (0 when the mean is 0).
    pub max_over_mean: f64,
    /// The timelines with the most time, the largest first (at most 3).
    pub top: Vec<(i32, f64)>,
    /// Scalasca's Overload: Σ over timelines of the time above the mean.
    pub overload: f64,
    /// Single participant: the overload when one timeline alone visits it.
    pub single_participant: f64,
    /// Underload: Σ over timelines of the time below the mean.
    pub underload: f64,
    /// Non-participation: the underload of timelines that never visit it.
    pub non_participation: f64,
    /// How many timelines visit it.
    pub visitors: usize,
}

/// The whole analysis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Start of the window.
    pub from: f64,
    /// End of the window.
    pub to: f64,
    /// The timelines (locations: a world rank and thread), ascending.
    pub timelines: Vec<i32>,
    /// Per timeline (as [`timelines`](Self::timelines)), its process and
    /// thread in the process view (spec/analysis.md §3.1), `None` for one the
    /// view lacks: where the CUBE report puts it ([`super::to_cube`]).
    #[serde(skip)]
    pub places: Vec<Option<(i32, i32)>>,
    /// The window's width times the number of timelines: what shares are of.
    pub total_seconds: f64,
    /// Exclusive seconds per call path and timeline (spec/analysis.md §4, §7:
    /// clipped to the window): CUBE's Time ([`super::to_cube`]).
    #[serde(skip)]
    pub time: Vec<Cell>,
    /// Every pattern that has a wait state, the most seconds first.
    pub patterns: Vec<PatternReport>,
    /// The critical path.
    pub critical_path: super::critical_path::CriticalPath,
    /// Imbalance per state category, the largest overload first.
    pub imbalance: Vec<ImbalanceRow>,
    /// What could not be matched.
    pub unmatched: Unmatched,
    /// MPI calls recognised, messages matched, collective instances analysed.
    pub counts: Counts,
    /// Every wait state and the critical path's segments, when
    /// [`Options::record`](super::Options::record) asked for them (not in
    /// the JSON or CSV forms).
    #[serde(skip)]
    pub recorded: Option<super::Recorded>,
}

/// How much the analysis saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Counts {
    /// States that are MPI calls.
    pub mpi_calls: u64,
    /// Messages (arrows) whose both ends lie in MPI calls.
    pub messages: u64,
    /// Collective instances analysed.
    pub collectives: u64,
}

impl Report {
    /// The pattern `p`'s report, if it has a wait state.
    ///
    /// ```
    /// use mpelog::analysis::{Analyzer, Options, Pattern};
    /// let r = Analyzer::new(&[], &[], Options::default()).finish();
    /// assert!(r.pattern(Pattern::LateSender).is_none());
    /// ```
    pub fn pattern(&self, p: Pattern) -> Option<&PatternReport> {
        self.patterns.iter().find(|r| r.id == p.id())
    }

    /// The seconds of pattern `p` (0 when it has none).
    ///
    /// ```
    /// use mpelog::analysis::{Analyzer, Options, Pattern};
    /// let r = Analyzer::new(&[], &[], Options::default()).finish();
    /// assert_eq!(r.seconds(Pattern::WaitAtBarrier), 0.0);
    /// ```
    pub fn seconds(&self, p: Pattern) -> f64 {
        self.pattern(p).map_or(0.0, |r| r.seconds)
    }
}

/// An instance before names are resolved: the wait `[start, end)` of the
/// call entered at `time`, caused by `partner` at `cause`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RawInstance {
    pub time: f64,
    pub start: f64,
    pub end: f64,
    pub cause: f64,
    pub timeline: i32,
    pub partner: Option<i32>,
    /// Seconds inside the window (set by [`Patterns::add`]).
    pub seconds: f64,
    pub category: i32,
    pub path: u32,
}

impl RawInstance {
    /// The wait `[start, end)` of the call `(time, category, path)` on
    /// `timeline`, caused by `partner` at `cause`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        timeline: i32,
        (time, category, path): (f64, i32, u32),
        start: f64,
        end: f64,
        partner: i32,
        cause: f64,
    ) -> RawInstance {
        RawInstance {
            time,
            start,
            end,
            cause,
            timeline,
            partner: Some(partner),
            seconds: end - start,
            category,
            path,
        }
    }
}

/// One pattern's sums.
#[derive(Debug, Default)]
pub(crate) struct PatternAcc {
    pub seconds: f64,
    pub count: u64,
    pub per_timeline: BTreeMap<i32, f64>,
    pub per_path: FxHashMap<u32, f64>,
    /// Seconds per (call path, timeline): the cells of a CUBE report.
    pub cells: FxHashMap<(u32, i32), f64>,
    pub top: Vec<RawInstance>,
}

/// The accumulators of every pattern and how many worst instances to keep.
#[derive(Debug)]
pub(crate) struct Patterns {
    pub acc: Vec<PatternAcc>,
    pub keep: usize,
    /// Ends of wait states for the critical path: (time, waiter, cause).
    pub jumps: Vec<(f64, i32, i32)>,
    /// The window `[from, to)`: a wait counts its part inside it.
    from: f64,
    to: f64,
    /// Every wait state, when recorded (the most specific pattern each).
    pub log: Option<crate::waits::log::Log>,
}

impl Patterns {
    pub fn new(keep: usize, from: f64, to: f64) -> Patterns {
        Patterns {
            acc: Pattern::ALL.iter().map(|_| PatternAcc::default()).collect(),
            keep,
            jumps: Vec::new(),
            from,
            to,
            log: None,
        }
    }

    /// Changes the pattern of the recorded wait `k` to the more specific `p`.
    pub fn relabel(&mut self, k: Option<usize>, p: Pattern) {
        if let (Some(log), Some(k)) = (self.log.as_mut(), k) {
            log.relabel(k, p);
        }
    }

    /// Adds the wait `i` to pattern `p` as [`add`](Self::add) does, and
    /// records it (when recording) as a wait of `p`: its index in the log.
    pub fn add_wait(&mut self, p: Pattern, i: RawInstance) -> Option<usize> {
        let whole = i.end - i.start;
        self.add(p, i);
        let log = self.log.as_mut()?;
        if whole.is_nan() || whole <= 0.0 {
            return None;
        }
        Some(log.push(crate::waits::Wait {
            timeline: i.timeline,
            start: i.start,
            end: i.end,
            pattern: p,
            partner: i.partner,
            cause: i.cause,
            call: i.category,
        }))
    }

    /// A wait state of `waiter` that ended at `time` when `cause` released it
    /// (only a positive wait).
    pub fn jump(&mut self, seconds: f64, time: f64, waiter: i32, cause: i32) {
        if seconds > 0.0 {
            self.jumps.push((time, waiter, cause));
        }
    }

    /// Adds the part of the wait state `i` inside the window to pattern `p`
    /// (only a positive one).
    pub fn add(&mut self, p: Pattern, mut i: RawInstance) {
        i.seconds = i.end.min(self.to) - i.start.max(self.from);
        if i.seconds.is_nan() || i.seconds <= 0.0 {
            return;
        }
        let a = &mut self.acc[p.index()];
        a.seconds += i.seconds;
        a.count += 1;
        *a.per_timeline.entry(i.timeline).or_insert(0.0) += i.seconds;
        *a.per_path.entry(i.path).or_insert(0.0) += i.seconds;
        *a.cells.entry((i.path, i.timeline)).or_insert(0.0) += i.seconds;
        if self.keep == 0 {
            return;
        }
        if a.top.len() < self.keep {
            a.top.push(i);
        } else if let Some((k, min)) = a
            .top
            .iter()
            .enumerate()
            .min_by(|x, y| x.1.seconds.total_cmp(&y.1.seconds))
        {
            if i.seconds > min.seconds {
                a.top[k] = i;
            }
        }
    }
}
