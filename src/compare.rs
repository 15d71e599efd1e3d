//! Two runs side by side: the same state categories per timeline in both,
//! their differences in seconds and in shares of the window, the largest
//! change first (`mpelog stats A --compare B`).
//!
//! Categories are matched by name (two runs of one program may number them
//! differently), timelines by line ID (the MPI rank in MPE's traces). A row
//! present in one run only counts 0 seconds in the other. Each run keeps its
//! own window: a share is the seconds over that run's window width (for a
//! category over all timelines, as `mpelog stats` gives it: up to the number
//! of timelines × 100%).

use crate::stats::Stats;
use serde::Serialize;
use std::collections::BTreeMap;

/// One category, on one timeline or on all, in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The category's name.
    pub category: String,
    /// The timeline's line ID; `None` for the category on all timelines.
    pub timeline: Option<i32>,
    /// Exclusive seconds in run A.
    pub a: f64,
    /// Exclusive seconds in run B.
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
    /// let r = mpelog::compare::Row { category: "MPI_Recv".into(), timeline: Some(1), a: 2.0, b: 5.0, a_share: 0.2, b_share: 0.25 };
    /// assert_eq!(r.change(), 3.0);
    /// ```
    pub fn change(&self) -> f64 {
        self.b - self.a
    }

    /// B's share less A's.
    ///
    /// ```
    /// let r = mpelog::compare::Row { category: "MPI_Recv".into(), timeline: None, a: 2.0, b: 5.0, a_share: 0.2, b_share: 0.25 };
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
    /// Per category on all timelines, the largest change (in seconds, either
    /// way) first; ties by name.
    pub categories: Vec<Row>,
    /// Per category and timeline, the largest change first; ties by name,
    /// then timeline.
    pub timelines: Vec<Row>,
}

/// Compares the state categories of runs `a` and `b` ([`Stats`] of each, any
/// window).
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
    // (name, timeline) → (seconds in A, seconds in B); timeline None: all.
    let mut rows: BTreeMap<(String, Option<i32>), (f64, f64)> = BTreeMap::new();
    for (k, s) in [a, b].into_iter().enumerate() {
        let names: BTreeMap<i32, &str> = s
            .categories
            .iter()
            .filter(|c| c.topology == "state")
            .map(|c| (c.index, c.name.as_str()))
            .collect();
        for x in &s.category_timelines {
            let Some(name) = names.get(&x.index) else {
                continue;
            };
            for key in [(name.to_string(), Some(x.line)), (name.to_string(), None)] {
                let e = rows.entry(key).or_default();
                if k == 0 {
                    e.0 += x.exclusive;
                } else {
                    e.1 += x.exclusive;
                }
            }
        }
    }
    let width = |s: &Stats| s.to - s.from;
    let share = |v: f64, w: f64| if w > 0.0 { v / w } else { 0.0 };
    let (wa, wb) = (width(a), width(b));
    let (mut categories, mut timelines): (Vec<Row>, Vec<Row>) = rows
        .into_iter()
        .map(|((category, timeline), (x, y))| Row {
            category,
            timeline,
            a: x,
            b: y,
            a_share: share(x, wa),
            b_share: share(y, wb),
        })
        .partition(|r| r.timeline.is_none());
    let by_change = |p: &Row, q: &Row| {
        q.change()
            .abs()
            .total_cmp(&p.change().abs())
            .then_with(|| p.category.cmp(&q.category))
            .then_with(|| p.timeline.cmp(&q.timeline))
    };
    categories.sort_by(by_change);
    timelines.sort_by(by_change);
    Comparison {
        a_window: (a.from, a.to),
        b_window: (b.from, b.to),
        categories,
        timelines,
    }
}
