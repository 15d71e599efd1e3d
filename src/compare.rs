//! Two runs side by side: the same state categories (or wait-state patterns)
//! per timeline in both, their differences in seconds and in shares of the
//! window, the largest change first (`mpelog stats A --compare B`, `mpelog
//! analyze A --compare B`).
//!
//! Categories are matched by name (two runs of one program may number them
//! differently), timelines by line ID (the MPI rank in MPE's traces). A row
//! present in one run only counts 0 seconds in the other. Each run keeps its
//! own window: a share is the seconds over that run's window width (for a
//! category over all timelines, as `mpelog stats` gives it: up to the number
//! of timelines × 100%).

use crate::analysis::{Pattern, Report};
use crate::stats::Stats;
use crate::summary::Summary;
use rustc_hash::FxHashMap;
use serde::Serialize;
use slog2_format::types::{topology, Category};
use std::collections::BTreeMap;

/// One category (or pattern), on one timeline or on all, in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The category's (or pattern's) name.
    pub name: String,
    /// The timeline's line ID; `None` for the category on all timelines.
    pub timeline: Option<i32>,
    /// Seconds in run A (a category's exclusive time, a pattern's seconds).
    pub a: f64,
    /// Seconds in run B.
    pub b: f64,
    /// `a` over A's window width.
    pub a_share: f64,
    /// `b` over B's window width.
    pub b_share: f64,
}

impl Row {
    /// B's seconds less A's.
    ///
    /// ```
    /// let r = mpelog::compare::Row { name: "MPI_Recv".into(), timeline: Some(1), a: 2.0, b: 5.0, a_share: 0.2, b_share: 0.25 };
    /// assert_eq!(r.change(), 3.0);
    /// ```
    pub fn change(&self) -> f64 {
        self.b - self.a
    }

    /// B's share less A's.
    ///
    /// ```
    /// let r = mpelog::compare::Row { name: "MPI_Recv".into(), timeline: None, a: 2.0, b: 5.0, a_share: 0.2, b_share: 0.25 };
    /// assert!((r.share_change() - 0.05).abs() < 1e-12);
    /// ```
    pub fn share_change(&self) -> f64 {
        self.b_share - self.a_share
    }
}

/// Two runs' statistics compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Run A's window.
    pub a_window: (f64, f64),
    /// Run B's window.
    pub b_window: (f64, f64),
    /// Per category (pattern) on all timelines, the largest change (in
    /// seconds, either way) first; ties by name.
    pub totals: Vec<Row>,
    /// Per category (pattern) and timeline, the largest change first; ties by
    /// name, then timeline.
    pub timelines: Vec<Row>,
}

/// Compares the state categories of runs `a` and `b` ([`Stats`] of each, any
/// window): their exclusive seconds.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use std::io::Cursor;
/// # fn stats_of(seed: u64) -> Result<mpelog::stats::Stats, Box<dyn std::error::Error>> {
/// #     let o = clog2_format::synth::Options::default().seed(seed);
/// #     let clog2 = clog2_format::synth::generate_vec(&o)?;
/// #     let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// #     let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// #     let mut r = slog2_format::Slog2Reader::new(Cursor::new(out.into_inner()))?;
/// #     Ok(mpelog::stats::slog2(&mut r, &Default::default())?)
/// # }
/// let (a, b) = (stats_of(1)?, stats_of(2)?);
/// let c = mpelog::compare::stats(&a, &b);
/// // The same run compared with itself changes nothing.
/// assert!(mpelog::compare::stats(&a, &a).timelines.iter().all(|r| r.change() == 0.0));
/// // Largest change first.
/// assert!(c.timelines.windows(2).all(|w| w[0].change().abs() >= w[1].change().abs()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn stats(a: &Stats, b: &Stats) -> Comparison {
    fn seconds(s: &Stats) -> Vec<(&str, i32, f64)> {
        let names: BTreeMap<i32, &str> = s
            .categories
            .iter()
            .filter(|c| c.topology == "state")
            .map(|c| (c.index, c.name.as_str()))
            .collect();
        s.category_timelines
            .iter()
            .filter_map(|x| Some((*names.get(&x.index)?, x.line, x.exclusive)))
            .collect()
    }
    compare((a.from, a.to), seconds(a), (b.from, b.to), seconds(b))
}

/// Compares the wait-state patterns of runs `a` and `b` ([`Report`]s of
/// `mpelog analyze`): each pattern's seconds per timeline (a pattern includes
/// its sub-patterns' seconds, as in the report).
///
/// ```
/// # fn report(late_ms: u64) -> Result<mpelog::analysis::Report, Box<dyn std::error::Error>> {
/// #     use clog2_format::synth::{Options, Plant};
/// #     let plant = Plant { late_sender_ns: late_ms * 1_000_000, ..Plant::default() };
/// #     let clog2 = clog2_format::synth::generate_vec(&Options::default().events(3000).plant(plant))?;
/// #     let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// #     let (out, _) = slog2_format::convert::clog2_to_slog2(&mut trace, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// #     let mut r = slog2_format::Slog2Reader::new(std::io::Cursor::new(out.into_inner()))?;
/// #     Ok(mpelog::analysis::slog2(&mut r, &Default::default())?)
/// # }
/// // Rank 0's sends to rank 1 planted 5 ms late in A, 25 ms in B.
/// let c = mpelog::compare::analyses(&report(5)?, &report(25)?);
/// let first = &c.timelines[0];
/// assert_eq!((first.name.as_str(), first.timeline), ("Late Sender", Some(1)));
/// assert!(first.change() > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn analyses(a: &Report, b: &Report) -> Comparison {
    let seconds = |r: &Report| {
        r.patterns
            .iter()
            .flat_map(|p| p.per_timeline.iter().map(|(&line, &s)| (p.name, line, s)))
            .collect::<Vec<_>>()
    };
    compare((a.from, a.to), seconds(a), (b.from, b.to), seconds(b))
}

/// Compares the wait-state patterns of run A over `window_a` with run B's
/// over `window_b`, given as `(pattern, timeline, seconds)` (a parent with
/// its sub-patterns' seconds, as [`analyses`] counts it): what `mpelog serve
/// A B --compare` shows from the runs' wait indexes, the same rows as
/// [`analyses`] when the windows are the reports'.
///
/// ```
/// use mpelog::analysis::Pattern;
/// let a = [(Pattern::LateSender, 1, 0.2), (Pattern::WaitAtBarrier, 0, 0.5)];
/// let b = [(Pattern::LateSender, 1, 0.6), (Pattern::WaitAtBarrier, 0, 0.5)];
/// let c = mpelog::compare::patterns((0.0, 1.0), &a, (0.0, 2.0), &b);
/// let first = &c.timelines[0];
/// assert_eq!((first.name.as_str(), first.timeline), ("Late Sender", Some(1)));
/// assert!((first.change() - 0.4).abs() < 1e-12 && (first.b_share - 0.3).abs() < 1e-12);
/// ```
pub fn patterns(
    window_a: (f64, f64),
    a: &[(Pattern, i32, f64)],
    window_b: (f64, f64),
    b: &[(Pattern, i32, f64)],
) -> Comparison {
    let named = |x: &[(Pattern, i32, f64)]| {
        x.iter()
            .map(|&(p, line, s)| (p.name(), line, s))
            .collect::<Vec<_>>()
    };
    compare(window_a, named(a), window_b, named(b))
}

/// Compares the state categories of two windows' [`Summary`]s (run A's with
/// its legend `legend_a`, run B's with `legend_b`): each row's exclusive
/// seconds per category, as [`stats`] compares them, at the cost of the
/// pictures (`mpelog serve A B --compare`'s table).
///
/// A row counts for its first line ID: build the summaries without a view
/// (a row per line ID) to have the timelines of `stats`. When neither summary
/// holds a shadow, the seconds are those of `stats` for the two windows (up to
/// the order of the additions); shadows spread their subtrees' exclusive
/// time evenly over their boxes (spec/queries.md §6.2). Categories and
/// timelines with no seconds in either run have no row.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use std::io::Cursor;
/// # fn reader(seed: u64) -> Result<slog2_format::Slog2Reader<Cursor<Vec<u8>>>, Box<dyn std::error::Error>> {
/// #     let o = clog2_format::synth::Options::default().seed(seed).events(2000);
/// #     let clog2 = clog2_format::synth::generate_vec(&o)?;
/// #     let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// #     let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// #     Ok(slog2_format::Slog2Reader::new(Cursor::new(out.into_inner()))?)
/// # }
/// use mpelog::summary::Summary;
/// let (mut a, mut b) = (reader(1)?, reader(2)?);
/// let (mut buf_a, mut buf_b) = (slog2_format::WindowBuf::new(), slog2_format::WindowBuf::new());
/// mpelog::summary::query(&mut a, &mut buf_a, 0.0, 0.05, 16384)?;
/// mpelog::summary::query(&mut b, &mut buf_b, 0.0, 0.05, 16384)?;
/// // One column is enough: a row's seconds do not depend on the columns.
/// let sa = Summary::of_window(&buf_a, a.category_list(), None, 0.0, 0.05, 1);
/// let sb = Summary::of_window(&buf_b, b.category_list(), None, 0.0, 0.05, 1);
/// let c = mpelog::compare::summaries(&sa, a.category_list(), &sb, b.category_list());
/// // No shadows at this width: the seconds of `stats` for the window.
/// assert_eq!((sa.shadows, sb.shadows), (0, 0));
/// let opts = mpelog::stats::Options::default().window(Some(0.0), Some(0.05));
/// let exact = mpelog::compare::stats(&mpelog::stats::slog2(&mut a, &opts)?, &mpelog::stats::slog2(&mut b, &opts)?);
/// for r in &c.timelines {
///     let s = exact.timelines.iter().find(|s| s.name == r.name && s.timeline == r.timeline).unwrap();
///     assert!((r.a - s.a).abs() < 1e-9 && (r.b - s.b).abs() < 1e-9);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn summaries(
    a: &Summary,
    legend_a: &[Category],
    b: &Summary,
    legend_b: &[Category],
) -> Comparison {
    let names = |legend: &[Category]| -> BTreeMap<i32, String> {
        legend
            .iter()
            .filter(|c| c.topology == topology::STATE)
            .map(|c| (c.index, c.name.text()))
            .collect()
    };
    let (names_a, names_b) = (names(legend_a), names(legend_b));
    fn seconds<'n>(s: &Summary, names: &'n BTreeMap<i32, String>) -> Vec<(&'n str, i32, f64)> {
        let mut out = Vec::new();
        for (i, row) in s.rows.iter().enumerate() {
            let Some(&line) = row.lines.first() else {
                continue;
            };
            for (k, x) in s.exclusive_of_row(i) {
                if let Some(name) = names.get(&k) {
                    out.push((name.as_str(), line, x));
                }
            }
        }
        out
    }
    compare(
        (a.from, a.to),
        seconds(a, &names_a),
        (b.from, b.to),
        seconds(b, &names_b),
    )
}

/// The comparison of two runs' `(name, timeline, seconds)` over their windows.
///
/// Names are ranked once (in name order), so that rows are keyed, summed and
/// sorted by integers: a comparison of thousands of timelines is answered
/// at the viewer's pace.
/// A row being compared: (the name's rank, timeline) and (A's, B's) seconds.
type Keyed = ((u32, Option<i32>), (f64, f64));

fn compare(
    window_a: (f64, f64),
    a: Vec<(&str, i32, f64)>,
    window_b: (f64, f64),
    b: Vec<(&str, i32, f64)>,
) -> Comparison {
    let mut names: Vec<&str> = a.iter().chain(&b).map(|x| x.0).collect();
    names.sort_unstable();
    names.dedup();
    let rank: FxHashMap<&str, u32> = names
        .iter()
        .enumerate()
        .map(|(i, &n)| (n, i as u32))
        .collect();
    // (name's rank, timeline) → (seconds in A, seconds in B); timeline None: all.
    let mut rows: FxHashMap<(u32, Option<i32>), (f64, f64)> = FxHashMap::default();
    for (k, run) in [a, b].into_iter().enumerate() {
        for (name, line, seconds) in run {
            let r = rank[name];
            for key in [(r, Some(line)), (r, None)] {
                let e = rows.entry(key).or_default();
                if k == 0 {
                    e.0 += seconds;
                } else {
                    e.1 += seconds;
                }
            }
        }
    }
    let (mut totals, mut timelines): (Vec<Keyed>, Vec<Keyed>) =
        rows.into_iter().partition(|((_, t), _)| t.is_none());
    let by_change = |p: &Keyed, q: &Keyed| {
        (q.1 .1 - q.1 .0)
            .abs()
            .total_cmp(&(p.1 .1 - p.1 .0).abs())
            .then_with(|| p.0.cmp(&q.0))
    };
    totals.sort_unstable_by(by_change);
    timelines.sort_unstable_by(by_change);
    let share = |v: f64, (from, to): (f64, f64)| if to > from { v / (to - from) } else { 0.0 };
    let rows = |v: Vec<Keyed>| {
        v.into_iter()
            .map(|((r, timeline), (x, y))| Row {
                name: names[r as usize].to_string(),
                timeline,
                a: x,
                b: y,
                a_share: share(x, window_a),
                b_share: share(y, window_b),
            })
            .collect()
    };
    Comparison {
        a_window: window_a,
        b_window: window_b,
        totals: rows(totals),
        timelines: rows(timelines),
    }
}
