//! A deterministic generator of realistic MPE-like `CLOG-02.44` traces of any size.
//!
//! The output looks like a merged file written by MPE's `MPE_Finish_log` for a
//! program that runs `ranks` processes through many iterations of a solver loop:
//!
//! * **Start** (every rank, clocks skewed by up to a few ms): a TIMESHIFT, the
//!   COMMEVTs `WORLD_CREATE` and `SELF_CREATE`, rank 0's three CONSTDEFs
//!   (`MPI_PROC_NULL`, `MPI_ANY_SOURCE`, `MPI_ANY_TAG`), a bare `-10`
//!   (`MPE_Comm_init`), `MPI_Comm_rank` and `MPI_Comm_size` states, rank 0's user
//!   STATEDEFs (`Outer`, `Middle`, `Inner`, `FileIO`, with `MPE_Log_pack` formats) and
//!   solo EVENTDEFs (`Marker`, `Tick`, `Sample`, IDs 5000..5002), then an
//!   `MPI_Comm_split` of the world into a lower and an upper half (COMMEVT
//!   `INTRA_CREATE` and a `-10` in the new communicator).
//! * **Iterations**, each in its own time slot: nested user states `Outer` ⊃ `Middle`
//!   ⊃ `Inner` (the finals of `Outer` and `Middle` are CARGOEVTs whose payload packs
//!   the STATEDEF format's tokens big-endian); a point-to-point exchange around the
//!   world ring (`MPI_Send`/`MPI_Recv`, `MPI_Sendrecv`, or `MPI_Irecv`/`MPI_Isend`/
//!   `MPI_Waitall` with `MPE_Isend_waited`/`MPE_Irecv_waited`), whose MSGEVTs carry the
//!   partner's communicator LID and rank, matching tags and sizes, and a receive time
//!   later than the send; solo events (bare or cargo); sometimes a `FileIO` state; a
//!   collective (`MPI_Barrier`, `MPI_Bcast`, `MPI_Allreduce`, `MPI_Reduce`,
//!   `MPI_Allgather`) on all ranks; every few iterations a ring exchange and an
//!   `MPI_Allreduce` on the split halves (headers in the half's LID and rank); rarely a
//!   TIMESHIFT; and `CLOG_Buffer_write2disk` (560/561) whenever a rank's local buffer
//!   (`num_buffered_blocks * block_size` bytes) would have filled up.
//! * **End**: each rank frees its half (`MPI_Comm_free`, COMMEVT `FREE`, `-9`) and logs
//!   a bare `-9` (`MPE_Comm_finalize`) in the world; then rank 0's STATEDEFs for every
//!   MPI state used (MPE's names and colours), the EVENTDEFs of `-10` and `-9` and the
//!   STATEDEF of `CLOG_Buffer_write2disk`, which MPE writes at `MPI_Finalize`.
//! * **Comm table**: WORLD, rank 0's SELF, the lower half (kind IntraComm, created by
//!   rank 0), then every other rank's SELF and the upper half (kind -1, learned by the
//!   merge); LID = index; UUIDs with a pseudo-random `rand`, an absolute creation time
//!   and the host name `synth`.
//!
//! With [`Options::dense`] the iterations are instead a dense halo exchange
//! ([`Options::dense`] says how): every rank is in `MPI_Sendrecv` with its ring
//! neighbours almost all the time (about 99.8 % of it), two messages per rank and
//! iteration, eight records per rank and iteration, so a trace of `events` records
//! holds about `events / 4` messages in every stretch of time.
//!
//! Records are sorted by time as MPE's merger writes them and packed into blocks by
//! [`Clog2Writer`]. Every state start has its final later on the same
//! (communicator, rank, thread) line, properly nested; every send has its receive;
//! every header (communicator, rank) pair is declared by an earlier COMMEVT, except
//! each rank's very first record, its TIMESHIFT, exactly as in MPE's files.
//!
//! Only one iteration is held in memory at a time (a few dozen 40-byte entries per
//! rank), so memory does not depend on [`Options::events`]; the same options always
//! give the same bytes.

use crate::bytes::FixedBytes;
use crate::commtable::{comm_kind, CommEntry, CommTable};
use crate::error::{Error, OptionsProblem, Result};
use crate::preamble::{PreambleInfo, MAX_BLOCK_SIZE, PREAMBLE_LEN};
use crate::record::{
    comm_etype, BareEvt, Body, CargoEvt, CommEvt, ConstDef, EventDef, MsgEvt, Record, StateDef,
    TimeShift, Uuid, CONST_ETYPE, RECV_ETYPE, SEND_ETYPE,
};
use crate::write::Clog2Writer;
use std::io::{BufWriter, Seek, Write};

mod dense;
mod events;
mod gen;
mod phases;
mod tables;
use events::*;
use gen::*;
use tables::*;

/// Smallest accepted block size: the largest record (a 136-byte STATEDEF) plus the
/// 24-byte ENDBLOCK must fit strictly, rounded up to a multiple of 8.
pub const MIN_BLOCK_SIZE: u32 = 168;
/// Largest accepted number of ranks. One iteration holds a few KiB per rank in memory.
pub const MAX_RANKS: u32 = 1 << 16;
/// The progress callback of [`generate_with_progress`] is called each time this many
/// more records have been written (and once at the end).
pub const PROGRESS_INTERVAL: u64 = 1 << 16;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Number of MPI processes (`max_comm_world_size`), 1 to [`MAX_RANKS`].
    pub ranks: u32,
    /// Approximate number of records to write (ENDBLOCK and ENDLOG not counted). The
    /// result is within a few percent of this (more precisely, within half an
    /// iteration, about 10 records per rank), but never less than the fixed start and
    /// end records (about 18 per rank).
    pub events: u64,
    /// Seed of the pseudo-random generator; the same options give the same bytes.
    pub seed: u64,
    /// Block size in bytes: a multiple of 8 from [`MIN_BLOCK_SIZE`] to 2^30.
    pub block_size: u32,
    /// A dense trace: after the same start, each iteration is an `MPI_Sendrecv` with
    /// the right ring neighbour, then one with the left, on every rank, back to back
    /// (a few tens of nanoseconds between calls, each call a few to some tens of
    /// microseconds: the sends' latency and size), and nothing else; no solo events
    /// and no buffer flushes. Messages then join neighbouring timelines in every
    /// stretch of time: a million records give 250 000 messages. The planted waits
    /// ([`Options::plant`]) are then ignored.
    pub dense: bool,
    /// Waits of known size to plant, in nanoseconds (all 0: none). When any is
    /// set, every iteration is the planted one instead of the solver loop's
    /// ([`Options::plant`]).
    pub plant: Plant,
}

/// Waits of known size a generated trace holds, so that an analysis has a
/// ground truth (`mpelog analyze`). When any is non-zero, each iteration of
/// the loop is, on ranks aligned at one time `T`:
///
/// 1. every rank in the user state `Inner` for the same random time `b`, the
///    last rank `imbalance_ns` longer;
/// 2. (two ranks or more) rank 1 enters `MPI_Recv` at `T1`, rank 0 enters
///    `MPI_Send` to it at `T1 + late_sender_ns` (the message, tag 2000, leaves
///    after it and arrives before rank 1 leaves): a Late Sender of exactly
///    `late_sender_ns` on rank 1;
/// 3. rank `r` enters `MPI_Barrier` at `T2 + r · barrier_skew_ns`, every rank
///    leaves it at the same time: Wait at Barrier `(n − 1 − r) · barrier_skew_ns`
///    on rank `r`, no Barrier Completion.
///
/// No other MPI call is in an iteration, so over `I` iterations and `n` ranks
/// the trace holds Late Sender `I · late_sender_ns`, Wait at Barrier
/// `I · barrier_skew_ns · n(n − 1)/2`, and `Inner` exclusive time `I ·
/// imbalance_ns` longer on the last rank than on the others.
///
/// ```
/// use clog2_format::synth::{generate, Options, Plant};
/// let opts = Options::default().events(2000).plant(Plant { late_sender_ns: 25_000_000, ..Plant::default() });
/// let (_, stats) = generate(std::io::Cursor::new(Vec::new()), &opts)?;
/// assert!(stats.iterations > 0 && stats.messages == stats.iterations);
/// # Ok::<(), clog2_format::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Plant {
    /// How late rank 0's send to rank 1 is, per iteration.
    pub late_sender_ns: u64,
    /// How much later each rank enters the barrier than the rank before it.
    pub barrier_skew_ns: u64,
    /// How much longer the last rank computes in `Inner`.
    pub imbalance_ns: u64,
}

impl Plant {
    /// Whether anything is planted.
    ///
    /// ```
    /// use clog2_format::synth::Plant;
    /// assert!(!Plant::default().any());
    /// assert!(Plant { imbalance_ns: 1, ..Plant::default() }.any());
    /// ```
    pub fn any(&self) -> bool {
        self.late_sender_ns > 0 || self.barrier_skew_ns > 0 || self.imbalance_ns > 0
    }
}

impl Default for Options {
    /// 4 ranks, 10 000 records, seed 1, 64 KiB blocks (MPE's default), not dense.
    fn default() -> Self {
        Options {
            ranks: 4,
            events: 10_000,
            seed: 1,
            block_size: 65536,
            dense: false,
            plant: Plant::default(),
        }
    }
}

/// Setters, one per field (the struct is `#[non_exhaustive]`: start from
/// [`Default`]).
impl Options {
    /// Sets `ranks` (see the field).
    ///
    /// ```
    /// use clog2_format::synth::{generate_vec, Options};
    /// let opts = Options::default().ranks(16);
    /// assert_eq!(opts.ranks, 16);
    /// let bytes = generate_vec(&opts)?;
    /// let r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// assert_eq!(r.preamble().info().comm_world_size, Some(16));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn ranks(mut self, ranks: u32) -> Self {
        self.ranks = ranks;
        self
    }

    /// Sets `events` (see the field).
    ///
    /// ```
    /// use clog2_format::synth::{generate_vec, Options};
    /// let opts = Options::default().events(2000);
    /// assert_eq!(opts.events, 2000);
    /// let bytes = generate_vec(&opts)?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// let n = r.records().count() as f64;
    /// assert!((n - 2000.0).abs() < 200.0, "{n}");
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn events(mut self, events: u64) -> Self {
        self.events = events;
        self
    }

    /// Sets `seed` (see the field).
    ///
    /// ```
    /// use clog2_format::synth::{generate_vec, Options};
    /// let opts = Options::default().seed(7);
    /// assert_eq!(opts.seed, 7);
    /// assert_eq!(generate_vec(&opts)?, generate_vec(&opts)?);
    /// assert_ne!(generate_vec(&opts)?, generate_vec(&opts.clone().seed(8))?);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets `block_size` (see the field).
    ///
    /// ```
    /// use clog2_format::synth::{generate_vec, Options};
    /// let opts = Options::default().block_size(4096);
    /// assert_eq!(opts.block_size, 4096);
    /// let bytes = generate_vec(&opts)?;
    /// let r = clog2_format::Clog2Reader::from_slice(&bytes)?;
    /// assert_eq!(r.preamble().info().block_size, 4096);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn block_size(mut self, block_size: u32) -> Self {
        self.block_size = block_size;
        self
    }

    /// Sets `dense` (see the field).
    ///
    /// ```
    /// use clog2_format::synth::{generate, Options};
    /// let opts = Options::default().dense(true).events(20_000);
    /// assert!(opts.dense);
    /// let (_, stats) = generate(std::io::Cursor::new(Vec::new()), &opts)?;
    /// // Two messages per rank and iteration, eight records per rank.
    /// assert!((stats.messages as f64 - 20_000.0 / 4.0).abs() < 200.0, "{}", stats.messages);
    /// assert_eq!(stats.collectives, 0);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn dense(mut self, dense: bool) -> Self {
        self.dense = dense;
        self
    }

    /// Sets `plant` (see [`Plant`]).
    ///
    /// ```
    /// use clog2_format::synth::{Options, Plant};
    /// let p = Plant { barrier_skew_ns: 1000, ..Plant::default() };
    /// assert_eq!(Options::default().plant(p).plant, p);
    /// ```
    pub fn plant(mut self, plant: Plant) -> Self {
        self.plant = plant;
        self
    }
}

impl Options {
    /// Checks the options; [`generate`] does the same and fails with this error.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOptions`] naming the option out of range.
    ///
    /// ```
    /// use clog2_format::synth::Options;
    /// assert!(Options::default().validate().is_ok());
    /// assert!(matches!(Options::default().ranks(0).validate(), Err(clog2_format::Error::InvalidOptions(_))));
    /// assert!(Options::default().block_size(1001).validate().is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn validate(&self) -> Result<()> {
        if self.ranks == 0 || self.ranks > MAX_RANKS {
            return Err(Error::InvalidOptions(OptionsProblem::Ranks {
                ranks: self.ranks,
                max: MAX_RANKS,
            }));
        }
        if self.block_size < MIN_BLOCK_SIZE
            || self.block_size > MAX_BLOCK_SIZE
            || self.block_size % 8 != 0
        {
            return Err(Error::InvalidOptions(OptionsProblem::BlockSize {
                block_size: self.block_size,
                min: MIN_BLOCK_SIZE,
                max: MAX_BLOCK_SIZE,
            }));
        }
        Ok(())
    }
}

/// What was generated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Records written, without the ENDBLOCK and ENDLOG terminators.
    pub records: u64,
    /// Size of the file in bytes (preamble, blocks and comm table).
    pub bytes: u64,
    /// Number of blocks.
    pub blocks: u64,
    /// Largest record time in seconds (the ENDLOG's 1.0e8 excluded).
    pub time_max: f64,
    /// Number of loop iterations generated.
    pub iterations: u64,
    /// State instances (start/final event pairs), MPI and user states together.
    pub states: u64,
    /// Point-to-point messages (each one a send and a receive MSGEVT).
    pub messages: u64,
    /// Collective calls (counted once per call, not once per rank).
    pub collectives: u64,
    /// CARGOEVT records.
    pub cargo_events: u64,
    /// Solo events (user events 5000 and up, bare or cargo).
    pub solo_events: u64,
    /// COMMEVT records.
    pub comm_events: u64,
    /// TIMESHIFT records.
    pub timeshifts: u64,
    /// STATEDEF, EVENTDEF and CONSTDEF records.
    pub definitions: u64,
    /// Communicators (comm table entries).
    pub communicators: u64,
}

/// Generates a trace into `out`, which must be seekable (the preamble is rewritten at
/// the end with the comm table's offset). Returns the output, positioned at its end,
/// and what was written. Fails on invalid [`Options`] (an [`Error::InvalidOptions`]) or an I/O
/// error.
///
/// # Errors
///
/// As [`generate_with_progress`].
///
/// ```
/// use clog2_format::synth::{generate, Options};
/// let (out, stats) = generate(std::io::Cursor::new(Vec::new()), &Options::default())?;
/// assert_eq!(stats.bytes, out.get_ref().len() as u64);
/// assert!(stats.states > 0 && stats.messages > 0);
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn generate<W: Write + Seek>(out: W, opts: &Options) -> Result<(W, Stats)> {
    generate_with_progress(out, opts, &mut |_| {})
}

/// Like [`generate`], calling `progress` with the number of records written so far
/// every [`PROGRESS_INTERVAL`] records, and once at the end.
///
/// # Errors
///
/// [`Error::InvalidOptions`] from [`Options::validate`] before anything is
/// written, and [`Error::Io`] at the writer's offset when `out` fails to write,
/// flush or seek.
///
/// ```
/// use clog2_format::synth::{generate_with_progress, Options, PROGRESS_INTERVAL};
/// let mut calls = Vec::new();
/// let opts = Options::default().events(3 * PROGRESS_INTERVAL);
/// let (_, stats) = generate_with_progress(std::io::Cursor::new(Vec::new()), &opts, &mut |n| calls.push(n))?;
/// assert!(calls.len() >= 3 && calls.last() == Some(&stats.records));
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn generate_with_progress<W: Write + Seek>(
    out: W,
    opts: &Options,
    progress: &mut dyn FnMut(u64),
) -> Result<(W, Stats)> {
    opts.validate()?;
    // Clog2Writer writes whole blocks; buffer only when they are small.
    let cap = if opts.block_size < (1 << 15) {
        1 << 18
    } else {
        0
    };
    let mut gen = Gen::new(opts);
    let mut w = Clog2Writer::new(BufWriter::with_capacity(cap, out), gen.preamble(opts))?;
    let mut sink = Sink {
        next_report: PROGRESS_INTERVAL,
        progress,
    };

    gen.header();
    gen.flush(&mut w, &mut sink)?;
    let fixed = w.records_written() + gen.footer_estimate();
    let target = opts.events.saturating_sub(fixed);
    let mut body = 0u64;
    let mut last = 20 * opts.ranks as u64;
    if opts.dense {
        gen.open_slot();
    }
    while body + last / 2 < target {
        let before = gen.buf.len();
        if opts.dense {
            gen.dense_iteration();
            last = (gen.buf.len() - before) as u64;
            // Ranks' clocks run apart: only what no rank can still log before.
            let settled = gen.cur.iter().fold(f64::INFINITY, |a, &b| a.min(b));
            gen.flush_before(&mut w, &mut sink, settled)?;
        } else {
            gen.iteration();
            last = (gen.buf.len() - before) as u64;
            gen.flush(&mut w, &mut sink)?;
        }
        body += last;
    }
    if opts.dense {
        gen.close_slot();
    }
    gen.footer();
    gen.flush(&mut w, &mut sink)?;

    let records = w.records_written();
    (sink.progress)(records);
    let table = CommTable::new(gen.comms.clone());
    let (buffered, bytes) = w.finish(Some(&table))?;
    let out = buffered.into_inner().map_err(|e| Error::Io {
        offset: bytes,
        source: e.into_error(),
    })?;
    let mut stats = gen.stats;
    stats.records = records;
    stats.bytes = bytes;
    stats.blocks = (bytes - table.disk_len() - PREAMBLE_LEN as u64) / opts.block_size as u64;
    stats.communicators = gen.comms.len() as u64;
    Ok((out, stats))
}

/// Generates a trace in memory.
///
/// # Errors
///
/// As [`generate`] (only [`Error::InvalidOptions`] in practice: writing to memory
/// does not fail).
///
/// ```
/// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
/// assert!(clog2_format::Clog2Reader::from_slice(&bytes).is_ok());
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn generate_vec(opts: &Options) -> Result<Vec<u8>> {
    let (cur, _) = generate(std::io::Cursor::new(Vec::new()), opts)?;
    Ok(cur.into_inner())
}
