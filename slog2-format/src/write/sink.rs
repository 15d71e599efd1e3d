//! Where the tree writer's finished nodes go: their stub pointers filled in,
//! framed (compressed) when the file is SLOG 2.0.6Z, and placed at the next file
//! position.
//!
//! A node's bytes depend on where its children landed (its stubs point at them),
//! and where a node lands depends on the compressed size of every node before it.
//! The writer therefore hands each node over with the byte positions of its stub
//! pointers and the sequence numbers of the children they name; [`Framer`] fills
//! them in from the pointers it gave out, in order. That work runs on a thread of
//! its own ([`Sink::Threaded`]), which also builds the nodes ([`Builder`]), so it
//! overlaps placing drawables in the tree. Compressed nodes are compressed by
//! further threads, a leaf as soon as it is built (its payload does not depend
//! on where it lands), a parent once its children are placed; they are placed
//! in order ([`Framer`]). The bytes are the same either way.

use super::node::{Builder, NodeTask};
use crate::error::{Error, Invariant, Limit, Oversized, Result, Worker, WriteProblem};
use crate::frame::{self, Compressed, Compression, Deflater, NODE_HEADER_LEN};
use crate::types::FileBlockPtr;
use std::collections::VecDeque;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// Nodes in flight to the framing thread before the writer waits.
const QUEUE: usize = 8;
/// Nodes the framer holds (being compressed or waiting for their turn), per
/// compressing thread.
const IN_FLIGHT: usize = 8;
/// Most compressing threads.
const MAX_WORKERS: usize = 4;

/// A finished node, as the tree writer builds it.
#[derive(Debug)]
pub(crate) struct NodeJob {
    /// The node block: 34-byte header (its own pointer left to fill), then the
    /// drawables and the stubs.
    pub bytes: Vec<u8>,
    /// For each stub: where its 12-byte pointer starts in `bytes`, and the
    /// sequence number of the node it names.
    pub stubs: Vec<(usize, u32)>,
}

/// What the tree writer hands over: a node to build, or one built.
#[derive(Debug)]
pub(crate) enum Job {
    /// A closed node, built by the sink (see [`Sink::builds`]).
    Task(NodeTask),
    /// A node's bytes.
    Built(NodeJob),
}

/// A node ready to write at the next position.
#[derive(Debug)]
pub(crate) struct Placed {
    /// The node's sequence number (0 for the first node handed over).
    pub seq: u32,
    /// The bytes to write (a plain block or a frame).
    pub bytes: Vec<u8>,
    /// Where they go and how long they are.
    pub ptr: FileBlockPtr,
    /// The node's uncompressed size.
    pub uncompressed: usize,
}

/// A node compressed by a worker, waiting for its place.
#[derive(Debug)]
struct Done {
    /// The frame, its headers left to fill in ([`frame::seal`]).
    frame: Vec<u8>,
    /// The node's header, its own pointer left to fill in.
    header: [u8; NODE_HEADER_LEN],
    compressed: Compressed,
    /// The node's uncompressed size.
    uncompressed: usize,
}

/// Compresses a node whose stub pointers are filled in.
fn compress_node(node: &[u8], compression: Compression, deflater: &mut Deflater) -> Result<Done> {
    let mut out = Vec::with_capacity(node.len() / 2 + 64);
    let compressed = frame::compress(node, compression, deflater, &mut out)?;
    let header = node[..NODE_HEADER_LEN]
        .try_into()
        .map_err(|_| Error::Write(WriteProblem::NodeShorterThanHeader))?;
    Ok(Done {
        frame: out,
        header,
        compressed,
        uncompressed: node.len(),
    })
}

/// Locks a mutex whether or not a thread panicked holding it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Nodes for the compressing threads, by sequence number; the node whose turn
/// it is to be placed goes first.
#[derive(Debug, Default)]
struct WorkQueue {
    state: Mutex<WorkState>,
    ready: Condvar,
}

#[derive(Debug, Default)]
struct WorkState {
    nodes: VecDeque<(u32, Vec<u8>)>,
    closed: bool,
}

impl WorkQueue {
    fn push(&self, seq: u32, node: Vec<u8>, urgent: bool) {
        let mut s = lock(&self.state);
        if urgent {
            s.nodes.push_front((seq, node));
        } else {
            s.nodes.push_back((seq, node));
        }
        drop(s);
        self.ready.notify_one();
    }

    /// The next node, or `None` once the queue is closed and empty.
    fn pop(&self) -> Option<(u32, Vec<u8>)> {
        let mut s = lock(&self.state);
        loop {
            if let Some(n) = s.nodes.pop_front() {
                return Some(n);
            }
            if s.closed {
                return None;
            }
            s = self
                .ready
                .wait(s)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    fn close(&self) {
        lock(&self.state).closed = true;
        self.ready.notify_all();
    }
}

/// Threads compressing nodes; results come back tagged with the node's
/// sequence number, in whatever order they finish.
#[derive(Debug)]
struct Pool {
    queue: Arc<WorkQueue>,
    done: Receiver<(u32, Result<Done>)>,
    workers: Vec<JoinHandle<()>>,
}

impl Pool {
    /// A thread per core (at most [`MAX_WORKERS`]); `None` when no thread
    /// could be started.
    fn new(compression: Compression) -> Option<Pool> {
        let n = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, MAX_WORKERS);
        let queue = Arc::new(WorkQueue::default());
        let (tx, done) = channel();
        let mut workers = Vec::with_capacity(n);
        for i in 0..n {
            let queue = Arc::clone(&queue);
            let tx: Sender<(u32, Result<Done>)> = tx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("mpelog-deflate-{i}"))
                .spawn(move || {
                    let mut deflater = Deflater::default();
                    while let Some((seq, node)) = queue.pop() {
                        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            compress_node(&node, compression, &mut deflater)
                        }))
                        .unwrap_or_else(|_| {
                            Err(Error::Write(WriteProblem::Stopped(
                                Worker::CompressingPanicked,
                            )))
                        });
                        if tx.send((seq, r)).is_err() {
                            return;
                        }
                    }
                });
            match spawned {
                Ok(w) => workers.push(w),
                Err(_) => break,
            }
        }
        if workers.is_empty() {
            return None;
        }
        Some(Pool {
            queue,
            done,
            workers,
        })
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.queue.close();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// A node handed to the framer and not yet placed.
#[derive(Debug)]
enum Slot {
    /// At the compressing threads.
    Compressing,
    /// Compressed, waiting for the nodes before it.
    Compressed(Done),
    /// Waiting for its children's places to fill in its stubs.
    Stubbed(NodeJob),
}

/// Fills in pointers, frames nodes and places them, in order.
///
/// Compressed nodes are compressed by a [`Pool`] of threads while the framer
/// places them in order: a node without stubs (a leaf) is compressed as soon as
/// it arrives, since nothing in its payload depends on where it lands (its own
/// pointer sits in the node header, outside the payload); a node with stubs
/// waits until every node before it is placed, then goes first. The output is
/// the same whatever the threads' timing; at most [`IN_FLIGHT`] nodes per
/// thread are held.
#[derive(Debug)]
pub(crate) struct Framer {
    pos: u64,
    compression: Compression,
    /// The pointer of every node placed so far, by sequence number.
    ptrs: Vec<FileBlockPtr>,
    /// Compresses inline, without a pool.
    deflater: Deflater,
    pool: Option<Pool>,
    /// The nodes handed over and not yet placed; the first is node
    /// `ptrs.len()`.
    pending: VecDeque<Slot>,
    /// Most nodes held in `pending`.
    limit: usize,
}

impl Framer {
    /// Nodes start at file position `pos`; compressed on the caller's thread.
    pub fn new(pos: u64, compression: Compression) -> Framer {
        Framer {
            pos,
            compression,
            ptrs: Vec::new(),
            deflater: Deflater::default(),
            pool: None,
            pending: VecDeque::new(),
            limit: 1,
        }
    }

    /// Nodes start at file position `pos`; compressed nodes are compressed by
    /// threads of their own (inline when none can be started).
    pub fn parallel(pos: u64, compression: Compression) -> Framer {
        let mut f = Framer::new(pos, compression);
        if compression.is_framed() {
            f.pool = Pool::new(compression);
            if let Some(p) = &f.pool {
                f.limit = IN_FLIGHT * p.workers.len();
            }
        }
        f
    }

    /// Hands over the next node; calls `write` with every node placed since,
    /// in order.
    pub fn push(
        &mut self,
        mut job: NodeJob,
        write: &mut dyn FnMut(Placed) -> Result<()>,
    ) -> Result<()> {
        let Some(pool) = &self.pool else {
            self.fill_stubs(&mut job)?;
            let placed = if self.compression.is_framed() {
                let done = compress_node(&job.bytes, self.compression, &mut self.deflater)?;
                self.place_framed(done)?
            } else {
                self.place_plain(job)?
            };
            return write(placed);
        };
        if job.stubs.is_empty() {
            pool.queue.push(self.next_seq()?, job.bytes, false);
            self.pending.push_back(Slot::Compressing);
        } else {
            self.pending.push_back(Slot::Stubbed(job));
        }
        self.advance(write, false)?;
        while self.pending.len() >= self.limit {
            self.advance(write, true)?;
        }
        Ok(())
    }

    /// Places every node handed over, calling `write` with each in order.
    pub fn finish(&mut self, write: &mut dyn FnMut(Placed) -> Result<()>) -> Result<()> {
        while !self.pending.is_empty() {
            self.advance(write, true)?;
        }
        Ok(())
    }

    /// The sequence number of the next node handed over.
    fn next_seq(&self) -> Result<u32> {
        u32::try_from(self.ptrs.len() + self.pending.len())
            .map_err(|_| Error::Write(WriteProblem::TooMany(Limit::Nodes)))
    }

    /// Takes in the compressing threads' results and places the nodes whose
    /// turn it is; a stubbed node at the head goes to be compressed. With
    /// `block`, waits until at least one node is placed (or none is pending).
    fn advance(&mut self, write: &mut dyn FnMut(Placed) -> Result<()>, block: bool) -> Result<()> {
        loop {
            let pool = self.pool.as_ref().expect("a framer with a pool");
            let mut results = Vec::new();
            while let Ok(r) = pool.done.try_recv() {
                results.push(r);
            }
            for (seq, r) in results {
                self.take(seq, r)?;
            }
            let mut placed = false;
            loop {
                match self.pending.front_mut() {
                    Some(Slot::Compressed(_)) => {
                        let Some(Slot::Compressed(done)) = self.pending.pop_front() else {
                            unreachable!("the head was compressed")
                        };
                        write(self.place_framed(done)?)?;
                        placed = true;
                    }
                    Some(slot @ Slot::Stubbed(_)) => {
                        let Slot::Stubbed(mut job) = std::mem::replace(slot, Slot::Compressing)
                        else {
                            unreachable!("the head was stubbed")
                        };
                        self.fill_stubs(&mut job)?;
                        let seq = u32::try_from(self.ptrs.len())
                            .map_err(|_| Error::Write(WriteProblem::TooMany(Limit::Nodes)))?;
                        let pool = self.pool.as_ref().expect("a framer with a pool");
                        pool.queue.push(seq, job.bytes, true);
                        break;
                    }
                    _ => break,
                }
            }
            if !block || placed || self.pending.is_empty() {
                return Ok(());
            }
            let pool = self.pool.as_ref().expect("a framer with a pool");
            let (seq, r) = pool
                .done
                .recv()
                .map_err(|_| Error::Write(WriteProblem::Stopped(Worker::Compressing)))?;
            self.take(seq, r)?;
        }
    }

    /// Files a compressing thread's result under its node.
    fn take(&mut self, seq: u32, r: Result<Done>) -> Result<()> {
        let done = r?;
        let slot = (seq as usize)
            .checked_sub(self.ptrs.len())
            .and_then(|i| self.pending.get_mut(i))
            .ok_or_else(|| {
                Error::Write(WriteProblem::Internal(Invariant::CompressedTwice { seq }))
            })?;
        *slot = Slot::Compressed(done);
        Ok(())
    }

    /// Fills in a node's stub pointers from the nodes placed so far.
    fn fill_stubs(&self, job: &mut NodeJob) -> Result<()> {
        for &(at, child) in &job.stubs {
            let p = self.ptrs.get(child as usize).ok_or_else(|| {
                Error::Write(WriteProblem::Internal(Invariant::ChildNotWritten { child }))
            })?;
            let field = job
                .bytes
                .get_mut(at..at + 12)
                .ok_or_else(|| Error::Write(WriteProblem::Internal(Invariant::StubOutsideNode)))?;
            field[..8].copy_from_slice(&p.offset.to_be_bytes());
            field[8..].copy_from_slice(&p.size.to_be_bytes());
        }
        Ok(())
    }

    /// Places a compressed node at the next position.
    fn place_framed(&mut self, mut done: Done) -> Result<Placed> {
        let ptr = frame::seal(
            &done.compressed,
            &mut done.header,
            self.pos,
            &mut done.frame,
        )?;
        Ok(self.placed(ptr, done.frame, done.uncompressed))
    }

    /// Places a plain node (its stubs filled in) at the next position.
    fn place_plain(&mut self, mut job: NodeJob) -> Result<Placed> {
        let size = i32::try_from(job.bytes.len())
            .map_err(|_| Error::Write(WriteProblem::TooLarge(Oversized::NodeBlock)))?;
        if job.bytes.len() < NODE_HEADER_LEN {
            return Err(Error::Write(WriteProblem::NodeShorterThanHeader));
        }
        let ptr = FileBlockPtr {
            offset: self.pos as i64,
            size,
        };
        job.bytes[22..30].copy_from_slice(&ptr.offset.to_be_bytes());
        job.bytes[30..34].copy_from_slice(&ptr.size.to_be_bytes());
        let uncompressed = job.bytes.len();
        Ok(self.placed(ptr, job.bytes, uncompressed))
    }

    fn placed(&mut self, ptr: FileBlockPtr, bytes: Vec<u8>, uncompressed: usize) -> Placed {
        self.pos += ptr.size as u64;
        let seq = self.ptrs.len() as u32;
        self.ptrs.push(ptr);
        Placed {
            seq,
            bytes,
            ptr,
            uncompressed,
        }
    }
}

/// The framer, inline or on its own thread.
#[derive(Debug)]
pub(crate) enum Sink {
    /// Framing on the caller's thread (when no thread could be started).
    Inline(Box<Framer>),
    /// Building and framing on a thread of its own (compression on the
    /// framer's threads); results come back in order. The thread returns its
    /// builder.
    Threaded {
        jobs: Option<SyncSender<Job>>,
        placed: Receiver<Result<Placed>>,
        worker: Option<JoinHandle<Option<Builder>>>,
    },
}

impl Sink {
    /// A sink for nodes starting at `pos`, on a thread of its own that builds
    /// the nodes and frames them (compressing on threads of the framer's own).
    pub fn new(pos: u64, compression: Compression) -> Sink {
        let (jobs, job_rx) = sync_channel::<Job>(QUEUE);
        // Unbounded, yet never long: every node handed over gives one placed
        // node, and the writer takes what is ready before handing over another
        // (so at most QUEUE + the framer's limit + 1 wait here). A bounded
        // channel could stall both threads once the framer places a burst.
        let (placed_tx, placed) = channel::<Result<Placed>>();
        let spawned = std::thread::Builder::new()
            .name("mpelog-nodes".into())
            .spawn(move || {
                let mut framer = Framer::parallel(pos, compression);
                let mut builder = Builder::default();
                let mut send = |p: Placed| {
                    placed_tx
                        .send(Ok(p))
                        .map_err(|_| Error::Write(WriteProblem::Stopped(Worker::TreeWriter)))
                };
                for job in job_rx {
                    let job = match job {
                        Job::Task(t) => builder.build(t),
                        Job::Built(j) => j,
                    };
                    if let Err(e) = framer.push(job, &mut send) {
                        let _ = placed_tx.send(Err(e));
                        return None;
                    }
                }
                if let Err(e) = framer.finish(&mut send) {
                    let _ = placed_tx.send(Err(e));
                    return None;
                }
                Some(builder)
            });
        match spawned {
            Ok(worker) => Sink::Threaded {
                jobs: Some(jobs),
                placed,
                worker: Some(worker),
            },
            // No thread to be had: frame inline.
            Err(_) => Sink::Inline(Box::new(Framer::new(pos, compression))),
        }
    }

    /// Whether the sink builds the nodes ([`Job::Task`]); otherwise it takes
    /// them built ([`Job::Built`]).
    pub fn builds(&self) -> bool {
        matches!(self, Sink::Threaded { .. })
    }

    /// Hands over the next node; calls `write` with every node placed since, in
    /// order (for the inline sink, this one).
    pub fn push(&mut self, job: Job, write: &mut dyn FnMut(Placed) -> Result<()>) -> Result<()> {
        match self {
            Sink::Inline(f) => match job {
                Job::Built(job) => f.push(job, write),
                Job::Task(_) => Err(Error::Write(WriteProblem::Internal(Invariant::NotABuilder))),
            },
            Sink::Threaded { jobs, placed, .. } => {
                let tx = jobs.as_ref().expect("the sink is open");
                // Write what is ready first, so both queues keep moving.
                while let Ok(r) = placed.try_recv() {
                    write(r?)?;
                }
                if tx.send(job).is_err() {
                    // The worker stopped: its error is waiting.
                    return Self::drain(placed, write)
                        .and_then(|()| Err(Error::Write(WriteProblem::Stopped(Worker::Framing))));
                }
                Ok(())
            }
        }
    }

    /// Waits for every node handed over and writes them, in order. Returns the
    /// sink's builder when it builds.
    pub fn finish(
        &mut self,
        write: &mut dyn FnMut(Placed) -> Result<()>,
    ) -> Result<Option<Builder>> {
        match self {
            Sink::Inline(f) => f.finish(write).map(|()| None),
            Sink::Threaded {
                jobs,
                placed,
                worker,
            } => {
                drop(jobs.take());
                let r = Self::drain(placed, write);
                let mut builder = None;
                if let Some(w) = worker.take() {
                    match w.join() {
                        Ok(b) => builder = b,
                        Err(panic) => std::panic::resume_unwind(panic),
                    }
                }
                r.map(|()| builder)
            }
        }
    }

    fn drain(
        placed: &Receiver<Result<Placed>>,
        write: &mut dyn FnMut(Placed) -> Result<()>,
    ) -> Result<()> {
        for r in placed.iter() {
            write(r?)?;
        }
        Ok(())
    }
}

impl Drop for Sink {
    /// Stops the framing thread and waits for it (a writer dropped after an
    /// error leaves no thread behind).
    fn drop(&mut self) {
        if let Sink::Threaded {
            jobs,
            placed,
            worker,
        } = self
        {
            drop(jobs.take());
            // Without a receiver the worker's next hand-back fails and it stops.
            drop(std::mem::replace(placed, channel().1));
            if let Some(w) = worker.take() {
                let _ = w.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nodes as the tree writer hands them over for a binary tree of `leaves`
    /// leaves of varied sizes: leaves, and after every second one its parent
    /// (and so on up), each parent with a stub per child.
    fn jobs(leaves: u32) -> Vec<NodeJob> {
        let mut out = Vec::new();
        let mut open: Vec<Vec<u32>> = vec![Vec::new()];
        let mut seq = 0u32;
        let node = |seq: u32, stubs: &[u32]| {
            let len = 34 + 300 + (seq as usize * 7919) % 5000;
            let mut bytes: Vec<u8> = (0..len)
                .map(|i| ((i as u32 ^ seq).wrapping_mul(2654435761) >> 24) as u8 % 11)
                .collect();
            bytes[16..18].copy_from_slice(&(stubs.len() as i16).to_be_bytes());
            let stubs = stubs
                .iter()
                .enumerate()
                .map(|(k, &c)| (40 + 20 * k, c))
                .collect();
            NodeJob { bytes, stubs }
        };
        for _ in 0..leaves {
            out.push(node(seq, &[]));
            open[0].push(seq);
            seq += 1;
            let mut level = 0;
            while open[level].len() == 2 {
                let children = std::mem::take(&mut open[level]);
                out.push(node(seq, &children));
                if open.len() == level + 1 {
                    open.push(Vec::new());
                }
                open[level + 1].push(seq);
                seq += 1;
                level += 1;
            }
        }
        out
    }

    fn run(mut f: Framer, jobs: Vec<NodeJob>) -> Vec<(u32, Vec<u8>, FileBlockPtr, usize)> {
        let mut placed = Vec::new();
        let mut write = |p: Placed| {
            placed.push((p.seq, p.bytes, p.ptr, p.uncompressed));
            Ok(())
        };
        for j in jobs {
            f.push(j, &mut write).unwrap();
        }
        f.finish(&mut write).unwrap();
        placed
    }

    #[test]
    fn threads_place_the_same_bytes_as_one() {
        for c in [
            Compression::None,
            Compression::Stored,
            Compression::Deflate(1),
            Compression::Columns(4),
        ] {
            let one = run(Framer::new(1000, c), jobs(37));
            assert_eq!(one.len(), jobs(37).len());
            for _ in 0..3 {
                let many = run(Framer::parallel(1000, c), jobs(37));
                assert!(many == one, "{c:?}: threaded output differs");
            }
            // In order, back to back, and every stub names its child's place.
            let mut pos = 1000;
            for (i, (seq, bytes, ptr, _)) in one.iter().enumerate() {
                assert_eq!(*seq as usize, i);
                assert_eq!(ptr.offset as u64, pos);
                assert_eq!(ptr.size as usize, bytes.len());
                pos += bytes.len() as u64;
            }
            if c.is_framed() {
                let mut node = Vec::new();
                for (j, (_, bytes, ptr, n)) in jobs(37).iter().zip(&one) {
                    frame::decode(bytes, *ptr, 1 << 20, &mut node).unwrap();
                    assert_eq!(node.len(), *n);
                    for &(at, child) in &j.stubs {
                        let want = one[child as usize].2;
                        assert_eq!(node[at..at + 8], want.offset.to_be_bytes());
                        assert_eq!(node[at + 8..at + 12], want.size.to_be_bytes());
                    }
                }
            }
        }
    }

    #[test]
    fn a_failing_write_stops_the_threads_with_its_error() {
        for c in [Compression::None, Compression::Columns(2)] {
            let mut sink = Sink::new(0, c);
            let mut written = 0;
            let mut write = |_: Placed| {
                written += 1;
                if written >= 3 {
                    Err(Error::Io {
                        offset: 4242,
                        source: std::io::Error::other("disk full"),
                    })
                } else {
                    Ok(())
                }
            };
            let mut r = Ok(());
            for j in jobs(300) {
                r = sink.push(Job::Built(j), &mut write);
                if r.is_err() {
                    break;
                }
            }
            let r = r.and_then(|()| sink.finish(&mut write).map(|_| ()));
            assert!(
                matches!(&r, Err(Error::Io { offset: 4242, .. })),
                "{c:?}: {r:?}"
            );
            // Dropping the sink joins its threads (a hang here fails the test
            // by timeout).
            drop(sink);
        }
    }

    #[test]
    fn a_stub_naming_a_later_node_is_an_error() {
        let mut f = Framer::parallel(0, Compression::Columns(1));
        let mut bytes = vec![0u8; 100];
        bytes[0] = 1;
        let r = f
            .push(
                NodeJob {
                    bytes,
                    stubs: vec![(40, 5)],
                },
                &mut |_| Ok(()),
            )
            .and_then(|()| f.finish(&mut |_| Ok(())));
        assert!(matches!(r, Err(Error::Write(_))), "{r:?}");
    }
}
