//! Trace statistics (`mpelog stats`): what Jumpshot's legend ratios, its
//! statistics/histogram window and SLOG-1's statistics section show, from the
//! drawables of a time window.
//!
//! Per category: how many drawables meet the window, their inclusive duration
//! (the part inside the window) and, for states, their exclusive duration
//! (inclusive minus the inclusive durations of the states directly nested in
//! them on the same timeline, as the `excl` ratio of the legend), each as sum,
//! mean, minimum and maximum, and the sum's share of the window. Per timeline the
//! same over every state. For arrows, a communication matrix (messages and bytes
//! per sender/receiver pair) and a histogram of message sizes. With bins, the
//! time each category covers in each of `bins` equal slices of the window.
//!
//! The drawables are fed by [`Accumulator::push`] in start order (ties: the
//! longer first), which [`slog2`] does for a SLOG-2 file by reading it in
//! consecutive slices of leaves, so memory stays bounded whatever the file size:
//! one slice of drawables and, per timeline, the states still open.
//!
//! ```
//! use mpelog::stats::{self, Options};
//! use slog2_format::convert::clog2_to_slog2;
//! use slog2_format::write::TreeOptions;
//! use std::io::Cursor;
//! let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
//! let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
//! let (out, conv) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
//! let mut r = slog2_format::Slog2Reader::new(Cursor::new(out.into_inner()))?;
//! let s = stats::slog2(&mut r, &Options::default())?;
//! let drawables: u64 = s.categories.iter().map(|c| c.count).sum();
//! assert_eq!(drawables, conv.tree.drawables);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::export::Ordered;
use crate::slices::Piece;
use serde::Serialize;
use slog2_format::types::{topology, Category, Primitive};
use slog2_format::Slog2Reader;
use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Seek};

/// The most histogram slices (each holds a map per category).
pub const MAX_BINS: usize = 100_000;

/// What to compute.
///
/// ```
/// let o = mpelog::stats::Options::default();
/// assert_eq!((o.from, o.to, o.bins), (None, None, 0)); // the whole file, no histogram
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// Start of the window (inclusive); `None`: the file's start.
    pub from: Option<f64>,
    /// End of the window (exclusive); `None`: just after the file's end. With
    /// neither bound, the whole file, whose window is its time box and whose
    /// durations are not clipped.
    pub to: Option<f64>,
    /// Number of equal time slices of the per-category histogram (0: none).
    pub bins: usize,
}

impl Options {
    /// Restricts the statistics to the drawables that meet `[from, to)`, with
    /// durations clipped to it (a missing bound is the file's start or end).
    ///
    /// ```
    /// let opts = mpelog::stats::Options::default().window(Some(1.5), None);
    /// assert_eq!((opts.from, opts.to, opts.bins), (Some(1.5), None, 0));
    /// ```
    pub fn window(mut self, from: Option<f64>, to: Option<f64>) -> Options {
        self.from = from;
        self.to = to;
        self
    }

    /// Adds a per-category histogram of `bins` equal slices of the window (at
    /// most [`MAX_BINS`]).
    ///
    /// ```
    /// let opts = mpelog::stats::Options::default().bins(10);
    /// assert_eq!((opts.from, opts.to, opts.bins), (None, None, 10));
    /// ```
    pub fn bins(mut self, bins: usize) -> Options {
        self.bins = bins.min(MAX_BINS);
        self
    }
}

/// Sum, mean, minimum and maximum of a set of durations, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Durations {
    /// How many.
    pub count: u64,
    /// Their sum.
    pub sum: f64,
    /// The smallest (0 when there is none).
    pub min: f64,
    /// The largest (0 when there is none).
    pub max: f64,
}

impl Default for Durations {
    fn default() -> Durations {
        Durations {
            count: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl Durations {
    fn add(&mut self, d: f64) {
        self.count += 1;
        self.sum += d;
        self.min = self.min.min(d);
        self.max = self.max.max(d);
    }

    /// The mean (0 when there is none).
    ///
    /// ```
    /// use mpelog::stats::Durations;
    /// assert_eq!(Durations::default().mean(), 0.0);
    /// let d = Durations { count: 4, sum: 2.0, min: 0.25, max: 1.0 };
    /// assert_eq!(d.mean(), 0.5);
    /// ```
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }

    fn finished(mut self) -> Durations {
        if self.count == 0 {
            self.min = 0.0;
            self.max = 0.0;
        }
        self
    }
}

/// The statistics of one category.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryStats {
    /// The category's index in the legend.
    pub index: i32,
    /// Its name.
    pub name: String,
    /// `state`, `arrow` or `event`.
    pub topology: &'static str,
    /// Drawables of the category that meet the window (the parts of composites
    /// count one by one).
    pub count: u64,
    /// Durations inside the window (states and arrows; events have none).
    pub inclusive: Durations,
    /// States: inclusive minus the directly nested states on the same timeline.
    pub exclusive: Durations,
    /// `inclusive.sum` over the window's width (the legend's `incl` ratio).
    pub inclusive_share: f64,
    /// `exclusive.sum` over the window's width (the legend's `excl` ratio).
    pub exclusive_share: f64,
}

/// The statistics of one timeline (line ID): its states, events and messages.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TimelineStats {
    /// The line ID.
    pub line: i32,
    /// States on it (inclusive durations inside the window).
    pub inclusive: Durations,
    /// Their exclusive durations.
    pub exclusive: Durations,
    /// `inclusive.sum` over the window's width.
    pub inclusive_share: f64,
    /// Events on it.
    pub events: u64,
    /// Arrows that start on it.
    pub sent: u64,
    /// Arrows that end on it.
    pub received: u64,
}

/// Messages from one timeline to another.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MessagePair {
    /// The sender's line ID (the arrow's start).
    pub sender: i32,
    /// The receiver's line ID (the arrow's end).
    pub receiver: i32,
    /// Arrows.
    pub messages: u64,
    /// Sum of their sizes (arrows whose info has a size field, `msg_size` in MPE's
    /// traces).
    pub bytes: u64,
}

/// One slice of the window with the time each category covers in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bin {
    /// Start of the slice.
    pub start: f64,
    /// End of the slice.
    pub end: f64,
    /// Per category index: states, the seconds they cover in the slice (summed
    /// over timelines); events and arrows, how many start in it.
    pub categories: BTreeMap<i32, f64>,
}

/// Everything [`slog2`] computes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    /// The window (the whole file's time box when none was asked).
    pub from: f64,
    /// End of the window.
    pub to: f64,
    /// Per category that has drawables in the window, by index.
    pub categories: Vec<CategoryStats>,
    /// Per timeline, by line ID.
    pub timelines: Vec<TimelineStats>,
    /// Per sender/receiver pair, by sender then receiver.
    pub messages: Vec<MessagePair>,
    /// Message sizes: `(upper bound, count)` for sizes `< 1`, `< 2`, `< 4`, …
    /// (powers of two), empty when no arrow has a size.
    pub message_sizes: Vec<(u64, u64)>,
    /// The histogram, when bins were asked.
    pub bins: Vec<Bin>,
    /// Per state category and timeline, by category index then line ID: the
    /// table two runs are compared by ([`crate::compare`]). Not in the JSON
    /// form of `mpelog stats`, whose tables it would double.
    #[serde(skip)]
    pub category_timelines: Vec<CategoryOnTimeline>,
}

/// The states of one category on one timeline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CategoryOnTimeline {
    /// The category's index.
    pub index: i32,
    /// The timeline's line ID.
    pub line: i32,
    /// States.
    pub count: u64,
    /// Their inclusive time, in seconds (clipped to the window).
    pub inclusive: f64,
    /// Their exclusive time (nested states' time taken out), in seconds.
    pub exclusive: f64,
}

/// A state still open on its timeline: a later state may nest in it.
#[derive(Debug, Clone, Copy)]
struct Open {
    category: i32,
    start: f64,
    end: f64,
    exclusive: f64,
}

#[derive(Debug, Default)]
struct PerCategory {
    count: u64,
    inclusive: Durations,
    exclusive: Durations,
}

/// What the accumulator keeps of a legend entry.
#[derive(Debug)]
struct Legend {
    name: String,
    topology: i32,
    /// Arrows: the info value holding the message size, and the info formats.
    size: Option<(usize, Vec<u8>)>,
}

/// Collects the statistics of drawables fed in start order.
#[derive(Debug)]
pub struct Accumulator {
    from: f64,
    to: f64,
    clip: bool,
    legend: HashMap<i32, Legend>,
    categories: BTreeMap<i32, PerCategory>,
    timelines: BTreeMap<i32, (TimelineStats, Vec<Open>)>,
    messages: BTreeMap<(i32, i32), MessagePair>,
    sizes: BTreeMap<u32, u64>,
    bins: Vec<Bin>,
    /// Per (category, line): count, inclusive and exclusive seconds.
    cross: BTreeMap<(i32, i32), CategoryOnTimeline>,
}

/// The index of the info value holding a message size: the first whose label
/// names a size (`msg_size` in MPE's traces) with an integer format.
fn size_field(c: &Category) -> Option<usize> {
    c.keys
        .iter()
        .take(c.types.len())
        .position(|k| k.text().to_ascii_lowercase().contains("size"))
        .filter(|&i| matches!(c.types[i], b'h' | b'd' | b'l' | b'x' | b'X'))
}

fn size_of(types: &[u8], info: &[u8], field: usize) -> Option<u64> {
    use slog2_format::info::InfoValue as V;
    let values = slog2_format::info::decode(types, info).ok()?;
    let v = match values.get(field)? {
        V::I16(v) => i64::from(*v),
        V::I32(v) | V::Hex32(v) => i64::from(*v),
        V::I64(v) | V::Hex64(v) => *v,
        _ => return None,
    };
    u64::try_from(v).ok()
}

impl Accumulator {
    /// An accumulator for the window `[from, to)` over the legend `categories`;
    /// `clip` clips durations to the window (off for a whole file, whose window
    /// is its time box), `bins` slices for the histogram.
    ///
    /// ```
    /// use mpelog::stats::Accumulator;
    /// use slog2_format::types::{topology, Category, JStr};
    /// let compute = Category { index: 1, name: JStr::new("Compute"), topology: topology::STATE, ..slog2_format::convert::arrow_category() };
    /// let mut acc = Accumulator::new(&[compute], 0.0, 10.0, true, 0);
    /// acc.push_piece(mpelog::slices::Piece { category: 1, first: (2.0, 0), last: (12.0, 0), start: 2.0, end: 12.0, info: &[] });
    /// let s = acc.finish();
    /// assert_eq!(s.categories[0].inclusive.sum, 8.0); // clipped to the window
    /// ```
    pub fn new(categories: &[Category], from: f64, to: f64, clip: bool, bins: usize) -> Self {
        let legend = categories
            .iter()
            .map(|c| {
                let size = if c.topology == topology::ARROW {
                    size_field(c).map(|i| (i, c.types.clone()))
                } else {
                    None
                };
                let name = c.name.text();
                (
                    c.index,
                    Legend {
                        name,
                        topology: c.topology,
                        size,
                    },
                )
            })
            .collect();
        let bins = bins.min(MAX_BINS);
        let width = (to - from) / bins.max(1) as f64;
        let bins = (0..bins)
            .map(|i| Bin {
                start: from + width * i as f64,
                end: if i + 1 == bins {
                    to
                } else {
                    from + width * (i + 1) as f64
                },
                categories: BTreeMap::new(),
            })
            .collect();
        Accumulator {
            from,
            to,
            clip,
            legend,
            categories: BTreeMap::new(),
            timelines: BTreeMap::new(),
            messages: BTreeMap::new(),
            sizes: BTreeMap::new(),
            bins,
            cross: BTreeMap::new(),
        }
    }

    fn clipped(&self, a: f64, b: f64) -> f64 {
        if self.clip {
            (b.min(self.to) - a.max(self.from)).max(0.0)
        } else {
            b - a
        }
    }

    fn topology(&self, category: i32) -> i32 {
        self.legend
            .get(&category)
            .map_or(topology::STATE, |l| l.topology)
    }

    /// The slice holding time `t`, clamped to the first and last (0 without
    /// slices).
    fn bin_of(&self, t: f64) -> usize {
        let n = self.bins.len();
        if n == 0 || self.to <= self.from {
            return 0;
        }
        let k = ((t - self.from) / (self.to - self.from) * n as f64).floor();
        // NaN and negative give 0; past the end the last slice.
        (k.max(0.0) as usize).min(n - 1)
    }

    /// Closes the states of `line` that do not contain `[start, end]`: no later
    /// state (they start no earlier) is nested in them either.
    fn close(&mut self, line: i32, start: f64, end: f64) {
        loop {
            let Some((_, open)) = self.timelines.get_mut(&line) else {
                return;
            };
            match open.last() {
                Some(top) if !(top.start <= start && end <= top.end) => {
                    let top = open.pop().expect("checked");
                    self.finish_state(line, top);
                }
                _ => return,
            }
        }
    }

    fn finish_state(&mut self, line: i32, s: Open) {
        let c = self.categories.entry(s.category).or_default();
        c.exclusive.add(s.exclusive);
        let t = &mut self.timelines.entry(line).or_default().0;
        t.exclusive.add(s.exclusive);
        self.cross_entry(s.category, line).exclusive += s.exclusive;
    }

    fn cross_entry(&mut self, category: i32, line: i32) -> &mut CategoryOnTimeline {
        self.cross
            .entry((category, line))
            .or_insert(CategoryOnTimeline {
                index: category,
                line,
                ..CategoryOnTimeline::default()
            })
    }

    /// Adds one real primitive. Primitives must come in start order (ties: the
    /// longer first), the parts of a composite one by one.
    ///
    /// ```
    /// use mpelog::stats::Accumulator;
    /// use slog2_format::types::{topology, Category, Coord, JStr, Primitive};
    /// let compute = Category { index: 1, name: JStr::new("Compute"), topology: topology::STATE, ..slog2_format::convert::arrow_category() };
    /// let mut acc = Accumulator::new(&[compute], 0.0, 10.0, false, 0);
    /// let state = |a, b| Primitive { category: 1, info: JStr::new(""), vertices: vec![Coord { time: a, line_id: 0 }, Coord { time: b, line_id: 0 }] };
    /// acc.push(&state(0.0, 4.0));
    /// acc.push(&state(1.0, 2.0)); // nested in the first
    /// let s = acc.finish();
    /// let c = &s.categories[0];
    /// assert_eq!((c.count, c.inclusive.sum, c.exclusive.sum), (2, 5.0, 4.0));
    /// ```
    pub fn push(&mut self, p: &Primitive) {
        if let Some(piece) = Piece::of_primitive(p) {
            self.push_piece(piece);
        }
    }

    /// [`push`](Self::push) of a borrowed primitive.
    ///
    /// ```
    /// use mpelog::{slices::Piece, stats::Accumulator};
    /// let msg = slog2_format::convert::arrow_category();
    /// let mut acc = Accumulator::new(&[msg], 0.0, 10.0, false, 0);
    /// let info: Vec<u8> = [7i32, 512].iter().flat_map(|v| v.to_be_bytes()).collect();
    /// acc.push_piece(Piece { category: 0, first: (1.0, 0), last: (1.5, 1), start: 1.0, end: 1.5, info: &info });
    /// let s = acc.finish();
    /// assert_eq!(s.categories[0].count, 1);
    /// assert_eq!(s.messages.len(), 1); // from timeline 0 to 1
    /// ```
    pub fn push_piece(&mut self, p: Piece<'_>) {
        let (first, last) = (p.first, p.last);
        let (start, end) = (p.start, p.end);
        let topo = self.topology(p.category);
        let inclusive = self.clipped(start, end);
        let c = self.categories.entry(p.category).or_default();
        c.count += 1;
        if topo != topology::EVENT {
            c.inclusive.add(inclusive);
        }
        match topo {
            topology::STATE => {
                let line = first.1;
                self.close(line, start, end);
                let (t, _) = &mut self.timelines.entry(line).or_insert_with(|| {
                    (
                        TimelineStats {
                            line,
                            ..Default::default()
                        },
                        Vec::new(),
                    )
                });
                t.inclusive.add(inclusive);
                let x = self.cross_entry(p.category, line);
                x.count += 1;
                x.inclusive += inclusive;
                let (_, open) = self.timelines.get_mut(&line).expect("entered above");
                // The enclosing state, if any, loses this one's time.
                if let Some(parent) = open.last_mut() {
                    parent.exclusive -= inclusive;
                }
                open.push(Open {
                    category: p.category,
                    start,
                    end,
                    exclusive: inclusive,
                });
                // Only the slices the state overlaps.
                let (first, last) = (self.bin_of(start), self.bin_of(end));
                for b in self.bins.iter_mut().take(last + 1).skip(first) {
                    let covered = (end.min(b.end) - start.max(b.start)).max(0.0);
                    if covered > 0.0 {
                        *b.categories.entry(p.category).or_insert(0.0) += covered;
                    }
                }
            }
            other => {
                if other == topology::ARROW {
                    let (from, to) = (first.1, last.1);
                    let size = self
                        .legend
                        .get(&p.category)
                        .and_then(|l| l.size.as_ref())
                        .and_then(|(field, types)| size_of(types, p.info, *field));
                    let m = self.messages.entry((from, to)).or_insert(MessagePair {
                        sender: from,
                        receiver: to,
                        ..Default::default()
                    });
                    m.messages += 1;
                    if let Some(size) = size {
                        m.bytes += size;
                        let class = 64 - size.leading_zeros();
                        *self.sizes.entry(class).or_insert(0) += 1;
                    }
                    self.timelines.entry(from).or_default().0.sent += 1;
                    self.timelines.entry(to).or_default().0.received += 1;
                } else {
                    self.timelines.entry(first.1).or_default().0.events += 1;
                }
                // The slice it happens in (the last slice holds its end: the end of
                // a whole file's window is its last time).
                if !self.bins.is_empty() && start >= self.from && start <= self.to {
                    let k = self.bin_of(start);
                    *self.bins[k].categories.entry(p.category).or_insert(0.0) += 1.0;
                }
            }
        }
    }

    /// The statistics.
    ///
    /// ```
    /// use mpelog::stats::Accumulator;
    /// let s = Accumulator::new(&[], 0.0, 1.0, true, 4).finish();
    /// assert!(s.categories.is_empty());
    /// assert_eq!((s.from, s.to), (0.0, 1.0));
    /// ```
    pub fn finish(mut self) -> Stats {
        let lines: Vec<i32> = self.timelines.keys().copied().collect();
        for line in lines {
            self.close(line, f64::INFINITY, f64::INFINITY);
        }
        let width = self.to - self.from;
        let share = |v: f64| if width > 0.0 { v / width } else { 0.0 };
        let categories = self
            .categories
            .iter()
            .map(|(&index, c)| {
                let (name, topo) = self
                    .legend
                    .get(&index)
                    .map_or((format!("category {index}"), topology::STATE), |l| {
                        (l.name.clone(), l.topology)
                    });
                CategoryStats {
                    index,
                    name,
                    topology: match topo {
                        topology::EVENT => "event",
                        topology::ARROW => "arrow",
                        _ => "state",
                    },
                    count: c.count,
                    inclusive: c.inclusive.finished(),
                    exclusive: c.exclusive.finished(),
                    inclusive_share: share(c.inclusive.sum),
                    exclusive_share: share(c.exclusive.sum),
                }
            })
            .collect();
        let timelines = self
            .timelines
            .into_iter()
            .map(|(line, (mut t, _))| {
                t.line = line;
                t.inclusive_share = share(t.inclusive.sum);
                t.inclusive = t.inclusive.finished();
                t.exclusive = t.exclusive.finished();
                t
            })
            .collect();
        Stats {
            from: self.from,
            to: self.to,
            categories,
            timelines,
            messages: self.messages.into_values().collect(),
            message_sizes: self
                .sizes
                .into_iter()
                .map(|(class, n)| (1u64.checked_shl(class).unwrap_or(u64::MAX), n))
                .collect(),
            bins: self.bins,
            category_timelines: self.cross.into_values().collect(),
        }
    }
}

/// The statistics of a SLOG-2 file (plain or compressed), read in slices of
/// leaves so that memory stays bounded: each slice is one window query, and
/// each drawable is counted in the slice where it starts.
///
/// ```
/// use slog2_format::{convert::clog2_to_slog2, write::TreeOptions};
/// use slog2_format::Slog2Reader;
/// use std::io::Cursor;
///
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let (slog2, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
/// let mut r = Slog2Reader::new(Cursor::new(slog2.into_inner()))?;
/// let s = mpelog::stats::slog2(&mut r, &mpelog::stats::Options::default().window(Some(0.0), Some(0.1)))?;
/// let send = s.categories.iter().find(|c| c.name == "MPI_Send").expect("sends");
/// assert!(send.count > 0 && send.inclusive.sum > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// The [`slog2_format::Error`] of a node that cannot be read or resolved.
pub fn slog2<R: Read + Seek>(
    r: &mut Slog2Reader<R>,
    opts: &Options,
) -> slog2_format::Result<Stats> {
    let categories: Vec<Category> = r.category_list().to_vec();
    of_tree(r, &categories, opts)
}

/// The statistics of a CLOG2 trace through its annotation file, read in slices
/// of the annotation's leaves as [`slog2`] reads a SLOG-2 file: the same
/// statistics as those of the SLOG-2 file converted from the trace.
///
/// ```
/// use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
/// use slog2_format::{convert::clog2_to_slog2, Slog2Reader};
/// use std::io::Cursor;
///
/// let trace = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
/// let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
/// let mut a = Annotation::new(Cursor::new(idx.into_inner()), Cursor::new(&trace[..]))?;
/// let window = mpelog::stats::Options::default().window(Some(0.1), Some(0.2));
/// let ours = mpelog::stats::annotation(&mut a, &window)?;
///
/// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// let (slog2, _) = clog2_to_slog2(&mut reader, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// let mut r = Slog2Reader::new(Cursor::new(slog2.into_inner()))?;
/// let converted = mpelog::stats::slog2(&mut r, &window)?;
/// assert!(ours.categories.iter().any(|c| c.count > 0));
/// assert_eq!(ours.categories, converted.categories);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// The [`mpelog_annotate::Error`] of a node or a leaf that cannot be read,
/// or of trace bytes that changed since the annotation was made.
pub fn annotation<A: Read + Seek, T: Read + Seek>(
    ann: &mut mpelog_annotate::Annotation<A, T>,
    opts: &Options,
) -> mpelog_annotate::Result<Stats> {
    let categories = ann.categories().categories.clone();
    of_tree(ann, &categories, opts)
}

/// The statistics of a conversion put in start order (CLOG2, old CLOG, ALOG,
/// SLOG-1 read in one pass; [`crate::export::one_pass`]): the same as those of
/// the converted SLOG-2 file.
///
/// # Errors
///
/// The I/O error of reading `src`'s sorted runs back.
///
/// ```
/// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
/// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let sink = mpelog::export::sorted::StartOrder::new();
/// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
/// use mpelog::stats::{one_pass, Options};
/// let s = one_pass(&mut sorted, &Options::default())?;
/// let send = s.categories.iter().find(|c| c.name == "MPI_Send").expect("sends");
/// assert!(send.count > 0 && send.inclusive.sum > 0.0);
/// assert!(!s.messages.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn one_pass(src: &mut crate::export::sorted::Sorted, opts: &Options) -> std::io::Result<Stats> {
    let categories = src.categories().to_vec();
    of_tree(src, &categories, opts)
}

pub(crate) fn of_tree<T: Ordered>(
    tree: &mut T,
    categories: &[Category],
    opts: &Options,
) -> Result<Stats, T::Error> {
    let span = tree.span(opts.from, opts.to);
    let mut acc = Accumulator::new(categories, span.from, span.to, span.clipped, opts.bins);
    tree.pieces(span, &mut |p| acc.push_piece(p))?;
    Ok(acc.finish())
}
