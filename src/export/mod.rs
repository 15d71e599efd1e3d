//! Exporting a trace to the formats today's tools open (`mpelog export`):
//! Perfetto's protobuf trace ([`perfetto`]), the Chrome trace-event JSON that
//! Perfetto and Trace Compass read ([`chrome`]), pipit's CSV layout for pandas
//! ([`pipit`]) and, with the default `parquet` feature, Parquet for SQL engines
//! and data frames (`parquet`, one row per drawable).
//!
//! The drawables are read in start order with bounded memory
//! ([`crate::slices`]) and turned into one stream of timed items, in time order,
//! that every writer consumes ([`Sink`]): a state is entered and left on a track
//! of its timeline, an event is an instant, an arrow is a zero-length slice at
//! its send point and another at its receive point joined by a flow.
//!
//! **Tracks.** A timeline is a row of the chosen view (a line-ID map: "Process
//! View", "Communicator View", ...); several line IDs with the same row share it.
//! States nest on track 0 of their timeline as they nest in time; a state that
//! overlaps another without nesting in it goes to the next track of the same
//! timeline where it nests, so that every track is properly nested. Events and
//! the ends of arrows go to track 0.

pub mod chrome;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod perfetto;
pub mod pipit;

use crate::slices::{self, Tree};
use slog2_format::types::{topology, Category, LineIdMap, Primitive};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::io;

/// What to export.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// Start of the window (inclusive); `None`: the file's start.
    pub from: Option<f64>,
    /// End of the window (exclusive); `None`: after the file's end.
    pub to: Option<f64>,
    /// The view (line-ID map) whose rows are the timelines, by title (any case)
    /// or position; `None`: the file's first map.
    pub view: Option<String>,
}

impl Options {
    /// Exports the drawables that meet `[from, to)` (a missing bound is the
    /// file's start or end).
    pub fn window(mut self, from: Option<f64>, to: Option<f64>) -> Options {
        self.from = from;
        self.to = to;
        self
    }

    /// Picks the view by title or position.
    pub fn view(mut self, view: Option<String>) -> Options {
        self.view = view;
        self
    }
}

/// A legend entry as the writers need it.
#[derive(Debug, Clone, PartialEq)]
pub struct Cat {
    /// Index in the legend.
    pub index: i32,
    /// Name.
    pub name: String,
    /// Colour as `#rrggbb`.
    pub color: String,
    /// The category's info labels and formats, to decode info bytes.
    pub keys: Vec<String>,
    /// Info value formats.
    pub types: Vec<u8>,
}

impl Cat {
    fn of(c: &Category) -> Cat {
        Cat {
            index: c.index,
            name: c.name.text(),
            color: format!("#{:02x}{:02x}{:02x}", c.argb[1], c.argb[2], c.argb[3]),
            keys: c.keys.iter().map(|k| k.text()).collect(),
            types: c.types.clone(),
        }
    }

    /// The info values as `(label, text)` pairs, labels trimmed of `=`, `,`
    /// and spaces (`msg_tag=` → `msg_tag`); a buffer the formats do not decode
    /// gives one pair `("info", hex)`.
    pub fn args(&self, info: &[u8]) -> Vec<(String, ArgValue)> {
        if info.is_empty() {
            return Vec::new();
        }
        use slog2_format::info::InfoValue as V;
        match slog2_format::info::decode(&self.types, info) {
            Ok(values) if !values.is_empty() => values
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    let label = self
                        .keys
                        .get(i)
                        .map(|k| {
                            k.trim_matches(|c: char| {
                                c == '=' || c == ',' || c == ':' || c.is_whitespace()
                            })
                            .to_string()
                        })
                        .filter(|k| !k.is_empty())
                        .unwrap_or_else(|| format!("arg{i}"));
                    let value = match v {
                        V::Str(b) => ArgValue::Text(String::from_utf8_lossy(&b).into_owned()),
                        V::I16(x) => ArgValue::Int(i64::from(x)),
                        V::I32(x) | V::Hex32(x) => ArgValue::Int(i64::from(x)),
                        V::I64(x) | V::Hex64(x) => ArgValue::Int(x),
                        V::F32(x) => ArgValue::Float(f64::from(x)),
                        V::F64(x) => ArgValue::Float(x),
                    };
                    (label, value)
                })
                .collect(),
            _ => vec![(
                "info".to_string(),
                ArgValue::Text(info.iter().map(|b| format!("{b:02x}")).collect()),
            )],
        }
    }
}

/// A decoded info value.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// Text.
    Text(String),
}

/// One track: a timeline (a row of the view) and, when states overlap without
/// nesting, a further lane of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// Dense index, in order of first use.
    pub id: u32,
    /// The timeline's row values in the view (e.g. the world rank).
    pub row: Vec<i32>,
    /// The timeline's name: the view's labels with the row values.
    pub name: String,
    /// 0 for the timeline's first track, 1.. for the extra ones.
    pub lane: u32,
}

/// A writer of the exported items, called in time order.
pub trait Sink {
    /// The start, before anything else: the exported window `[from, to]` (a
    /// whole file's time box) and `first`, the earliest time any item has (the
    /// start of a state that began before the window; `from` otherwise).
    fn start(&mut self, from: f64, to: f64, first: f64) -> io::Result<()>;
    /// A track used for the first time (before any item on it).
    fn track(&mut self, track: &Track) -> io::Result<()>;
    /// A state starts.
    fn enter(&mut self, time: f64, track: &Track, cat: &Cat, info: &[u8]) -> io::Result<()>;
    /// The state entered last on `track` and not yet left ends.
    fn leave(&mut self, time: f64, track: &Track, cat: &Cat) -> io::Result<()>;
    /// An event.
    fn instant(&mut self, time: f64, track: &Track, cat: &Cat, info: &[u8]) -> io::Result<()>;
    /// An arrow leaves `track` (`to` is where it arrives); `flow` joins it to its
    /// [`receive`](Sink::receive), which comes later in the stream unless the
    /// arrow goes back in time.
    fn send(
        &mut self,
        time: f64,
        track: &Track,
        to: &Track,
        flow: u64,
        cat: &Cat,
        info: &[u8],
    ) -> io::Result<()>;
    /// An arrow arrives on `track` from `from`.
    fn receive(
        &mut self,
        time: f64,
        track: &Track,
        from: &Track,
        flow: u64,
        cat: &Cat,
        info: &[u8],
    ) -> io::Result<()>;
    /// The end of the stream.
    fn finish(&mut self) -> io::Result<()>;
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error<E: std::error::Error + 'static> {
    /// Reading the input failed.
    #[error(transparent)]
    Read(E),
    /// Writing the output failed.
    #[error("writing: {0}")]
    Write(#[from] io::Error),
    /// The view asked for is not in the file.
    #[error("no view {asked:?} in the file (its views: {known})")]
    NoView {
        /// The view asked for.
        asked: String,
        /// The file's views.
        known: String,
    },
}

/// What an export wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// States (slices).
    pub states: u64,
    /// Events (instants).
    pub events: u64,
    /// Arrows (flows).
    pub arrows: u64,
    /// Tracks.
    pub tracks: u64,
}

/// A pending item: a state's end or an arrow's arrival.
#[derive(Debug, Clone)]
enum Pending {
    Leave {
        track: u32,
        cat: i32,
    },
    Send {
        flow: u64,
        track: u32,
        to: u32,
        cat: i32,
        info: Vec<u8>,
    },
    Receive {
        flow: u64,
        track: u32,
        from: u32,
        cat: i32,
        info: Vec<u8>,
    },
}

/// An open state on a lane.
#[derive(Debug, Clone, Copy)]
struct Open {
    start: f64,
    end: f64,
    /// Its pending leave.
    id: u64,
}

/// A time that orders totally.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Time(f64);
impl Eq for Time {}
impl PartialOrd for Time {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Time {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

struct Driver<'s, S: Sink> {
    sink: &'s mut S,
    /// The legend and each entry's topology (categories the legend lacks are
    /// added on first use).
    cats: HashMap<i32, (Cat, i32)>,
    /// Line ID -> index in `row_values`; rows of the view with equal values
    /// share an index.
    rows: HashMap<i32, usize>,
    /// Each row's values in the view.
    row_values: Vec<Vec<i32>>,
    labels: Vec<String>,
    /// Per row index: its lanes, each a track and its open states.
    lanes: Vec<Vec<(u32, Vec<Open>)>>,
    tracks: Vec<Track>,
    /// Pending leaves of states that close when a new one arrives (reused).
    closing: Vec<u64>,
    /// Pending items by time; at equal times the later pushed first (a state
    /// nested in another and ending with it leaves first).
    heap: BinaryHeap<Reverse<(Time, Reverse<u64>)>>,
    pending: HashMap<u64, Pending>,
    seq: u64,
    flows: u64,
    counts: Counts,
}

impl<S: Sink> Driver<'_, S> {
    /// The topology of category `i`, adding a grey legend entry for a category
    /// the legend lacks.
    fn topology(&mut self, i: i32) -> i32 {
        self.cats
            .entry(i)
            .or_insert_with(|| {
                (
                    Cat {
                        index: i,
                        name: format!("category {i}"),
                        color: "#808080".into(),
                        keys: Vec::new(),
                        types: Vec::new(),
                    },
                    topology::STATE,
                )
            })
            .1
    }

    /// The row index of `line`: its view row, or a row of its own.
    fn row(&mut self, line: i32) -> usize {
        let next = self.row_values.len();
        let r = *self.rows.entry(line).or_insert(next);
        if r == next {
            self.row_values.push(vec![line]);
            self.lanes.push(Vec::new());
        }
        r
    }

    /// The track of lane `lane` of row `r`, declared on first use.
    fn lane_track(&mut self, r: usize, lane: usize) -> io::Result<u32> {
        loop {
            let have = self.lanes[r].len();
            if have > lane {
                return Ok(self.lanes[r][lane].0);
            }
            let row = &self.row_values[r];
            let id = self.tracks.len() as u32;
            let values: Vec<String> = row.iter().map(|v| v.to_string()).collect();
            let name = if self.labels.len() == row.len() && !self.labels.is_empty() {
                self.labels
                    .iter()
                    .zip(&values)
                    .map(|(l, v)| format!("{l} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                format!("line {}", values.join(","))
            };
            let t = Track {
                id,
                row: row.to_vec(),
                name,
                lane: have as u32,
            };
            self.sink.track(&t)?;
            self.counts.tracks += 1;
            self.tracks.push(t);
            self.lanes[r].push((id, Vec::new()));
        }
    }

    fn push(&mut self, time: f64, p: Pending) -> u64 {
        self.seq += 1;
        self.heap.push(Reverse((Time(time), Reverse(self.seq))));
        self.pending.insert(self.seq, p);
        self.seq
    }

    /// Emits the pending items before `time` (every one for infinity).
    fn flush(&mut self, time: f64) -> io::Result<()> {
        while let Some(&Reverse((Time(t), Reverse(seq)))) = self.heap.peek() {
            if !(t < time || time == f64::INFINITY) {
                break;
            }
            self.heap.pop();
            if let Some(p) = self.pending.remove(&seq) {
                self.emit(t, p)?;
            }
        }
        Ok(())
    }

    fn emit(&mut self, t: f64, p: Pending) -> io::Result<()> {
        match p {
            Pending::Leave { track, cat } => {
                let c = &self.cats[&cat].0;
                self.sink.leave(t, &self.tracks[track as usize], c)
            }
            Pending::Send {
                flow,
                track,
                to,
                cat,
                info,
            } => {
                let c = &self.cats[&cat].0;
                let (from, to) = (&self.tracks[track as usize], &self.tracks[to as usize]);
                self.sink.send(t, from, to, flow, c, &info)
            }
            Pending::Receive {
                flow,
                track,
                from,
                cat,
                info,
            } => {
                let c = &self.cats[&cat].0;
                let (to, from) = (&self.tracks[track as usize], &self.tracks[from as usize]);
                self.sink.receive(t, to, from, flow, c, &info)
            }
        }
    }

    fn primitive(&mut self, p: &Primitive) -> io::Result<()> {
        let (Some(first), Some(last)) = (p.vertices.first(), p.vertices.last()) else {
            return Ok(());
        };
        let (start, end) = (p.earliest(), p.latest());
        self.flush(start)?;
        let topo = self.topology(p.category);
        let info = &p.info.bytes;
        match topo {
            topology::EVENT => {
                let row = self.row(first.line_id);
                let t = self.lane_track(row, 0)?;
                self.counts.events += 1;
                let cat = &self.cats[&p.category].0;
                self.sink
                    .instant(start, &self.tracks[t as usize], cat, info)
            }
            topology::ARROW => {
                let (a, b) = (self.row(first.line_id), self.row(last.line_id));
                let from = self.lane_track(a, 0)?;
                let to = self.lane_track(b, 0)?;
                self.flows += 1;
                let flow = self.flows;
                // Both ends in time order with everything else (a receive can
                // come before its send when clocks disagree).
                self.push(
                    first.time,
                    Pending::Send {
                        flow,
                        track: from,
                        to,
                        cat: p.category,
                        info: info.clone(),
                    },
                );
                self.push(
                    last.time,
                    Pending::Receive {
                        flow,
                        track: to,
                        from,
                        cat: p.category,
                        info: info.clone(),
                    },
                );
                self.counts.arrows += 1;
                Ok(())
            }
            _ => {
                let row = self.row(first.line_id);
                let mut lane = 0;
                loop {
                    let track = self.lane_track(row, lane)?;
                    // Close the states of this lane that end by `start` and do
                    // not contain the new one; those ending at `start` leave now.
                    let mut closing = std::mem::take(&mut self.closing);
                    let stack = &mut self.lanes[row][lane].1;
                    while let Some(top) = stack.last() {
                        let contains = top.start <= start && end <= top.end;
                        if contains || top.end > start {
                            break;
                        }
                        closing.push(stack.pop().expect("checked").id);
                    }
                    let fits = stack
                        .last()
                        .is_none_or(|top| top.start <= start && end <= top.end);
                    for id in closing.drain(..) {
                        if let Some(p) = self.pending.remove(&id) {
                            self.emit(start, p)?;
                        }
                    }
                    self.closing = closing;
                    if fits {
                        let id = self.push(
                            end,
                            Pending::Leave {
                                track,
                                cat: p.category,
                            },
                        );
                        self.lanes[row][lane].1.push(Open { start, end, id });
                        self.counts.states += 1;
                        let cat = &self.cats[&p.category].0;
                        return self
                            .sink
                            .enter(start, &self.tracks[track as usize], cat, info);
                    }
                    lane += 1;
                }
            }
        }
    }
}

/// Exports the drawables of `tree` (a SLOG-2 reader or an annotation) that meet
/// the window of `opts` to `sink`, with the legend `categories` and the views
/// `maps`.
pub fn export<T: Tree, S: Sink>(
    tree: &mut T,
    categories: &[Category],
    maps: &[LineIdMap],
    opts: &Options,
    sink: &mut S,
) -> Result<Counts, Error<T::Error>>
where
    T::Error: std::error::Error + 'static,
{
    let map = match &opts.view {
        None => maps.first(),
        Some(v) => {
            let found = v
                .parse::<usize>()
                .ok()
                .and_then(|i| maps.get(i))
                .or_else(|| maps.iter().find(|m| m.title.text().eq_ignore_ascii_case(v)));
            Some(found.ok_or_else(|| {
                Error::NoView {
                    asked: v.clone(),
                    known: maps
                        .iter()
                        .enumerate()
                        .map(|(i, m)| format!("{i} {:?}", m.title.text()))
                        .collect::<Vec<_>>()
                        .join(", "),
                }
            })?)
        }
    };
    let mut d = Driver {
        sink,
        cats: categories
            .iter()
            .map(|c| (c.index, (Cat::of(c), c.topology)))
            .collect(),
        rows: HashMap::new(),
        row_values: Vec::new(),
        labels: map
            .map(|m| m.labels.iter().map(|l| l.text()).collect())
            .unwrap_or_default(),
        lanes: Vec::new(),
        tracks: Vec::new(),
        closing: Vec::new(),
        heap: BinaryHeap::new(),
        pending: HashMap::new(),
        seq: 0,
        flows: 0,
        counts: Counts::default(),
    };
    // The view's rows, one index per distinct row of values.
    let mut by_values: HashMap<&[i32], usize> = HashMap::new();
    for r in map.map_or(&[][..], |m| &m.rows[..]) {
        let next = d.row_values.len();
        let i = *by_values.entry(&r.values[..]).or_insert(next);
        if i == next {
            d.row_values.push(r.values.clone());
            d.lanes.push(Vec::new());
        }
        d.rows.insert(r.line_id, i);
    }
    let span = slices::span(&tree.entries(), opts.from, opts.to);
    let mut written = Ok(());
    let mut started = false;
    slices::visit(tree, span, |p| {
        if !started {
            // The first primitive has the earliest start of all.
            started = true;
            written = d
                .sink
                .start(span.from, span.to, p.earliest().min(span.from));
        }
        if written.is_ok() {
            written = d.primitive(p);
        }
    })
    .map_err(Error::Read)?;
    written?;
    if !started {
        d.sink.start(span.from, span.to, span.from)?;
    }
    d.flush(f64::INFINITY)?;
    d.sink.finish()?;
    Ok(d.counts)
}

/// [`export`] of a SLOG-2 file (plain or compressed).
pub fn slog2<R: std::io::Read + std::io::Seek, S: Sink>(
    r: &mut slog2_format::Slog2Reader<R>,
    opts: &Options,
    sink: &mut S,
) -> Result<Counts, Error<slog2_format::Error>> {
    let categories = r
        .categories()
        .map(|c| c.value.categories.clone())
        .unwrap_or_default();
    let maps = r
        .line_id_maps()
        .map(|m| m.value.maps.clone())
        .unwrap_or_default();
    export(r, &categories, &maps, opts, sink)
}

/// [`export`] of a CLOG2 trace through its annotation.
pub fn annotation<A: std::io::Read + std::io::Seek, T: std::io::Read + std::io::Seek, S: Sink>(
    a: &mut mpelog_annotate::Annotation<A, T>,
    opts: &Options,
    sink: &mut S,
) -> Result<Counts, Error<mpelog_annotate::Error>> {
    let categories = a.categories().categories.clone();
    let maps = a.line_id_maps().maps.clone();
    export(a, &categories, &maps, opts, sink)
}
