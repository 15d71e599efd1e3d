//! The metric tree of Scalasca's wait-state analysis, as Scalasca 2.6 nests
//! and names it in its trace-analysis reports (its `scout.spec`; the
//! patterns' definitions are in its pattern documentation and
//! `MPI.pattern`): Time ⊃ Execution ⊃ MPI ⊃ Management / Synchronization /
//! Communication ⊃ … ⊃ the patterns, and beside it, when there are values
//! for them, Critical path and Computational imbalance.
//!
//! The caller gives plain values per (pattern, call node, location) in a
//! [`PatternValues`]; [`add_metrics`] adds the tree to a [`Cube`] and
//! fills it. Every metric is [`MetricKind::Exclusive`] along the call tree
//! (a value belongs to the call node where the time was spent) and, as in
//! Scalasca's reports, includes its children along the metric tree (Late
//! Sender includes Messages in Wrong Order). A metric the caller gave no
//! value for at all is the sum of its children.
//!
//! ```
//! use mpelog::cube::scalasca::{add_metrics, Pattern, PatternValues};
//! use mpelog::cube::{Cube, Region};
//! let mut cube = Cube::new();
//! let main = cube.add_region(Region::function("main"));
//! let recv = cube.add_region(Region::mpi("MPI_Recv"));
//! let root = cube.add_cnode(None, main)?;
//! let call = cube.add_cnode(Some(root), recv)?;
//! let node = cube.add_system_node(None, "node 0", "node")?;
//! let rank0 = cube.add_process(node, "rank 0", 0)?;
//! let t0 = cube.add_location(rank0, "thread 0", 0)?;
//!
//! // Rank 0 waited 25 ms in MPI_Recv for a late sender, 10 ms of it for a
//! // message sent after the one it received.
//! let mut values = PatternValues::new();
//! values.add(Pattern::MpiLateSender, call, t0, 0.025);
//! values.add(Pattern::MpiLswoSame, call, t0, 0.010);
//! let ids = add_metrics(&mut cube, &values)?;
//!
//! let ls = cube.metric_id("mpi_latesender").unwrap();
//! assert_eq!(ids.id(Pattern::MpiLateSender), Some(ls));
//! assert_eq!(cube.get(ls, call, t0), 0.025);
//! // Not given: the sums of their children.
//! let wo = ids.id(Pattern::MpiLateSenderWo).unwrap();
//! assert_eq!(cube.get(wo, call, t0), 0.010);
//! let p2p = ids.id(Pattern::MpiPoint2point).unwrap();
//! assert_eq!(cube.get(p2p, call, t0), 0.025);
//! // No critical path or imbalance values: those trees are left out.
//! assert_eq!(ids.id(Pattern::CriticalPath), None);
//! # Ok::<(), mpelog::cube::Error>(())
//! ```

use super::items::{CnodeId, LocationId, Metric, MetricId, MetricKind};
use super::model::Cube;
use super::Result;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Where Scalasca 2.6's pattern documentation is: the `@mirror@` of the
/// metrics' URLs (`@mirror@scalasca_patterns.html#mpi_latesender`), as in
/// Scalasca's own reports.
pub const DOC_MIRROR: &str = "https://apps.fz-juelich.de/scalasca/releases/scalasca/2.6/help/";

macro_rules! patterns {
    ($( $(#[$doc:meta])* $v:ident = ($uniq:literal, $disp:literal, $parent:expr, $descr:literal), )*) => {
        /// A metric of Scalasca's wait-state report, named as Scalasca
        /// names it.
        ///
        /// ```
        /// use mpelog::cube::scalasca::Pattern;
        /// assert_eq!(Pattern::MpiLateSenderWo.unique_name(), "mpi_latesender_wo");
        /// assert_eq!(Pattern::MpiLateSenderWo.parent(), Some(Pattern::MpiLateSender));
        /// assert_eq!(Pattern::from_unique_name("mpi_barrier_wait"), Some(Pattern::MpiBarrierWait));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Pattern {
            $( $(#[$doc])* $v, )*
        }

        impl Pattern {
            /// Every pattern, parents before children, siblings in
            /// Scalasca's order: the order [`add_metrics`] adds them in.
            pub const ALL: &[Pattern] = &[$(Pattern::$v),*];

            /// Scalasca's unique name (`uniq_name`), such as `mpi_latesender`.
            pub fn unique_name(self) -> &'static str {
                match self { $(Pattern::$v => $uniq,)* }
            }

            /// The name Scalasca's report shows, such as `Late Sender`.
            pub fn display_name(self) -> &'static str {
                match self { $(Pattern::$v => $disp,)* }
            }

            /// Scalasca's one-line description.
            pub fn description(self) -> &'static str {
                match self { $(Pattern::$v => $descr,)* }
            }

            /// The metric it is nested in; `None` for a root.
            pub fn parent(self) -> Option<Pattern> {
                match self { $(Pattern::$v => $parent,)* }
            }
        }
    };
}

use Pattern as P;

patterns! {
    /// Time: all time of every location.
    Time = ("time", "Time", None, "Total CPU allocation time (includes time allocated for idle threads)"),
    /// Execution: Time less idle threads (all of it for MPI-only traces).
    Execution = ("execution", "Execution", Some(P::Time), "Execution time (does not include time allocated for idle threads)"),
    /// Computation: execution outside MPI.
    Computation = ("comp", "Computation", Some(P::Execution), "Time spent on computation"),
    /// MPI: time in MPI calls.
    Mpi = ("mpi", "MPI", Some(P::Execution), "Time spent in MPI calls"),
    /// MPI management calls.
    MpiManagement = ("mpi_management", "Management", Some(P::Mpi), "Time spent in MPI management operations"),
    /// MPI_Init, MPI_Init_thread and MPI_Finalize.
    MpiInitExit = ("mpi_init_exit", "Init/Finalize", Some(P::MpiManagement), "Time spent in MPI initialization/finalization calls"),
    /// Initialization Completion.
    MpiInitCompletion = ("mpi_init_completion", "Initialization Completion", Some(P::MpiInitExit), "Time needed to finish MPI initialization"),
    /// Wait at Finalize.
    MpiFinalizeWait = ("mpi_finalize_wait", "Wait at Finalize", Some(P::MpiInitExit), "Waiting time in front of MPI_Finalize"),
    /// MPI synchronization calls.
    MpiSynchronization = ("mpi_synchronization", "Synchronization", Some(P::Mpi), "Time spent in MPI synchronization calls"),
    /// MPI barriers.
    MpiSyncCollective = ("mpi_sync_collective", "Collective", Some(P::MpiSynchronization), "Time spent in MPI barriers"),
    /// Wait at Barrier.
    MpiBarrierWait = ("mpi_barrier_wait", "Wait at Barrier", Some(P::MpiSyncCollective), "Waiting time in front of MPI barriers"),
    /// Barrier Completion.
    MpiBarrierCompletion = ("mpi_barrier_completion", "Barrier Completion", Some(P::MpiSyncCollective), "Time needed to finish MPI barriers"),
    /// MPI communication calls.
    MpiCommunication = ("mpi_communication", "Communication", Some(P::Mpi), "Time spent in MPI communication calls"),
    /// MPI point-to-point calls.
    MpiPoint2point = ("mpi_point2point", "Point-to-point", Some(P::MpiCommunication), "Time spent in MPI point-to-point communication"),
    /// Late Sender (its wrong-order part included).
    MpiLateSender = ("mpi_latesender", "Late Sender", Some(P::MpiPoint2point), "Time in MPI point-to-point receive operation waiting for a message"),
    /// Late Sender, Wrong Order.
    MpiLateSenderWo = ("mpi_latesender_wo", "Messages in Wrong Order", Some(P::MpiLateSender), "Late Sender situation due to MPI messages received in the wrong order"),
    /// Late Sender, Wrong Order, the earlier message from another source.
    MpiLswoDifferent = ("mpi_lswo_different", "From different sources", Some(P::MpiLateSenderWo), "Late Sender, Wrong Order situation due to MPI messages received from different sources"),
    /// Late Sender, Wrong Order, the earlier message from the same source.
    MpiLswoSame = ("mpi_lswo_same", "From same source", Some(P::MpiLateSenderWo), "Late Sender, Wrong Order situation due to MPI messages received from the same source"),
    /// Late Receiver.
    MpiLateReceiver = ("mpi_latereceiver", "Late Receiver", Some(P::MpiPoint2point), "Time in MPI point-to-point send operation waiting for the receiver to become ready"),
    /// MPI collective communication calls.
    MpiCollective = ("mpi_collective", "Collective", Some(P::MpiCommunication), "Time spent in MPI collective communication"),
    /// Early Reduce.
    MpiEarlyReduce = ("mpi_earlyreduce", "Early Reduce", Some(P::MpiCollective), "Waiting time due to an early receiver in MPI n-to-1 operations"),
    /// Early Scan.
    MpiEarlyScan = ("mpi_earlyscan", "Early Scan", Some(P::MpiCollective), "Waiting time due to an early receiver in an MPI scan operation"),
    /// Late Broadcast.
    MpiLateBroadcast = ("mpi_latebroadcast", "Late Broadcast", Some(P::MpiCollective), "Waiting time due to a late sender in MPI 1-to-n operations"),
    /// Wait at N x N.
    MpiWaitNxn = ("mpi_wait_nxn", "Wait at N x N", Some(P::MpiCollective), "Waiting time due to inherent synchronization in MPI n-to-n operations"),
    /// N x N Completion.
    MpiNxnCompletion = ("mpi_nxn_completion", "N x N Completion", Some(P::MpiCollective), "Time needed to finish an MPI n-to-n collective operation"),
    /// Critical path: time on the critical path per call path.
    CriticalPath = ("critical_path", "Critical path", None, "Profile of the application's critical path"),
    /// Critical-path imbalance.
    CriticalPathImbalance = ("critical_path_imbalance", "Imbalance", Some(P::CriticalPath), "Imbalanced critical-path routines"),
    /// Computational imbalance (Scalasca's heuristic).
    Imbalance = ("imbalance", "Computational imbalance", None, "Computational load imbalance heuristic (see Online Description for details)"),
    /// Overload.
    ImbalanceAbove = ("imbalance_above", "Overload", Some(P::Imbalance), "Computational load imbalance heuristic (overload)"),
    /// Single participant.
    ImbalanceAboveSingle = ("imbalance_above_single", "Single participant", Some(P::ImbalanceAbove), "Computational load imbalance heuristic (single participant)"),
    /// Underload.
    ImbalanceBelow = ("imbalance_below", "Underload", Some(P::Imbalance), "Computational load imbalance heuristic (underload)"),
    /// Non-participation.
    ImbalanceBelowBypass = ("imbalance_below_bypass", "Non-participation", Some(P::ImbalanceBelow), "Computational load imbalance heuristic (non-participation)"),
    /// Non-participation in singularity.
    ImbalanceBelowSingularity = ("imbalance_below_singularity", "Singularity", Some(P::ImbalanceBelowBypass), "Computational load imbalance heuristic (non-participation in singularity)"),
}

impl Pattern {
    /// The pattern whose unique name is `name`.
    pub fn from_unique_name(name: &str) -> Option<Pattern> {
        Pattern::ALL
            .iter()
            .copied()
            .find(|p| p.unique_name() == name)
    }

    /// The root of its tree: [`Pattern::Time`], [`Pattern::CriticalPath`]
    /// or [`Pattern::Imbalance`].
    ///
    /// ```
    /// use mpelog::cube::scalasca::Pattern;
    /// assert_eq!(Pattern::MpiWaitNxn.root(), Pattern::Time);
    /// assert_eq!(Pattern::ImbalanceAboveSingle.root(), Pattern::Imbalance);
    /// ```
    pub fn root(self) -> Pattern {
        let mut p = self;
        while let Some(parent) = p.parent() {
            p = parent;
        }
        p
    }

    /// The metric [`add_metrics`] adds for it: unit `sec`, exclusive along
    /// the call tree, with Scalasca's URL.
    ///
    /// ```
    /// use mpelog::cube::scalasca::Pattern;
    /// let m = Pattern::MpiBarrierWait.metric();
    /// assert_eq!((m.display_name.as_str(), m.unit.as_str()), ("Wait at Barrier", "sec"));
    /// assert_eq!(m.url, "@mirror@scalasca_patterns.html#mpi_barrier_wait");
    /// ```
    pub fn metric(self) -> Metric {
        Metric::new(self.unique_name(), self.display_name(), "sec")
            .description(self.description())
            .url(&format!(
                "@mirror@scalasca_patterns.html#{}",
                self.unique_name()
            ))
            .kind(MetricKind::Exclusive)
    }
}

/// Seconds per (pattern, call node, location): what the analysis found,
/// for [`add_metrics`].
///
/// ```
/// use mpelog::cube::scalasca::{Pattern, PatternValues};
/// use mpelog::cube::{Cube, Region};
/// let mut cube = Cube::new();
/// let r = cube.add_region(Region::mpi("MPI_Barrier"));
/// let c = cube.add_cnode(None, r)?;
/// let n = cube.add_system_node(None, "node", "node")?;
/// let p = cube.add_process(n, "rank 0", 0)?;
/// let l = cube.add_location(p, "thread 0", 0)?;
/// let mut v = PatternValues::new();
/// v.add(Pattern::MpiBarrierWait, c, l, 0.008);
/// v.add(Pattern::MpiBarrierWait, c, l, 0.001);
/// assert!((v.get(Pattern::MpiBarrierWait, c, l) - 0.009).abs() < 1e-15);
/// assert!(v.has(Pattern::MpiBarrierWait));
/// assert!(!v.has(Pattern::MpiWaitNxn));
/// # Ok::<(), mpelog::cube::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct PatternValues {
    values: BTreeMap<Pattern, FxHashMap<(CnodeId, LocationId), f64>>,
}

impl PatternValues {
    /// No values.
    pub fn new() -> PatternValues {
        PatternValues::default()
    }

    /// Adds `seconds` to `pattern` at (`cnode`, `location`). A pattern
    /// given this way, even with 0 seconds, is written as given, not as the
    /// sum of its children.
    pub fn add(&mut self, pattern: Pattern, cnode: CnodeId, location: LocationId, seconds: f64) {
        *self
            .values
            .entry(pattern)
            .or_default()
            .entry((cnode, location))
            .or_insert(0.0) += seconds;
    }

    /// The seconds of `pattern` at (`cnode`, `location`), 0 if none.
    pub fn get(&self, pattern: Pattern, cnode: CnodeId, location: LocationId) -> f64 {
        self.values
            .get(&pattern)
            .and_then(|m| m.get(&(cnode, location)))
            .copied()
            .unwrap_or(0.0)
    }

    /// Whether any value was given for `pattern`.
    pub fn has(&self, pattern: Pattern) -> bool {
        self.values.contains_key(&pattern)
    }
}

/// The metrics [`add_metrics`] added, by pattern.
#[derive(Debug, Clone, Default)]
pub struct ScalascaMetrics {
    ids: Vec<(Pattern, MetricId)>,
}

impl ScalascaMetrics {
    /// The metric of `pattern`; `None` when its tree was left out.
    pub fn id(&self, pattern: Pattern) -> Option<MetricId> {
        self.ids
            .iter()
            .find(|(p, _)| *p == pattern)
            .map(|&(_, id)| id)
    }
}

/// Adds Scalasca's metric trees to `cube` and fills them from `values`:
/// the tree under Time always, Critical path and Computational imbalance
/// when `values` has a value in them. A metric given in `values` is written
/// as given; one not given is the sum of its children (0 for a leaf).
/// Scalasca's documentation mirror is added to the cube.
///
/// # Errors
///
/// [`super::Error::DuplicateMetric`] when `cube` already has a metric of
/// one of these unique names (nothing is added then);
/// [`super::Error::UnknownId`] for a call node or location of another
/// cube, [`super::Error::NotFinite`] for a value that is not finite (the
/// metrics are added then, their values only in part).
///
/// ```
/// use mpelog::cube::scalasca::{add_metrics, Pattern, PatternValues};
/// use mpelog::cube::{Cube, Region};
/// let mut cube = Cube::new();
/// let ids = add_metrics(&mut cube, &PatternValues::new())?;
/// let time = ids.id(Pattern::Time).unwrap();
/// assert_eq!(cube.metric(time)?.unique_name, "time");
/// // Twice is refused: unique names are unique.
/// assert!(add_metrics(&mut cube, &PatternValues::new()).is_err());
/// # Ok::<(), mpelog::cube::Error>(())
/// ```
pub fn add_metrics(cube: &mut Cube, values: &PatternValues) -> Result<ScalascaMetrics> {
    let wanted = |p: Pattern| {
        p.root() == Pattern::Time
            || Pattern::ALL
                .iter()
                .any(|&q| q.root() == p.root() && values.has(q))
    };
    // Refused before anything is added, so the cube is left as it was.
    if let Some(p) = Pattern::ALL
        .iter()
        .find(|p| wanted(**p) && cube.metric_id(p.unique_name()).is_some())
    {
        return Err(super::Error::DuplicateMetric(p.unique_name().to_string()));
    }
    let mut ids = ScalascaMetrics::default();
    for &p in Pattern::ALL.iter().filter(|&&p| wanted(p)) {
        let parent = p.parent().and_then(|q| ids.id(q));
        let id = cube.add_metric(parent, p.metric())?;
        ids.ids.push((p, id));
    }
    // Children before parents: each pattern's values, given or summed.
    let mut resolved: FxHashMap<Pattern, FxHashMap<(CnodeId, LocationId), f64>> =
        FxHashMap::default();
    for &(p, id) in ids.ids.iter().rev() {
        let cells = match values.values.get(&p) {
            Some(given) => given.clone(),
            None => {
                let mut sum: FxHashMap<(CnodeId, LocationId), f64> = FxHashMap::default();
                for child in Pattern::ALL.iter().filter(|c| c.parent() == Some(p)) {
                    for (&place, &v) in resolved.get(child).into_iter().flatten() {
                        *sum.entry(place).or_insert(0.0) += v;
                    }
                }
                sum
            }
        };
        for (&(c, l), &v) in &cells {
            cube.set(id, c, l, v)?;
        }
        resolved.insert(p, cells);
    }
    if !cube.mirrors.iter().any(|m| m == DOC_MIRROR) {
        cube.add_mirror(DOC_MIRROR);
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parent_comes_before_its_children() {
        for (i, p) in Pattern::ALL.iter().enumerate() {
            if let Some(parent) = p.parent() {
                let j = Pattern::ALL.iter().position(|&q| q == parent).unwrap();
                assert!(j < i, "{p:?} before its parent");
            }
        }
    }

    #[test]
    fn unique_names_are_unique() {
        let mut names: Vec<_> = Pattern::ALL.iter().map(|p| p.unique_name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Pattern::ALL.len());
    }
}
