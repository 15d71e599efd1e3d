//! Declarative layouts of every SLOG-1 structure (binrw, big-endian, as MPE's
//! `slog_api` writes them on every host and Jumpshot-3's `DataInput` reads them).
//!
//! Every count is checked against the bytes left in the reader before the list it
//! counts is read (the `fitting_*` parsers), so a corrupt count cannot force an
//! allocation larger than the input. Counts, sizes and record byte sizes are
//! computed from the content when writing; when reading they are verified, so a
//! value that reads back writes the same bytes. Section positions (the header's
//! file pointers and the directory's frame pointers) are plain fields: they say
//! where [`super::Slog1File::to_bytes`] puts each section.

use binrw::io::{Read, Seek, SeekFrom};
use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
use rustc_hash::FxHashMap;

use super::error::ReadProblem;

mod profile;
mod records;
mod stats;
pub use profile::*;
pub use records::*;
pub use stats::*;

/// Size of the file header.
pub const HEADER_LEN: u64 = 74;
/// Size of the frame header (eight counts).
pub const FRAME_HEADER_LEN: u64 = 32;
/// Size of the frame directory header.
pub const DIR_HEADER_LEN: u64 = 20;
/// Size of one frame directory entry.
pub const DIR_ENTRY_LEN: u64 = 24;
/// Fixed part of a diagonal (state) interval record.
pub const MIN_DIAG_RECORD_LEN: u64 = 34;
/// Fixed part of an off-diagonal (arrow) interval record.
pub const MIN_OFFDIAG_RECORD_LEN: u64 = 41;
/// Width of a display-profile text field (`SLOG_STRING_LEN`): 33 characters, a
/// NUL and a TAB.
pub const FIELD_LEN: usize = 35;
/// Smallest display-profile entry: six fields and the LF.
pub const MIN_PROFILE_ENTRY_LEN: u64 = 6 * FIELD_LEN as u64 + 1;
/// Size of one thread-table entry.
pub const THREAD_ENTRY_LEN: u64 = 18;
/// Size of one record definition.
pub const RECDEF_LEN: u64 = 7;
/// Size of a statistics set without its bins.
pub const STAT_SET_FIXED_LEN: u64 = 45;
/// The only version there is: 0.9.
pub const VERSION: [u32; 2] = [0, 9];

/// The binrw error for `problem` at `pos`: it travels through binrw as a custom
/// error, and [`super::Slog1File::parse_or_reject`] takes it out again.
fn reject(pos: u64, problem: ReadProblem) -> binrw::Error {
    binrw::Error::Custom {
        pos,
        err: Box::new(problem),
    }
}

/// Spec rows (spec/slog1.md §13) of the errors raised in this module.
pub mod row {
    /// A count whose items cannot fit in the rest of the file.
    pub const COUNT: u8 = 5;
    /// A structure running past the end of the file.
    pub const TRUNCATED: u8 = 6;
    /// A malformed display-profile entry.
    pub const PROFILE: u8 = 7;
    /// A record definition's bebits above 3.
    pub const RECDEF_BEBITS: u8 = 8;
    /// A bad statistics set.
    pub const STAT_SET: u8 = 9;
    /// A directory entry with a null pointer or a frame outside the file.
    pub const DIR_ENTRY: u8 = 10;
    /// Sectors larger than the frame.
    pub const FRAME_SIZE: u8 = 11;
    /// A sector whose counts and records disagree.
    pub const SECTOR: u8 = 12;
    /// A malformed record.
    pub const RECORD: u8 = 13;
    /// Overlapping extents.
    pub const OVERLAP: u8 = 14;
}

/// Bytes left between the reader's position and its end.
fn left<R: Read + Seek>(r: &mut R) -> BinResult<u64> {
    let pos = r.stream_position()?;
    let end = r.seek(SeekFrom::End(0))?;
    r.seek(SeekFrom::Start(pos))?;
    Ok(end.saturating_sub(pos))
}

/// Fails (at `pos`, with the problem `problem` makes of the bytes needed and
/// left) unless `need` bytes are left.
fn need<R: Read + Seek>(
    r: &mut R,
    pos: u64,
    need: u64,
    problem: impl Fn(u64, u64) -> ReadProblem,
) -> BinResult<()> {
    let have = left(r)?;
    if need > have {
        return Err(reject(pos, problem(need, have)));
    }
    Ok(())
}

/// Reads a `u32` count of items of at least `min` bytes each, and fails (at the
/// count) unless that many items can fit in the bytes left after it.
#[binrw::parser(reader, endian)]
fn fitting_count(min: u64, items: &'static str) -> BinResult<u32> {
    let pos = reader.stream_position()?;
    let count = u32::read_options(reader, endian, ())?;
    let bytes = (count as u64).saturating_mul(min);
    need(reader, pos, bytes, |need, have| {
        ReadProblem::CountTooLarge {
            count,
            items,
            min,
            need,
            have,
        }
    })?;
    Ok(count)
}

/// Reads a bebits code and fails (at its byte, with the problem `problem` makes
/// of it) unless it is 0 to 3.
#[binrw::parser(reader, endian)]
fn bebits_code(problem: fn(u8) -> ReadProblem) -> BinResult<u8> {
    let pos = reader.stream_position()?;
    let code = u8::read_options(reader, endian, ())?;
    if code > 3 {
        return Err(reject(pos, problem(code)));
    }
    Ok(code)
}

/// Reads exactly `n` bytes after checking that they are there.
#[binrw::parser(reader)]
fn fitting_bytes(n: u64, what: &'static str) -> BinResult<Vec<u8>> {
    let pos = reader.stream_position()?;
    need(reader, pos, n, |need, have| ReadProblem::Cut {
        what,
        need,
        have,
    })?;
    let mut v = Vec::with_capacity(n as usize);
    reader.by_ref().take(n).read_to_end(&mut v)?;
    Ok(v)
}

/// Whether a record type is off-diagonal (an arrow: has a destination label):
/// 128–255.
///
/// ```
/// use slog2_format::slog1::is_off_diagonal;
/// assert!(is_off_diagonal(128) && is_off_diagonal(255));
/// assert!(!is_off_diagonal(64) && !is_off_diagonal(256));
/// ```
pub fn is_off_diagonal(rectype: u16) -> bool {
    (128..=255).contains(&rectype)
}

/// Whether a record type has variable-size arguments (groups with their own
/// counts): 0–63 and 128–191. Everything else, 256 and up included, is fixed-size.
///
/// ```
/// use slog2_format::slog1::is_variable;
/// assert!(is_variable(0) && is_variable(130));
/// assert!(!is_variable(64) && !is_variable(300));
/// ```
pub fn is_variable(rectype: u16) -> bool {
    rectype <= 63 || (128..=191).contains(&rectype)
}

/// The name of a bebits code: `middle` (0), `begin` (1), `final` (2), `whole` (3).
///
/// ```
/// use slog2_format::slog1::bebits_name;
/// assert_eq!((bebits_name(1), bebits_name(3), bebits_name(7)), ("begin", "whole", "invalid"));
/// ```
pub fn bebits_name(code: u8) -> &'static str {
    match code {
        0 => "middle",
        1 => "begin",
        2 => "final",
        3 => "whole",
        _ => "invalid",
    }
}

/// The position of a bebits code in a split interval: begin 0, middle 1,
/// final 2, whole 3 (the profile's sort order).
///
/// ```
/// use slog2_format::slog1::bebits_order;
/// let mut codes = [3, 2, 0, 1];
/// codes.sort_by_key(|&c| bebits_order(c));
/// assert_eq!(codes, [1, 0, 2, 3]); // begin, middle, final, whole
/// ```
pub fn bebits_order(code: u8) -> u8 {
    match code {
        1 => 0,
        0 => 1,
        c => c,
    }
}

/// The 74-byte file header.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Version, `[0, 9]`.
    pub version: [u32; 2],
    /// Size of every frame in bytes.
    pub frame_bytesize: u32,
    /// Bytes per frame the writer held back for pseudo records (informative).
    pub frame_reserved_size: u32,
    /// Capacity of the frame directory (slots written after its header).
    pub max_ndirframe: u32,
    /// 1 when records were supplied in increasing start time.
    pub is_increasing_starttime: u16,
    /// 1 when records were supplied in increasing end time (the usual case).
    pub is_increasing_endtime: u16,
    /// 1 when `SLOG_Irec_ReserveSpace` was used.
    pub has_reserve_space_been_used: u16,
    /// Offset of the preview statistics.
    pub fptr2statistics: u64,
    /// Offset of the preview blob.
    pub fptr2preview: u64,
    /// Offset of the display profile.
    pub fptr2profile: u64,
    /// Offset of the thread table.
    pub fptr2threadtable: u64,
    /// Offset of the record definition table.
    pub fptr2recdefs: u64,
    /// Offset of the frame directory (the frames follow it).
    pub fptr2framedata: u64,
}

/// The preview section: a byte count and an uninterpreted copy of a user file
/// (empty in every known file).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Preview {
    #[br(temp, parse_with = fitting_count, args(1, "preview bytes"))]
    #[bw(try_calc = u32::try_from(bytes.len()))]
    nbytes: u32,
    /// The bytes.
    #[br(count = nbytes)]
    pub bytes: Vec<u8>,
}

/// One thread-table entry (18 bytes). The key is (`node_id`, `thread_id`).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ThreadInfo {
    /// Node (MPI rank for MPE's converter).
    pub node_id: u16,
    /// Thread on that node.
    pub thread_id: u32,
    /// Operating-system process ID.
    pub os_process_id: u32,
    /// Operating-system thread ID.
    pub os_thread_id: u32,
    /// Application ID.
    pub app_id: u32,
}

/// The thread table.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ThreadTable {
    #[br(temp, parse_with = fitting_count, args(THREAD_ENTRY_LEN, "thread-table entries"))]
    #[bw(try_calc = u32::try_from(entries.len()))]
    n: u32,
    /// The entries, in file order.
    #[br(count = n)]
    pub entries: Vec<ThreadInfo>,
}
