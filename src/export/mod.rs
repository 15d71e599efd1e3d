//! Exporting a trace to the formats today's tools open (`mpelog export`):
//! Perfetto's protobuf trace ([`perfetto`]), the Chrome trace-event JSON that
//! Perfetto and Trace Compass read ([`chrome`]), pipit's CSV layout for pandas
//! ([`pipit`]) and, with the default `parquet` feature, Parquet for SQL engines
//! and data frames (`parquet`, one row per drawable).
//!
//! The drawables are read in one total start order with bounded memory
//! ([`Ordered`]): a SLOG-2 file or an annotation in slices of leaves
//! ([`crate::slices`]), a CLOG2, old CLOG, ALOG or SLOG-1 trace in one pass,
//! its events paired by the converters' code and put in order by
//! [`sorted::StartOrder`]. They become one stream of timed items, in time
//! order, that every writer consumes ([`Sink`]; on a thread of its own with
//! [`threaded::on_a_thread`]): a state is entered and left on a track of its
//! timeline, an event is an instant, an arrow is a zero-length slice at its
//! send point and another at its receive point joined by a flow. The whole
//! mapping is specified in spec/export.md, so the output is the same bytes
//! whatever the input's format, tree shape or memory.
//!
//! **Tracks.** A timeline is a row of the chosen view (a line-ID map: "Process
//! View", "Communicator View", ...); several line IDs with the same row share it.
//! States nest on track 0 of their timeline as they nest in time; a state that
//! overlaps another without nesting in it goes to the next track of the same
//! timeline where it nests, so that every track is properly nested. Events and
//! the ends of arrows go to track 0. Tracks are ordered by their timeline's
//! row values in the view (the rank in the process view), then lane
//! ([`Track::sort_key`]).

pub mod chrome;
pub mod info_columns;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod perfetto;
pub mod pipit;
pub mod pipit_columns;
pub mod sorted;
pub(crate) mod streamed;
#[cfg(test)]
mod tests;
pub mod threaded;

pub use crate::slices::Piece;
use crate::slices::{self, Span, Tree};
use rustc_hash::FxHashMap;
use slog2_format::types::{topology, Category, LineIdMap};
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
    /// Memory for putting a conversion's primitives in start order
    /// ([`sorted::StartOrder::memory`]); `None`: [`sorted::DEFAULT_MEMORY`].
    pub sort_memory: Option<usize>,
}

impl Options {
    /// Exports the drawables that meet `[from, to)` (a missing bound is the
    /// file's start or end).
    ///
    /// ```
    /// use mpelog::export::Options;
    /// let opts = Options::default().window(Some(0.5), None);
    /// assert_eq!((opts.from, opts.to), (Some(0.5), None)); // from 0.5 s to the end
    /// ```
    pub fn window(mut self, from: Option<f64>, to: Option<f64>) -> Options {
        self.from = from;
        self.to = to;
        self
    }

    /// Picks the view by title or position.
    ///
    /// ```
    /// use mpelog::export::Options;
    /// let opts = Options::default().view(Some("Communicator View".into()));
    /// assert_eq!(opts.view.as_deref(), Some("Communicator View"));
    /// assert_eq!(Options::default().view, None); // the file's first view
    /// ```
    pub fn view(mut self, view: Option<String>) -> Options {
        self.view = view;
        self
    }

    /// Sets the memory for putting a conversion's primitives in start order.
    ///
    /// ```
    /// use mpelog::export::Options;
    /// assert_eq!(Options::default().sort_memory(1 << 20).sort_memory, Some(1 << 20));
    /// assert_eq!(Options::default().sort_memory, None); // the default memory
    /// ```
    pub fn sort_memory(mut self, bytes: usize) -> Options {
        self.sort_memory = Some(bytes);
        self
    }

    /// A [`sorted::StartOrder`] sink for these options: their window and
    /// sort memory.
    ///
    /// ```
    /// use mpelog::export::Options;
    /// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let opts = Options::default().window(Some(0.0), Some(0.01));
    /// let (sorted, _) = slog2_format::convert::clog2_into(&mut reader, opts.start_order(), |_| {})?;
    /// let (start, end) = sorted.time_box().unwrap();
    /// assert!(start < 0.01 && end > 0.01); // the trace goes on after the window ...
    /// assert!(!sorted.is_empty()); // ... and only what meets it was kept
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_order(&self) -> sorted::StartOrder {
        let s = sorted::StartOrder::new().window(self.from, self.to);
        match self.sort_memory {
            Some(m) => s.memory(m),
            None => s,
        }
    }
}

/// A legend entry as the writers need it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
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
    /// The argument name of each info value: its label trimmed of `=`, `,`,
    /// `:` and spaces (`msg_tag=` → `msg_tag`), `arg<i>` where that is empty.
    pub labels: Vec<String>,
}

impl Cat {
    /// The entry of legend category `c`.
    ///
    /// ```
    /// let cat = mpelog::export::Cat::of(&slog2_format::convert::arrow_category());
    /// assert_eq!((cat.index, cat.name.as_str(), cat.color.as_str()), (0, "message", "#ffffff"));
    /// assert_eq!(cat.labels, ["msg_tag", "msg_size"]);
    /// ```
    pub fn of(c: &Category) -> Cat {
        Cat::new(
            c.index,
            c.name.text(),
            format!("#{:02x}{:02x}{:02x}", c.argb[1], c.argb[2], c.argb[3]),
            c.keys.iter().map(|k| k.text()).collect(),
            c.types.clone(),
        )
    }

    /// An entry from its parts (the labels are made from the keys).
    ///
    /// ```
    /// use mpelog::export::Cat;
    /// let cat = Cat::new(3, "Compute".into(), "#00ff00".into(), vec!["phase=".into(), "".into()], b"dd".to_vec());
    /// assert_eq!(cat.labels, ["phase", "arg1"]); // an empty label is named by its place
    /// ```
    pub fn new(index: i32, name: String, color: String, keys: Vec<String>, types: Vec<u8>) -> Cat {
        let labels = (0..types.len())
            .map(|i| {
                let k = keys.get(i).map_or("", |k| {
                    k.trim_matches(|c: char| c == '=' || c == ',' || c == ':' || c.is_whitespace())
                });
                if k.is_empty() {
                    format!("arg{i}")
                } else {
                    k.to_string()
                }
            })
            .collect();
        Cat {
            index,
            name,
            color,
            keys,
            types,
            labels,
        }
    }

    /// The grey entry of a category the legend lacks.
    ///
    /// ```
    /// let cat = mpelog::export::Cat::unknown(9);
    /// assert_eq!((cat.name.as_str(), cat.color.as_str()), ("category 9", "#808080"));
    /// assert!(cat.args(&[1, 2]).len() == 1); // no formats: the bytes as hex
    /// ```
    pub fn unknown(index: i32) -> Cat {
        Cat::new(
            index,
            format!("category {index}"),
            "#808080".into(),
            Vec::new(),
            Vec::new(),
        )
    }

    /// The info values as `(label, value)` pairs (see [`Cat::each_arg`]).
    ///
    /// ```
    /// use mpelog::export::{ArgValue, Cat};
    /// let cat = Cat::of(&slog2_format::convert::arrow_category());
    /// let args = cat.args(&[0, 0, 0, 9, 0, 0, 1, 0]);
    /// assert_eq!(args, [("msg_tag".to_string(), ArgValue::Int(9)), ("msg_size".to_string(), ArgValue::Int(256))]);
    /// assert_eq!(cat.args(&[1, 2, 3]), [("info".to_string(), ArgValue::Text("010203".into()))]); // cut
    /// ```
    pub fn args(&self, info: &[u8]) -> Vec<(String, ArgValue)> {
        let mut out = Vec::new();
        self.each_arg(info, |k, v| out.push((k.to_string(), v.to_owned())));
        out
    }

    /// Calls `f` with each info value and its label, in format order, without
    /// allocating for a valid buffer; a buffer the formats do not decode gives
    /// one value `("info", hex)`; an empty one gives none.
    ///
    /// ```
    /// use mpelog::export::{ArgRef, Cat};
    ///
    /// let cat = Cat::new(0, "message".into(), "#ffffff".into(),
    ///     vec!["msg_tag=".into(), ", msg_size=".into()], b"dd".to_vec());
    /// let mut args = Vec::new();
    /// cat.each_arg(&[0, 0, 0, 9, 0, 0, 1, 0], |k, v| args.push((k.to_string(), v.to_owned())));
    /// assert_eq!(args, [("msg_tag".to_string(), ArgRef::Int(9).to_owned()),
    ///                   ("msg_size".to_string(), ArgRef::Int(256).to_owned())]);
    /// ```
    pub fn each_arg(&self, info: &[u8], mut f: impl FnMut(&str, ArgRef<'_>)) {
        use slog2_format::info::{visit, InfoRef};
        if info.is_empty() {
            return;
        }
        // Decoded once to check, once to hand out: a buffer that fails half
        // way gives the hex text alone.
        if !self.types.is_empty() && visit(&self.types, info, |_, _| {}).is_ok() {
            let _ = visit(&self.types, info, |i, v| {
                let arg = match v {
                    InfoRef::Str(b) => ArgRef::Text(String::from_utf8_lossy(b)),
                    InfoRef::I16(x) => ArgRef::Int(i64::from(x)),
                    InfoRef::I32(x) | InfoRef::Hex32(x) => ArgRef::Int(i64::from(x)),
                    InfoRef::I64(x) | InfoRef::Hex64(x) => ArgRef::Int(x),
                    InfoRef::F32(x) => ArgRef::Float(f64::from(x)),
                    InfoRef::F64(x) => ArgRef::Float(x),
                };
                f(&self.labels[i], arg);
            });
            return;
        }
        let hex: String = info.iter().map(|b| format!("{b:02x}")).collect();
        f("info", ArgRef::Text(hex.into()));
    }
}

/// A decoded info value, borrowed from the info bytes where it can be.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgRef<'a> {
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// Text.
    Text(std::borrow::Cow<'a, str>),
}

impl ArgRef<'_> {
    /// The value, owned.
    ///
    /// ```
    /// use mpelog::export::{ArgRef, ArgValue};
    /// assert_eq!(ArgRef::Text("MPI_Send".into()).to_owned(), ArgValue::Text("MPI_Send".into()));
    /// assert_eq!(ArgRef::Float(0.5).to_owned(), ArgValue::Float(0.5));
    /// ```
    pub fn to_owned(&self) -> ArgValue {
        match self {
            ArgRef::Int(i) => ArgValue::Int(*i),
            ArgRef::Float(x) => ArgValue::Float(*x),
            ArgRef::Text(t) => ArgValue::Text(t.to_string()),
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
#[non_exhaustive]
pub struct Track {
    /// Dense index, in order of first use.
    pub id: u32,
    /// The timeline's row values in the view (e.g. the world rank).
    pub row: Vec<i32>,
    /// The timeline's name: the view's labels with the row values.
    pub name: String,
    /// 0 for the timeline's first track, 1.. for the extra ones.
    pub lane: u32,
    /// Where the timeline comes in the view: the rows sorted by their values
    /// (by rank in the process view), then rows the view lacks in order of
    /// first use. Writers sort tracks by `(order, lane)`.
    pub order: u32,
}

impl Track {
    /// The track's position among all tracks as one number: `order`, then
    /// `lane` (at most 1023 lanes apart), saturated to `i32::MAX`.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let sink = mpelog::export::sorted::StartOrder::new();
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
    /// use mpelog::export::{Counts, Flow, Options, Sink, Track, Cat};
    /// // A sink that keeps the tracks it is told about.
    /// #[derive(Default)]
    /// struct Tracks(Vec<Track>);
    /// impl Sink for Tracks {
    ///     fn start(&mut self, _: f64, _: f64, _: f64) -> std::io::Result<()> { Ok(()) }
    ///     fn track(&mut self, t: &Track) -> std::io::Result<()> { self.0.push(t.clone()); Ok(()) }
    ///     fn enter(&mut self, _: f64, _: &Track, _: &Cat, _: &[u8]) -> std::io::Result<()> { Ok(()) }
    ///     fn leave(&mut self, _: f64, _: &Track, _: &Cat) -> std::io::Result<()> { Ok(()) }
    ///     fn instant(&mut self, _: f64, _: &Track, _: &Cat, _: &[u8]) -> std::io::Result<()> { Ok(()) }
    ///     fn send(&mut self, _: &Flow<'_>) -> std::io::Result<()> { Ok(()) }
    ///     fn receive(&mut self, _: &Flow<'_>) -> std::io::Result<()> { Ok(()) }
    ///     fn finish(&mut self) -> std::io::Result<()> { Ok(()) }
    /// }
    /// let mut tracks = Tracks::default();
    /// let counts: Counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut tracks)?;
    /// assert_eq!(tracks.0.len() as u64, counts.tracks);
    /// let t = &tracks.0[0];
    /// assert_eq!(t.sort_key(), (t.order * 1024 + t.lane) as i32);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sort_key(&self) -> i32 {
        let key = i64::from(self.order) * 1024 + i64::from(self.lane.min(1023));
        i32::try_from(key).unwrap_or(i32::MAX)
    }
}

/// One end of an arrow, as a [`Sink`] gets it: at `time` on `track`, from or
/// to `other`, joined to its other end by `flow`.
#[derive(Debug, Clone, Copy)]
pub struct Flow<'a> {
    /// When the arrow leaves (a send) or arrives (a receive).
    pub time: f64,
    /// The track of this end.
    pub track: &'a Track,
    /// The track of the other end.
    pub other: &'a Track,
    /// The number that joins the two ends.
    pub flow: u64,
    /// The arrow's category.
    pub cat: &'a Cat,
    /// Its info bytes.
    pub info: &'a [u8],
}

/// Asserts that the sink `make` builds over a buffered writer holds what it
/// writes until [`Sink::finish`] flushes it (`inner` reaches that writer).
#[cfg(test)]
pub(crate) fn assert_finish_flushes<S: Sink>(
    make: impl FnOnce(io::BufWriter<Vec<u8>>) -> S,
    inner: impl Fn(&S) -> &io::BufWriter<Vec<u8>>,
) {
    let mut out = make(io::BufWriter::with_capacity(1 << 16, Vec::new()));
    out.start(0.0, 1.0, 0.0).unwrap();
    assert!(inner(&out).get_ref().is_empty());
    out.finish().unwrap();
    assert!(!inner(&out).get_ref().is_empty());
}

/// A writer of the exported items, called in time order.
///
/// Every method returns the writer's I/O error, if any; [`export`] then stops
/// and returns it as [`Error::Write`] (and the caller discards the output).
pub trait Sink {
    /// The start, before anything else: the exported window `[from, to]` (for
    /// a whole trace: from its earliest start, whatever its container's box
    /// says, to the container's end) and `first`, the earliest time any item
    /// has (the start of a state that began before the window; `from`
    /// otherwise).
    ///
    /// # Errors
    ///
    /// The writer's I/O error.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, mpelog::export::sorted::StartOrder::new(), |_| {})?;
    /// use mpelog::export::{Cat, Flow, Options, Sink, Track};
    /// use std::io::Result;
    /// /// Every call, by its method's name and time.
    /// #[derive(Default)]
    /// struct Log(Vec<(&'static str, f64)>);
    /// impl Sink for Log {
    ///     fn start(&mut self, from: f64, _: f64, _: f64) -> Result<()> { self.0.push(("start", from)); Ok(()) }
    ///     fn track(&mut self, _: &Track) -> Result<()> { self.0.push(("track", f64::NAN)); Ok(()) }
    ///     fn enter(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("enter", t)); Ok(()) }
    ///     fn leave(&mut self, t: f64, _: &Track, _: &Cat) -> Result<()> { self.0.push(("leave", t)); Ok(()) }
    ///     fn instant(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("instant", t)); Ok(()) }
    ///     fn send(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("send", f.time)); Ok(()) }
    ///     fn receive(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("receive", f.time)); Ok(()) }
    ///     fn finish(&mut self) -> Result<()> { self.0.push(("finish", f64::NAN)); Ok(()) }
    /// }
    /// let mut log = Log::default();
    /// let counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut log)?;
    /// let calls = |name: &str| log.0.iter().filter(|c| c.0 == name).count() as u64;
    /// assert_eq!(log.0[0].0, "start"); // once, first
    /// assert_eq!(calls("start"), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn start(&mut self, from: f64, to: f64, first: f64) -> io::Result<()>;
    /// A track used for the first time (before any item on it).
    ///
    /// # Errors
    ///
    /// The writer's I/O error.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, mpelog::export::sorted::StartOrder::new(), |_| {})?;
    /// use mpelog::export::{Cat, Flow, Options, Sink, Track};
    /// use std::io::Result;
    /// /// Every call, by its method's name and time.
    /// #[derive(Default)]
    /// struct Log(Vec<(&'static str, f64)>);
    /// impl Sink for Log {
    ///     fn start(&mut self, from: f64, _: f64, _: f64) -> Result<()> { self.0.push(("start", from)); Ok(()) }
    ///     fn track(&mut self, _: &Track) -> Result<()> { self.0.push(("track", f64::NAN)); Ok(()) }
    ///     fn enter(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("enter", t)); Ok(()) }
    ///     fn leave(&mut self, t: f64, _: &Track, _: &Cat) -> Result<()> { self.0.push(("leave", t)); Ok(()) }
    ///     fn instant(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("instant", t)); Ok(()) }
    ///     fn send(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("send", f.time)); Ok(()) }
    ///     fn receive(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("receive", f.time)); Ok(()) }
    ///     fn finish(&mut self) -> Result<()> { self.0.push(("finish", f64::NAN)); Ok(()) }
    /// }
    /// let mut log = Log::default();
    /// let counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut log)?;
    /// let calls = |name: &str| log.0.iter().filter(|c| c.0 == name).count() as u64;
    /// assert_eq!(calls("track"), counts.tracks); // each track once, before its first item
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn track(&mut self, track: &Track) -> io::Result<()>;
    /// A state starts.
    ///
    /// # Errors
    ///
    /// The writer's I/O error.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, mpelog::export::sorted::StartOrder::new(), |_| {})?;
    /// use mpelog::export::{Cat, Flow, Options, Sink, Track};
    /// use std::io::Result;
    /// /// Every call, by its method's name and time.
    /// #[derive(Default)]
    /// struct Log(Vec<(&'static str, f64)>);
    /// impl Sink for Log {
    ///     fn start(&mut self, from: f64, _: f64, _: f64) -> Result<()> { self.0.push(("start", from)); Ok(()) }
    ///     fn track(&mut self, _: &Track) -> Result<()> { self.0.push(("track", f64::NAN)); Ok(()) }
    ///     fn enter(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("enter", t)); Ok(()) }
    ///     fn leave(&mut self, t: f64, _: &Track, _: &Cat) -> Result<()> { self.0.push(("leave", t)); Ok(()) }
    ///     fn instant(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("instant", t)); Ok(()) }
    ///     fn send(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("send", f.time)); Ok(()) }
    ///     fn receive(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("receive", f.time)); Ok(()) }
    ///     fn finish(&mut self) -> Result<()> { self.0.push(("finish", f64::NAN)); Ok(()) }
    /// }
    /// let mut log = Log::default();
    /// let counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut log)?;
    /// let calls = |name: &str| log.0.iter().filter(|c| c.0 == name).count() as u64;
    /// assert_eq!(calls("enter"), counts.states);
    /// let times: Vec<f64> = log.0.iter().filter(|c| c.0 != "track" && c.0 != "finish").map(|c| c.1).collect();
    /// assert!(times.windows(2).all(|w| w[0] <= w[1])); // every item in time order
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn enter(&mut self, time: f64, track: &Track, cat: &Cat, info: &[u8]) -> io::Result<()>;
    /// The state entered last on `track` and not yet left ends.
    ///
    /// # Errors
    ///
    /// The writer's I/O error.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, mpelog::export::sorted::StartOrder::new(), |_| {})?;
    /// use mpelog::export::{Cat, Flow, Options, Sink, Track};
    /// use std::io::Result;
    /// /// Every call, by its method's name and time.
    /// #[derive(Default)]
    /// struct Log(Vec<(&'static str, f64)>);
    /// impl Sink for Log {
    ///     fn start(&mut self, from: f64, _: f64, _: f64) -> Result<()> { self.0.push(("start", from)); Ok(()) }
    ///     fn track(&mut self, _: &Track) -> Result<()> { self.0.push(("track", f64::NAN)); Ok(()) }
    ///     fn enter(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("enter", t)); Ok(()) }
    ///     fn leave(&mut self, t: f64, _: &Track, _: &Cat) -> Result<()> { self.0.push(("leave", t)); Ok(()) }
    ///     fn instant(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("instant", t)); Ok(()) }
    ///     fn send(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("send", f.time)); Ok(()) }
    ///     fn receive(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("receive", f.time)); Ok(()) }
    ///     fn finish(&mut self) -> Result<()> { self.0.push(("finish", f64::NAN)); Ok(()) }
    /// }
    /// let mut log = Log::default();
    /// let counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut log)?;
    /// let calls = |name: &str| log.0.iter().filter(|c| c.0 == name).count() as u64;
    /// assert_eq!(calls("leave"), calls("enter")); // every state entered is left
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn leave(&mut self, time: f64, track: &Track, cat: &Cat) -> io::Result<()>;
    /// An event.
    ///
    /// # Errors
    ///
    /// The writer's I/O error.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, mpelog::export::sorted::StartOrder::new(), |_| {})?;
    /// use mpelog::export::{Cat, Flow, Options, Sink, Track};
    /// use std::io::Result;
    /// /// Every call, by its method's name and time.
    /// #[derive(Default)]
    /// struct Log(Vec<(&'static str, f64)>);
    /// impl Sink for Log {
    ///     fn start(&mut self, from: f64, _: f64, _: f64) -> Result<()> { self.0.push(("start", from)); Ok(()) }
    ///     fn track(&mut self, _: &Track) -> Result<()> { self.0.push(("track", f64::NAN)); Ok(()) }
    ///     fn enter(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("enter", t)); Ok(()) }
    ///     fn leave(&mut self, t: f64, _: &Track, _: &Cat) -> Result<()> { self.0.push(("leave", t)); Ok(()) }
    ///     fn instant(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("instant", t)); Ok(()) }
    ///     fn send(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("send", f.time)); Ok(()) }
    ///     fn receive(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("receive", f.time)); Ok(()) }
    ///     fn finish(&mut self) -> Result<()> { self.0.push(("finish", f64::NAN)); Ok(()) }
    /// }
    /// let mut log = Log::default();
    /// let counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut log)?;
    /// let calls = |name: &str| log.0.iter().filter(|c| c.0 == name).count() as u64;
    /// assert_eq!(calls("instant"), counts.events);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn instant(&mut self, time: f64, track: &Track, cat: &Cat, info: &[u8]) -> io::Result<()>;
    /// An arrow leaves `f.track` (`f.other` is where it arrives); `f.flow`
    /// joins it to its [`receive`](Sink::receive), which comes later in the
    /// stream unless the arrow goes back in time.
    ///
    /// # Errors
    ///
    /// The writer's I/O error.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, mpelog::export::sorted::StartOrder::new(), |_| {})?;
    /// use mpelog::export::{Cat, Flow, Options, Sink, Track};
    /// use std::io::Result;
    /// /// Every call, by its method's name and time.
    /// #[derive(Default)]
    /// struct Log(Vec<(&'static str, f64)>);
    /// impl Sink for Log {
    ///     fn start(&mut self, from: f64, _: f64, _: f64) -> Result<()> { self.0.push(("start", from)); Ok(()) }
    ///     fn track(&mut self, _: &Track) -> Result<()> { self.0.push(("track", f64::NAN)); Ok(()) }
    ///     fn enter(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("enter", t)); Ok(()) }
    ///     fn leave(&mut self, t: f64, _: &Track, _: &Cat) -> Result<()> { self.0.push(("leave", t)); Ok(()) }
    ///     fn instant(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("instant", t)); Ok(()) }
    ///     fn send(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("send", f.time)); Ok(()) }
    ///     fn receive(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("receive", f.time)); Ok(()) }
    ///     fn finish(&mut self) -> Result<()> { self.0.push(("finish", f64::NAN)); Ok(()) }
    /// }
    /// let mut log = Log::default();
    /// let counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut log)?;
    /// let calls = |name: &str| log.0.iter().filter(|c| c.0 == name).count() as u64;
    /// assert_eq!(calls("send"), counts.arrows);
    /// assert!(counts.arrows > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn send(&mut self, f: &Flow<'_>) -> io::Result<()>;
    /// An arrow arrives on `f.track` from `f.other`.
    ///
    /// # Errors
    ///
    /// The writer's I/O error.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, mpelog::export::sorted::StartOrder::new(), |_| {})?;
    /// use mpelog::export::{Cat, Flow, Options, Sink, Track};
    /// use std::io::Result;
    /// /// Every call, by its method's name and time.
    /// #[derive(Default)]
    /// struct Log(Vec<(&'static str, f64)>);
    /// impl Sink for Log {
    ///     fn start(&mut self, from: f64, _: f64, _: f64) -> Result<()> { self.0.push(("start", from)); Ok(()) }
    ///     fn track(&mut self, _: &Track) -> Result<()> { self.0.push(("track", f64::NAN)); Ok(()) }
    ///     fn enter(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("enter", t)); Ok(()) }
    ///     fn leave(&mut self, t: f64, _: &Track, _: &Cat) -> Result<()> { self.0.push(("leave", t)); Ok(()) }
    ///     fn instant(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("instant", t)); Ok(()) }
    ///     fn send(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("send", f.time)); Ok(()) }
    ///     fn receive(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("receive", f.time)); Ok(()) }
    ///     fn finish(&mut self) -> Result<()> { self.0.push(("finish", f64::NAN)); Ok(()) }
    /// }
    /// let mut log = Log::default();
    /// let counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut log)?;
    /// let calls = |name: &str| log.0.iter().filter(|c| c.0 == name).count() as u64;
    /// assert_eq!(calls("receive"), calls("send")); // the two ends of every arrow
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn receive(&mut self, f: &Flow<'_>) -> io::Result<()>;
    /// The end of the stream.
    ///
    /// # Errors
    ///
    /// The writer's I/O error.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, mpelog::export::sorted::StartOrder::new(), |_| {})?;
    /// use mpelog::export::{Cat, Flow, Options, Sink, Track};
    /// use std::io::Result;
    /// /// Every call, by its method's name and time.
    /// #[derive(Default)]
    /// struct Log(Vec<(&'static str, f64)>);
    /// impl Sink for Log {
    ///     fn start(&mut self, from: f64, _: f64, _: f64) -> Result<()> { self.0.push(("start", from)); Ok(()) }
    ///     fn track(&mut self, _: &Track) -> Result<()> { self.0.push(("track", f64::NAN)); Ok(()) }
    ///     fn enter(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("enter", t)); Ok(()) }
    ///     fn leave(&mut self, t: f64, _: &Track, _: &Cat) -> Result<()> { self.0.push(("leave", t)); Ok(()) }
    ///     fn instant(&mut self, t: f64, _: &Track, _: &Cat, _: &[u8]) -> Result<()> { self.0.push(("instant", t)); Ok(()) }
    ///     fn send(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("send", f.time)); Ok(()) }
    ///     fn receive(&mut self, f: &Flow<'_>) -> Result<()> { self.0.push(("receive", f.time)); Ok(()) }
    ///     fn finish(&mut self) -> Result<()> { self.0.push(("finish", f64::NAN)); Ok(()) }
    /// }
    /// let mut log = Log::default();
    /// let counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut log)?;
    /// let calls = |name: &str| log.0.iter().filter(|c| c.0 == name).count() as u64;
    /// assert_eq!(log.0.last().map(|c| c.0), Some("finish")); // once, last
    /// assert_eq!(calls("finish"), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn finish(&mut self) -> io::Result<()>;
}

/// A sink borrowed (`&mut dyn Sink` included) is a sink.
impl<S: Sink + ?Sized> Sink for &mut S {
    fn start(&mut self, from: f64, to: f64, first: f64) -> io::Result<()> {
        (**self).start(from, to, first)
    }
    fn track(&mut self, track: &Track) -> io::Result<()> {
        (**self).track(track)
    }
    fn enter(&mut self, time: f64, track: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        (**self).enter(time, track, cat, info)
    }
    fn leave(&mut self, time: f64, track: &Track, cat: &Cat) -> io::Result<()> {
        (**self).leave(time, track, cat)
    }
    fn instant(&mut self, time: f64, track: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        (**self).instant(time, track, cat, info)
    }
    fn send(&mut self, f: &Flow<'_>) -> io::Result<()> {
        (**self).send(f)
    }
    fn receive(&mut self, f: &Flow<'_>) -> io::Result<()> {
        (**self).receive(f)
    }
    fn finish(&mut self) -> io::Result<()> {
        (**self).finish()
    }
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

/// What a pending item does when its time comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Kind {
    /// A state ends.
    #[default]
    Leave,
    /// An arrow leaves.
    Send,
    /// An arrow arrives.
    Receive,
}

/// A pending item: a state's end or an end of an arrow, in a reused slot.
#[derive(Debug, Default)]
struct Pending {
    kind: Kind,
    /// Its sequence number while it waits; 0 once emitted (the slot is free).
    seq: u64,
    track: u32,
    /// The track at the arrow's other end.
    other: u32,
    flow: u64,
    /// Index into the driver's categories.
    cat: u32,
    /// The arrow's info bytes (the buffer is kept when the slot is reused).
    info: Vec<u8>,
}

/// An open state on a lane.
#[derive(Debug, Clone, Copy)]
struct Open {
    start: f64,
    end: f64,
    /// Its pending leave: slot and sequence number.
    slot: u32,
    seq: u64,
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
    /// added on first use), and where each index is.
    cats: Vec<(Cat, i32)>,
    cat_at: FxHashMap<i32, u32>,
    /// Line ID -> index in `row_values`; rows of the view with equal values
    /// share an index.
    rows: FxHashMap<i32, usize>,
    /// Each row's values in the view, and its place in the sorted view.
    row_values: Vec<Vec<i32>>,
    row_order: Vec<u32>,
    labels: Vec<String>,
    /// Per row index: its lanes, each a track and its open states.
    lanes: Vec<Vec<(u32, Vec<Open>)>>,
    tracks: Vec<Track>,
    /// Pending leaves of states that close when a new one arrives (reused).
    closing: Vec<(u32, u64)>,
    /// Pending items by time; at equal times the later pushed first (a state
    /// nested in another and ending with it leaves first); with their slot.
    heap: BinaryHeap<Reverse<(Time, Reverse<u64>, u32)>>,
    slots: Vec<Pending>,
    free: Vec<u32>,
    seq: u64,
    flows: u64,
    counts: Counts,
}

impl<S: Sink> Driver<'_, S> {
    /// Where category `i` is, adding a grey legend entry for a category the
    /// legend lacks.
    fn cat(&mut self, i: i32) -> u32 {
        let next = self.cats.len() as u32;
        let at = *self.cat_at.entry(i).or_insert(next);
        if at == next {
            self.cats.push((Cat::unknown(i), topology::STATE));
        }
        at
    }

    /// The row index of `line`: its view row, or a row of its own.
    fn row(&mut self, line: i32) -> usize {
        let next = self.row_values.len();
        let r = *self.rows.entry(line).or_insert(next);
        if r == next {
            self.row_values.push(vec![line]);
            self.row_order.push(next as u32);
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
                order: self.row_order[r],
            };
            self.sink.track(&t)?;
            self.counts.tracks += 1;
            self.tracks.push(t);
            self.lanes[r].push((id, Vec::new()));
        }
    }

    /// Queues an item for `time` in a free slot; returns its slot and number.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        time: f64,
        kind: Kind,
        track: u32,
        other: u32,
        flow: u64,
        cat: u32,
        info: &[u8],
    ) -> (u32, u64) {
        self.seq += 1;
        let slot = self.free.pop().unwrap_or_else(|| {
            self.slots.push(Pending::default());
            self.slots.len() as u32 - 1
        });
        let p = &mut self.slots[slot as usize];
        p.kind = kind;
        p.seq = self.seq;
        p.track = track;
        p.other = other;
        p.flow = flow;
        p.cat = cat;
        p.info.clear();
        p.info.extend_from_slice(info);
        self.heap
            .push(Reverse((Time(time), Reverse(self.seq), slot)));
        (slot, self.seq)
    }

    /// Emits the pending items before `time` (every one for infinity).
    fn flush(&mut self, time: f64) -> io::Result<()> {
        while let Some(&Reverse((Time(t), Reverse(seq), slot))) = self.heap.peek() {
            if !(t < time || time == f64::INFINITY) {
                break;
            }
            self.heap.pop();
            self.emit(t, slot, seq)?;
        }
        Ok(())
    }

    /// Emits the item in `slot` at `t` if it is still item `seq`, and frees
    /// the slot.
    fn emit(&mut self, t: f64, slot: u32, seq: u64) -> io::Result<()> {
        let p = &mut self.slots[slot as usize];
        if p.seq != seq {
            return Ok(());
        }
        p.seq = 0;
        self.free.push(slot);
        let p = &self.slots[slot as usize];
        let c = &self.cats[p.cat as usize].0;
        let (here, other) = (
            &self.tracks[p.track as usize],
            &self.tracks[p.other as usize],
        );
        let f = Flow {
            time: t,
            track: here,
            other,
            flow: p.flow,
            cat: c,
            info: &p.info,
        };
        match p.kind {
            Kind::Leave => self.sink.leave(t, here, c),
            Kind::Send => self.sink.send(&f),
            Kind::Receive => self.sink.receive(&f),
        }
    }

    fn piece(&mut self, p: Piece<'_>) -> io::Result<()> {
        let (start, end) = (p.start, p.end);
        self.flush(start)?;
        let cat = self.cat(p.category);
        let info = p.info;
        match self.cats[cat as usize].1 {
            topology::EVENT => {
                let row = self.row(p.first.1);
                let t = self.lane_track(row, 0)?;
                self.counts.events += 1;
                let c = &self.cats[cat as usize].0;
                self.sink.instant(start, &self.tracks[t as usize], c, info)
            }
            topology::ARROW => {
                let (a, b) = (self.row(p.first.1), self.row(p.last.1));
                let from = self.lane_track(a, 0)?;
                let to = self.lane_track(b, 0)?;
                self.flows += 1;
                let flow = self.flows;
                // Both ends in time order with everything else (a receive can
                // come before its send when clocks disagree).
                self.push(p.first.0, Kind::Send, from, to, flow, cat, info);
                self.push(p.last.0, Kind::Receive, to, from, flow, cat, info);
                self.counts.arrows += 1;
                Ok(())
            }
            _ => {
                let row = self.row(p.first.1);
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
                        let top = stack.pop().expect("checked");
                        closing.push((top.slot, top.seq));
                    }
                    let fits = stack
                        .last()
                        .is_none_or(|top| top.start <= start && end <= top.end);
                    for (slot, seq) in closing.drain(..) {
                        self.emit(start, slot, seq)?;
                    }
                    self.closing = closing;
                    if fits {
                        let (slot, seq) = self.push(end, Kind::Leave, track, track, 0, cat, &[]);
                        self.lanes[row][lane].1.push(Open {
                            start,
                            end,
                            slot,
                            seq,
                        });
                        self.counts.states += 1;
                        let c = &self.cats[cat as usize].0;
                        return self
                            .sink
                            .enter(start, &self.tracks[track as usize], c, info);
                    }
                    lane += 1;
                }
            }
        }
    }
}

/// A trace read in start order: what [`export`] and the Parquet writer take.
/// Every tree of time boxes is one ([`Tree`]: a SLOG-2 file, an annotation),
/// and so is a conversion's output put in start order ([`sorted::Sorted`]).
///
/// ```
/// use mpelog::export::Ordered;
/// use slog2_format::convert::clog2_to_slog2;
/// use slog2_format::write::TreeOptions;
///
/// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(2000))?;
/// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let (out, _) = clog2_to_slog2(&mut trace, std::io::Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
/// let mut r = slog2_format::Slog2Reader::new(std::io::Cursor::new(out.into_inner()))?;
/// // The middle half of the trace, every primitive that meets it, by start.
/// let whole = r.span(None, None);
/// let quarter = (whole.to - whole.from) / 4.0;
/// let span = r.span(Some(whole.from + quarter), Some(whole.to - quarter));
/// let mut starts = Vec::new();
/// r.pieces(span, &mut |p| starts.push(p.start))?;
/// assert!(!starts.is_empty() && starts.windows(2).all(|w| w[0] <= w[1]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Ordered {
    /// The reading error.
    type Error;
    /// The span of the window `[from, to)`: a missing bound is the trace's
    /// start or end (just after its last time); neither: the whole trace.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::export::Ordered;
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let whole = r.span(None, None);
    /// assert!(!whole.clipped && whole.from < whole.to);
    /// assert!(r.span(Some(0.0), Some(0.01)).clipped);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn span(&self, from: Option<f64>, to: Option<f64>) -> Span;
    /// Calls `f` with every primitive that meets `span`, in [`slices::order`].
    ///
    /// # Errors
    ///
    /// Reading the source failed ([`export`] returns it as [`Error::Read`]).
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::export::Ordered;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let span = r.span(Some(0.0), Some(0.01));
    /// let mut n = 0;
    /// let mut last = f64::NEG_INFINITY;
    /// r.pieces(span, &mut |p| {
    ///     assert!(p.start >= last); // in start order
    ///     last = p.start;
    ///     n += 1;
    /// })?;
    /// assert_eq!(n, r.window(0.0, 0.01)?.drawables.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn pieces(&mut self, span: Span, f: &mut dyn FnMut(Piece<'_>)) -> Result<(), Self::Error>;

    /// As [`Ordered::pieces`], but stops once `f` breaks, reading no
    /// further (what an abandoned reader needs). The default reads on to the
    /// end, calling `f` no more.
    ///
    /// # Errors
    ///
    /// As [`Ordered::pieces`].
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use mpelog::export::Ordered;
    /// use std::ops::ControlFlow;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let span = r.span(None, None);
    /// let mut n = 0;
    /// r.pieces_while(span, &mut |_| {
    ///     n += 1;
    ///     if n < 5 { ControlFlow::Continue(()) } else { ControlFlow::Break(()) }
    /// })?;
    /// assert_eq!(n, 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn pieces_while(
        &mut self,
        span: Span,
        f: &mut dyn FnMut(Piece<'_>) -> std::ops::ControlFlow<()>,
    ) -> Result<(), Self::Error> {
        let mut go = true;
        self.pieces(span, &mut |p| {
            go = go && f(p).is_continue();
        })
    }
}

/// `f` as a visitor of [`Ordered::pieces_while`] that never stops: how a
/// reader whose own way is `pieces_while` gives [`Ordered::pieces`].
pub(crate) fn never_stopping<'a>(
    f: &'a mut dyn FnMut(Piece<'_>),
) -> impl FnMut(Piece<'_>) -> std::ops::ControlFlow<()> + 'a {
    move |p| {
        f(p);
        std::ops::ControlFlow::Continue(())
    }
}

impl<T: Tree> Ordered for T {
    type Error = T::Error;
    fn span(&self, from: Option<f64>, to: Option<f64>) -> Span {
        slices::span(&self.entries(), from, to)
    }
    fn pieces(&mut self, span: Span, f: &mut dyn FnMut(Piece<'_>)) -> Result<(), T::Error> {
        slices::visit_pieces(self, span, f)
    }
    fn pieces_while(
        &mut self,
        span: Span,
        f: &mut dyn FnMut(Piece<'_>) -> std::ops::ControlFlow<()>,
    ) -> Result<(), T::Error> {
        slices::visit_pieces_while(self, span, f)
    }
}

/// The view `opts` names among `maps` (the first one when it names none).
pub(crate) fn pick_view<'m, E: std::error::Error + 'static>(
    maps: &'m [LineIdMap],
    opts: &Options,
) -> Result<Option<&'m LineIdMap>, Error<E>> {
    match &opts.view {
        None => Ok(maps.first()),
        Some(v) => {
            let found = v
                .parse::<usize>()
                .ok()
                .and_then(|i| maps.get(i))
                .or_else(|| maps.iter().find(|m| m.title.text().eq_ignore_ascii_case(v)));
            found.map(Some).ok_or_else(|| Error::NoView {
                asked: v.clone(),
                known: maps
                    .iter()
                    .enumerate()
                    .map(|(i, m)| format!("{i} {:?}", m.title.text()))
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        }
    }
}

/// Exports the primitives of `src` (a SLOG-2 reader, an annotation, a sorted
/// conversion) that meet the window of `opts` to `sink`, with the legend
/// `categories` and the views `maps`.
///
/// # Errors
///
/// [`Error::Read`] when reading `src` fails, [`Error::Write`] when `sink`
/// fails, [`Error::NoView`] when the view of `opts` is not among `maps`.
/// What `sink` took until then is incomplete: discard it.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::export::{chrome::ChromeJson, export, Options};
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let categories = r.categories().unwrap().value.categories.clone();
/// let maps = r.line_id_maps().unwrap().value.maps.clone();
/// let mut json = ChromeJson::new(Vec::new());
/// let counts = export(&mut r, &categories, &maps, &Options::default(), &mut json)?;
/// assert!(counts.states > 0 && counts.arrows > 0);
/// let v: serde_json::Value = serde_json::from_slice(&json.into_inner())?;
/// assert!(v["traceEvents"].as_array().unwrap().len() as u64 > counts.states);
/// // A view the file does not have is refused.
/// let mut again = ChromeJson::new(Vec::new());
/// let none = Options::default().view(Some("No Such View".into()));
/// assert!(matches!(export(&mut r, &categories, &maps, &none, &mut again), Err(mpelog::export::Error::NoView { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn export<T: Ordered, S: Sink>(
    src: &mut T,
    categories: &[Category],
    maps: &[LineIdMap],
    opts: &Options,
    sink: &mut S,
) -> Result<Counts, Error<T::Error>>
where
    T::Error: std::error::Error + 'static,
{
    let map = pick_view(maps, opts)?;
    let mut d = Driver {
        sink,
        cats: categories
            .iter()
            .map(|c| (Cat::of(c), c.topology))
            .collect(),
        cat_at: FxHashMap::default(),
        rows: FxHashMap::default(),
        row_values: Vec::new(),
        row_order: Vec::new(),
        labels: map
            .map(|m| m.labels.iter().map(|l| l.text()).collect())
            .unwrap_or_default(),
        lanes: Vec::new(),
        tracks: Vec::new(),
        closing: Vec::new(),
        heap: BinaryHeap::new(),
        slots: Vec::new(),
        free: Vec::new(),
        seq: 0,
        flows: 0,
        counts: Counts::default(),
    };
    // Later legend entries of the same index win, as a map would have it.
    for (i, c) in categories.iter().enumerate() {
        d.cat_at.insert(c.index, i as u32);
    }
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
    // The view's rows in the order of their values; later rows after them.
    let mut sorted: Vec<usize> = (0..d.row_values.len()).collect();
    sorted.sort_by(|&a, &b| d.row_values[a].cmp(&d.row_values[b]));
    d.row_order = vec![0; sorted.len()];
    for (place, &r) in sorted.iter().enumerate() {
        d.row_order[r] = place as u32;
    }
    let span = src.span(opts.from, opts.to);
    let mut written = Ok(());
    let mut started = false;
    src.pieces(span, &mut |p| {
        if !started {
            // The first primitive has the earliest start of all. A whole
            // trace starts there: a container's box may start earlier (an
            // annotation's covers every record), the primitives do not.
            started = true;
            let from = if span.clipped { span.from } else { p.start };
            written = d.sink.start(from, span.to, p.start.min(from));
        }
        if written.is_ok() {
            written = d.piece(p);
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
///
/// # Errors
///
/// As [`export`]; reading errors are the reader's [`slog2_format::Error`].
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::export::{pipit::PipitCsv, Options};
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let mut csv = PipitCsv::new(Vec::new());
/// let counts = mpelog::export::slog2(&mut r, &Options::default().window(Some(0.0), Some(0.01)), &mut csv)?;
/// let rows = csv.into_inner().iter().filter(|&&b| b == b'\n').count() as u64;
/// assert!(counts.states > 0);
/// assert!(rows > 2 * counts.states); // a header, an Enter and a Leave row a state, ...
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn slog2<R: std::io::Read + std::io::Seek, S: Sink>(
    r: &mut slog2_format::Slog2Reader<R>,
    opts: &Options,
    sink: &mut S,
) -> Result<Counts, Error<slog2_format::Error>> {
    let categories = r.category_list().to_vec();
    let maps = r
        .line_id_maps()
        .map(|m| m.value.maps.clone())
        .unwrap_or_default();
    export(r, &categories, &maps, opts, sink)
}

/// [`export`] of a CLOG2 trace through its annotation.
///
/// # Errors
///
/// As [`export`]; reading errors are the annotation's
/// [`mpelog_annotate::Error`] (a damaged annotation, a changed trace).
///
/// ```
/// use mpelog::export::{chrome::ChromeJson, Options};
/// use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
/// use std::io::Cursor;
/// let trace = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
/// let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
/// let mut a = Annotation::new(Cursor::new(idx.into_inner()), Cursor::new(&trace[..]))?;
/// let mut via_index = ChromeJson::new(Vec::new());
/// mpelog::export::annotation(&mut a, &Options::default(), &mut via_index)?;
/// // The same bytes as a one-pass export of the trace.
/// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, Options::default().start_order(), |_| {})?;
/// let mut direct = ChromeJson::new(Vec::new());
/// mpelog::export::one_pass(&mut sorted, &Options::default(), &mut direct)?;
/// assert_eq!(via_index.into_inner(), direct.into_inner());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn annotation<A: std::io::Read + std::io::Seek, T: std::io::Read + std::io::Seek, S: Sink>(
    a: &mut mpelog_annotate::Annotation<A, T>,
    opts: &Options,
    sink: &mut S,
) -> Result<Counts, Error<mpelog_annotate::Error>> {
    let categories = a.categories().categories.clone();
    let maps = a.line_id_maps().maps.clone();
    export(a, &categories, &maps, opts, sink)
}

/// [`export`] of a conversion put in start order ([`sorted::StartOrder`]).
///
/// # Errors
///
/// As [`export`]; reading errors are those of reading back the order's
/// spilled runs.
///
/// ```
/// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
/// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let sink = mpelog::export::sorted::StartOrder::new();
/// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
/// use mpelog::export::{perfetto::PerfettoTrace, Options};
/// let mut pb = PerfettoTrace::new(Vec::new());
/// let counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut pb)?;
/// assert!(counts.states > 0 && counts.tracks > 0);
/// assert!(!pb.into_inner().is_empty());
/// // The legend and views are still there for a second export.
/// assert!(!sorted.categories().is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn one_pass<S: Sink>(
    src: &mut sorted::Sorted,
    opts: &Options,
    sink: &mut S,
) -> Result<Counts, Error<io::Error>> {
    let categories = std::mem::take(&mut src.categories);
    let maps = std::mem::take(&mut src.maps);
    let counts = export(src, &categories, &maps, opts, sink);
    src.categories = categories;
    src.maps = maps;
    counts
}
