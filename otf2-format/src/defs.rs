//! Global definitions (`traces.def`): the records events refer to
//! (spec/otf2.md §5). Records of other types are skipped and counted.

use crate::decode::Cur;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::source::Source;
use crate::stream::each_definition;
use std::collections::{BTreeMap, HashMap};

/// Global definition record types this crate decodes.
pub mod def_type {
    /// ClockProperties.
    pub const CLOCK_PROPERTIES: u8 = 5;
    /// Paradigm.
    pub const PARADIGM: u8 = 6;
    /// String.
    pub const STRING: u8 = 10;
    /// Attribute.
    pub const ATTRIBUTE: u8 = 11;
    /// SystemTreeNode.
    pub const SYSTEM_TREE_NODE: u8 = 12;
    /// LocationGroup.
    pub const LOCATION_GROUP: u8 = 13;
    /// Location.
    pub const LOCATION: u8 = 14;
    /// Region.
    pub const REGION: u8 = 15;
    /// Group.
    pub const GROUP: u8 = 18;
    /// MetricMember.
    pub const METRIC_MEMBER: u8 = 19;
    /// MetricClass.
    pub const METRIC_CLASS: u8 = 20;
    /// MetricInstance.
    pub const METRIC_INSTANCE: u8 = 21;
    /// Comm.
    pub const COMM: u8 = 22;
}

/// OTF2's "undefined" reference (all ones).
pub const UNDEFINED: u32 = u32::MAX;

/// Timer resolution and offsets (ClockProperties).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockProperties {
    /// Ticks per second.
    pub timer_resolution: u64,
    /// Timestamp of the trace's start.
    pub global_offset: u64,
    /// Ticks from the start to the end.
    pub trace_length: u64,
    /// Wall-clock time of `global_offset` (ns since the epoch), 3.x on;
    /// `u64::MAX` when unknown.
    pub realtime_timestamp: u64,
}

impl Default for ClockProperties {
    fn default() -> Self {
        ClockProperties {
            timer_resolution: 1,
            global_offset: 0,
            trace_length: 0,
            realtime_timestamp: u64::MAX,
        }
    }
}

/// An Attribute definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttributeDef {
    /// Name (string reference).
    pub name: u32,
    /// Description (string reference).
    pub description: u32,
    /// OTF2 type of its values.
    pub type_id: u8,
}

/// A SystemTreeNode definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemTreeNode {
    /// Name.
    pub name: u32,
    /// Class name.
    pub class_name: u32,
    /// Parent node, or [`UNDEFINED`].
    pub parent: u32,
}

/// A LocationGroup definition (an MPI rank, a GPU context).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocationGroup {
    /// Name.
    pub name: u32,
    /// 1 process, 2 accelerator (0 unknown).
    pub group_type: u8,
    /// System tree node it sits in.
    pub system_tree_parent: u32,
    /// The group that created it (3.x), or [`UNDEFINED`].
    pub creating_location_group: u32,
}

/// A Location definition (a thread, a GPU stream, a metric recorder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Name.
    pub name: u32,
    /// 1 CPU thread, 2 accelerator stream, 3 metric.
    pub location_type: u8,
    /// Events in its event file.
    pub number_of_events: u64,
    /// Its location group.
    pub location_group: u32,
}

/// A Region definition (a function, an MPI call, a loop).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// Name.
    pub name: u32,
    /// Canonical name.
    pub canonical_name: u32,
    /// Description.
    pub description: u32,
    /// Region role (1 function, 6 barrier, 8 collective, 10 point-to-point, ...).
    pub role: u8,
    /// Paradigm (1 user, 2 compiler, 3 OpenMP, 4 MPI, ...).
    pub paradigm: u8,
    /// Region flags.
    pub flags: u32,
    /// Source file.
    pub source_file: u32,
    /// First line.
    pub begin_line: u32,
    /// Last line.
    pub end_line: u32,
}

/// A Group definition (members are locations, ranks, regions or metrics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Name.
    pub name: u32,
    /// Group type (1 locations, 2 regions, 3 metric, 4 comm locations,
    /// 5 comm group, 6 comm self).
    pub group_type: u8,
    /// Paradigm.
    pub paradigm: u8,
    /// Group flags.
    pub flags: u32,
    /// Members.
    pub members: Vec<u64>,
}

/// A Comm definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comm {
    /// Name.
    pub name: u32,
    /// Its group (a comm group of ranks).
    pub group: u32,
    /// Parent communicator, or [`UNDEFINED`].
    pub parent: u32,
    /// Comm flags (3.x).
    pub flags: u32,
}

/// A MetricMember definition (one counter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricMember {
    /// Name.
    pub name: u32,
    /// Description.
    pub description: u32,
    /// Metric type.
    pub metric_type: u8,
    /// Metric mode.
    pub mode: u8,
    /// OTF2 type of values.
    pub value_type: u8,
    /// Base (0 binary, 1 decimal).
    pub base: u8,
    /// Exponent.
    pub exponent: i64,
    /// Unit.
    pub unit: u32,
}

/// A metric: a class (a set of members) or an instance of a class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Metric {
    /// MetricClass.
    Class {
        /// Its members (MetricMember references).
        members: Vec<u32>,
        /// Occurrence.
        occurrence: u8,
        /// Recorder kind.
        recorder_kind: u8,
    },
    /// MetricInstance.
    Instance {
        /// Its class.
        class: u32,
        /// Recording location.
        recorder: u64,
        /// Scope type.
        scope_type: u8,
        /// Scope.
        scope: u64,
    },
}

/// How a communicator's ranks name locations ([`Definitions::comm_ranks`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ranks {
    /// Rank `i` is location `list[i]`.
    List(Vec<u64>),
    /// MPI_COMM_SELF: rank 0 is the event's own location.
    SelfComm,
}

impl Ranks {
    /// The location of `rank`, seen from the location `me`.
    ///
    /// ```
    /// use otf2_format::defs::Ranks;
    /// assert_eq!(Ranks::List(vec![4, 7]).location(1, 0), Some(7));
    /// assert_eq!(Ranks::SelfComm.location(0, 3), Some(3));
    /// assert_eq!(Ranks::SelfComm.location(1, 3), None);
    /// ```
    pub fn location(&self, rank: u32, me: u64) -> Option<u64> {
        match self {
            Ranks::SelfComm => (rank == 0).then_some(me),
            Ranks::List(v) => v.get(rank as usize).copied(),
        }
    }
}

/// The global definitions this crate reads.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Definitions {
    /// Timer resolution and offsets.
    pub clock: ClockProperties,
    /// Paradigm names (paradigm → string reference).
    pub paradigms: BTreeMap<u8, u32>,
    /// Strings.
    pub strings: BTreeMap<u32, String>,
    /// Attributes.
    pub attributes: BTreeMap<u32, AttributeDef>,
    /// System tree.
    pub system_tree: BTreeMap<u32, SystemTreeNode>,
    /// Location groups.
    pub location_groups: BTreeMap<u32, LocationGroup>,
    /// Locations, in file order (the order of event files and timelines).
    pub locations: Vec<(u64, Location)>,
    /// Regions.
    pub regions: BTreeMap<u32, Region>,
    /// Groups.
    pub groups: BTreeMap<u32, Group>,
    /// Communicators.
    pub comms: BTreeMap<u32, Comm>,
    /// Metric members.
    pub metric_members: BTreeMap<u32, MetricMember>,
    /// Metric classes and instances.
    pub metrics: BTreeMap<u32, Metric>,
    /// Records of other types, by record type.
    pub skipped: BTreeMap<u8, u64>,
    /// Records read.
    pub records: u64,
}

impl Definitions {
    /// The string `r` refers to ("" when undefined or missing).
    ///
    /// ```
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let region = a.defs.regions.values().next().unwrap();
    /// assert_eq!(a.defs.string(region.name), "foo");
    /// assert_eq!(a.defs.string(u32::MAX), ""); // undefined
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn string(&self, r: u32) -> &str {
        self.strings.get(&r).map(String::as_str).unwrap_or("")
    }

    /// The location's definition.
    ///
    /// ```
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let (id, first) = &a.defs.locations[0];
    /// assert_eq!(a.defs.location(*id), Some(first));
    /// assert_eq!(a.defs.location(99), None);
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn location(&self, id: u64) -> Option<&Location> {
        self.locations
            .iter()
            .find(|(l, _)| *l == id)
            .map(|(_, l)| l)
    }

    /// Reads every global definition record from `src` (a definition file
    /// of `chunk_size`-byte chunks).
    ///
    /// # Errors
    /// Bytes that are not a definitions file (error with file and offset);
    /// more records or locations than `limits` allow.
    ///
    /// ```
    /// use otf2_format::{Definitions, FileSource, Limits};
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// let a = otf2_format::Archive::open(dir)?;
    /// let path = std::path::Path::new(dir).join("traces.def");
    /// let src = FileSource::new(&path).unwrap();
    /// let d = Definitions::read(src, path, a.anchor.chunk_size_defs, &Limits::default())?;
    /// assert_eq!(d.locations, a.defs.locations);
    /// // Not a definitions file: an error naming the file and offset.
    /// let junk = otf2_format::MemSource(std::sync::Arc::from(&[0xffu8; 40][..]));
    /// assert!(Definitions::read(junk, "junk.def".into(), 40, &Limits::default()).is_err());
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn read<S: Source>(
        src: S,
        file: std::path::PathBuf,
        chunk_size: u64,
        limits: &Limits,
    ) -> Result<Definitions> {
        let mut d = Definitions::default();
        each_definition(src, file, chunk_size, limits, |s, rtype, offset| {
            d.records += 1;
            if d.records > limits.definitions {
                return Err(Error::Limit {
                    file: s.file.clone(),
                    offset,
                    what: "number of definitions",
                    value: d.records,
                    limit: limits.definitions,
                });
            }
            d.record(rtype, &mut s.cursor(offset), limits)
        })?;
        Ok(d)
    }

    fn record(&mut self, rtype: u8, c: &mut Cur<'_>, limits: &Limits) -> Result<()> {
        use def_type::*;
        match rtype {
            CLOCK_PROPERTIES => {
                self.clock = ClockProperties {
                    timer_resolution: c.u64c("timer resolution")?,
                    global_offset: c.u64c("global offset")?,
                    trace_length: c.u64c("trace length")?,
                    realtime_timestamp: c.opt_u64c(u64::MAX, "realtime timestamp")?,
                };
            }
            PARADIGM => {
                let p = c.u8("paradigm")?;
                let name = c.u32c("paradigm name")?;
                self.paradigms.insert(p, name);
            }
            STRING => {
                let r = c.u32c("string reference")?;
                let s = c.string("string")?;
                self.strings.insert(r, s);
            }
            ATTRIBUTE => {
                let r = c.u32c("attribute reference")?;
                let name = c.u32c("attribute name")?;
                let type_id = c.u8("attribute type")?;
                let description = c.opt_u32c(UNDEFINED, "attribute description")?;
                self.attributes.insert(
                    r,
                    AttributeDef {
                        name,
                        description,
                        type_id,
                    },
                );
            }
            SYSTEM_TREE_NODE => {
                let r = c.u32c("system tree node reference")?;
                let n = SystemTreeNode {
                    name: c.u32c("name")?,
                    class_name: c.u32c("class name")?,
                    parent: c.u32c("parent")?,
                };
                self.system_tree.insert(r, n);
            }
            LOCATION_GROUP => {
                let r = c.u32c("location group reference")?;
                let g = LocationGroup {
                    name: c.u32c("name")?,
                    group_type: c.u8("location group type")?,
                    system_tree_parent: c.u32c("system tree parent")?,
                    creating_location_group: c.opt_u32c(UNDEFINED, "creating location group")?,
                };
                self.location_groups.insert(r, g);
            }
            LOCATION => {
                let at = c.offset();
                let r = c.u64c("location reference")?;
                let l = Location {
                    name: c.u32c("name")?,
                    location_type: c.u8("location type")?,
                    number_of_events: c.u64c("number of events")?,
                    location_group: c.u32c("location group")?,
                };
                if self.locations.len() as u64 >= limits.locations {
                    return Err(Error::Limit {
                        file: c.file.to_path_buf(),
                        offset: at,
                        what: "number of locations",
                        value: self.locations.len() as u64 + 1,
                        limit: limits.locations,
                    });
                }
                self.locations.push((r, l));
            }
            REGION => {
                let r = c.u32c("region reference")?;
                let name = c.u32c("name")?;
                let description = c.u32c("description")?;
                let _region_type = c.u8("region type")?;
                let source_file = c.u32c("source file")?;
                let begin_line = c.u32c("begin line")?;
                let end_line = c.u32c("end line")?;
                let canonical_name = c.opt_u32c(name, "canonical name")?;
                let role = c.opt_u8(0, "region role")?;
                let paradigm = c.opt_u8(0, "paradigm")?;
                let flags = c.opt_u32c(0, "region flags")?;
                self.regions.insert(
                    r,
                    Region {
                        name,
                        canonical_name,
                        description,
                        role,
                        paradigm,
                        flags,
                        source_file,
                        begin_line,
                        end_line,
                    },
                );
            }
            GROUP => {
                let r = c.u32c("group reference")?;
                let name = c.u32c("name")?;
                let _pre12 = c.u8("group type (before 1.2)")?;
                let n = c.u32c("number of members")?;
                let mut members = Vec::with_capacity((n as usize).min(c.remaining()));
                for _ in 0..n {
                    members.push(c.u64c("group member")?);
                }
                let group_type = c.opt_u8(0, "group type")?;
                let paradigm = c.opt_u8(0, "paradigm")?;
                let flags = c.opt_u32c(0, "group flags")?;
                self.groups.insert(
                    r,
                    Group {
                        name,
                        group_type,
                        paradigm,
                        flags,
                        members,
                    },
                );
            }
            METRIC_MEMBER => {
                let r = c.u32c("metric member reference")?;
                let m = MetricMember {
                    name: c.u32c("name")?,
                    description: c.u32c("description")?,
                    metric_type: c.u8("metric type")?,
                    mode: c.u8("metric mode")?,
                    value_type: c.u8("value type")?,
                    base: c.u8("base")?,
                    exponent: c.i64c("exponent")?,
                    unit: c.u32c("unit")?,
                };
                self.metric_members.insert(r, m);
            }
            METRIC_CLASS => {
                let r = c.u32c("metric reference")?;
                let n = c.u8("number of metrics")?;
                let mut members = Vec::with_capacity(usize::from(n).min(c.remaining()));
                for _ in 0..n {
                    members.push(c.u32c("metric member")?);
                }
                let occurrence = c.u8("metric occurrence")?;
                let recorder_kind = c.opt_u8(0, "recorder kind")?;
                self.metrics.insert(
                    r,
                    Metric::Class {
                        members,
                        occurrence,
                        recorder_kind,
                    },
                );
            }
            METRIC_INSTANCE => {
                let r = c.u32c("metric reference")?;
                let m = Metric::Instance {
                    class: c.u32c("metric class")?,
                    recorder: c.u64c("recorder")?,
                    scope_type: c.u8("metric scope")?,
                    scope: c.u64c("scope")?,
                };
                self.metrics.insert(r, m);
            }
            COMM => {
                let r = c.u32c("comm reference")?;
                let m = Comm {
                    name: c.u32c("name")?,
                    group: c.u32c("group")?,
                    parent: c.u32c("parent")?,
                    flags: c.opt_u32c(0, "comm flags")?,
                };
                self.comms.insert(r, m);
            }
            other => *self.skipped.entry(other).or_insert(0) += 1,
        }
        Ok(())
    }

    /// The ranks of every communicator ([`Ranks`]): a comm group's members
    /// are indices into the comm-locations group of the same paradigm; a
    /// comm-locations group's members are locations; a comm-self group is
    /// the event's own location. Communicators whose group is undefined or of
    /// another type are left out.
    ///
    /// ```
    /// use otf2_format::defs::Ranks;
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let ranks = a.defs.comm_ranks();
    /// assert!(!ranks.is_empty());
    /// // MPI_COMM_WORLD's ranks are the two locations.
    /// assert!(ranks.values().any(|r| matches!(r, Ranks::List(l) if l.len() == 2)));
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn comm_ranks(&self) -> HashMap<u32, Ranks> {
        const COMM_LOCATIONS: u8 = 4;
        const COMM_GROUP: u8 = 5;
        const COMM_SELF: u8 = 6;
        let mut out = HashMap::new();
        for (&id, c) in &self.comms {
            let Some(g) = self.groups.get(&c.group) else {
                continue;
            };
            let ranks = match g.group_type {
                COMM_SELF => Ranks::SelfComm,
                COMM_LOCATIONS => Ranks::List(g.members.clone()),
                COMM_GROUP => {
                    let world = self
                        .groups
                        .values()
                        .rev()
                        .find(|w| w.group_type == COMM_LOCATIONS && w.paradigm == g.paradigm);
                    match world {
                        Some(w) => Ranks::List(
                            g.members
                                .iter()
                                .filter_map(|&m| {
                                    usize::try_from(m).ok().and_then(|m| w.members.get(m))
                                })
                                .copied()
                                .collect(),
                        ),
                        None => continue,
                    }
                }
                _ => continue,
            };
            out.insert(id, ranks);
        }
        out
    }

    /// The members of a metric: a class's own, an instance's class's.
    ///
    /// ```
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let (&metric, _) = a.defs.metrics.iter().next().unwrap();
    /// assert!(!a.defs.metric_members_of(metric).is_empty());
    /// assert!(a.defs.metric_members_of(u32::MAX).is_empty()); // no such metric
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn metric_members_of(&self, metric: u32) -> &[u32] {
        match self.metrics.get(&metric) {
            Some(Metric::Class { members, .. }) => members,
            Some(Metric::Instance { class, .. }) => match self.metrics.get(class) {
                Some(Metric::Class { members, .. }) => members,
                _ => &[],
            },
            None => &[],
        }
    }
}
