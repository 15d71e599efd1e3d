//! OTF2 → SLOG-2 in one pass (spec/otf2.md §9): the archive's events, merged
//! in time order, become drawables as they complete and go straight to the
//! tree writer (or any [`PrimSink`]).
//!
//! * **States**: each Leave closes the Enter of the same region on top of its
//!   location's stack: one state per pair, named by the region, on the
//!   location's timeline. A Leave that does not match the top is dropped and
//!   counted; states still open at the end close at the last event's time.
//! * **Arrows**: sends (MpiSend, MpiIsend) and receives (MpiRecv, MpiIrecv)
//!   are matched as MPI matches them: per communicator, source location,
//!   destination location and tag, in order; info: tag, the send's size and
//!   the communicator.
//! * **Collectives**: an MpiCollectiveBegin and the next MpiCollectiveEnd of
//!   its location make a state named by the operation; info: communicator,
//!   root, bytes sent and received, the location's rank in the communicator
//!   and the communicator's size (from its group definition; -1 when
//!   unknown), so that collectives can be matched per communicator.
//! * **Metrics**: each Metric record is an event of a category per metric
//!   (its first four values in info). Every other event is counted.
//! * Times: `(ticks − global offset) / timer resolution` seconds. Lines: one
//!   per location, in definition order. Colours: by region name within the
//!   hue band of its paradigm (MPI reds, OpenMP and threads blues, user and
//!   compiler greens, accelerators purples), the same on every run.

use super::clog2::events::info_keys;
use super::colors::argb;
use super::{ConvertStats, PairStats, Unmatched};
use crate::error::{Error, Result};
use crate::types::{topology, Category, JStr, LineIdMap, LineIdRow};
use crate::write::{Prim, PrimSink, TreeOptions, TreeWriter};
use otf2_format::defs::{Definitions, Ranks};
use otf2_format::{Archive, Event, EventKind, Value};
use std::collections::{BTreeMap, VecDeque};
// Fx, not SipHash: the maps are looked up per event (a line per location, the
// pending sends and receives), and SipHash was 5% of reading an archive.
use rustc_hash::FxHashMap as HashMap;
use std::io::{Seek, Write};

/// Index of the arrow category (`message`).
pub const ARROW_CATEGORY: i32 = 0;

/// The info of a `collective <op>` state: the communicator, the root, the
/// bytes sent and received, the location's rank in the communicator and the
/// communicator's size (-1 when unknown).
pub const COLLECTIVE_INFO: &str = "comm=%d, root=%d, sent=%l, received=%l, rank=%d, size=%d";

/// Values a metric event keeps in its info (8 bytes each, 32 bytes of info).
pub const METRIC_VALUES: usize = 4;

/// Collective operation names by OTF2 code.
pub use otf2_format::event::COLLECTIVE_OPS;

/// What an OTF2 conversion read and drew, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Otf2Counts {
    /// Events read.
    pub events: u64,
    /// States drawn from Enter/Leave pairs.
    pub states: u64,
    /// Arrows drawn from matched sends and receives.
    pub arrows: u64,
    /// States drawn from collective begin/end pairs.
    pub collectives: u64,
    /// Events drawn from Metric records.
    pub metrics: u64,
    /// Events neither drawn nor paired (request tests, completions, program
    /// begin and end, …), by event name; other record types as `type N`.
    pub counted: BTreeMap<String, u64>,
}

/// Converts `archive` into a SLOG-2 file written to `out` (which must be at
/// its start). `progress` is called now and then with the events read.
///
/// # Errors
/// [`Error::Otf2`] for a damaged archive (naming the file and offset);
/// [`Error::Empty`] for an archive without drawables; I/O errors.
///
/// ```
/// use slog2_format::convert::otf2::otf2_to_slog2;
/// use slog2_format::write::TreeOptions;
/// let archive = otf2_format::Archive::open(concat!(
///     env!("CARGO_MANIFEST_DIR"), "/../otf2-format/tests/data/tiny"))?;
/// let (out, stats) =
///     otf2_to_slog2(&archive, std::io::Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
/// let counts = stats.otf2.unwrap();
/// assert_eq!((counts.states, counts.arrows), (1, 1));
/// assert_eq!(stats.tree.drawables, 4); // the state, the arrow, a collective, a metric
/// assert!(slog2_format::looks_like(out.get_ref()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn otf2_to_slog2<W: Write + Seek>(
    archive: &Archive,
    out: W,
    opts: TreeOptions,
    progress: impl FnMut(u64),
) -> Result<(W, ConvertStats)> {
    let tree = TreeWriter::new(out, opts)?;
    let ((out, tree), stats) = otf2_into(archive, tree, progress)?;
    Ok((out, stats.with_tree(tree)))
}

/// Hands the drawables of `archive` to `sink` in increasing end time, then
/// the legend and the line-ID maps; `progress` as [`otf2_to_slog2`]'s.
///
/// # Errors
/// As [`otf2_to_slog2`], and the sink's errors.
///
/// ```
/// use slog2_format::write::{TreeOptions, TreeWriter};
/// let archive = otf2_format::Archive::open(concat!(
///     env!("CARGO_MANIFEST_DIR"), "/../otf2-format/tests/data/tiny"))?;
/// let tree = TreeWriter::new(std::io::Cursor::new(Vec::new()), TreeOptions::default())?;
/// let ((_, tree_stats), stats) = slog2_format::convert::otf2_into(&archive, tree, |_| {})?;
/// let counts = stats.otf2.unwrap();
/// assert_eq!((tree_stats.drawables, counts.states, counts.arrows), (4, 1, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn otf2_into<P: PrimSink>(
    archive: &Archive,
    mut sink: P,
    mut progress: impl FnMut(u64),
) -> Result<(P::Output, PairStats)> {
    let otf2 = |e: otf2_format::Error| Error::Otf2(Box::new(e));
    let mut d = Otf2Drawables::new(&archive.defs);
    let mut events = archive.events().map_err(otf2)?;
    let mut prims = Vec::new();
    while let Some(e) = events.next_event().map_err(otf2)? {
        d.push_into(&e, &mut prims);
        for p in prims.drain(..) {
            sink.add(p)?;
        }
        if d.counts.events % 65536 == 0 {
            progress(d.counts.events);
        }
    }
    progress(d.counts.events);
    let (prims, cats, maps, unmatched, counts) = d.finish();
    for p in prims {
        sink.add(p)?;
    }
    let output = sink.finish(&cats, maps)?;
    let stats = PairStats {
        records: counts.events,
        input_bytes: 0,
        unmatched,
        otf2: Some(counts),
    };
    Ok((output, stats))
}

/// A send or receive waiting for its partner: time, line, size.
type Waiting = (f64, i32, u64);

/// The pairing state of a conversion: the stacks of open regions, the
/// waiting messages, the categories made so far.
pub struct Otf2Drawables<'a> {
    defs: &'a Definitions,
    lines: HashMap<u64, i32>,
    comms: HashMap<u32, Ranks>,
    /// Per communicator used by a collective: location → rank.
    comm_members: HashMap<u32, HashMap<u64, i32>>,
    stacks: Vec<Vec<(u32, f64, i32)>>,
    open_collectives: Vec<Option<f64>>,
    sends: HashMap<(u32, u64, u64, u32), VecDeque<Waiting>>,
    recvs: HashMap<(u32, u64, u64, u32), VecDeque<Waiting>>,
    region_cats: HashMap<u32, i32>,
    collective_cats: HashMap<u8, i32>,
    metric_cats: HashMap<u32, (i32, Vec<u8>)>,
    cats: Vec<Category>,
    unmatched: Unmatched,
    counts: Otf2Counts,
    last: f64,
    res: f64,
    offset: u64,
}

impl<'a> Otf2Drawables<'a> {
    /// Starts a conversion of an archive with definitions `defs`.
    ///
    /// ```
    /// use slog2_format::convert::otf2::Otf2Drawables;
    /// let archive = otf2_format::Archive::open(concat!(
    ///     env!("CARGO_MANIFEST_DIR"), "/../otf2-format/tests/data/tiny"))?;
    /// let d = Otf2Drawables::new(&archive.defs);
    /// let (prims, _, maps, _, counts) = d.finish(); // nothing pushed
    /// assert!(prims.is_empty());
    /// assert_eq!(counts.events, 0);
    /// assert!(!maps.is_empty()); // the views of the archive's locations
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(defs: &'a Definitions) -> Otf2Drawables<'a> {
        let lines: HashMap<u64, i32> = defs
            .locations
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (*id, i32::try_from(i).unwrap_or(i32::MAX)))
            .collect();
        let n = defs.locations.len();
        let (keys, types) = info_keys("tag=%d, size=%l, comm=%d");
        // MPE's arrow category, with OTF2's message fields as its info.
        let arrow = Category {
            keys,
            types,
            ..super::clog2::events::arrow_category()
        };
        Otf2Drawables {
            defs,
            lines,
            comms: defs.comm_ranks().into_iter().collect(),
            comm_members: HashMap::default(),
            stacks: vec![Vec::new(); n],
            open_collectives: vec![None; n],
            sends: HashMap::default(),
            recvs: HashMap::default(),
            region_cats: HashMap::default(),
            collective_cats: HashMap::default(),
            metric_cats: HashMap::default(),
            cats: vec![arrow],
            unmatched: Unmatched::default(),
            counts: Otf2Counts::default(),
            last: f64::NEG_INFINITY,
            res: defs.clock.timer_resolution.max(1) as f64,
            offset: defs.clock.global_offset,
        }
    }

    fn seconds(&mut self, ticks: u64) -> f64 {
        let t = (i128::from(ticks) - i128::from(self.offset)) as f64 / self.res;
        if t < self.last {
            self.unmatched.bad_times += 1;
            return self.last;
        }
        self.last = t;
        t
    }

    fn category(&mut self, name: &str, topo: i32, rgb: [u8; 3], format: &str) -> i32 {
        let index = self.cats.len() as i32;
        let (keys, types) = info_keys(format);
        self.cats.push(Category {
            index,
            name: JStr::new(name),
            topology: topo,
            argb: argb(rgb, 255),
            modifiable: 1,
            width: 1,
            keys,
            types,
            methods: Vec::new(),
            summary: None,
        });
        index
    }

    fn region_category(&mut self, region: u32) -> i32 {
        if let Some(&c) = self.region_cats.get(&region) {
            return c;
        }
        let (name, paradigm) = match self.defs.regions.get(&region) {
            Some(r) => (self.defs.string(r.name).to_string(), r.paradigm),
            None => (format!("region {region}"), 0),
        };
        let c = self.category(&name, topology::STATE, region_color(&name, paradigm), "");
        self.region_cats.insert(region, c);
        c
    }

    fn count(&mut self, what: &str) {
        match self.counts.counted.get_mut(what) {
            Some(n) => *n += 1,
            None => {
                self.counts.counted.insert(what.to_string(), 1);
            }
        }
    }

    /// The rank of location `me` in `comm` and the communicator's size
    /// (`(-1, -1)` when the communicator or `me` in it is unknown).
    fn rank_in(&mut self, comm: u32, me: u64) -> (i32, i32) {
        let Some(ranks) = self.comms.get(&comm) else {
            return (-1, -1);
        };
        let by_location = self
            .comm_members
            .entry(comm)
            .or_insert_with(|| match ranks {
                Ranks::SelfComm => HashMap::default(),
                Ranks::List(l) => {
                    let mut m = HashMap::with_capacity_and_hasher(l.len(), Default::default());
                    for (i, &loc) in l.iter().enumerate() {
                        m.entry(loc).or_insert(i32::try_from(i).unwrap_or(i32::MAX));
                    }
                    m
                }
            });
        match ranks {
            Ranks::SelfComm => (0, 1),
            Ranks::List(l) => (
                by_location.get(&me).copied().unwrap_or(-1),
                i32::try_from(l.len()).unwrap_or(i32::MAX),
            ),
        }
    }

    /// The location of `rank` in `comm`, seen from location `me`.
    fn rank_location(&self, comm: u32, rank: u32, me: u64) -> Option<u64> {
        self.comms.get(&comm)?.location(rank, me)
    }

    /// A send (`send`) or a receive at location `me`, time and line `at`, of
    /// `(comm, partner rank, tag, length)`: the arrow when its other end
    /// waits, else it waits for it. A receive's arrow takes the send's length.
    fn message(
        &mut self,
        send: bool,
        me: u64,
        (comm, partner, tag, length): (u32, u32, u32, u64),
        at: (f64, i32),
        out: &mut Vec<Prim>,
    ) {
        let Some(other) = self.rank_location(comm, partner, me) else {
            match send {
                true => self.unmatched.sends += 1,
                false => self.unmatched.recvs += 1,
            }
            return;
        };
        let (key, mine, theirs) = match send {
            true => ((comm, me, other, tag), &mut self.sends, &mut self.recvs),
            false => ((comm, other, me, tag), &mut self.recvs, &mut self.sends),
        };
        match pop(theirs, key) {
            Some((ot, ol, their_length)) => {
                let (from, to, size) = match send {
                    true => (at, (ot, ol), length),
                    false => ((ot, ol), at, their_length),
                };
                out.push(arrow(from, to, tag, size, comm));
                self.counts.arrows += 1;
            }
            None => mine.entry(key).or_default().push_back((at.0, at.1, length)),
        }
    }

    /// Takes the next event (in time order) and gives the drawables it
    /// completes.
    ///
    /// ```
    /// use slog2_format::convert::otf2::Otf2Drawables;
    /// let archive = otf2_format::Archive::open(concat!(
    ///     env!("CARGO_MANIFEST_DIR"), "/../otf2-format/tests/data/tiny"))?;
    /// let mut d = Otf2Drawables::new(&archive.defs);
    /// let mut events = archive.events()?;
    /// let mut prims = Vec::new();
    /// while let Some(e) = events.next_event()? {
    ///     prims.extend(d.push(&e));
    /// }
    /// assert_eq!(prims.len(), 4); // a state, an arrow, a collective, a metric
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push(&mut self, e: &Event) -> Vec<Prim> {
        let mut out = Vec::new();
        self.push_into(e, &mut out);
        out
    }

    /// As [`Otf2Drawables::push`], appending the drawables to `out` (no
    /// allocation per event once `out` has room).
    ///
    /// ```
    /// use slog2_format::convert::otf2::Otf2Drawables;
    /// let archive = otf2_format::Archive::open(concat!(
    ///     env!("CARGO_MANIFEST_DIR"), "/../otf2-format/tests/data/tiny"))?;
    /// let mut d = Otf2Drawables::new(&archive.defs);
    /// let mut events = archive.events()?;
    /// let mut prims = Vec::new();
    /// while let Some(e) = events.next_event()? {
    ///     d.push_into(&e, &mut prims);
    /// }
    /// assert_eq!(prims.len(), 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push_into(&mut self, e: &Event, out: &mut Vec<Prim>) {
        self.counts.events += 1;
        let Some(&line) = self.lines.get(&e.location) else {
            self.count("event of an undefined location");
            return;
        };
        let li = line as usize;
        let t = self.seconds(e.time);
        match &e.kind {
            EventKind::Enter { region } => {
                let c = self.region_category(*region);
                self.stacks[li].push((*region, t, c));
            }
            EventKind::Leave { region } => match self.stacks[li].last() {
                Some(&(r, start, c)) if r == *region => {
                    self.stacks[li].pop();
                    out.push(Prim::two(c, topology::STATE, (start, line), (t, line), &[]));
                    self.counts.states += 1;
                }
                _ => self.unmatched.state_finals += 1,
            },
            EventKind::MpiSend {
                receiver: partner,
                comm,
                tag,
                length,
            }
            | EventKind::MpiIsend {
                receiver: partner,
                comm,
                tag,
                length,
                ..
            } => self.message(
                true,
                e.location,
                (*comm, *partner, *tag, *length),
                (t, line),
                out,
            ),
            EventKind::MpiRecv {
                sender: partner,
                comm,
                tag,
                length,
            }
            | EventKind::MpiIrecv {
                sender: partner,
                comm,
                tag,
                length,
                ..
            } => self.message(
                false,
                e.location,
                (*comm, *partner, *tag, *length),
                (t, line),
                out,
            ),
            EventKind::MpiCollectiveBegin => {
                if self.open_collectives[li].replace(t).is_some() {
                    self.unmatched.state_starts += 1;
                }
            }
            EventKind::MpiCollectiveEnd {
                op,
                comm,
                root,
                sent,
                received,
            } => match self.open_collectives[li].take() {
                Some(start) => {
                    let c = self.collective_category(*op);
                    let (rank, size) = self.rank_in(*comm, e.location);
                    let mut info = Vec::with_capacity(32);
                    info.extend((*comm as i32).to_be_bytes());
                    info.extend((*root as i32).to_be_bytes());
                    info.extend((*sent as i64).to_be_bytes());
                    info.extend((*received as i64).to_be_bytes());
                    info.extend(rank.to_be_bytes());
                    info.extend(size.to_be_bytes());
                    out.push(Prim::two(
                        c,
                        topology::STATE,
                        (start, line),
                        (t, line),
                        &info,
                    ));
                    self.counts.collectives += 1;
                }
                None => self.unmatched.state_finals += 1,
            },
            EventKind::Metric { metric, values } => {
                let c = self.metric_category(*metric, values);
                let types = &self.metric_cats[metric].1;
                let mut info = [0u8; 8 * METRIC_VALUES];
                let mut n = 0;
                for ((_, v), ty) in values.iter().zip(types.iter()) {
                    let bytes = match (ty, v) {
                        (b'E', Value::Float(f)) => f.to_be_bytes(),
                        (b'E', Value::Signed(i)) => (*i as f64).to_be_bytes(),
                        (b'E', Value::Unsigned(u) | Value::Ref(u)) => (*u as f64).to_be_bytes(),
                        (_, Value::Float(f)) => (*f as i64).to_be_bytes(),
                        (_, Value::Signed(i)) => i.to_be_bytes(),
                        (_, Value::Unsigned(u) | Value::Ref(u)) => (*u as i64).to_be_bytes(),
                    };
                    info[n..n + 8].copy_from_slice(&bytes);
                    n += 8;
                }
                let info = &info[..n];
                out.push(Prim::event(c, t, line, info));
                self.counts.metrics += 1;
            }
            other => self.count(&other.label()),
        }
    }

    fn collective_category(&mut self, op: u8) -> i32 {
        if let Some(&c) = self.collective_cats.get(&op) {
            return c;
        }
        let name = match COLLECTIVE_OPS.get(usize::from(op)) {
            Some(n) => format!("collective {n}"),
            None => format!("collective {op}"),
        };
        let rgb = region_color(&name, 4);
        let c = self.category(&name, topology::STATE, rgb, COLLECTIVE_INFO);
        self.collective_cats.insert(op, c);
        c
    }

    fn metric_category(&mut self, metric: u32, values: &[(u8, Value)]) -> i32 {
        if let Some(c) = self.metric_cats.get(&metric) {
            return c.0;
        }
        let members = self.defs.metric_members_of(metric);
        let mut names = Vec::new();
        let mut format = String::new();
        let mut types = Vec::new();
        for (i, (ty, _)) in values.iter().take(METRIC_VALUES).enumerate() {
            let name = members
                .get(i)
                .and_then(|m| self.defs.metric_members.get(m))
                .map(|m| self.defs.string(m.name).to_string())
                .unwrap_or_else(|| format!("value {i}"));
            let t = if *ty == otf2_format::event::value_type::DOUBLE {
                'E'
            } else {
                'l'
            };
            if i > 0 {
                format.push_str(", ");
            }
            format.push_str(&format!("{name}=%{t}"));
            types.push(t as u8);
            names.push(name);
        }
        let name = format!("metric {}", names.join(", "));
        let c = self.category(&name, topology::EVENT, [255, 255, 0], &format);
        self.metric_cats.insert(metric, (c, types));
        c
    }

    /// Closes what is still open at the end: states close at the last time
    /// (counted in `states_closed_at_end`); open collectives and waiting
    /// messages are dropped and counted. Gives those states (in end-time
    /// order), the legend, the line-ID maps, what was unmatched and the counts.
    ///
    /// ```
    /// use slog2_format::convert::otf2::Otf2Drawables;
    /// let archive = otf2_format::Archive::open(concat!(
    ///     env!("CARGO_MANIFEST_DIR"), "/../otf2-format/tests/data/tiny"))?;
    /// let mut d = Otf2Drawables::new(&archive.defs);
    /// let mut events = archive.events()?;
    /// while let Some(e) = events.next_event()? {
    ///     d.push(&e);
    /// }
    /// let (open, categories, _, unmatched, counts) = d.finish();
    /// assert!(open.is_empty()); // every region was left
    /// assert_eq!(unmatched.states_closed_at_end, 0);
    /// assert_eq!((counts.states, counts.arrows), (1, 1));
    /// assert!(!categories.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(
        mut self,
    ) -> (
        Vec<Prim>,
        Vec<Category>,
        Vec<LineIdMap>,
        Unmatched,
        Otf2Counts,
    ) {
        let end = self.last;
        let mut prims = Vec::new();
        for (li, stack) in self.stacks.iter().enumerate() {
            for &(_, start, c) in stack.iter().rev() {
                let line = li as i32;
                prims.push(Prim::two(
                    c,
                    topology::STATE,
                    (start, line),
                    (end, line),
                    &[],
                ));
                self.unmatched.states_closed_at_end += 1;
                self.counts.states += 1;
            }
        }
        self.unmatched.state_starts += self.open_collectives.iter().flatten().count() as u64;
        self.unmatched.sends += self.sends.values().map(|q| q.len() as u64).sum::<u64>();
        self.unmatched.recvs += self.recvs.values().map(|q| q.len() as u64).sum::<u64>();
        let maps = line_maps(self.defs);
        (prims, self.cats, maps, self.unmatched, self.counts)
    }
}

fn pop(
    map: &mut HashMap<(u32, u64, u64, u32), VecDeque<Waiting>>,
    key: (u32, u64, u64, u32),
) -> Option<Waiting> {
    let q = map.get_mut(&key)?;
    let w = q.pop_front();
    if q.is_empty() {
        map.remove(&key);
    }
    w
}

fn arrow(from: (f64, i32), to: (f64, i32), tag: u32, size: u64, comm: u32) -> Prim {
    let mut info = Vec::with_capacity(16);
    info.extend((tag as i32).to_be_bytes());
    info.extend((size as i64).to_be_bytes());
    info.extend((comm as i32).to_be_bytes());
    Prim::two(ARROW_CATEGORY, topology::ARROW, from, to, &info)
}

/// Two views: the location's group and its place in it ("Process View":
/// process, thread), first, so that every tool's default view, as MPE's
/// first, has the processes in its first column (an export's `Process`, a
/// Perfetto process: a rank, its threads within it); and one row per
/// location ("Location View").
fn line_maps(defs: &Definitions) -> Vec<LineIdMap> {
    let n = defs.locations.len() as i32;
    let groups: BTreeMap<u32, usize> = defs
        .location_groups
        .keys()
        .enumerate()
        .map(|(i, g)| (*g, i))
        .collect();
    let mut within: HashMap<u32, i32> = HashMap::default();
    let rows = defs
        .locations
        .iter()
        .enumerate()
        .map(|(i, (_, l))| {
            let k = within.entry(l.location_group).or_insert(0);
            let thread = *k;
            *k += 1;
            let process = groups.get(&l.location_group).map_or(-1, |&g| g as i32);
            LineIdRow {
                line_id: i as i32,
                values: vec![process, thread],
            }
        })
        .collect();
    vec![
        LineIdMap {
            title: JStr::new("Process View"),
            ncols: 2,
            labels: vec![JStr::new("process"), JStr::new("thread")],
            rows,
            methods: Vec::new(),
        },
        crate::write::one_column_map("Location View", "location", 0..n),
    ]
}

/// A region's colour: a hue from its paradigm's band, placed in the band (and
/// its saturation and value chosen) by a hash of its name, so the same
/// region gets the same colour in every conversion.
///
/// ```
/// use slog2_format::convert::otf2::region_color;
/// assert_eq!(region_color("MPI_Send", 1), region_color("MPI_Send", 1)); // the same in every run
/// assert_ne!(region_color("MPI_Send", 1), region_color("MPI_Recv", 1));
/// ```
pub fn region_color(name: &str, paradigm: u8) -> [u8; 3] {
    // FNV-1a, 64 bits.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let (lo, hi) = match paradigm {
        4 => (0.0, 40.0),                   // MPI: reds and oranges
        3 | 7 | 14..=17 => (190.0, 250.0),  // OpenMP, threads: blues
        0..=2 => (70.0, 165.0),             // user, compiler, unknown: greens
        5 | 18 | 19 | 23 => (265.0, 320.0), // CUDA, OpenACC, OpenCL, HIP: purples
        6 => return [0x99, 0x99, 0x99],     // measurement system: grey
        _ => (0.0, 360.0),
    };
    let frac = |bits: u64| (bits & 0xffff) as f64 / 65535.0;
    let hue = lo + (hi - lo) * frac(h);
    let s = 0.55 + 0.4 * frac(h >> 16);
    let v = 0.75 + 0.25 * frac(h >> 32);
    hsv(hue, s, v)
}

fn hsv(h: f64, s: f64, v: f64) -> [u8; 3] {
    let c = v * s;
    let hp = (h % 360.0) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    let q = |f: f64| ((f + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    [q(r), q(g), q(b)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_stable_and_paradigm_banded() {
        assert_eq!(region_color("MPI_Send", 4), region_color("MPI_Send", 4));
        for name in ["MPI_Send", "MPI_Recv", "MPI_Bcast", "MPI_Init"] {
            let [r, g, b] = region_color(name, 4);
            assert!(
                r >= g && r > b,
                "{name}: MPI is red-orange, got {r} {g} {b}"
            );
        }
        for name in ["!$omp parallel", "!$omp barrier"] {
            let [r, _, b] = region_color(name, 3);
            assert!(b > r, "{name}: OpenMP is blue");
        }
        let [r, g, b] = region_color("main", 1);
        assert!(g > r && g > b, "user code is green");
    }
}
