//! The items of a cube: ids, metrics and regions.

#[cfg(doc)]
use super::Cube;

/// A metric of a [`Cube`], as [`Cube::add_metric`] returned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MetricId(pub(crate) u32);

/// A region of a [`Cube`], as [`Cube::add_region`] returned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegionId(pub(crate) u32);

/// A call node of a [`Cube`], as [`Cube::add_cnode`] returned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CnodeId(pub(crate) u32);

/// A system-tree node (machine, node) of a [`Cube`], as
/// [`Cube::add_system_node`] returned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SystemNodeId(pub(crate) u32);

/// A process (CUBE's location group) of a [`Cube`], as [`Cube::add_process`]
/// returned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProcessId(pub(crate) u32);

/// A location (a thread: one timeline) of a [`Cube`], as
/// [`Cube::add_location`] returned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocationId(pub(crate) u32);

/// How a metric's values relate along the call tree (CUBE's metric `type`).
///
/// ```
/// use mpelog::cube::MetricKind;
/// assert_eq!(MetricKind::Exclusive.as_str(), "EXCLUSIVE");
/// assert_eq!(MetricKind::Inclusive.as_str(), "INCLUSIVE");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum MetricKind {
    /// Each call node's value is its own, without its callees' (Scalasca's
    /// wait-state patterns).
    #[default]
    Exclusive,
    /// Each call node's value includes its callees' (Scalasca's Time).
    Inclusive,
}

impl MetricKind {
    /// The name in `anchor.xml`.
    pub fn as_str(self) -> &'static str {
        match self {
            MetricKind::Exclusive => "EXCLUSIVE",
            MetricKind::Inclusive => "INCLUSIVE",
        }
    }
}

/// A metric: what a value measures. Its data type is `DOUBLE`.
///
/// ```
/// use mpelog::cube::{Metric, MetricKind};
/// let m = Metric::new("mpi_latesender", "Late Sender", "sec")
///     .description("Time in MPI point-to-point receive operation waiting for a message");
/// assert_eq!(m.kind, MetricKind::Exclusive);
/// assert_eq!(m.url, "");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Metric {
    /// The name that identifies the metric (`uniq_name`), unique in a cube.
    pub unique_name: String,
    /// The name shown (`disp_name`).
    pub display_name: String,
    /// The unit of measure (`uom`): `sec`, `occ`, `bytes`.
    pub unit: String,
    /// One line on what it measures (`descr`).
    pub description: String,
    /// Where its documentation is (`url`); `@mirror@` stands for the
    /// documentation mirrors of [`Cube::add_mirror`].
    pub url: String,
    /// How its values relate along the call tree.
    pub kind: MetricKind,
}

impl Metric {
    /// An exclusive metric without description or URL.
    pub fn new(unique_name: &str, display_name: &str, unit: &str) -> Metric {
        Metric {
            unique_name: unique_name.to_string(),
            display_name: display_name.to_string(),
            unit: unit.to_string(),
            description: String::new(),
            url: String::new(),
            kind: MetricKind::Exclusive,
        }
    }

    /// The same metric with this description.
    pub fn description(mut self, description: &str) -> Metric {
        self.description = description.to_string();
        self
    }

    /// The same metric with this documentation URL.
    pub fn url(mut self, url: &str) -> Metric {
        self.url = url.to_string();
        self
    }

    /// The same metric of this kind.
    pub fn kind(mut self, kind: MetricKind) -> Metric {
        self.kind = kind;
        self
    }
}

/// A region: a piece of code that call nodes visit (a function, an MPI
/// call, an MPE state).
///
/// ```
/// use mpelog::cube::Region;
/// let r = Region::mpi("MPI_Recv");
/// assert_eq!((r.paradigm.as_str(), r.role.as_str()), ("mpi", "function"));
/// assert_eq!(Region::function("main").paradigm, "user");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Region {
    /// Its name.
    pub name: String,
    /// Its programming model (CUBE's names: `mpi`, `user`, `compiler`, …).
    pub paradigm: String,
    /// What it is (CUBE's names: `function`, `loop`, `barrier`, …).
    pub role: String,
    /// The source file (`mod`), empty when unknown.
    pub file: String,
    /// Its first and last source line, -1 when unknown.
    pub lines: (i32, i32),
    /// A description, possibly empty.
    pub description: String,
}

impl Region {
    /// A function of the user's code.
    pub fn function(name: &str) -> Region {
        Region {
            name: name.to_string(),
            paradigm: "user".to_string(),
            role: "function".to_string(),
            file: String::new(),
            lines: (-1, -1),
            description: String::new(),
        }
    }

    /// An MPI call.
    pub fn mpi(name: &str) -> Region {
        Region {
            paradigm: "mpi".to_string(),
            ..Region::function(name)
        }
    }
}
