//! CUBE4 reports (`.cubex`), the format Scalasca and Score-P write and the
//! CUBE GUI, CubeLib and pycubexr read: a writer with its own small data
//! model, independent of what fills it (spec/cube.md).
//!
//! A [`Cube`] holds three trees and the values over them:
//!
//! * the **metric tree** ([`Metric`]): what is measured, each metric with a
//!   unique name, a display name, a unit and a description, all of data type
//!   `DOUBLE`;
//! * the **call tree**: [`Region`]s (the code: a function, an MPI call) and
//!   the call nodes that visit them, nested as they were called;
//! * the **system tree**: system nodes (a machine ⊃ its nodes) ⊃ processes
//!   (an MPI rank each) ⊃ locations (a thread, a timeline each);
//! * a value per (metric, call node, location), 0 where none was set.
//!
//! Values are stored as they are given. Along the call tree, a metric of
//! kind [`MetricKind::Exclusive`] holds each call node's own value (without
//! its callees), one of kind [`MetricKind::Inclusive`] the value with its
//! callees. Along the metric tree, a metric's value includes its children's,
//! as in Scalasca's reports (Late Sender includes its Wrong Order part).
//! [`scalasca`] builds the metric tree of Scalasca's wait-state patterns.
//!
//! ```
//! use mpelog::cube::{Cube, Metric, Region};
//! let mut cube = Cube::new();
//! let time = cube.add_metric(None, Metric::new("time", "Time", "sec"))?;
//! let main = cube.add_region(Region::function("main"));
//! let recv = cube.add_region(Region::mpi("MPI_Recv"));
//! let root = cube.add_cnode(None, main)?;
//! let call = cube.add_cnode(Some(root), recv)?;
//! let machine = cube.add_system_node(None, "mpelog", "machine")?;
//! let node = cube.add_system_node(Some(machine), "node 0", "node")?;
//! let rank0 = cube.add_process(node, "rank 0", 0)?;
//! let timeline = cube.add_location(rank0, "thread 0", 0)?;
//! cube.set(time, call, timeline, 0.025)?;
//! cube.add(time, call, timeline, 0.5)?;
//! assert_eq!(cube.get(time, call, timeline), 0.525);
//! let mut bytes = Vec::new();
//! cube.write_to(&mut bytes)?;
//! assert_eq!(&bytes[..10], b"anchor.xml"); // a tar whose first member is anchor.xml
//! # Ok::<(), mpelog::cube::Error>(())
//! ```

mod items;
mod model;
pub mod scalasca;
mod write;

pub use items::{
    CnodeId, LocationId, Metric, MetricId, MetricKind, ProcessId, Region, RegionId, SystemNodeId,
};
pub use model::Cube;

use crate::names::shown;
use std::path::PathBuf;

/// Why a cube cannot be built or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two metrics have the same unique name (CUBE identifies metrics by it).
    #[error("metric unique name {0:?} is used twice")]
    DuplicateMetric(String),
    /// An id past the items this cube has: it came from another cube. (Ids
    /// are positions, so one of another cube that is in range is taken as
    /// this cube's.)
    #[error("{kind} id {id} is not in this cube")]
    UnknownId {
        /// Which kind of id: `metric`, `region`, `call node`, `system node`,
        /// `process` or `location`.
        kind: &'static str,
        /// The id's number.
        id: u32,
    },
    /// A value is NaN or infinite: CUBE's tools sum values, which one such
    /// value would poison.
    #[error("metric {metric:?}: the value {value} is not finite")]
    NotFinite {
        /// The metric's unique name.
        metric: String,
        /// The value given.
        value: f64,
    },
    /// The cube has no call node or no location, so it has no place for a
    /// value: CUBE readers refuse such a file.
    #[error("a CUBE file needs at least one call node and one location; this cube has {cnodes} call nodes and {locations} locations")]
    Empty {
        /// How many call nodes there are.
        cnodes: usize,
        /// How many locations there are.
        locations: usize,
    },
    /// More items of one kind than CUBE's 32-bit signed ids can number.
    #[error("too many {0} for CUBE's 32-bit ids")]
    TooMany(&'static str),
    /// The output cannot be made or committed (see [`crate::output`]).
    #[error(transparent)]
    Output(#[from] crate::output::Error),
    /// Writing the bytes failed.
    #[error("{}: {source}", shown(.path))]
    Io {
        /// The output as named (`-` for standard output; empty for
        /// [`Cube::write_to`]).
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// A `Result` whose error is [`Error`].
pub type Result<T = (), E = Error> = std::result::Result<T, E>;
