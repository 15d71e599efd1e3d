//! A [`Sink`] on a thread of its own: the reading, ordering and lane
//! assignment of an export run on the calling thread, the encoding and
//! writing on another, with batches of items in between (a few in flight, so
//! memory stays bounded). The sink sees the very calls, in the very order, it
//! would see without the thread, so the output is the same bytes.

use super::{Cat, Flow, Sink, Track};
use rustc_hash::FxHashSet;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// Items per batch.
const BATCH: usize = 4096;
/// Batches in flight before the calling thread waits.
const IN_FLIGHT: usize = 4;

/// One recorded sink call; info bytes are a range of the batch's `info`.
#[derive(Debug)]
enum Op {
    Start(f64, f64, f64),
    Track(Box<Track>),
    Cat(Box<Cat>),
    Enter(f64, u32, i32, (u32, u32)),
    Leave(f64, u32, i32),
    Instant(f64, u32, i32, (u32, u32)),
    /// An arrow's end: a send (`true`) or a receive.
    Flow(bool, FlowOp),
    Finish,
}

/// A [`Flow`] by track IDs, category index and info range.
#[derive(Debug)]
struct FlowOp {
    time: f64,
    track: u32,
    other: u32,
    flow: u64,
    cat: i32,
    info: (u32, u32),
}

#[derive(Debug, Default)]
struct Batch {
    ops: Vec<Op>,
    info: Vec<u8>,
}

impl Batch {
    fn info(&mut self, b: &[u8]) -> (u32, u32) {
        let at = self.info.len() as u32;
        self.info.extend_from_slice(b);
        (at, b.len() as u32)
    }
}

/// The calling thread's side: a [`Sink`] that records calls into batches.
#[derive(Debug)]
pub struct Handoff<'a> {
    batch: Batch,
    full: mpsc::SyncSender<Batch>,
    empty: mpsc::Receiver<Batch>,
    /// Categories already sent to the writer thread.
    cats: FxHashSet<i32>,
    failed: &'a AtomicBool,
}

impl Handoff<'_> {
    /// An arrow's end, a send or a receive.
    fn flow(&mut self, send: bool, f: &Flow<'_>) -> io::Result<()> {
        self.cat(f.cat);
        let info = self.batch.info(f.info);
        let op = FlowOp {
            time: f.time,
            track: f.track.id,
            other: f.other.id,
            flow: f.flow,
            cat: f.cat.index,
            info,
        };
        self.push(Op::Flow(send, op))
    }

    fn push(&mut self, op: Op) -> io::Result<()> {
        self.batch.ops.push(op);
        if self.batch.ops.len() >= BATCH {
            self.send()?;
        }
        Ok(())
    }

    fn send(&mut self) -> io::Result<()> {
        if self.failed.load(Ordering::Relaxed) {
            return Err(stopped());
        }
        let next = self.empty.try_recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.batch, next);
        self.full.send(full).map_err(|_| stopped())
    }

    /// Sends `cat` to the writer thread the first time it is used.
    fn cat(&mut self, cat: &Cat) {
        if !self.cats.contains(&cat.index) {
            self.cats.insert(cat.index);
            self.batch.ops.push(Op::Cat(Box::new(cat.clone())));
        }
    }
}

fn stopped() -> io::Error {
    io::Error::other("the export's writer thread stopped")
}

impl Sink for Handoff<'_> {
    fn start(&mut self, from: f64, to: f64, first: f64) -> io::Result<()> {
        self.push(Op::Start(from, to, first))
    }
    fn track(&mut self, t: &Track) -> io::Result<()> {
        self.push(Op::Track(Box::new(t.clone())))
    }
    fn enter(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.cat(cat);
        let info = self.batch.info(info);
        self.push(Op::Enter(time, t.id, cat.index, info))
    }
    fn leave(&mut self, time: f64, t: &Track, cat: &Cat) -> io::Result<()> {
        self.cat(cat);
        self.push(Op::Leave(time, t.id, cat.index))
    }
    fn instant(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.cat(cat);
        let info = self.batch.info(info);
        self.push(Op::Instant(time, t.id, cat.index, info))
    }
    fn send(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.flow(true, f)
    }
    fn receive(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.flow(false, f)
    }
    fn finish(&mut self) -> io::Result<()> {
        self.batch.ops.push(Op::Finish);
        self.send()
    }
}

/// The writer thread's state: the tracks and categories seen so far.
struct Replay<'s, S: Sink> {
    sink: &'s mut S,
    tracks: Vec<Track>,
    cats: rustc_hash::FxHashMap<i32, Cat>,
}

impl<S: Sink> Replay<'_, S> {
    fn batch(&mut self, b: &Batch) -> io::Result<()> {
        let info = |(at, n): (u32, u32)| &b.info[at as usize..(at + n) as usize];
        for op in &b.ops {
            let track = |i: u32| &self.tracks[i as usize];
            match op {
                Op::Start(a, z, f) => self.sink.start(*a, *z, *f)?,
                Op::Track(t) => {
                    self.sink.track(t)?;
                    let i = t.id as usize;
                    if self.tracks.len() <= i {
                        self.tracks.resize_with(i + 1, || (**t).clone());
                    }
                    self.tracks[i] = (**t).clone();
                }
                Op::Cat(c) => {
                    self.cats.insert(c.index, (**c).clone());
                }
                Op::Enter(time, t, c, i) => {
                    self.sink.enter(*time, track(*t), &self.cats[c], info(*i))?
                }
                Op::Leave(time, t, c) => self.sink.leave(*time, track(*t), &self.cats[c])?,
                Op::Instant(time, t, c, i) => {
                    self.sink
                        .instant(*time, track(*t), &self.cats[c], info(*i))?
                }
                Op::Flow(send, o) => {
                    let f = Flow {
                        time: o.time,
                        track: track(o.track),
                        other: track(o.other),
                        flow: o.flow,
                        cat: &self.cats[&o.cat],
                        info: info(o.info),
                    };
                    match send {
                        true => self.sink.send(&f)?,
                        false => self.sink.receive(&f)?,
                    }
                }
                Op::Finish => self.sink.finish()?,
            }
        }
        Ok(())
    }
}

/// Runs `f` with a [`Handoff`] sink whose calls `sink` receives, in the same
/// order, on a thread of its own; returns what `f` returned and the first
/// error `sink` gave (the handoff fails soon after it, so `f` stops early).
///
/// # Errors
///
/// The second value is the first I/O error `sink` gave; `f`'s own result is the
/// first.
///
/// ```
/// use mpelog::export::{chrome::ChromeJson, threaded::on_a_thread, Sink};
///
/// let calls = |s: &mut dyn Sink| -> std::io::Result<()> {
///     s.start(0.0, 1.0, 0.0)?;
///     s.finish()
/// };
/// let mut direct = ChromeJson::new(Vec::new());
/// calls(&mut direct)?;
/// let mut threaded = ChromeJson::new(Vec::new());
/// let (called, written) = on_a_thread(&mut threaded, |h| calls(h));
/// called?;
/// written?;
/// assert_eq!(direct.into_inner(), threaded.into_inner());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn on_a_thread<S: Sink + Send, T>(
    sink: &mut S,
    f: impl FnOnce(&mut Handoff<'_>) -> T,
) -> (T, io::Result<()>) {
    let failed = AtomicBool::new(false);
    let (full_tx, full_rx) = mpsc::sync_channel::<Batch>(IN_FLIGHT);
    let (empty_tx, empty_rx) = mpsc::channel::<Batch>();
    std::thread::scope(|scope| {
        let failed = &failed;
        let writer = scope.spawn(move || {
            let mut replay = Replay {
                sink,
                tracks: Vec::new(),
                cats: rustc_hash::FxHashMap::default(),
            };
            let mut result = Ok(());
            for mut batch in full_rx {
                if result.is_ok() {
                    result = replay.batch(&batch);
                    if result.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                }
                batch.ops.clear();
                batch.info.clear();
                // The calling thread may be done already.
                let _ = empty_tx.send(batch);
            }
            result
        });
        let mut handoff = Handoff {
            batch: Batch::default(),
            full: full_tx,
            empty: empty_rx,
            cats: FxHashSet::default(),
            failed,
        };
        let out = f(&mut handoff);
        // Whatever is left (a run that stopped early leaves a part batch).
        if !handoff.batch.ops.is_empty() {
            let _ = handoff.send();
        }
        drop(handoff);
        let written = match writer.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        (out, written)
    })
}
