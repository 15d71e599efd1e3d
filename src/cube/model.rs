//! The data model of a cube: the metric, call and system trees and the
//! values over them.

use super::items::{
    CnodeId, LocationId, Metric, MetricId, ProcessId, Region, RegionId, SystemNodeId,
};
use super::{Error, Result};
use rustc_hash::FxHashMap;

#[derive(Debug)]
pub(crate) struct MetricEntry {
    pub(crate) metric: Metric,
    pub(crate) children: Vec<MetricId>,
    /// (call node, location) → value; only values that were set.
    pub(crate) values: FxHashMap<(CnodeId, LocationId), f64>,
}

#[derive(Debug)]
pub(crate) struct CnodeEntry {
    pub(crate) region: RegionId,
    pub(crate) children: Vec<CnodeId>,
}

#[derive(Debug)]
pub(crate) struct SystemNodeEntry {
    pub(crate) name: String,
    pub(crate) class: String,
    pub(crate) children: Vec<SystemNodeId>,
    pub(crate) processes: Vec<ProcessId>,
}

#[derive(Debug)]
pub(crate) struct ProcessEntry {
    pub(crate) name: String,
    pub(crate) rank: i32,
    pub(crate) locations: Vec<LocationId>,
}

#[derive(Debug)]
pub(crate) struct LocationEntry {
    pub(crate) name: String,
    pub(crate) rank: i32,
}

/// A CUBE4 report being built: the metric, call and system trees and a
/// value per (metric, call node, location). See the [module](super) for an
/// example.
#[derive(Debug, Default)]
pub struct Cube {
    pub(crate) attrs: Vec<(String, String)>,
    pub(crate) mirrors: Vec<String>,
    pub(crate) metrics: Vec<MetricEntry>,
    pub(crate) metric_roots: Vec<MetricId>,
    pub(crate) regions: Vec<Region>,
    pub(crate) cnodes: Vec<CnodeEntry>,
    pub(crate) cnode_roots: Vec<CnodeId>,
    pub(crate) system_nodes: Vec<SystemNodeEntry>,
    pub(crate) system_roots: Vec<SystemNodeId>,
    pub(crate) processes: Vec<ProcessEntry>,
    pub(crate) locations: Vec<LocationEntry>,
}

/// The next id of a list, or [`Error::TooMany`] past CUBE's `int32`.
fn next_id(len: usize, what: &'static str) -> Result<u32> {
    if len >= i32::MAX as usize {
        return Err(Error::TooMany(what));
    }
    Ok(len as u32)
}

impl Cube {
    /// An empty cube.
    pub fn new() -> Cube {
        Cube::default()
    }

    /// Adds an attribute (`<attr key value>`) to the report, such as the
    /// trace it was made from. `Creator` is written anyway.
    ///
    /// ```
    /// let mut cube = mpelog::cube::Cube::new();
    /// cube.add_attr("mpelog trace", "run.clog2");
    /// ```
    pub fn add_attr(&mut self, key: &str, value: &str) {
        self.attrs.push((key.to_string(), value.to_string()));
    }

    /// Adds a documentation mirror (`<murl>`): a metric URL starting with
    /// `@mirror@` is looked up under each mirror in turn.
    ///
    /// ```
    /// let mut cube = mpelog::cube::Cube::new();
    /// cube.add_mirror("https://example.org/help/");
    /// ```
    pub fn add_mirror(&mut self, url: &str) {
        self.mirrors.push(url.to_string());
    }

    /// Adds a metric under `parent` (a root without one), after its
    /// siblings.
    ///
    /// # Errors
    ///
    /// [`Error::DuplicateMetric`] when the unique name is taken;
    /// [`Error::UnknownId`] for a parent of another cube.
    ///
    /// ```
    /// use mpelog::cube::{Cube, Error, Metric};
    /// let mut cube = Cube::new();
    /// let time = cube.add_metric(None, Metric::new("time", "Time", "sec"))?;
    /// cube.add_metric(Some(time), Metric::new("mpi", "MPI", "sec"))?;
    /// let again = cube.add_metric(None, Metric::new("mpi", "MPI again", "sec"));
    /// assert!(matches!(again, Err(Error::DuplicateMetric(name)) if name == "mpi"));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn add_metric(&mut self, parent: Option<MetricId>, metric: Metric) -> Result<MetricId> {
        if let Some(p) = parent {
            self.metric_entry(p)?;
        }
        if self
            .metrics
            .iter()
            .any(|m| m.metric.unique_name == metric.unique_name)
        {
            return Err(Error::DuplicateMetric(metric.unique_name));
        }
        let id = MetricId(next_id(self.metrics.len(), "metrics")?);
        self.metrics.push(MetricEntry {
            metric,
            children: Vec::new(),
            values: FxHashMap::default(),
        });
        match parent {
            Some(p) => self.metrics[p.0 as usize].children.push(id),
            None => self.metric_roots.push(id),
        }
        Ok(id)
    }

    /// The metric whose unique name is `unique_name`.
    ///
    /// ```
    /// use mpelog::cube::{Cube, Metric};
    /// let mut cube = Cube::new();
    /// let time = cube.add_metric(None, Metric::new("time", "Time", "sec")).unwrap();
    /// assert_eq!(cube.metric_id("time"), Some(time));
    /// assert_eq!(cube.metric_id("visits"), None);
    /// ```
    pub fn metric_id(&self, unique_name: &str) -> Option<MetricId> {
        self.metrics
            .iter()
            .position(|m| m.metric.unique_name == unique_name)
            .map(|i| MetricId(i as u32))
    }

    /// The metric `id` as it was added.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownId`] for an id of another cube.
    ///
    /// ```
    /// use mpelog::cube::{Cube, Metric};
    /// let mut cube = Cube::new();
    /// let time = cube.add_metric(None, Metric::new("time", "Time", "sec"))?;
    /// assert_eq!(cube.metric(time)?.display_name, "Time");
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn metric(&self, id: MetricId) -> Result<&Metric> {
        Ok(&self.metric_entry(id)?.metric)
    }

    /// The children of metric `id`, in order.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownId`] for an id of another cube.
    ///
    /// ```
    /// use mpelog::cube::{Cube, Metric};
    /// let mut cube = Cube::new();
    /// let time = cube.add_metric(None, Metric::new("time", "Time", "sec"))?;
    /// let mpi = cube.add_metric(Some(time), Metric::new("mpi", "MPI", "sec"))?;
    /// assert_eq!(cube.metric_children(time)?, &[mpi]);
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn metric_children(&self, id: MetricId) -> Result<&[MetricId]> {
        Ok(&self.metric_entry(id)?.children)
    }

    /// Adds a region; regions are numbered in the order they are added.
    ///
    /// ```
    /// use mpelog::cube::{Cube, Region};
    /// let mut cube = Cube::new();
    /// let a = cube.add_region(Region::function("main"));
    /// let b = cube.add_region(Region::mpi("MPI_Send"));
    /// assert_ne!(a, b);
    /// ```
    pub fn add_region(&mut self, region: Region) -> RegionId {
        // More than CUBE's int32 ids can number is refused when written.
        let id = RegionId(self.regions.len() as u32);
        self.regions.push(region);
        id
    }

    /// Adds a call node visiting `region` under `parent` (a root without
    /// one), after its siblings.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownId`] for a parent or region of another cube.
    ///
    /// ```
    /// use mpelog::cube::{Cube, Region};
    /// let mut cube = Cube::new();
    /// let main = cube.add_region(Region::function("main"));
    /// let send = cube.add_region(Region::mpi("MPI_Send"));
    /// let root = cube.add_cnode(None, main)?;
    /// let call = cube.add_cnode(Some(root), send)?;
    /// assert_eq!(cube.cnode_children(root)?, &[call]);
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn add_cnode(&mut self, parent: Option<CnodeId>, region: RegionId) -> Result<CnodeId> {
        if region.0 as usize >= self.regions.len() {
            return Err(Error::UnknownId {
                kind: "region",
                id: region.0,
            });
        }
        if let Some(p) = parent {
            self.cnode_entry(p)?;
        }
        let id = CnodeId(next_id(self.cnodes.len(), "call nodes")?);
        self.cnodes.push(CnodeEntry {
            region,
            children: Vec::new(),
        });
        match parent {
            Some(p) => self.cnodes[p.0 as usize].children.push(id),
            None => self.cnode_roots.push(id),
        }
        Ok(id)
    }

    /// The children of call node `id`, in order.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownId`] for an id of another cube.
    ///
    /// ```
    /// use mpelog::cube::{Cube, Region};
    /// let mut cube = Cube::new();
    /// let main = cube.add_region(Region::function("main"));
    /// let root = cube.add_cnode(None, main)?;
    /// assert!(cube.cnode_children(root)?.is_empty());
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn cnode_children(&self, id: CnodeId) -> Result<&[CnodeId]> {
        Ok(&self.cnode_entry(id)?.children)
    }

    /// Adds a system-tree node (a machine, a node of it) under `parent` (a
    /// root without one). `class` is CUBE's class name: `machine`, `node`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownId`] for a parent of another cube.
    ///
    /// ```
    /// use mpelog::cube::Cube;
    /// let mut cube = Cube::new();
    /// let machine = cube.add_system_node(None, "cluster", "machine")?;
    /// cube.add_system_node(Some(machine), "node 7", "node")?;
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn add_system_node(
        &mut self,
        parent: Option<SystemNodeId>,
        name: &str,
        class: &str,
    ) -> Result<SystemNodeId> {
        if let Some(p) = parent {
            self.system_entry(p)?;
        }
        let id = SystemNodeId(next_id(self.system_nodes.len(), "system nodes")?);
        self.system_nodes.push(SystemNodeEntry {
            name: name.to_string(),
            class: class.to_string(),
            children: Vec::new(),
            processes: Vec::new(),
        });
        match parent {
            Some(p) => self.system_nodes[p.0 as usize].children.push(id),
            None => self.system_roots.push(id),
        }
        Ok(id)
    }

    /// Adds a process (an MPI rank: CUBE's location group of type
    /// `process`) to system node `node`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownId`] for a node of another cube.
    ///
    /// ```
    /// use mpelog::cube::Cube;
    /// let mut cube = Cube::new();
    /// let node = cube.add_system_node(None, "node 0", "node")?;
    /// cube.add_process(node, "rank 3", 3)?;
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn add_process(&mut self, node: SystemNodeId, name: &str, rank: i32) -> Result<ProcessId> {
        self.system_entry(node)?;
        let id = ProcessId(next_id(self.processes.len(), "processes")?);
        self.processes.push(ProcessEntry {
            name: name.to_string(),
            rank,
            locations: Vec::new(),
        });
        self.system_nodes[node.0 as usize].processes.push(id);
        Ok(id)
    }

    /// Adds a location (a thread: one timeline) to `process`; `rank` is
    /// its number in the process.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownId`] for a process of another cube.
    ///
    /// ```
    /// use mpelog::cube::Cube;
    /// let mut cube = Cube::new();
    /// let node = cube.add_system_node(None, "node 0", "node")?;
    /// let rank = cube.add_process(node, "rank 0", 0)?;
    /// cube.add_location(rank, "thread 0", 0)?;
    /// assert_eq!(cube.location_count(), 1);
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn add_location(
        &mut self,
        process: ProcessId,
        name: &str,
        rank: i32,
    ) -> Result<LocationId> {
        if process.0 as usize >= self.processes.len() {
            return Err(Error::UnknownId {
                kind: "process",
                id: process.0,
            });
        }
        let id = LocationId(next_id(self.locations.len(), "locations")?);
        self.locations.push(LocationEntry {
            name: name.to_string(),
            rank,
        });
        self.processes[process.0 as usize].locations.push(id);
        Ok(id)
    }

    /// How many locations the cube has.
    ///
    /// ```
    /// assert_eq!(mpelog::cube::Cube::new().location_count(), 0);
    /// ```
    pub fn location_count(&self) -> usize {
        self.locations.len()
    }

    /// Sets the value of `metric` at (`cnode`, `location`).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownId`] for an id of another cube; [`Error::NotFinite`]
    /// for NaN or an infinity.
    ///
    /// ```
    /// # use mpelog::cube::{Cube, Metric, Region};
    /// # let mut cube = Cube::new();
    /// # let m = cube.add_metric(None, Metric::new("time", "Time", "sec"))?;
    /// # let r = cube.add_region(Region::function("main"));
    /// # let c = cube.add_cnode(None, r)?;
    /// # let n = cube.add_system_node(None, "node", "node")?;
    /// # let p = cube.add_process(n, "rank 0", 0)?;
    /// # let l = cube.add_location(p, "thread 0", 0)?;
    /// cube.set(m, c, l, 2.5)?;
    /// assert_eq!(cube.get(m, c, l), 2.5);
    /// assert!(cube.set(m, c, l, f64::NAN).is_err());
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn set(
        &mut self,
        metric: MetricId,
        cnode: CnodeId,
        location: LocationId,
        value: f64,
    ) -> Result {
        self.check_place(metric, cnode, location)?;
        let entry = &mut self.metrics[metric.0 as usize];
        if !value.is_finite() {
            return Err(Error::NotFinite {
                metric: entry.metric.unique_name.clone(),
                value,
            });
        }
        entry.values.insert((cnode, location), value);
        Ok(())
    }

    /// Adds `value` to the value of `metric` at (`cnode`, `location`).
    ///
    /// # Errors
    ///
    /// As [`Cube::set`], also when the sum overflows to an infinity.
    ///
    /// ```
    /// # use mpelog::cube::{Cube, Metric, Region};
    /// # let mut cube = Cube::new();
    /// # let m = cube.add_metric(None, Metric::new("time", "Time", "sec"))?;
    /// # let r = cube.add_region(Region::function("main"));
    /// # let c = cube.add_cnode(None, r)?;
    /// # let n = cube.add_system_node(None, "node", "node")?;
    /// # let p = cube.add_process(n, "rank 0", 0)?;
    /// # let l = cube.add_location(p, "thread 0", 0)?;
    /// cube.add(m, c, l, 1.0)?;
    /// cube.add(m, c, l, 0.5)?;
    /// assert_eq!(cube.get(m, c, l), 1.5);
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn add(
        &mut self,
        metric: MetricId,
        cnode: CnodeId,
        location: LocationId,
        value: f64,
    ) -> Result {
        let sum = self.get(metric, cnode, location) + value;
        self.set(metric, cnode, location, sum)
    }

    /// The value of `metric` at (`cnode`, `location`): 0 where none was
    /// set, and for ids of another cube.
    ///
    /// ```
    /// # use mpelog::cube::{Cube, Metric, Region};
    /// # let mut cube = Cube::new();
    /// # let m = cube.add_metric(None, Metric::new("time", "Time", "sec"))?;
    /// # let r = cube.add_region(Region::function("main"));
    /// # let c = cube.add_cnode(None, r)?;
    /// # let n = cube.add_system_node(None, "node", "node")?;
    /// # let p = cube.add_process(n, "rank 0", 0)?;
    /// # let l = cube.add_location(p, "thread 0", 0)?;
    /// assert_eq!(cube.get(m, c, l), 0.0);
    /// # Ok::<(), mpelog::cube::Error>(())
    /// ```
    pub fn get(&self, metric: MetricId, cnode: CnodeId, location: LocationId) -> f64 {
        self.metrics
            .get(metric.0 as usize)
            .and_then(|m| m.values.get(&(cnode, location)))
            .copied()
            .unwrap_or(0.0)
    }

    /// The (call node, location, value) triples set for `metric`, in no
    /// particular order.
    pub(crate) fn values_of(
        &self,
        metric: MetricId,
    ) -> impl Iterator<Item = (CnodeId, LocationId, f64)> + '_ {
        self.metrics
            .get(metric.0 as usize)
            .into_iter()
            .flat_map(|m| m.values.iter().map(|(&(c, l), &v)| (c, l, v)))
    }

    fn check_place(&self, metric: MetricId, cnode: CnodeId, location: LocationId) -> Result {
        self.metric_entry(metric)?;
        self.cnode_entry(cnode)?;
        if location.0 as usize >= self.locations.len() {
            return Err(Error::UnknownId {
                kind: "location",
                id: location.0,
            });
        }
        Ok(())
    }

    fn metric_entry(&self, id: MetricId) -> Result<&MetricEntry> {
        self.metrics.get(id.0 as usize).ok_or(Error::UnknownId {
            kind: "metric",
            id: id.0,
        })
    }

    fn cnode_entry(&self, id: CnodeId) -> Result<&CnodeEntry> {
        self.cnodes.get(id.0 as usize).ok_or(Error::UnknownId {
            kind: "call node",
            id: id.0,
        })
    }

    fn system_entry(&self, id: SystemNodeId) -> Result<&SystemNodeEntry> {
        self.system_nodes
            .get(id.0 as usize)
            .ok_or(Error::UnknownId {
                kind: "system node",
                id: id.0,
            })
    }
}
