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
use crate::error::{Error, Result};
use crate::preamble::{PreambleInfo, MAX_BLOCK_SIZE, PREAMBLE_LEN};
use crate::record::{
    comm_etype, BareEvt, Body, CargoEvt, CommEvt, ConstDef, EventDef, MsgEvt, Record, StateDef,
    TimeShift, Uuid, CONST_ETYPE, RECV_ETYPE, SEND_ETYPE,
};
use crate::write::Clog2Writer;
use std::io::{BufWriter, Seek, Write};

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
}

impl Default for Options {
    /// 4 ranks, 10 000 records, seed 1, 64 KiB blocks (MPE's default).
    fn default() -> Self {
        Options {
            ranks: 4,
            events: 10_000,
            seed: 1,
            block_size: 65536,
        }
    }
}

/// Setters, one per field (the struct is `#[non_exhaustive]`: start from
/// [`Default`]).
impl Options {
    /// Sets `ranks` (see the field).
    pub fn ranks(mut self, ranks: u32) -> Self {
        self.ranks = ranks;
        self
    }

    /// Sets `events` (see the field).
    pub fn events(mut self, events: u64) -> Self {
        self.events = events;
        self
    }

    /// Sets `seed` (see the field).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets `block_size` (see the field).
    pub fn block_size(mut self, block_size: u32) -> Self {
        self.block_size = block_size;
        self
    }
}

impl Options {
    /// Checks the options; [`generate`] does the same and fails with this error.
    pub fn validate(&self) -> Result<()> {
        if self.ranks == 0 || self.ranks > MAX_RANKS {
            return Err(Error::InvalidOptions(format!(
                "synth ranks = {} (must be between 1 and {MAX_RANKS})",
                self.ranks
            )));
        }
        if self.block_size < MIN_BLOCK_SIZE
            || self.block_size > MAX_BLOCK_SIZE
            || self.block_size % 8 != 0
        {
            return Err(Error::InvalidOptions(format!(
                "synth block_size = {} (must be a multiple of 8 between {MIN_BLOCK_SIZE} and {MAX_BLOCK_SIZE})",
                self.block_size
            )));
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
/// and what was written. Fails on invalid [`Options`] (an [`Error::Write`]) or an I/O
/// error.
pub fn generate<W: Write + Seek>(out: W, opts: &Options) -> Result<(W, Stats)> {
    generate_with_progress(out, opts, &mut |_| {})
}

/// Like [`generate`], calling `progress` with the number of records written so far
/// every [`PROGRESS_INTERVAL`] records, and once at the end.
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
    while body + last / 2 < target {
        gen.iteration();
        last = gen.buf.len() as u64;
        body += last;
        gen.flush(&mut w, &mut sink)?;
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
pub fn generate_vec(opts: &Options) -> Result<Vec<u8>> {
    let (cur, _) = generate(std::io::Cursor::new(Vec::new()), opts)?;
    Ok(cur.into_inner())
}

// ---------------------------------------------------------------------------------
// Fixed tables: MPE's known states and the synthetic program's user definitions.

/// A state or event definition: ID, name, colour, format.
type Def = (i32, &'static str, &'static str, &'static str);

/// Known (MPI and MPE) states that can appear, with MPE's names and colours. State
/// `i` uses events `2i` and `2i+1`.
const MPI_STATES: [Def; 18] = [
    (0, "MPI_Allgather", "purple3", ""),
    (2, "MPI_Allreduce", "purple", ""),
    (5, "MPI_Barrier", "yellow", ""),
    (6, "MPI_Bcast", "cyan", ""),
    (12, "MPI_Reduce", "MediumPurple", ""),
    (22, "MPI_Comm_free", "LightSeaGreen", ""),
    (24, "MPI_Comm_rank", "white", ""),
    (27, "MPI_Comm_size", "white", ""),
    (28, "MPI_Comm_split", "DarkOliveGreen2", ""),
    (70, "MPI_Irecv", "PaleGreen", ""),
    (72, "MPI_Isend", "SkyBlue", ""),
    (77, "MPI_Recv", "green", ""),
    (80, "MPI_Send", "blue", ""),
    (81, "MPI_Sendrecv", "SeaGreen", ""),
    (106, "MPI_Waitall", "OrangeRed", ""),
    (250, "MPE_Isend_waited", "magenta", ""),
    (251, "MPE_Irecv_waited", "DarkOrange", ""),
    (280, "CLOG_Buffer_write2disk", "maroon", ""),
];
const ALLGATHER: u8 = 0;
const ALLREDUCE: u8 = 1;
const BARRIER: u8 = 2;
const BCAST: u8 = 3;
const REDUCE: u8 = 4;
const COMM_FREE: u8 = 5;
const COMM_RANK: u8 = 6;
const COMM_SIZE: u8 = 7;
const COMM_SPLIT: u8 = 8;
const IRECV: u8 = 9;
const ISEND: u8 = 10;
const RECV: u8 = 11;
const SEND: u8 = 12;
const SENDRECV: u8 = 13;
const WAITALL: u8 = 14;
const ISEND_WAITED: u8 = 15;
const IRECV_WAITED: u8 = 16;
const WRITE2DISK: u8 = 17;
const COLLECTIVES: [u8; 5] = [BARRIER, BCAST, ALLREDUCE, REDUCE, ALLGATHER];

/// User states (IDs from 300, events from 600) with `MPE_Log_pack` formats.
const USER_STATES: [Def; 4] = [
    (300, "Outer", "red", "iter=%d val=%E"),
    (301, "Middle", "orange", "sum=%E phase=%s"),
    (302, "Inner", "yellow", ""),
    (303, "FileIO", "gray", "bytes=%l flags=%x"),
];
const OUTER: u8 = 0;
const MIDDLE: u8 = 1;
const INNER: u8 = 2;
const FILEIO: u8 = 3;

/// Solo events: MPE's two known ones, then the user's (from 5000).
const EVENTS: [Def; 5] = [
    (-10, "MPE_Comm_init", "red", ""),
    (-9, "MPE_Comm_finalize", "orange", ""),
    (5000, "Marker", "white", "rank %d says %s"),
    (5001, "Tick", "cyan", ""),
    (5002, "Sample", "purple", "h=%h x=%x e=%e l=%l"),
];
const COMM_INIT: i32 = -10;
const COMM_FINALIZE: i32 = -9;
const MARKER: i32 = 5000;
const TICK: i32 = 5001;
const SAMPLE: i32 = 5002;
const USER_SOLO_COUNT: i32 = 3;

const CONSTS: [(&str, i32); 3] = [
    ("MPI_PROC_NULL", -1),
    ("MPI_ANY_SOURCE", -2),
    ("MPI_ANY_TAG", -1),
];

const PHASES: [&str; 3] = ["ring", "sendrecv", "nonblock"];
const WORDS: [&str; 6] = [
    "hello",
    "halo-done",
    "checkpoint",
    "converged",
    "tick",
    "rebalance",
];

/// `CLOG_COMM_LID_NULL`, the icomm of a FREE COMMEVT body.
const LID_NULL: i32 = -999_999_999;
/// Comm index meaning "the all-zero UUID".
const NO_COMM: u32 = u32::MAX;

// ---------------------------------------------------------------------------------
// Pseudo-random numbers: SplitMix64.

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in 0..n (n > 0).
    fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * n as u64) >> 32) as u32
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Like `lrand48()`: uniform in [0, 2^31).
    fn lrand48(&mut self) -> i32 {
        (self.next() >> 33) as i32
    }
}

// ---------------------------------------------------------------------------------
// Compact buffered events, turned into records only when written.

#[derive(Clone, Copy, Debug)]
enum Kind {
    Bare(i32),
    /// A cargo event; `i` and `x` are packed according to the format of `etype`.
    Cargo {
        etype: i32,
        i: i32,
        x: f64,
    },
    Msg {
        etype: i32,
        icomm: i32,
        rank: i32,
        tag: i32,
        size: i32,
    },
    Comm {
        etype: i32,
        icomm: i32,
        rank: i32,
        wrank: i32,
        comm: u32,
    },
    Shift(f64),
    ConstDef(u8),
    MpiStateDef(u8),
    UserStateDef(u8),
    EventDef(u8),
}

impl Kind {
    /// Size on disk (header included).
    fn disk_len(&self) -> u64 {
        24 + match self {
            Kind::Bare(_) | Kind::Shift(_) => 8,
            Kind::Cargo { .. } => 40,
            Kind::Msg { .. } => 24,
            Kind::Comm { .. } => 48,
            Kind::ConstDef(_) => 40,
            Kind::MpiStateDef(_) | Kind::UserStateDef(_) => 112,
            Kind::EventDef(_) => 104,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Ev {
    time: f64,
    icomm: i32,
    rank: i32,
    kind: Kind,
}

/// `MPE_Log_pack`: big-endian tokens, at most 32 bytes; the rest stays zero.
struct Pack {
    b: [u8; 32],
    n: usize,
}

impl Pack {
    fn new() -> Self {
        Pack { b: [0; 32], n: 0 }
    }
    fn put(&mut self, bytes: &[u8]) -> &mut Self {
        let k = bytes.len().min(32 - self.n);
        self.b[self.n..self.n + k].copy_from_slice(&bytes[..k]);
        self.n += k;
        self
    }
    fn h(&mut self, v: i16) -> &mut Self {
        self.put(&v.to_be_bytes())
    }
    fn d(&mut self, v: i32) -> &mut Self {
        self.put(&v.to_be_bytes())
    }
    fn l(&mut self, v: i64) -> &mut Self {
        self.put(&v.to_be_bytes())
    }
    fn e(&mut self, v: f32) -> &mut Self {
        self.put(&v.to_be_bytes())
    }
    #[allow(non_snake_case)]
    fn E(&mut self, v: f64) -> &mut Self {
        self.put(&v.to_be_bytes())
    }
    fn s(&mut self, v: &str) -> &mut Self {
        let room = 32usize.saturating_sub(self.n + 2);
        let bytes = &v.as_bytes()[..v.len().min(room)];
        self.h(bytes.len() as i16).put(bytes)
    }
}

fn cargo_bytes(etype: i32, i: i32, x: f64) -> [u8; 32] {
    let mut p = Pack::new();
    let word = |k: i32, list: &[&'static str]| list[k.unsigned_abs() as usize % list.len()];
    match etype {
        // Outer: "iter=%d val=%E"
        601 => p.d(i).E(x),
        // Middle: "sum=%E phase=%s"
        603 => p.E(x).s(word(i, &PHASES)),
        // FileIO: "bytes=%l flags=%x"
        607 => p.l(i as i64 * 4096).d(0x40 | (i & 7)),
        // Marker: "rank %d says %s" (x selects the word)
        MARKER => p.d(i).s(word(x as i32, &WORDS)),
        // Sample: "h=%h x=%x e=%e l=%l"
        SAMPLE => p.h(i as i16).d(i).e(x as f32).l((x * 1e9) as i64),
        _ => &mut p,
    };
    p.b
}

/// A communicator seen from the generator: its LID and its world ranks
/// `base..base+size` (rank in it = world rank - base).
#[derive(Clone, Copy)]
struct Ctx {
    lid: i32,
    base: u32,
    size: u32,
}

struct Sink<'a> {
    next_report: u64,
    progress: &'a mut dyn FnMut(u64),
}

struct Gen {
    rng: Rng,
    n: u32,
    /// Size of the lower half of the split (ranks 0..h); the upper half is h..n.
    h: u32,
    /// Per-rank clock.
    cur: Vec<f64>,
    /// Per-rank bytes logged since the last simulated buffer flush.
    local: Vec<u64>,
    flush_threshold: u64,
    /// Per-rank scratch times (send times, collective entries).
    scratch: Vec<f64>,
    /// The current slot's events.
    buf: Vec<Ev>,
    comms: Vec<CommEntry>,
    /// Absolute `MPI_Wtime` of time 0 (for UUIDs).
    wall0: f64,
    /// Start of the next time slot.
    slot: f64,
    iter: u64,
    /// Bit i: `MPI_STATES[i]` used.
    used: u32,
    stats: Stats,
}

// Time steps in seconds.
const STEP: (f64, f64) = (0.2e-6, 1.5e-6);
const CALL: (f64, f64) = (0.5e-6, 4e-6);
const COMPUTE: (f64, f64) = (5e-6, 150e-6);

impl Gen {
    fn new(opts: &Options) -> Gen {
        let n = opts.ranks;
        let h = n.div_ceil(2);
        let mut rng = Rng(opts.seed ^ 0x6d70_656c_6f67_2e73); // "mpelog.s"
        let wall0 = rng.range(20.0, 2000.0);
        let n_comms = n as usize + 2 + usize::from(h < n);
        let name = FixedBytes::from_str_truncated("synth");
        let comms = (0..n_comms)
            .map(|lid| CommEntry {
                gcomm: Uuid {
                    rand: rng.lrand48(),
                    time: 0.0,
                    name,
                },
                local_id: lid as i32,
                kind: if lid <= 2 {
                    comm_kind::INTRA
                } else {
                    comm_kind::UNKNOWN
                },
            })
            .collect();
        Gen {
            rng,
            n,
            h,
            cur: vec![0.0; n as usize],
            local: vec![0; n as usize],
            flush_threshold: 128 * opts.block_size as u64,
            scratch: Vec::with_capacity(n as usize),
            buf: Vec::new(),
            comms,
            wall0,
            slot: 0.0,
            iter: 0,
            used: 0,
            stats: Stats::default(),
        }
    }

    fn preamble(&self, opts: &Options) -> PreambleInfo {
        let mut info = PreambleInfo::mpe_default(opts.ranks as i32);
        info.block_size = opts.block_size;
        info.user_state_id_count = Some(USER_STATES.len() as i32);
        info.known_solo_event_id_count = Some(2);
        info.user_solo_event_id_count = Some(USER_SOLO_COUNT);
        info
    }

    // --- communicators ---------------------------------------------------------

    fn world(&self) -> Ctx {
        Ctx {
            lid: 0,
            base: 0,
            size: self.n,
        }
    }

    /// The half of the split that world rank `r` belongs to.
    fn half_of(&self, r: u32) -> Ctx {
        if r < self.h {
            Ctx {
                lid: 2,
                base: 0,
                size: self.h,
            }
        } else {
            Ctx {
                lid: self.h as i32 + 3,
                base: self.h,
                size: self.n - self.h,
            }
        }
    }

    fn halves(&self) -> impl Iterator<Item = Ctx> {
        let lower = self.half_of(0);
        let upper = (self.h < self.n).then(|| self.half_of(self.h));
        std::iter::once(lower).chain(upper)
    }

    /// LID of world rank `r`'s MPI_COMM_SELF.
    fn self_lid(&self, r: u32) -> i32 {
        match r {
            0 => 1,
            r if r <= self.h => 2 + r as i32,
            r => 3 + r as i32,
        }
    }

    // --- event helpers -------------------------------------------------------------

    /// Logs `kind` on world rank `r` at its current time, as rank `crank` of `icomm`.
    fn ev(&mut self, r: u32, icomm: i32, crank: i32, kind: Kind) {
        let time = self.cur[r as usize];
        self.local[r as usize] += kind.disk_len();
        self.buf.push(Ev {
            time,
            icomm,
            rank: crank,
            kind,
        });
    }

    fn step(&mut self, r: u32, (lo, hi): (f64, f64)) {
        self.cur[r as usize] += self.rng.range(lo, hi);
    }

    /// Advances rank `r` by a step of `d`, then logs `kind` in `c`.
    fn at(&mut self, r: u32, d: (f64, f64), c: Ctx, kind: Kind) {
        self.step(r, d);
        self.ev(r, c.lid, (r - c.base) as i32, kind);
    }

    fn bare(&mut self, r: u32, d: (f64, f64), c: Ctx, etype: i32) {
        self.at(r, d, c, Kind::Bare(etype));
    }

    fn cargo(&mut self, r: u32, d: (f64, f64), c: Ctx, etype: i32, i: i32, x: f64) {
        self.stats.cargo_events += 1;
        self.at(r, d, c, Kind::Cargo { etype, i, x });
    }

    /// Start and final event IDs of known state `MPI_STATES[s]`, marking it used.
    fn mpi(&mut self, s: u8) -> (i32, i32) {
        self.used |= 1 << s;
        let id = MPI_STATES[s as usize].0;
        (2 * id, 2 * id + 1)
    }

    fn user(s: u8) -> (i32, i32) {
        let e = 600 + 2 * s as i32;
        (e, e + 1)
    }

    /// A whole MPI state with nothing inside, shortly after the rank's current time.
    fn mpi_state(&mut self, r: u32, c: Ctx, s: u8) {
        let (a, b) = self.mpi(s);
        self.stats.states += 1;
        self.bare(r, CALL, c, a);
        self.bare(r, STEP, c, b);
    }

    fn send(&mut self, r: u32, c: Ctx, to: u32, tag: i32, size: i32) {
        let kind = Kind::Msg {
            etype: SEND_ETYPE,
            icomm: c.lid,
            rank: to as i32,
            tag,
            size,
        };
        self.at(r, STEP, c, kind);
        self.stats.messages += 1;
    }

    /// Receives from `from` (rank in `c`) what it sent at `sent`.
    fn recv(&mut self, r: u32, c: Ctx, from: u32, tag: i32, size: i32, sent: f64) {
        self.step(r, STEP);
        let arrive = sent + self.rng.range(1.5e-6, 6e-6) + size as f64 * 1e-9;
        let t = &mut self.cur[r as usize];
        if *t < arrive {
            *t = arrive;
        }
        let kind = Kind::Msg {
            etype: RECV_ETYPE,
            icomm: c.lid,
            rank: from as i32,
            tag,
            size,
        };
        self.ev(r, c.lid, (r - c.base) as i32, kind);
    }

    fn msg_size(&mut self) -> i32 {
        4 << self.rng.below(15)
    }

    // --- phases ------------------------------------------------------------------------

    /// `MPI_Send` to the right neighbour, then `MPI_Recv` from the left one.
    fn ring_send_recv(&mut self, c: Ctx, tag: i32) {
        let size = self.msg_size();
        let (s0, s1) = self.mpi(SEND);
        let (r0, r1) = self.mpi(RECV);
        self.scratch.clear();
        for i in 0..c.size {
            let r = c.base + i;
            self.bare(r, CALL, c, s0);
            self.send(r, c, (i + 1) % c.size, tag, size);
            self.scratch.push(self.cur[r as usize]);
            self.bare(r, STEP, c, s1);
        }
        for i in 0..c.size {
            let r = c.base + i;
            let left = (i + c.size - 1) % c.size;
            self.bare(r, CALL, c, r0);
            self.recv(r, c, left, tag, size, self.scratch[left as usize]);
            self.bare(r, STEP, c, r1);
        }
        self.stats.states += 2 * c.size as u64;
    }

    /// `MPI_Sendrecv` around the ring.
    fn ring_sendrecv(&mut self, c: Ctx, tag: i32) {
        let size = self.msg_size();
        let (a, b) = self.mpi(SENDRECV);
        self.scratch.clear();
        for i in 0..c.size {
            let r = c.base + i;
            self.bare(r, CALL, c, a);
            self.send(r, c, (i + 1) % c.size, tag, size);
            self.scratch.push(self.cur[r as usize]);
        }
        for i in 0..c.size {
            let r = c.base + i;
            let left = (i + c.size - 1) % c.size;
            self.recv(r, c, left, tag, size, self.scratch[left as usize]);
            self.bare(r, STEP, c, b);
        }
        self.stats.states += c.size as u64;
    }

    /// `MPI_Irecv` from the left, `MPI_Isend` to the right, `MPI_Waitall`.
    fn ring_nonblocking(&mut self, c: Ctx, tag: i32) {
        let size = self.msg_size();
        let (ir0, ir1) = self.mpi(IRECV);
        let (is0, is1) = self.mpi(ISEND);
        let (w0, w1) = self.mpi(WAITALL);
        let (sw0, sw1) = self.mpi(ISEND_WAITED);
        let (rw0, rw1) = self.mpi(IRECV_WAITED);
        self.scratch.clear();
        for i in 0..c.size {
            let r = c.base + i;
            self.bare(r, CALL, c, ir0);
            self.bare(r, STEP, c, ir1);
            self.bare(r, CALL, c, is0);
            self.send(r, c, (i + 1) % c.size, tag, size);
            self.scratch.push(self.cur[r as usize]);
            self.bare(r, STEP, c, is1);
            self.bare(r, CALL, c, w0);
        }
        for i in 0..c.size {
            let r = c.base + i;
            let left = (i + c.size - 1) % c.size;
            self.bare(r, STEP, c, sw0);
            self.bare(r, STEP, c, sw1);
            self.bare(r, STEP, c, rw0);
            self.recv(r, c, left, tag, size, self.scratch[left as usize]);
            self.bare(r, STEP, c, rw1);
            self.bare(r, STEP, c, w1);
        }
        self.stats.states += 5 * c.size as u64;
    }

    /// A collective: everyone enters, nobody leaves before the last one entered.
    fn collective(&mut self, c: Ctx, s: u8) {
        let (a, b) = self.mpi(s);
        let mut last = 0.0f64;
        for i in 0..c.size {
            let r = c.base + i;
            self.bare(r, CALL, c, a);
            last = last.max(self.cur[r as usize]);
        }
        let depth = (32 - c.size.leading_zeros()) as f64;
        let exit = last + self.rng.range(2e-6, 10e-6) * depth;
        for i in 0..c.size {
            let r = c.base + i;
            let t = &mut self.cur[r as usize];
            if *t < exit {
                *t = exit;
            }
            self.bare(r, STEP, c, b);
        }
        self.stats.states += c.size as u64;
        self.stats.collectives += 1;
    }

    /// Starts a new time slot: every rank's clock just after the previous slot's end.
    fn open_slot(&mut self) {
        for r in 0..self.n as usize {
            self.cur[r] = self.slot + self.rng.range(0.1e-6, 3e-6);
        }
    }

    /// Ends the slot: the next one starts strictly after every time in this one.
    fn close_slot(&mut self) {
        let end = self.cur.iter().fold(0.0f64, |a, &b| a.max(b));
        self.slot = end + self.rng.range(1e-6, 20e-6);
    }

    // --- the three parts of the trace ----------------------------------------------------

    fn header(&mut self) {
        let world = self.world();
        for r in 0..self.n {
            let ru = r as usize;
            // Processes start (and their clocks are aligned) a little apart.
            self.cur[ru] = if r == 0 {
                1e-6
            } else {
                self.rng.range(20e-6, 8e-3)
            };
            let shift = if r == 0 { -0.0 } else { -(self.cur[ru] - 1e-6) };
            self.ev(r, 0, r as i32, Kind::Shift(shift));
            self.stats.timeshifts += 1;
            self.step(r, STEP);
            if r == 0 {
                self.comms[0].gcomm.time = self.wall0 + self.cur[0];
            }
            self.ev(
                r,
                0,
                r as i32,
                Kind::Comm {
                    etype: comm_etype::WORLD_CREATE,
                    icomm: 0,
                    rank: r as i32,
                    wrank: r as i32,
                    comm: 0,
                },
            );
            self.step(r, STEP);
            let sl = self.self_lid(r);
            self.comms[sl as usize].gcomm.time = self.wall0 + self.cur[ru];
            self.ev(
                r,
                0,
                r as i32,
                Kind::Comm {
                    etype: comm_etype::SELF_CREATE,
                    icomm: sl,
                    rank: 0,
                    wrank: r as i32,
                    comm: sl as u32,
                },
            );
            self.stats.comm_events += 2;
            if r == 0 {
                for k in 0..CONSTS.len() as u8 {
                    self.at(r, CALL, world, Kind::ConstDef(k));
                }
                self.stats.definitions += CONSTS.len() as u64;
            }
            self.bare(r, (20e-6, 40e-6), world, COMM_INIT);
            self.mpi_state(r, world, COMM_RANK);
            self.mpi_state(r, world, COMM_SIZE);
            if r == 0 {
                for k in 0..USER_STATES.len() as u8 {
                    self.at(r, STEP, world, Kind::UserStateDef(k));
                }
                for k in 2..EVENTS.len() as u8 {
                    self.at(r, STEP, world, Kind::EventDef(k));
                }
                self.stats.definitions += (USER_STATES.len() + EVENTS.len() - 2) as u64;
            }
        }
        // MPI_Comm_split(MPI_COMM_WORLD, rank < h, ...).
        let (a, b) = self.mpi(COMM_SPLIT);
        let mut last = 0.0f64;
        for r in 0..self.n {
            self.bare(r, CALL, world, a);
            last = last.max(self.cur[r as usize]);
        }
        let created = last + self.rng.range(5e-6, 40e-6);
        for r in 0..self.n {
            let half = self.half_of(r);
            let ru = r as usize;
            self.cur[ru] = self.cur[ru].max(created) + self.rng.range(0.1e-6, 5e-6);
            if r == half.base {
                self.comms[half.lid as usize].gcomm.time = self.wall0 + self.cur[ru];
            }
            let kind = Kind::Comm {
                etype: comm_etype::INTRA_CREATE,
                icomm: half.lid,
                rank: (r - half.base) as i32,
                wrank: r as i32,
                comm: half.lid as u32,
            };
            self.ev(r, 0, r as i32, kind);
            self.bare(r, STEP, half, COMM_INIT);
            self.bare(r, STEP, world, b);
        }
        self.stats.comm_events += self.n as u64;
        self.stats.states += self.n as u64 * 3;
        self.close_slot();
    }

    /// Records the footer will have (an upper bound, within a few records).
    fn footer_estimate(&self) -> u64 {
        5 * self.n as u64 + MPI_STATES.len() as u64 + 2
    }

    fn iteration(&mut self) {
        let k = self.iter;
        self.iter += 1;
        self.stats.iterations += 1;
        self.open_slot();
        let world = self.world();
        let (o0, o1) = Self::user(OUTER);
        let (m0, m1) = Self::user(MIDDLE);
        let (i0, i1) = Self::user(INNER);
        let (f0, f1) = Self::user(FILEIO);
        let tag = (k % 1000) as i32;
        let phase = self.rng.below(3);
        for r in 0..self.n {
            if self.local[r as usize] >= self.flush_threshold {
                // CLOG_Buffer_write2disk: the local buffer is written out.
                self.local[r as usize] = 0;
                let (a, b) = self.mpi(WRITE2DISK);
                self.bare(r, STEP, world, a);
                let secs = self.flush_threshold as f64 / self.rng.range(2e8, 1e9);
                self.bare(r, (secs, secs * 1.1), world, b);
                self.stats.states += 1;
            }
            if self.rng.chance(1.0 / 256.0) {
                let s = -self.rng.range(0.0, 3e-6);
                self.at(r, STEP, world, Kind::Shift(s));
                self.stats.timeshifts += 1;
            }
            self.bare(r, STEP, world, o0);
            self.bare(r, CALL, world, m0);
        }
        self.stats.states += 2 * self.n as u64;
        match phase {
            0 => self.ring_send_recv(world, tag),
            1 => self.ring_sendrecv(world, tag),
            _ => self.ring_nonblocking(world, tag),
        }
        for r in 0..self.n {
            self.bare(r, STEP, world, i0);
            self.step(r, COMPUTE);
            for _ in 0..self.rng.below(3) {
                self.stats.solo_events += 1;
                match self.rng.below(3) {
                    0 => {
                        let w = self.rng.below(WORDS.len() as u32) as f64;
                        self.cargo(r, COMPUTE, world, MARKER, r as i32, w);
                    }
                    1 => self.bare(r, COMPUTE, world, TICK),
                    _ => {
                        let i = self.rng.next() as i32;
                        let x = self.rng.range(-1.0, 1.0);
                        self.cargo(r, COMPUTE, world, SAMPLE, i, x);
                    }
                }
            }
            if self.rng.chance(1.0 / 16.0) {
                self.mpi_state(r, world, COMM_RANK);
            }
            self.bare(r, COMPUTE, world, i1);
            let sum = self.rng.range(0.0, 1e3);
            self.cargo(r, STEP, world, m1, phase as i32, sum);
            if self.rng.chance(0.25) {
                self.bare(r, CALL, world, f0);
                let blocks = 1 + self.rng.below(1024) as i32;
                self.step(r, (blocks as f64 * 4e-6, blocks as f64 * 8e-6));
                self.cargo(r, STEP, world, f1, blocks, 0.0);
                self.stats.states += 1;
            }
        }
        self.stats.states += self.n as u64;
        let coll = COLLECTIVES[self.rng.below(COLLECTIVES.len() as u32) as usize];
        self.collective(world, coll);
        if k % 3 == 2 {
            let halves: [Option<Ctx>; 2] = {
                let mut it = self.halves();
                [it.next(), it.next()]
            };
            for c in halves.into_iter().flatten() {
                self.ring_send_recv(c, 1000 + tag);
                self.collective(c, ALLREDUCE);
            }
        }
        let val = (1.0 + self.rng.unit()) / (k as f64 + 1.0);
        for r in 0..self.n {
            self.cargo(r, STEP, world, o1, k.min(i32::MAX as u64) as i32, val);
        }
        self.close_slot();
    }

    fn footer(&mut self) {
        self.open_slot();
        let world = self.world();
        let (a, b) = self.mpi(COMM_FREE);
        for r in 0..self.n {
            let half = self.half_of(r);
            self.bare(r, CALL, half, a);
            let kind = Kind::Comm {
                etype: comm_etype::FREE,
                icomm: LID_NULL,
                rank: -1,
                wrank: -1,
                comm: NO_COMM,
            };
            self.at(r, STEP, half, kind);
            self.bare(r, STEP, half, COMM_FINALIZE);
            self.bare(r, STEP, half, b);
            self.bare(r, (2e-6, 30e-6), world, COMM_FINALIZE);
        }
        self.stats.comm_events += self.n as u64;
        self.stats.states += self.n as u64;
        // Rank 0 describes the known states and events at MPI_Finalize.
        let end = self.cur.iter().fold(0.0f64, |a, &b| a.max(b));
        self.cur[0] = end + self.rng.range(50e-6, 4e-3);
        let used = self.used | 1 << WRITE2DISK;
        for s in 0..MPI_STATES.len() as u8 {
            if s != WRITE2DISK && used & (1 << s) != 0 {
                self.at(0, (0.1e-6, 1e-6), world, Kind::MpiStateDef(s));
                self.stats.definitions += 1;
            }
        }
        self.at(0, (0.1e-6, 1e-6), world, Kind::EventDef(0));
        self.at(0, (0.1e-6, 1e-6), world, Kind::EventDef(1));
        self.at(0, (5e-6, 25e-6), world, Kind::MpiStateDef(WRITE2DISK));
        self.stats.definitions += 3;
        self.close_slot();
    }

    // --- output ---------------------------------------------------------------------------------

    fn flush<W: Write + Seek>(&mut self, w: &mut Clog2Writer<W>, sink: &mut Sink) -> Result<()> {
        // Stable: equal times keep their generation order.
        self.buf.sort_by(|a, b| a.time.total_cmp(&b.time));
        for ev in &self.buf {
            w.push(&self.record(ev))?;
            if w.records_written() >= sink.next_report {
                (sink.progress)(w.records_written());
                sink.next_report += PROGRESS_INTERVAL;
            }
        }
        if let Some(last) = self.buf.last() {
            self.stats.time_max = self.stats.time_max.max(last.time);
        }
        self.buf.clear();
        Ok(())
    }

    fn record(&self, ev: &Ev) -> Record {
        const Z4: FixedBytes<4> = FixedBytes::ZERO;
        let state_def = |(id, name, color, format): Def, start: i32| {
            Body::StateDef(StateDef {
                state_id: id,
                start_etype: start,
                final_etype: start + 1,
                pad: Z4,
                color: FixedBytes::from_str_truncated(color),
                name: FixedBytes::from_str_truncated(name),
                format: FixedBytes::from_str_truncated(format),
            })
        };
        let body = match ev.kind {
            Kind::Bare(etype) => Body::Bare(BareEvt { etype, pad: Z4 }),
            Kind::Cargo { etype, i, x } => Body::Cargo(CargoEvt {
                etype,
                pad: Z4,
                bytes: FixedBytes(cargo_bytes(etype, i, x)),
            }),
            Kind::Msg {
                etype,
                icomm,
                rank,
                tag,
                size,
            } => Body::Msg(MsgEvt {
                etype,
                icomm,
                rank,
                tag,
                size,
                pad: Z4,
            }),
            Kind::Comm {
                etype,
                icomm,
                rank,
                wrank,
                comm,
            } => Body::Comm(CommEvt {
                etype,
                icomm,
                rank,
                wrank,
                gcomm: self
                    .comms
                    .get(comm as usize)
                    .map_or(Uuid::ZERO, |c| c.gcomm),
            }),
            Kind::Shift(timeshift) => Body::TimeShift(TimeShift { timeshift }),
            Kind::ConstDef(k) => {
                let (name, value) = CONSTS[k as usize];
                Body::ConstDef(ConstDef {
                    etype: CONST_ETYPE,
                    value,
                    name: FixedBytes::from_str_truncated(name),
                })
            }
            Kind::MpiStateDef(s) => {
                let d = MPI_STATES[s as usize];
                state_def(d, 2 * d.0)
            }
            Kind::UserStateDef(s) => state_def(USER_STATES[s as usize], Self::user(s).0),
            Kind::EventDef(k) => {
                let (etype, name, color, format) = EVENTS[k as usize];
                Body::EventDef(EventDef {
                    etype,
                    pad: Z4,
                    color: FixedBytes::from_str_truncated(color),
                    name: FixedBytes::from_str_truncated(name),
                    format: FixedBytes::from_str_truncated(format),
                })
            }
        };
        Record {
            time: ev.time,
            icomm: ev.icomm,
            rank: ev.rank,
            thread: 0,
            body,
        }
    }
}
