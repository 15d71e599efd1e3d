//! Fixed tables: MPE's known states and the synthetic program's user definitions.

// ---------------------------------------------------------------------------------
// Fixed tables: MPE's known states and the synthetic program's user definitions.

/// A state or event definition: ID, name, colour, format.
pub(super) type Def = (i32, &'static str, &'static str, &'static str);

/// Known (MPI and MPE) states that can appear, with MPE's names and colours. State
/// `i` uses events `2i` and `2i+1`.
pub(super) const MPI_STATES: [Def; 18] = [
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
pub(super) const ALLGATHER: u8 = 0;
pub(super) const ALLREDUCE: u8 = 1;
pub(super) const BARRIER: u8 = 2;
pub(super) const BCAST: u8 = 3;
pub(super) const REDUCE: u8 = 4;
pub(super) const COMM_FREE: u8 = 5;
pub(super) const COMM_RANK: u8 = 6;
pub(super) const COMM_SIZE: u8 = 7;
pub(super) const COMM_SPLIT: u8 = 8;
pub(super) const IRECV: u8 = 9;
pub(super) const ISEND: u8 = 10;
pub(super) const RECV: u8 = 11;
pub(super) const SEND: u8 = 12;
pub(super) const SENDRECV: u8 = 13;
pub(super) const WAITALL: u8 = 14;
pub(super) const ISEND_WAITED: u8 = 15;
pub(super) const IRECV_WAITED: u8 = 16;
pub(super) const WRITE2DISK: u8 = 17;
pub(super) const COLLECTIVES: [u8; 5] = [BARRIER, BCAST, ALLREDUCE, REDUCE, ALLGATHER];

/// User states (IDs from 300, events from 600) with `MPE_Log_pack` formats.
pub(super) const USER_STATES: [Def; 4] = [
    (300, "Outer", "red", "iter=%d val=%E"),
    (301, "Middle", "orange", "sum=%E phase=%s"),
    (302, "Inner", "yellow", ""),
    (303, "FileIO", "gray", "bytes=%l flags=%x"),
];
pub(super) const OUTER: u8 = 0;
pub(super) const MIDDLE: u8 = 1;
pub(super) const INNER: u8 = 2;
pub(super) const FILEIO: u8 = 3;

/// Solo events: MPE's two known ones, then the user's (from 5000).
pub(super) const EVENTS: [Def; 5] = [
    (-10, "MPE_Comm_init", "red", ""),
    (-9, "MPE_Comm_finalize", "orange", ""),
    (5000, "Marker", "white", "rank %d says %s"),
    (5001, "Tick", "cyan", ""),
    (5002, "Sample", "purple", "h=%h x=%x e=%e l=%l"),
];
pub(super) const COMM_INIT: i32 = -10;
pub(super) const COMM_FINALIZE: i32 = -9;
pub(super) const MARKER: i32 = 5000;
pub(super) const TICK: i32 = 5001;
pub(super) const SAMPLE: i32 = 5002;
pub(super) const USER_SOLO_COUNT: i32 = 3;

pub(super) const CONSTS: [(&str, i32); 3] = [
    ("MPI_PROC_NULL", -1),
    ("MPI_ANY_SOURCE", -2),
    ("MPI_ANY_TAG", -1),
];

pub(super) const PHASES: [&str; 3] = ["ring", "sendrecv", "nonblock"];
pub(super) const WORDS: [&str; 6] = [
    "hello",
    "halo-done",
    "checkpoint",
    "converged",
    "tick",
    "rebalance",
];

/// `CLOG_COMM_LID_NULL`, the icomm of a FREE COMMEVT body.
pub(super) const LID_NULL: i32 = -999_999_999;
/// Comm index meaning "the all-zero UUID".
pub(super) const NO_COMM: u32 = u32::MAX;
