//! Where the tree writer's finished nodes go: their stub pointers filled in,
//! framed (compressed) when the file is SLOG 2.0.6Z, and placed at the next file
//! position.
//!
//! A node's bytes depend on where its children landed (its stubs point at them),
//! and where a node lands depends on the compressed size of every node before it.
//! The writer therefore hands each node over with the byte positions of its stub
//! pointers and the sequence numbers of the children they name; [`Framer`] fills
//! them in from the pointers it gave out, in order. That work runs on a thread of
//! its own ([`Sink::Threaded`]), so it overlaps placing drawables in the tree:
//! for plain files the thread also builds the nodes ([`Builder`]), for
//! compressed ones it compresses them (built by the writer's thread). The bytes
//! are the same either way.

use super::node::{Builder, NodeTask};
use crate::error::{Error, Result};
use crate::frame::{self, Compression};
use crate::types::FileBlockPtr;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Nodes in flight to the framing thread before the writer waits.
const QUEUE: usize = 8;

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

/// Fills in pointers and frames nodes, in order.
#[derive(Debug)]
pub(crate) struct Framer {
    pos: u64,
    compression: Compression,
    /// The pointer of every node placed so far, by sequence number.
    ptrs: Vec<FileBlockPtr>,
}

impl Framer {
    /// Nodes start at file position `pos`.
    pub fn new(pos: u64, compression: Compression) -> Framer {
        Framer {
            pos,
            compression,
            ptrs: Vec::new(),
        }
    }

    /// Places the next node.
    pub fn place(&mut self, mut job: NodeJob) -> Result<Placed> {
        for &(at, child) in &job.stubs {
            let p = self.ptrs.get(child as usize).ok_or_else(|| {
                Error::Write(format!("a stub names node #{child}, not yet written"))
            })?;
            job.bytes[at..at + 8].copy_from_slice(&p.offset.to_be_bytes());
            job.bytes[at + 8..at + 12].copy_from_slice(&p.size.to_be_bytes());
        }
        let uncompressed = job.bytes.len();
        let (bytes, ptr) = if self.compression.is_framed() {
            let mut out = Vec::with_capacity(uncompressed / 2 + 64);
            let ptr = frame::encode(&mut job.bytes, self.pos, self.compression, &mut out)?;
            (out, ptr)
        } else {
            let size = i32::try_from(uncompressed)
                .map_err(|_| Error::Write("a node block exceeds 2 GiB".into()))?;
            let ptr = FileBlockPtr {
                offset: self.pos as i64,
                size,
            };
            job.bytes[22..30].copy_from_slice(&ptr.offset.to_be_bytes());
            job.bytes[30..34].copy_from_slice(&ptr.size.to_be_bytes());
            (job.bytes, ptr)
        };
        self.pos += ptr.size as u64;
        let seq = self.ptrs.len() as u32;
        self.ptrs.push(ptr);
        Ok(Placed {
            seq,
            bytes,
            ptr,
            uncompressed,
        })
    }
}

/// The framer, inline or on its own thread.
#[derive(Debug)]
pub(crate) enum Sink {
    /// Framing on the caller's thread (when no thread could be started).
    Inline(Framer),
    /// Framing (and for plain files building) on a thread of its own; results
    /// come back in order. The thread returns its builder, if it builds.
    Threaded {
        jobs: Option<SyncSender<Job>>,
        placed: Receiver<Result<Placed>>,
        worker: Option<JoinHandle<Option<Builder>>>,
        builds: bool,
    },
}

impl Sink {
    /// A sink for nodes starting at `pos`, on a thread of its own: it builds the
    /// nodes too unless they are compressed (compression is the thread's work
    /// then).
    pub fn new(pos: u64, compression: Compression) -> Sink {
        let mut framer = Framer::new(pos, compression);
        let builds = !compression.is_framed();
        let (jobs, job_rx) = sync_channel::<Job>(QUEUE);
        let (placed_tx, placed) = sync_channel::<Result<Placed>>(QUEUE);
        let spawned = std::thread::Builder::new()
            .name("mpelog-nodes".into())
            .spawn(move || {
                let mut builder = Builder::default();
                for job in job_rx {
                    let job = match job {
                        Job::Task(t) => builder.build(t),
                        Job::Built(j) => j,
                    };
                    let r = framer.place(job);
                    let failed = r.is_err();
                    if placed_tx.send(r).is_err() || failed {
                        return None;
                    }
                }
                builds.then_some(builder)
            });
        match spawned {
            Ok(worker) => Sink::Threaded {
                jobs: Some(jobs),
                placed,
                worker: Some(worker),
                builds,
            },
            // No thread to be had: frame inline.
            Err(_) => Sink::Inline(Framer::new(pos, compression)),
        }
    }

    /// Whether the sink builds the nodes ([`Job::Task`]); otherwise it takes
    /// them built ([`Job::Built`]).
    pub fn builds(&self) -> bool {
        matches!(self, Sink::Threaded { builds: true, .. })
    }

    /// Hands over the next node; calls `write` with every node placed since, in
    /// order (for the inline sink, this one).
    pub fn push(&mut self, job: Job, write: &mut dyn FnMut(Placed) -> Result<()>) -> Result<()> {
        match self {
            Sink::Inline(f) => match job {
                Job::Built(job) => write(f.place(job)?),
                Job::Task(_) => Err(Error::Write(
                    "a node to build handed to a sink that does not build".into(),
                )),
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
                        .and_then(|()| Err(Error::Write("the framing thread stopped".into())));
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
            Sink::Inline(_) => Ok(None),
            Sink::Threaded {
                jobs,
                placed,
                worker,
                ..
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
            ..
        } = self
        {
            drop(jobs.take());
            // Without a receiver the worker's next hand-back fails and it stops.
            drop(std::mem::replace(placed, sync_channel(0).1));
            if let Some(w) = worker.take() {
                let _ = w.join();
            }
        }
    }
}
