//! A text dump of an archive in the spirit of libotf2's `otf2-print`
//! (spec/otf2.md §13): the definitions, one per line, then the events in time
//! order, one per line with the record name, location, timestamp and fields
//! in `otf2-print`'s words, so that both dumps parse the same way.
//!
//! ```
//! use otf2_format::{dump, Archive};
//! let a = Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
//! let d = dump::Dumper::new(&a.defs);
//! let first = a.events()?.next().unwrap()?;
//! assert_eq!(
//!     d.event(&first),
//!     format!("{:<32} {:>15} {:>20}  Region: \"foo\" <0>\n{:71}ADDITIONAL ATTRIBUTES: (\"at\" <0>; INT64; -5)", "ENTER", 0, 10, "")
//! );
//! assert!(d.definitions().iter().any(|l| l.starts_with("REGION")));
//! # Ok::<(), otf2_format::Error>(())
//! ```

use crate::defs::{Definitions, Metric, Ranks, UNDEFINED};
use crate::event::{value_type as vt, Attribute, Event, EventKind, Value, COLLECTIVE_OPS};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The header line of the event section (as `otf2-print`'s).
pub const EVENTS_HEADER: &str =
    "Event                                   Location            Timestamp  Attributes";

/// Column where continuation lines (an event's attribute list) start.
pub const CONTINUATION: usize = 71;

/// Formats definitions and events against one archive's definitions.
#[derive(Debug)]
pub struct Dumper<'a> {
    defs: &'a Definitions,
    ranks: HashMap<u32, Ranks>,
}

/// The name of an OTF2 value type (`INT64`, `DOUBLE`, …; `TYPE n` for one
/// this crate does not name).
///
/// ```
/// use otf2_format::dump::type_name;
/// assert_eq!(type_name(otf2_format::event::value_type::INT64), "INT64");
/// assert_eq!(type_name(200), "TYPE 200");
/// ```
pub fn type_name(t: u8) -> String {
    const NAMES: [&str; 18] = [
        "NONE",
        "UINT8",
        "UINT16",
        "UINT32",
        "UINT64",
        "INT8",
        "INT16",
        "INT32",
        "INT64",
        "FLOAT",
        "DOUBLE",
        "STRING",
        "ATTRIBUTE",
        "LOCATION",
        "REGION",
        "GROUP",
        "METRIC",
        "COMM",
    ];
    match NAMES.get(usize::from(t)) {
        Some(n) => (*n).to_string(),
        None => format!("TYPE {t}"),
    }
}

/// The record name of an event kind, as `otf2-print` writes it: its
/// [`EventKind::label`] in upper case, words joined by `_` (`MPI_ISEND_COMPLETE`,
/// and `THREAD_TEAM_BEGIN` for a record type this crate skips, but
/// `PARAMETER_INT64` and `PARAMETER_UINT64` for ParameterInt and
/// ParameterUnsignedInt; `OTHER <type>` for a type OTF2 does not define).
///
/// ```
/// use otf2_format::{dump::record_name, EventKind};
/// assert_eq!(record_name(&EventKind::MpiCollectiveBegin), "MPI_COLLECTIVE_BEGIN");
/// assert_eq!(record_name(&EventKind::Enter { region: 0 }), "ENTER");
/// assert_eq!(record_name(&EventKind::Other { record_type: 50 }), "RMA_OP_COMPLETE_NON_BLOCKING");
/// assert_eq!(record_name(&EventKind::Other { record_type: 99 }), "OTHER 99");
/// ```
pub fn record_name(kind: &EventKind) -> String {
    let name = match kind {
        // The two records otf2-print names by their value's type.
        EventKind::Other { record_type: 33 } => return "PARAMETER_INT64".into(),
        EventKind::Other { record_type: 34 } => return "PARAMETER_UINT64".into(),
        EventKind::Other { record_type } => match crate::event::event_type::name(*record_type) {
            Some(n) => n,
            None => return format!("OTHER {record_type}"),
        },
        k => k.name(),
    };
    let mut out = String::new();
    for (i, c) in name.char_indices() {
        if i > 0 && c.is_ascii_uppercase() {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

impl<'a> Dumper<'a> {
    /// A dumper for the archive whose definitions are `defs`.
    ///
    /// ```
    /// use otf2_format::{dump::Dumper, Archive};
    /// let archive = Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let d = Dumper::new(&archive.defs);
    /// let lines: Vec<String> = archive.events()?.map(|e| e.map(|e| d.event(&e))).collect::<Result<_, _>>()?;
    /// // otf2-print's columns: record name, location, timestamp, then fields
    /// // with names resolved ("foo" is the region entered).
    /// let enter = lines.iter().find(|l| l.starts_with("ENTER")).unwrap();
    /// assert!(enter.contains("Region: \"foo\""), "{enter}");
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn new(defs: &'a Definitions) -> Dumper<'a> {
        Dumper {
            defs,
            ranks: defs.comm_ranks(),
        }
    }

    /// `"text" <id>`: a string reference.
    fn string(&self, r: u32) -> String {
        if r == UNDEFINED {
            return "UNDEFINED".into();
        }
        format!("{:?} <{r}>", self.defs.string(r))
    }

    /// `"name" <id>` of a definition named by the string `name`, or
    /// `UNDEFINED`.
    fn named(&self, id: u64, name: Option<u32>) -> String {
        match name {
            _ if id == u64::from(UNDEFINED) || id == u64::MAX => "UNDEFINED".into(),
            Some(n) => format!("{:?} <{id}>", self.defs.string(n)),
            None => format!("<{id}>"),
        }
    }

    fn location(&self, id: u64) -> String {
        self.named(id, self.defs.location(id).map(|l| l.name))
    }

    fn region(&self, id: u32) -> String {
        self.named(u64::from(id), self.defs.regions.get(&id).map(|r| r.name))
    }

    fn comm(&self, id: u32) -> String {
        self.named(u64::from(id), self.defs.comms.get(&id).map(|c| c.name))
    }

    /// `N ("location" <id>)`: a rank of `comm` seen from `me`.
    fn rank(&self, comm: u32, rank: u32, me: u64) -> String {
        if rank == UNDEFINED {
            return "NONE".into();
        }
        match self.ranks.get(&comm).and_then(|r| r.location(rank, me)) {
            Some(l) => format!("{rank} ({})", self.location(l)),
            None => rank.to_string(),
        }
    }

    /// A typed value: numbers in full precision (floats in Rust's shortest
    /// form that reads back exactly), references by name.
    fn value(&self, t: u8, v: &Value) -> String {
        match *v {
            Value::Unsigned(u) => u.to_string(),
            Value::Signed(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Ref(r) => match (t, u32::try_from(r)) {
                (vt::LOCATION, _) => self.location(r),
                (vt::STRING, Ok(s)) => self.string(s),
                (14, Ok(g)) => self.region(g),
                (17, Ok(c)) => self.comm(c),
                _ => format!("<{r}>"),
            },
        }
    }

    fn attributes(&self, attrs: &[Attribute]) -> String {
        attrs
            .iter()
            .map(|a| {
                let name = self.named(
                    u64::from(a.attribute),
                    self.defs.attributes.get(&a.attribute).map(|d| d.name),
                );
                format!(
                    "({name}; {}; {})",
                    type_name(a.type_id),
                    self.value(a.type_id, &a.value)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The fields of an event, after its timestamp.
    ///
    /// ```
    /// use otf2_format::{dump::Dumper, Archive};
    /// let a = Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let first = a.events()?.next().unwrap()?; // entering region "foo"
    /// assert_eq!(Dumper::new(&a.defs).fields(&first), "Region: \"foo\" <0>");
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn fields(&self, e: &Event) -> String {
        let me = e.location;
        match &e.kind {
            EventKind::Enter { region } | EventKind::Leave { region } => {
                format!("Region: {}", self.region(*region))
            }
            EventKind::MpiSend {
                receiver,
                comm,
                tag,
                length,
            } => format!(
                "Receiver: {}, Communicator: {}, Tag: {tag}, Length: {length}",
                self.rank(*comm, *receiver, me),
                self.comm(*comm)
            ),
            EventKind::MpiIsend {
                receiver,
                comm,
                tag,
                length,
                request,
            } => format!(
                "Receiver: {}, Communicator: {}, Tag: {tag}, Length: {length}, Request: {request}",
                self.rank(*comm, *receiver, me),
                self.comm(*comm)
            ),
            EventKind::MpiRecv {
                sender,
                comm,
                tag,
                length,
            } => format!(
                "Sender: {}, Communicator: {}, Tag: {tag}, Length: {length}",
                self.rank(*comm, *sender, me),
                self.comm(*comm)
            ),
            EventKind::MpiIrecv {
                sender,
                comm,
                tag,
                length,
                request,
            } => format!(
                "Sender: {}, Communicator: {}, Tag: {tag}, Length: {length}, Request: {request}",
                self.rank(*comm, *sender, me),
                self.comm(*comm)
            ),
            EventKind::MpiIsendComplete { request }
            | EventKind::MpiIrecvRequest { request }
            | EventKind::MpiRequestTest { request }
            | EventKind::MpiRequestCancelled { request } => format!("Request: {request}"),
            EventKind::MpiCollectiveBegin => String::new(),
            EventKind::MpiCollectiveEnd {
                op,
                comm,
                root,
                sent,
                received,
            } => {
                let op = match COLLECTIVE_OPS.get(usize::from(*op)) {
                    Some(n) => n.to_ascii_uppercase(),
                    None => format!("OP {op}"),
                };
                format!(
                    "Operation: {op}, Communicator: {}, Root: {}, Sent: {sent}, Received: {received}",
                    self.comm(*comm),
                    self.rank(*comm, *root, me)
                )
            }
            EventKind::Metric { metric, values } => {
                let members = self.defs.metric_members_of(*metric);
                let list: Vec<String> = values
                    .iter()
                    .enumerate()
                    .map(|(i, (t, v))| {
                        let m = members.get(i).copied().unwrap_or(UNDEFINED);
                        let name = self.named(
                            u64::from(m),
                            self.defs.metric_members.get(&m).map(|mm| mm.name),
                        );
                        format!("({name}; {}; {})", type_name(*t), self.value(*t, v))
                    })
                    .collect();
                let noun = if values.len() == 1 { "Value" } else { "Values" };
                format!(
                    "Metric: {metric}, {} {noun}: {}",
                    values.len(),
                    list.join(", ")
                )
            }
            EventKind::ProgramBegin { name, arguments } => {
                let noun = if arguments.len() == 1 {
                    "Argument"
                } else {
                    "Arguments"
                };
                let mut t = format!("Name: {}, {} {noun}", self.string(*name), arguments.len());
                if !arguments.is_empty() {
                    let list: Vec<String> = arguments.iter().map(|&a| self.string(a)).collect();
                    let _ = write!(t, ": {}", list.join(", "));
                }
                t
            }
            EventKind::ProgramEnd { exit_status } => {
                if *exit_status == i64::MIN {
                    "Exit status: UNDEFINED".into()
                } else {
                    format!("Exit status: {exit_status}")
                }
            }
            EventKind::Other { .. } => String::new(),
        }
    }

    /// One event: `NAME location timestamp  fields` in `otf2-print`'s
    /// columns, then its attribute list (if any) on a continuation line
    /// starting at column [`CONTINUATION`].
    ///
    /// ```
    /// use otf2_format::{dump::Dumper, Archive};
    /// let a = Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let d = Dumper::new(&a.defs);
    /// let first = a.events()?.next().unwrap()?;
    /// let line = d.event(&first);
    /// assert!(line.starts_with("ENTER "));
    /// assert!(line.contains(&d.fields(&first)));
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn event(&self, e: &Event) -> String {
        let mut t = format!(
            "{:<32} {:>15} {:>20}  {}",
            record_name(&e.kind),
            e.location,
            e.time,
            self.fields(e)
        );
        if !e.attributes.is_empty() {
            let _ = write!(
                t,
                "\n{:CONTINUATION$}ADDITIONAL ATTRIBUTES: {}",
                "",
                self.attributes(&e.attributes)
            );
        }
        t
    }

    /// The global definitions, one per line: `KIND  ID  fields` (enumerated
    /// fields as their OTF2 codes), in the order clock, strings, attributes,
    /// system tree, location groups, locations, regions, groups,
    /// communicators, metric members, metrics.
    ///
    /// ```
    /// use otf2_format::{dump::Dumper, Archive};
    /// let a = Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let lines = Dumper::new(&a.defs).definitions();
    /// assert!(lines[0].starts_with("CLOCK_PROPERTIES"));
    /// assert_eq!(lines.iter().filter(|l| l.starts_with("LOCATION ")).count(), 2);
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn definitions(&self) -> Vec<String> {
        let d = self.defs;
        let c = &d.clock;
        let mut v = vec![format!(
            "{:<30} {:>7}  Ticks per Seconds: {}, Global Offset: {}, Length: {}",
            "CLOCK_PROPERTIES", "", c.timer_resolution, c.global_offset, c.trace_length
        )];
        let mut line = |kind: &str, id: u64, fields: String| {
            v.push(format!("{kind:<30} {id:>7}  {fields}"));
        };
        for (&id, s) in &d.strings {
            line("STRING", u64::from(id), format!("{s:?}"));
        }
        for (&id, a) in &d.attributes {
            let f = format!(
                "Name: {}, Description: {}, Type: {}",
                self.string(a.name),
                self.string(a.description),
                type_name(a.type_id)
            );
            line("ATTRIBUTE", u64::from(id), f);
        }
        for (&id, n) in &d.system_tree {
            let f = format!(
                "Name: {}, Class: {}, Parent: {}",
                self.string(n.name),
                self.string(n.class_name),
                self.node(n.parent)
            );
            line("SYSTEM_TREE_NODE", u64::from(id), f);
        }
        for (&id, g) in &d.location_groups {
            let f = format!(
                "Name: {}, Type: {}, Parent: {}",
                self.string(g.name),
                g.group_type,
                self.node(g.system_tree_parent)
            );
            line("LOCATION_GROUP", u64::from(id), f);
        }
        for (id, l) in &d.locations {
            let group = d.location_groups.get(&l.location_group).map(|g| g.name);
            let f = format!(
                "Name: {}, Type: {}, # Events: {}, Group: {}",
                self.string(l.name),
                l.location_type,
                l.number_of_events,
                self.named(u64::from(l.location_group), group)
            );
            line("LOCATION", *id, f);
        }
        for (&id, r) in &d.regions {
            let f = format!(
                "Name: {} (Aka. {}), Descr.: {}, Role: {}, Paradigm: {}, Flags: {}, File: {}, Begin: {}, End: {}",
                self.string(r.name),
                self.string(r.canonical_name),
                self.string(r.description),
                r.role,
                r.paradigm,
                r.flags,
                self.string(r.source_file),
                r.begin_line,
                r.end_line
            );
            line("REGION", u64::from(id), f);
        }
        for (&id, g) in &d.groups {
            let members: Vec<String> = g.members.iter().map(u64::to_string).collect();
            let f = format!(
                "Name: {}, Type: {}, Paradigm: {}, Flags: {}, {} Members: {}",
                self.string(g.name),
                g.group_type,
                g.paradigm,
                g.flags,
                g.members.len(),
                members.join(", ")
            );
            line("GROUP", u64::from(id), f);
        }
        for (&id, c) in &d.comms {
            let group = d.groups.get(&c.group).map(|g| g.name);
            let f = format!(
                "Name: {}, Group: {}, Parent: {}, Flags: {}",
                self.string(c.name),
                self.named(u64::from(c.group), group),
                self.comm(c.parent),
                c.flags
            );
            line("COMM", u64::from(id), f);
        }
        for (&id, m) in &d.metric_members {
            let f = format!(
                "Name: {}, Descr.: {}, Type: {}, Mode: {}, Value Type: {}, Base: {}, Exponent: {}, Unit: {}",
                self.string(m.name),
                self.string(m.description),
                m.metric_type,
                m.mode,
                type_name(m.value_type),
                m.base,
                m.exponent,
                self.string(m.unit)
            );
            line("METRIC_MEMBER", u64::from(id), f);
        }
        for (&id, m) in &d.metrics {
            let (kind, f) = match m {
                Metric::Class {
                    members,
                    occurrence,
                    recorder_kind,
                } => {
                    let names: Vec<String> = members
                        .iter()
                        .map(|&m| {
                            let name = d.metric_members.get(&m).map(|mm| mm.name);
                            self.named(u64::from(m), name)
                        })
                        .collect();
                    (
                        "METRIC_CLASS",
                        format!(
                            "Occurrence: {occurrence}, Kind: {recorder_kind}, {} Members: {}",
                            members.len(),
                            names.join(", ")
                        ),
                    )
                }
                Metric::Instance {
                    class,
                    recorder,
                    scope_type,
                    scope,
                } => (
                    "METRIC_INSTANCE",
                    format!(
                        "Class: {class}, Recorder: {}, Scope: {scope_type} {scope}",
                        self.location(*recorder)
                    ),
                ),
            };
            line(kind, u64::from(id), f);
        }
        v
    }

    fn node(&self, id: u32) -> String {
        self.named(
            u64::from(id),
            self.defs.system_tree.get(&id).map(|n| n.name),
        )
    }
}
