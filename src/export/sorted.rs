//! A conversion's primitives in start order with bounded memory, so that a
//! CLOG2, old CLOG, ALOG or SLOG-1 trace exports in one pass over its bytes
//! without a SLOG-2 file in between.
//!
//! The converters pair events into primitives in end-time order
//! ([`slog2_format::write::PrimSink`]); the exporters need start order. A
//! [`StartOrder`] sink keeps the primitives that meet the window in a buffer
//! of bounded size; when the buffer is full it is sorted and written to an
//! anonymous temporary file as a run (13 bytes for an event, 21 for a state,
//! 22 for an arrow, plus its info bytes, in the common case). At the end, [`Sorted`] merges the runs and what is left in
//! memory ([`Ordered::pieces`]), after the legend and the line-ID maps are
//! known. A trace whose primitives fit in the buffer never touches the disk.
//! The temporary file has no name (`O_TMPFILE` where the system has it), so
//! nothing is left behind, whatever happens to the run.

use super::Ordered;
use crate::slices::{order, Piece, Span};
use rustc_hash::FxHashSet;
use slog2_format::types::{Category, LineIdMap};
use slog2_format::write::{Prim, PrimSink};
use slog2_format::TimeWindow;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;

/// The default memory for primitives waiting in [`StartOrder`]'s buffer.
pub const DEFAULT_MEMORY: usize = 64 << 20;

/// Bytes a held primitive takes: itself and its sort key.
const HELD: usize = std::mem::size_of::<Prim>() + std::mem::size_of::<(i64, i64, u32)>();

/// Bytes of a run record at most: flags, vertex count, info length, four
/// varints (topology, category, two lines), two times, the info bytes.
const RECORD_MAX: usize = 3 + 4 * 5 + 16 + slog2_format::write::prim::MAX_INFO;

/// A [`PrimSink`] that gives the primitives meeting a window back in start
/// order ([`crate::slices::order`]) with bounded memory.
///
/// ```
/// use mpelog::export::sorted::StartOrder;
/// use mpelog::export::{chrome::ChromeJson, Options};
/// use slog2_format::convert::clog2_into;
///
/// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// // 64 KiB of primitives in memory at most: the rest goes to sorted runs.
/// let sink = StartOrder::new().memory(64 << 10);
/// let (mut sorted, _stats) = clog2_into(&mut reader, sink, |_| {})?;
/// assert!(sorted.runs() > 1);
/// let mut json = ChromeJson::new(Vec::new());
/// let counts = mpelog::export::one_pass(&mut sorted, &Options::default(), &mut json)?;
/// assert!(counts.states > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct StartOrder {
    keep: TimeWindow,
    /// Primitives held before a spill.
    limit: usize,
    temp_dir: Option<PathBuf>,
    buf: Vec<Prim>,
    /// The start order of `buf` (reused).
    keys: Vec<(i64, i64, u32)>,
    runs: Runs,
    /// Earliest start and latest end of every primitive added.
    time_box: Option<(f64, f64)>,
    /// Primitives kept.
    kept: u64,
    /// The categories primitives use (in the window or not).
    used: FxHashSet<i32>,
    /// The category of the previous primitive (most repeat it).
    last_category: Option<i32>,
    /// The line IDs primitives use, and the previous primitive's.
    lines: FxHashSet<i32>,
    last_lines: Option<[i32; 2]>,
    /// Once set, [`PrimSink::add`] fails: the conversion ends early.
    stops: Vec<Arc<AtomicBool>>,
    /// Whether the converter told a low-water mark of `-∞` (its records left
    /// time order): then no primitive may leave before the end.
    out_of_time_order: bool,
}

impl Default for StartOrder {
    fn default() -> StartOrder {
        StartOrder::new()
    }
}

impl StartOrder {
    /// A sink keeping every primitive, with [`DEFAULT_MEMORY`] for the buffer
    /// and runs in the system's temporary directory.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let sink = mpelog::export::sorted::StartOrder::new();
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
    /// assert_eq!(sorted.runs(), 0); // 3000 events fit in the default memory
    /// assert!(sorted.len() > 100); // every primitive kept
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new() -> StartOrder {
        StartOrder {
            keep: TimeWindow::new(f64::NEG_INFINITY, f64::INFINITY),
            limit: DEFAULT_MEMORY / HELD,
            temp_dir: None,
            buf: Vec::new(),
            keys: Vec::new(),
            runs: Runs::default(),
            time_box: None,
            kept: 0,
            used: FxHashSet::default(),
            last_category: None,
            lines: FxHashSet::default(),
            last_lines: None,
            stops: Vec::new(),
            out_of_time_order: false,
        }
    }

    /// A sink that keeps no primitive but learns what the conversion's
    /// legend, line-ID maps and time box are, and whether its records came
    /// in time order: the first pass before primitives are streamed.
    ///
    /// ```
    /// use mpelog::export::sorted::StartOrder;
    /// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (survey, _) = slog2_format::convert::clog2_into(&mut reader, StartOrder::survey(), |_| {})?;
    /// assert!(survey.is_empty() && survey.time_box().is_some());
    /// assert!(survey.in_time_order() && !survey.categories().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn survey() -> StartOrder {
        StartOrder::new().window(None, Some(f64::NEG_INFINITY))
    }

    /// Ends the conversion early once `flag` is set: the next primitive added
    /// fails with an [`io::ErrorKind::Interrupted`] error (the sink's error,
    /// [`slog2_format::Error::Sink`]), and the converter reads no further.
    /// Given more than once, it ends at the first flag set.
    ///
    /// ```
    /// use mpelog::export::sorted::StartOrder;
    /// use std::sync::{atomic::AtomicBool, Arc};
    /// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let sink = StartOrder::new().stop_when(Arc::new(AtomicBool::new(true)));
    /// match slog2_format::convert::clog2_into(&mut reader, sink, |_| {}) {
    ///     Err(slog2_format::Error::Sink(e)) => {
    ///         let io = e.downcast_ref::<std::io::Error>().unwrap();
    ///         assert_eq!(io.kind(), std::io::ErrorKind::Interrupted);
    ///     }
    ///     other => panic!("expected the stop, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop_when(mut self, flag: Arc<AtomicBool>) -> StartOrder {
        self.stops.push(flag);
        self
    }

    /// Keeps only the primitives that meet `[from, to)` (a missing bound: no
    /// limit on that side), as a window query would.
    ///
    /// ```
    /// use mpelog::export::sorted::StartOrder;
    /// use slog2_format::convert::clog2_into;
    ///
    /// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (all, _) = clog2_into(&mut reader, StartOrder::new(), |_| {})?;
    /// let (t0, t1) = all.time_box().unwrap();
    /// let mid = (t0 + t1) / 2.0;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (half, _) = clog2_into(&mut reader, StartOrder::new().window(None, Some(mid)), |_| {})?;
    /// assert!(0 < half.len() && half.len() < all.len());
    /// // The time box is the whole conversion's, whatever the window.
    /// assert_eq!(half.time_box(), all.time_box());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn window(mut self, from: Option<f64>, to: Option<f64>) -> StartOrder {
        self.keep = TimeWindow::new(
            from.unwrap_or(f64::NEG_INFINITY),
            to.unwrap_or(f64::INFINITY),
        );
        self
    }

    /// Holds at most about `bytes` of primitives (and their sort keys) in
    /// memory, at least one.
    ///
    /// ```
    /// use mpelog::export::sorted::StartOrder;
    /// use slog2_format::convert::clog2_into;
    ///
    /// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (roomy, _) = clog2_into(&mut reader, StartOrder::new(), |_| {})?;
    /// assert_eq!(roomy.runs(), 0); // all in memory
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (tight, _) = clog2_into(&mut reader, StartOrder::new().memory(16 << 10), |_| {})?;
    /// assert!(tight.runs() > 1);
    /// assert_eq!(tight.len(), roomy.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn memory(mut self, bytes: usize) -> StartOrder {
        self.limit = (bytes / HELD).max(1);
        self
    }

    /// Writes the runs in `dir` instead of the system's temporary directory.
    ///
    /// ```
    /// use mpelog::export::sorted::StartOrder;
    /// use slog2_format::convert::clog2_into;
    ///
    /// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// // A directory that does not exist: the first spill fails there.
    /// let sink = StartOrder::new().memory(16 << 10).temp_dir("/nonexistent/mpelog-runs");
    /// match clog2_into(&mut reader, sink, |_| {}) {
    ///     Err(slog2_format::Error::Sink(e)) => {
    ///         let io = e.downcast_ref::<std::io::Error>().unwrap();
    ///         assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    ///     }
    ///     other => panic!("expected the spill's error, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn temp_dir(mut self, dir: impl Into<PathBuf>) -> StartOrder {
        self.temp_dir = Some(dir.into());
        self
    }

    fn spill(&mut self) -> io::Result<()> {
        sort(&self.buf, &mut self.keys);
        let file = match self.runs.out.take() {
            Some(w) => w,
            None => {
                let f = match &self.temp_dir {
                    Some(d) => tempfile::tempfile_in(d)?,
                    None => tempfile::tempfile()?,
                };
                BufWriter::with_capacity(1 << 20, f)
            }
        };
        let mut w = file;
        let at = self.runs.end;
        let mut rec = [0u8; RECORD_MAX];
        for &(_, _, i) in &self.keys {
            let n = encode(&self.buf[i as usize], &mut rec);
            w.write_all(&rec[..n])?;
            self.runs.end += n as u64;
        }
        self.runs.list.push((at, self.runs.end));
        self.runs.out = Some(w);
        self.buf.clear();
        self.keys.clear();
        Ok(())
    }
}

/// The runs written so far.
#[derive(Debug, Default)]
struct Runs {
    out: Option<BufWriter<File>>,
    /// Each run's byte range in the file.
    list: Vec<(u64, u64)>,
    end: u64,
}

/// A time as an integer that orders as [`f64::total_cmp`] does.
fn time_key(t: f64) -> i64 {
    let b = t.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

/// The start order's integer keys of `p`: its start, its end reversed.
pub(crate) fn held_key(p: &Prim) -> (i64, i64) {
    (time_key(p.earliest()), !time_key(p.latest()))
}

/// Fills `keys` with the start order of `v`: `(start, reversed end, index)`,
/// sorted by [`order`] (integer keys first; equal ones by the whole order).
fn sort(v: &[Prim], keys: &mut Vec<(i64, i64, u32)>) {
    keys.clear();
    keys.extend(
        v.iter()
            .enumerate()
            .map(|(i, p)| (time_key(p.earliest()), !time_key(p.latest()), i as u32)),
    );
    sort_keys(v, keys);
}

/// Sorts `keys` (`(start, reversed end, index)` of primitives of `v`, as
/// [`held_key`] and the index give them) into the start order [`order`]:
/// integer keys first, equal ones by the whole order, equal primitives by
/// their index.
pub(crate) fn sort_keys(v: &[Prim], keys: &mut [(i64, i64, u32)]) {
    keys.sort_unstable();
    // Runs of equal times: by the rest of the order.
    let mut at = 0;
    while at < keys.len() {
        let (a, b, _) = keys[at];
        let n = keys[at..]
            .iter()
            .take_while(|k| k.0 == a && k.1 == b)
            .count();
        if n > 1 {
            keys[at..at + n].sort_by(|x, y| {
                order(
                    &Piece::of_prim(&v[x.2 as usize]),
                    &Piece::of_prim(&v[y.2 as usize]),
                )
            });
        }
        at += n;
    }
}

/// Run record flags: the topology (0, 1, 2; 3: a varint follows), whether
/// the second time and line repeat the first.
const TOPOLOGY_MASK: u8 = 0b11;
const SAME_TIME: u8 = 1 << 2;
const SAME_LINE: u8 = 1 << 3;

/// Appends `v` zigzag-encoded as a LEB128 varint (at most 5 bytes) at `at`.
fn put_varint(out: &mut [u8], at: &mut usize, v: i32) {
    let mut z = ((v << 1) ^ (v >> 31)) as u32;
    loop {
        let byte = (z & 0x7f) as u8;
        z >>= 7;
        if z == 0 {
            out[*at] = byte;
            *at += 1;
            return;
        }
        out[*at] = byte | 0x80;
        *at += 1;
    }
}

/// Reads a varint written by [`put_varint`] at `at`; `None` when `b` ends first
/// (or it is longer than 5 bytes).
fn get_varint(b: &[u8], at: &mut usize) -> Option<i32> {
    let mut z = 0u32;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        z |= u32::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(((z >> 1) as i32) ^ -((z & 1) as i32));
        }
    }
    None
}

/// Writes `p` to the front of `out` (at least [`RECORD_MAX`] bytes) as a run
/// record; returns its length. The record keeps every field exactly (times by
/// their bits), in fewer bytes where they repeat or are small: the runs are
/// written once and read once, so their size is most of a spill's cost.
fn encode(p: &Prim, out: &mut [u8]) -> usize {
    let n = usize::from(p.info_len).min(p.info.len());
    let same_time = p.times[1].to_bits() == p.times[0].to_bits();
    let same_line = p.lines[1] == p.lines[0];
    let topology = match p.topology {
        t @ 0..=2 => t as u8,
        _ => TOPOLOGY_MASK,
    };
    out[0] =
        topology | if same_time { SAME_TIME } else { 0 } | if same_line { SAME_LINE } else { 0 };
    out[1] = p.nv;
    out[2] = n as u8;
    let mut at = 3;
    if topology == TOPOLOGY_MASK {
        put_varint(out, &mut at, p.topology);
    }
    put_varint(out, &mut at, p.category);
    put_varint(out, &mut at, p.lines[0]);
    if !same_line {
        put_varint(out, &mut at, p.lines[1]);
    }
    out[at..at + 8].copy_from_slice(&p.times[0].to_le_bytes());
    at += 8;
    if !same_time {
        out[at..at + 8].copy_from_slice(&p.times[1].to_le_bytes());
        at += 8;
    }
    out[at..at + n].copy_from_slice(&p.info[..n]);
    at + n
}

/// Reads the record at the front of `b`; returns it and its length, or
/// `None` when it is not all there.
fn decode(b: &[u8]) -> Option<(Prim, usize)> {
    let f64_at = |at: usize| -> Option<f64> {
        Some(f64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
    };
    let (&flags, &nv, &n) = (b.first()?, b.get(1)?, b.get(2)?);
    let mut at = 3;
    let topology = match flags & TOPOLOGY_MASK {
        TOPOLOGY_MASK => get_varint(b, &mut at)?,
        t => i32::from(t),
    };
    let category = get_varint(b, &mut at)?;
    let line0 = get_varint(b, &mut at)?;
    let line1 = if flags & SAME_LINE != 0 {
        line0
    } else {
        get_varint(b, &mut at)?
    };
    let time0 = f64_at(at)?;
    at += 8;
    let time1 = if flags & SAME_TIME != 0 {
        time0
    } else {
        at += 8;
        f64_at(at - 8)?
    };
    let info = b.get(at..at + usize::from(n))?;
    let mut p = Prim::event(category, time0, line0, info);
    p.topology = topology;
    p.nv = nv;
    p.times[1] = time1;
    p.lines[1] = line1;
    Some((p, at + usize::from(n)))
}

impl PrimSink for StartOrder {
    type Output = Sorted;

    fn add(&mut self, p: Prim) -> slog2_format::Result<()> {
        if self.stops.iter().any(|s| s.load(AtomicOrdering::Relaxed)) {
            return Err(slog2_format::Error::Sink(Box::new(io::Error::new(
                io::ErrorKind::Interrupted,
                "the conversion was stopped by its reader",
            ))));
        }
        let (start, end) = (p.earliest(), p.latest());
        if self.last_category != Some(p.category) {
            self.last_category = Some(p.category);
            self.used.insert(p.category);
        }
        if self.last_lines != Some(p.lines) {
            self.last_lines = Some(p.lines);
            self.lines.extend(&p.lines[..usize::from(p.nv.clamp(1, 2))]);
        }
        self.time_box = Some(match self.time_box {
            None => (start, end),
            Some((a, b)) => (a.min(start), b.max(end)),
        });
        if !self.keep.meets(start, end) {
            return Ok(());
        }
        if self.buf.len() >= self.limit {
            self.spill().map_err(spill_error)?;
        }
        self.buf.push(p);
        self.kept += 1;
        Ok(())
    }

    fn low_water(&mut self, time: f64) -> slog2_format::Result<()> {
        self.out_of_time_order |= time == f64::NEG_INFINITY;
        Ok(())
    }

    fn finish(
        mut self,
        categories: &[Category],
        mut maps: Vec<LineIdMap>,
    ) -> slog2_format::Result<Sorted> {
        // The maps a converted file has: the converter's and the identity map.
        maps.push(slog2_format::write::tree::identity_map(
            self.lines.iter().copied(),
        ));
        let file = if let Some(w) = self.runs.out.take() {
            // The rest goes to a run too, so that the merge reads every
            // primitive from the file with bounded buffers.
            self.runs.out = Some(w);
            if !self.buf.is_empty() {
                self.spill().map_err(spill_error)?;
            }
            let w = self.runs.out.take().expect("a run was written");
            Some(w.into_inner().map_err(|e| spill_error(e.into_error()))?)
        } else {
            sort(&self.buf, &mut self.keys);
            None
        };
        Ok(Sorted {
            // The legend a converted file has: the categories primitives use.
            categories: categories
                .iter()
                .filter(|c| self.used.contains(&c.index))
                .cloned()
                .collect(),
            maps,
            // After a spill everything is in the runs: the buffer's memory
            // goes back before the merge takes its own.
            memory: if file.is_some() { Vec::new() } else { self.buf },
            order: if file.is_some() {
                Vec::new()
            } else {
                self.keys
            },
            file,
            runs: self.runs.list,
            time_box: self.time_box,
            buffer_bytes: self.limit * HELD,
            kept: self.kept,
            in_time_order: !self.out_of_time_order,
        })
    }
}

/// A spill's I/O error, as the sink's own error.
fn spill_error(e: io::Error) -> slog2_format::Error {
    let kind = e.kind();
    slog2_format::Error::Sink(Box::new(io::Error::new(
        kind,
        format!("writing a sorted run to a temporary file: {e}"),
    )))
}

/// A conversion's primitives, ready to be read in start order, with its
/// legend and line-ID maps: what [`StartOrder`] gives at the end.
#[derive(Debug)]
pub struct Sorted {
    pub(crate) categories: Vec<Category>,
    pub(crate) maps: Vec<LineIdMap>,
    /// The primitives when nothing was spilled, and their start order.
    memory: Vec<Prim>,
    order: Vec<(i64, i64, u32)>,
    file: Option<File>,
    runs: Vec<(u64, u64)>,
    time_box: Option<(f64, f64)>,
    kept: u64,
    /// The buffer memory the merge may use for reading runs.
    buffer_bytes: usize,
    in_time_order: bool,
}

impl Sorted {
    /// The legend: the categories the primitives use (in the window or not),
    /// in the converter's order, as a converted SLOG-2 file has them (without
    /// the preview categories and the summaries).
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let sink = mpelog::export::sorted::StartOrder::new();
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
    /// let names: Vec<String> = sorted.categories().iter().map(|c| c.name.text()).collect();
    /// assert_eq!(names[0], "message");
    /// assert!(names.iter().any(|n| n == "MPI_Send"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn categories(&self) -> &[Category] {
        &self.categories
    }

    /// The line-ID maps (the views): the converter's, then the identity map
    /// of every line used, as a converted SLOG-2 file has them.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let sink = mpelog::export::sorted::StartOrder::new();
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
    /// let titles: Vec<String> = sorted.maps().iter().map(|m| m.title.text()).collect();
    /// assert!(titles.contains(&"Process View".to_string()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn maps(&self) -> &[LineIdMap] {
        &self.maps
    }

    /// The number of sorted runs written to the temporary file (0: everything
    /// stayed in memory).
    ///
    /// ```
    /// use mpelog::export::sorted::StartOrder;
    /// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// let run = |memory| -> Result<usize, Box<dyn std::error::Error>> {
    ///     let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    ///     let (sorted, _) = slog2_format::convert::clog2_into(&mut reader, StartOrder::new().memory(memory), |_| {})?;
    ///     Ok(sorted.runs())
    /// };
    /// assert_eq!(run(64 << 20)?, 0); // all in memory
    /// assert!(run(16 << 10)? > 1); // spilled in sorted runs
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// The number of primitives kept (those meeting the window).
    ///
    /// ```
    /// use mpelog::export::sorted::StartOrder;
    /// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// let kept = |sink: StartOrder| -> Result<u64, Box<dyn std::error::Error>> {
    ///     let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    ///     Ok(slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?.0.len())
    /// };
    /// let all = kept(StartOrder::new())?;
    /// let some = kept(StartOrder::new().window(Some(0.0), Some(0.001)))?;
    /// assert!(0 < some && some < all);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> u64 {
        self.kept
    }

    /// Whether no primitive was kept.
    ///
    /// ```
    /// use mpelog::export::sorted::StartOrder;
    /// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let late = StartOrder::new().window(Some(1e6), None); // long after the trace
    /// let (sorted, _) = slog2_format::convert::clog2_into(&mut reader, late, |_| {})?;
    /// assert!(sorted.is_empty());
    /// assert!(sorted.time_box().is_some()); // the trace's box is known all the same
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.kept == 0
    }

    /// The earliest start and latest end of every primitive the conversion
    /// made, in the window or not (`None` for none).
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let sink = mpelog::export::sorted::StartOrder::new();
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
    /// let (start, end) = sorted.time_box().unwrap();
    /// assert!(0.0 <= start && start < end);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_box(&self) -> Option<(f64, f64)> {
        self.time_box
    }

    /// Whether the converter's records came in time order, as far as it
    /// told ([`PrimSink::low_water`]; a converter that tells nothing: true).
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let sink = mpelog::export::sorted::StartOrder::new();
    /// # let (sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
    /// assert!(sorted.in_time_order()); // MPE's merged files are
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn in_time_order(&self) -> bool {
        self.in_time_order
    }
}

/// One run being merged: its unread byte range and a buffer of its bytes.
struct RunReader {
    next: u64,
    end: u64,
    buf: Vec<u8>,
    at: usize,
}

impl RunReader {
    /// The next primitive of the run, if any.
    fn next(&mut self, file: &File, chunk: usize) -> io::Result<Option<Prim>> {
        loop {
            let have = &self.buf[self.at..];
            if let Some((p, n)) = decode(have) {
                self.at += n;
                return Ok(Some(p));
            }
            if self.next >= self.end {
                return if have.is_empty() {
                    Ok(None)
                } else {
                    Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "a sorted run ends inside a record",
                    ))
                };
            }
            // Keep the unread tail, read the next chunk after it.
            self.buf.drain(..self.at);
            self.at = 0;
            let kept = self.buf.len();
            let want = chunk.min((self.end - self.next) as usize);
            self.buf.resize(kept + want, 0);
            file.read_exact_at(&mut self.buf[kept..], self.next)?;
            self.next += want as u64;
        }
    }
}

/// A run's next primitive in the merge, with its time keys and run: the
/// smallest comes first.
struct Head((i64, i64), Prim, usize);

impl Head {
    fn new(p: Prim, run: usize) -> Head {
        Head((time_key(p.earliest()), !time_key(p.latest())), p, run)
    }
}

impl PartialEq for Head {
    fn eq(&self, o: &Head) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, o: &Head) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Head {
    fn cmp(&self, o: &Head) -> Ordering {
        self.0
            .cmp(&o.0)
            .then_with(|| order(&Piece::of_prim(&self.1), &Piece::of_prim(&o.1)))
            .then(self.2.cmp(&o.2))
    }
}

impl Ordered for Sorted {
    type Error = io::Error;

    fn span(&self, from: Option<f64>, to: Option<f64>) -> Span {
        crate::slices::span_of(self.time_box, from, to)
    }

    fn pieces(&mut self, span: Span, f: &mut dyn FnMut(Piece<'_>)) -> io::Result<()> {
        self.pieces_while(span, &mut crate::export::never_stopping(f))
    }

    fn pieces_while(
        &mut self,
        span: Span,
        f: &mut dyn FnMut(Piece<'_>) -> ControlFlow<()>,
    ) -> io::Result<()> {
        let window = if span.clipped {
            TimeWindow::new(span.from, span.to)
        } else {
            TimeWindow::new(f64::NEG_INFINITY, f64::INFINITY)
        };
        let mut give = |p: &Prim| {
            if window.meets(p.earliest(), p.latest()) {
                f(Piece::of_prim(p))
            } else {
                ControlFlow::Continue(())
            }
        };
        let Some(file) = &self.file else {
            for &(_, _, i) in &self.order {
                if give(&self.memory[i as usize]).is_break() {
                    break;
                }
            }
            return Ok(());
        };
        let chunk = (self.buffer_bytes / self.runs.len().max(1)).clamp(16 << 10, 4 << 20);
        let mut readers: Vec<RunReader> = self
            .runs
            .iter()
            .map(|&(next, end)| RunReader {
                next,
                end,
                buf: Vec::new(),
                at: 0,
            })
            .collect();
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(p) = r.next(file, chunk)? {
                heap.push(Reverse(Head::new(p, i)));
            }
        }
        // The top is replaced in place by its run's next primitive: one sift
        // down, which mostly stops at once (the run's next is often still the
        // smallest), instead of a pop and a push.
        while let Some(mut top) = heap.peek_mut() {
            let Reverse(Head(_, p, i)) = &*top;
            if give(p).is_break() {
                break;
            }
            let i = *i;
            match readers[i].next(file, chunk)? {
                Some(q) => *top = Reverse(Head::new(q, i)),
                None => {
                    std::collections::binary_heap::PeekMut::pop(top);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let mut odd = Prim::two(i32::MIN, 7, (-0.0, i32::MAX), (0.0, i32::MIN), &[1]);
        odd.topology = -5;
        let prims = [
            Prim::event(7, 1.5, 3, &[1, 2, 3]),
            Prim::two(0, 2, (2.0, 1), (1.0, 4), &[9; 32]),
            Prim::two(5, 1, (0.25, -1), (0.75, -1), &[]),
            Prim::two(300, 1, (f64::NAN, 70000), (f64::INFINITY, 70000), &[]),
            odd,
        ];
        let mut buf = Vec::new();
        let mut rec = [0u8; RECORD_MAX];
        for p in &prims {
            let n = encode(p, &mut rec);
            buf.extend_from_slice(&rec[..n]);
        }
        let mut at = 0;
        for p in &prims {
            let (q, n) = decode(&buf[at..]).unwrap();
            // Times by their bits (NaN, -0.0).
            let bits = |p: &Prim| p.times.map(f64::to_bits);
            assert_eq!(
                (bits(&q), q.times[0].is_nan()),
                (bits(p), p.times[0].is_nan())
            );
            let (mut q, mut p) = (q, *p);
            (q.times, p.times) = ([0.0; 2], [0.0; 2]);
            assert_eq!(q, p);
            at += n;
        }
        assert_eq!(at, buf.len());
        // An event and a state take fewer bytes than the fixed layout's 34.
        assert_eq!(encode(&prims[0], &mut rec), 13 + 3);
        assert_eq!(encode(&prims[2], &mut rec), 21);
        // A record cut anywhere is not read.
        let first = encode(&prims[1], &mut rec);
        for cut in 0..first {
            assert!(decode(&rec[..cut]).is_none(), "cut at {cut}");
        }
    }
}
