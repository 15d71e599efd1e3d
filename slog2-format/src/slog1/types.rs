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

/// An error raised inside a structure, with the row of spec/slog1.md §13 ("What
/// a reader must reject") it breaks. It travels through binrw as a custom error
/// (its `Display` is the message alone, so error texts are unchanged);
/// [`super::Slog1File::parse_or_reject`] hands the row on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    /// The row of spec/slog1.md §13 (5–13 inside sections and frames).
    pub row: u8,
    /// What is wrong.
    pub message: String,
}

impl RowError {
    /// An error of spec row `row`.
    pub fn new(row: u8, message: impl Into<String>) -> RowError {
        RowError {
            row,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for RowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The binrw error for a [`RowError`] of row `row` at `pos`.
fn reject(pos: u64, row: u8, message: String) -> binrw::Error {
    binrw::Error::Custom {
        pos,
        err: Box::new(RowError::new(row, message)),
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

/// Fails (at `pos`, as spec row `row`) unless `need` bytes are left.
fn need<R: Read + Seek>(
    r: &mut R,
    pos: u64,
    row: u8,
    need: u64,
    what: impl Fn() -> String,
) -> BinResult<()> {
    let have = left(r)?;
    if need > have {
        return Err(reject(
            pos,
            row,
            format!("{} needs {need} bytes but only {have} are left", what()),
        ));
    }
    Ok(())
}

/// Reads a `u32` count of items of at least `min` bytes each, and fails (at the
/// count) unless that many items can fit in the bytes left after it.
#[binrw::parser(reader, endian)]
fn fitting_count(min: u64, what: &'static str) -> BinResult<u32> {
    let pos = reader.stream_position()?;
    let n = u32::read_options(reader, endian, ())?;
    need(
        reader,
        pos,
        row::COUNT,
        (n as u64).saturating_mul(min),
        || format!("a count of {n} {what} (at least {min} bytes each)"),
    )?;
    Ok(n)
}

/// Reads a bebits code and fails (at its byte, as spec row `row`) unless it is 0
/// to 3.
#[binrw::parser(reader, endian)]
fn bebits_code(what: &'static str, row: u8) -> BinResult<u8> {
    let pos = reader.stream_position()?;
    let b = u8::read_options(reader, endian, ())?;
    if b > 3 {
        return Err(reject(
            pos,
            row,
            format!("{what} has bebits code {b}, not 0 to 3"),
        ));
    }
    Ok(b)
}

/// Reads exactly `n` bytes after checking that they are there.
#[binrw::parser(reader)]
fn fitting_bytes(n: u64, what: &'static str) -> BinResult<Vec<u8>> {
    let pos = reader.stream_position()?;
    need(reader, pos, row::TRUNCATED, n, || what.to_string())?;
    let mut v = Vec::with_capacity(n as usize);
    reader.by_ref().take(n).read_to_end(&mut v)?;
    Ok(v)
}

/// Whether a record type is off-diagonal (an arrow: has a destination label):
/// 128–255.
pub fn is_off_diagonal(rectype: u16) -> bool {
    (128..=255).contains(&rectype)
}

/// Whether a record type has variable-size arguments (groups with their own
/// counts): 0–63 and 128–191. Everything else, 256 and up included, is fixed-size.
pub fn is_variable(rectype: u16) -> bool {
    rectype <= 63 || (128..=191).contains(&rectype)
}

/// The name of a bebits code: `middle` (0), `begin` (1), `final` (2), `whole` (3).
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

/// Whether a 35-byte profile field is well formed: bytes 0–33 hold no TAB, LF or
/// CR (Jumpshot-3 splits the line on them) and byte 34 is a TAB.
pub fn field_is_well_formed(b: &[u8; FIELD_LEN]) -> bool {
    b[FIELD_LEN - 1] == b'\t'
        && !b[..FIELD_LEN - 1]
            .iter()
            .any(|&c| matches!(c, b'\t' | b'\n' | b'\r'))
}

/// One fixed 35-byte text field of a display-profile entry, kept as written.
#[binrw]
#[brw(big)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextField {
    /// The raw bytes: text (or a decimal number), a NUL, padding, a TAB.
    #[br(assert(field_is_well_formed(&bytes), RowError::new(row::PROFILE, format!("a profile field {:?} does not end with a TAB or holds a TAB, LF or CR", String::from_utf8_lossy(&bytes)))))]
    pub bytes: [u8; FIELD_LEN],
}

impl std::fmt::Debug for TextField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TextField({:?})", String::from_utf8_lossy(&self.bytes))
    }
}

impl TextField {
    /// A text field as `SLOG_str_ncopy_set` writes one: at most 33 bytes of `s`
    /// (TAB, LF and CR replaced by spaces), NUL padding, a TAB.
    pub fn text(s: &str) -> TextField {
        let mut bytes = [0u8; FIELD_LEN];
        for (d, &c) in bytes
            .iter_mut()
            .zip(s.as_bytes().iter().take(FIELD_LEN - 2))
        {
            *d = if matches!(c, b'\t' | b'\n' | b'\r') {
                b' '
            } else {
                c
            };
        }
        bytes[FIELD_LEN - 1] = b'\t';
        TextField { bytes }
    }

    /// A numeric field as the C writer makes one: decimal digits, a NUL, spaces,
    /// a TAB.
    pub fn number(n: u32) -> TextField {
        let mut bytes = [b' '; FIELD_LEN];
        let s = n.to_string();
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        bytes[s.len()] = 0;
        bytes[FIELD_LEN - 1] = b'\t';
        TextField { bytes }
    }

    /// The text: the bytes before the first NUL (and before the TAB), without
    /// leading or trailing bytes ≤ 0x20 (what both readers show).
    pub fn as_text(&self) -> String {
        let b = &self.bytes[..FIELD_LEN - 1];
        let b = &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())];
        let start = b.iter().position(|&c| c > b' ').unwrap_or(b.len());
        let end = b.iter().rposition(|&c| c > b' ').map_or(start, |e| e + 1);
        String::from_utf8_lossy(&b[start..end]).into_owned()
    }

    /// The decimal number the field holds: optional spaces, digits, then only NULs
    /// and spaces (what `atoi` and Java's `parseShort` of the trimmed token both
    /// read the same way). `None` otherwise or above `u32::MAX`.
    pub fn as_number(&self) -> Option<u32> {
        let b = &self.bytes[..FIELD_LEN - 1];
        let start = b.iter().position(|&c| c != b' ')?;
        let digits = b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || b[start + digits..].iter().any(|&c| c != 0 && c != b' ') {
            return None;
        }
        std::str::from_utf8(&b[start..start + digits])
            .ok()?
            .parse()
            .ok()
    }
}

/// Reads the argument labels of a profile entry: `nargs` fields (none when the
/// entry has no label count), after checking that they fit.
#[binrw::parser(reader, endian)]
fn arg_labels(nargs: Option<&TextField>) -> BinResult<Vec<TextField>> {
    let Some(field) = nargs else {
        return Ok(Vec::new());
    };
    let pos = reader.stream_position()?;
    let Some(n) = field.as_number() else {
        // The entry's assertion on `nargs` reports this first, at the entry.
        return Err(reject(
            pos - FIELD_LEN as u64,
            row::PROFILE,
            format!("argument label count {:?} is not a number", field.as_text()),
        ));
    };
    need(
        reader,
        pos - FIELD_LEN as u64,
        row::COUNT,
        n as u64 * FIELD_LEN as u64 + 1,
        || format!("a count of {n} argument labels (35 bytes each)"),
    )?;
    (0..n)
        .map(|_| TextField::read_options(reader, endian, ()))
        .collect()
}

/// One display-profile entry: a line of 35-byte fields and an LF.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileEntry {
    /// Interval type, decimal (0–65535).
    #[br(assert(intvltype.as_number().is_some_and(|n| n <= u16::MAX as u32), RowError::new(row::PROFILE, format!("the interval type field {:?} is not a number from 0 to 65535", intvltype.as_text()))))]
    pub intvltype: TextField,
    /// Bebits code, decimal (0–3).
    #[br(assert(bebits.as_number().is_some_and(|n| n <= 3), RowError::new(row::PROFILE, format!("the bebits field {:?} is not a number from 0 to 3", bebits.as_text()))))]
    pub bebits: TextField,
    /// Class (`state`, `message`, ...): an arrow type's class contains `message`.
    pub classtype: TextField,
    /// Label (the legend name).
    pub label: TextField,
    /// Colour name (X11 / Jumpshot colour table).
    pub color: TextField,
    /// `0` (no argument labels) or `1` (a count and the labels follow).
    #[br(assert(matches!(has_labels.as_number(), Some(0 | 1)), RowError::new(row::PROFILE, format!("the argument-label flag {:?} is neither 0 nor 1", has_labels.as_text()))))]
    pub has_labels: TextField,
    /// Number of argument labels, present when `has_labels` is 1.
    #[br(if(has_labels.as_number() == Some(1)))]
    #[br(assert(nargs.as_ref().is_none_or(|f| f.as_number().is_some()), RowError::new(row::PROFILE, format!("argument label count {:?} is not a number", nargs.as_ref().map(TextField::as_text).unwrap_or_default()))))]
    pub nargs: Option<TextField>,
    /// The argument labels (as many as `nargs` says).
    #[br(parse_with = arg_labels, args(nargs.as_ref()))]
    pub arg_labels: Vec<TextField>,
    #[br(temp, assert(newline == b'\n', RowError::new(row::PROFILE, format!("a profile entry ends with byte {:#04x}, not an LF", newline))))]
    #[bw(calc = b'\n')]
    newline: u8,
}

impl ProfileEntry {
    /// An entry as the C writer makes it (with a label count only when there are
    /// labels).
    pub fn new(
        intvltype: u16,
        bebits: u8,
        classtype: &str,
        label: &str,
        color: &str,
        arg_labels: &[&str],
    ) -> ProfileEntry {
        let has = !arg_labels.is_empty();
        ProfileEntry {
            intvltype: TextField::number(intvltype as u32),
            bebits: TextField::number(bebits as u32),
            classtype: TextField::text(classtype),
            label: TextField::text(label),
            color: TextField::text(color),
            has_labels: TextField::number(has as u32),
            nargs: has.then(|| TextField::number(arg_labels.len() as u32)),
            arg_labels: arg_labels.iter().map(|s| TextField::text(s)).collect(),
        }
    }

    /// The interval type.
    pub fn itype(&self) -> u16 {
        self.intvltype.as_number().unwrap_or(0).min(u16::MAX as u32) as u16
    }

    /// The bebits code.
    pub fn bebits_code(&self) -> u8 {
        self.bebits.as_number().unwrap_or(0).min(255) as u8
    }

    /// Whether the class marks an arrow type (contains `message`, any case), as
    /// Jumpshot-3 decides.
    pub fn is_message(&self) -> bool {
        self.classtype
            .as_text()
            .to_ascii_lowercase()
            .contains("message")
    }

    /// The argument labels as text.
    pub fn label_texts(&self) -> Vec<String> {
        self.arg_labels.iter().map(TextField::as_text).collect()
    }

    /// Bytes on disk.
    pub fn disk_len(&self) -> u64 {
        (6 + self.nargs.is_some() as u64 + self.arg_labels.len() as u64) * FIELD_LEN as u64 + 1
    }
}

/// The display profile ("interval infos"): one entry per (interval type, bebits).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Profile {
    #[br(temp, parse_with = fitting_count, args(MIN_PROFILE_ENTRY_LEN, "profile entries"))]
    #[bw(try_calc = u32::try_from(entries.len()))]
    n: u32,
    /// The valid entries (the writer may leave reserved or stale bytes after them).
    #[br(count = n)]
    pub entries: Vec<ProfileEntry>,
}

/// One record definition (7 bytes): how many association and argument words the
/// records of an (interval type, bebits) carry.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecDef {
    /// Interval type.
    pub intvltype: u16,
    /// Bebits code (0–3).
    #[br(parse_with = bebits_code, args("a record definition", row::RECDEF_BEBITS))]
    pub bebits: u8,
    /// Association words per record.
    pub nassocs: u16,
    /// Argument words per record (fixed-size record types).
    pub nargs: u16,
}

/// The record definition table.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecDefTable {
    #[br(temp, parse_with = fitting_count, args(RECDEF_LEN, "record definitions"))]
    #[bw(try_calc = u32::try_from(entries.len()))]
    n: u32,
    /// The valid definitions (placeholders or stale entries may follow them).
    #[br(count = n)]
    pub entries: Vec<RecDef>,
}

/// (interval type, bebits) → (associations, arguments); the first definition of a
/// key wins, as the readers search linearly.
pub type RecDefIndex = FxHashMap<(u16, u8), (u16, u16)>;

impl RecDefTable {
    /// The lookup index.
    pub fn index(&self) -> RecDefIndex {
        let mut m = RecDefIndex::default();
        for d in &self.entries {
            m.entry((d.intvltype, d.bebits))
                .or_insert((d.nassocs, d.nargs));
        }
        m
    }
}

/// One frame directory entry (24 bytes).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirEntry {
    /// Offset of the frame.
    pub fptr2framehdr: u64,
    /// Start of the frame's time range.
    pub starttime: f64,
    /// End of the frame's time range.
    pub endtime: f64,
}

/// The frame directory: its header and its `Nframe` valid entries. (The writer
/// reserves `max_ndirframe` slots; the unused ones are not part of this value.)
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrameDir {
    /// Previous directory (never used: 0).
    pub prevdir: u64,
    /// Next directory (never used: 0).
    pub nextdir: u64,
    #[br(temp, parse_with = fitting_count, args(DIR_ENTRY_LEN, "directory entries"))]
    #[bw(try_calc = u32::try_from(entries.len()))]
    nframe: u32,
    /// One entry per frame, in time order.
    #[br(count = nframe)]
    pub entries: Vec<DirEntry>,
}

/// A task label: node, cpu, thread (7 bytes).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskLabel {
    /// Node.
    pub node: u16,
    /// CPU (not part of the thread-table key).
    pub cpu: u8,
    /// Thread.
    pub thread: u32,
}

/// A group of a variable-size record's arguments: a `u16` count and the values.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArgGroup {
    #[br(temp)]
    #[bw(try_calc = u16::try_from(values.len()))]
    n: u16,
    /// The values.
    #[br(count = n)]
    pub values: Vec<u32>,
}

/// A record's arguments.
#[derive(BinWrite, Debug, Clone, PartialEq, Eq, Hash)]
#[bw(big)]
pub enum RecordArgs {
    /// Fixed-size types: as many words as the record definition says.
    Fixed(Vec<u32>),
    /// Variable-size types: groups until the record's byte size is used up.
    Variable(Vec<ArgGroup>),
}

impl RecordArgs {
    /// Bytes on disk.
    pub fn disk_len(&self) -> u64 {
        match self {
            RecordArgs::Fixed(v) => 4 * v.len() as u64,
            RecordArgs::Variable(g) => g.iter().map(|g| 2 + 4 * g.values.len() as u64).sum(),
        }
    }

    /// Every value, groups flattened.
    pub fn values(&self) -> Vec<u32> {
        match self {
            RecordArgs::Fixed(v) => v.clone(),
            RecordArgs::Variable(g) => g.iter().flat_map(|g| g.values.iter().copied()).collect(),
        }
    }
}

/// Reads a record's arguments: `nargs` words for a fixed-size type, else groups
/// until `left` bytes are used (each group checked against what is left).
#[binrw::parser(reader, endian)]
fn record_args(variable: bool, nargs: u16, left: u64) -> BinResult<RecordArgs> {
    if !variable {
        let v = (0..nargs)
            .map(|_| u32::read_options(reader, endian, ()))
            .collect::<BinResult<_>>()?;
        return Ok(RecordArgs::Fixed(v));
    }
    let mut groups = Vec::new();
    let mut left = left;
    while left > 0 {
        let pos = reader.stream_position()?;
        if left < 2 {
            return Err(reject(
                pos,
                row::RECORD,
                format!(
                    "{left} byte left in a variable-size record, too few for an argument count"
                ),
            ));
        }
        let n = u16::read_options(reader, endian, ())?;
        let len = 2 + 4 * n as u64;
        if len > left {
            return Err(reject(
                pos,
                row::RECORD,
                format!("an argument group of {n} values ({len} bytes) runs past the record's end ({left} bytes left)"),
            ));
        }
        let values = (0..n)
            .map(|_| u32::read_options(reader, endian, ()))
            .collect::<BinResult<_>>()?;
        groups.push(ArgGroup { values });
        left -= len;
    }
    Ok(RecordArgs::Variable(groups))
}

/// Bytes of a record's fixed part and associations.
pub fn fixed_len(rectype: u16, nassocs: usize) -> u64 {
    let fixed = if is_off_diagonal(rectype) {
        MIN_OFFDIAG_RECORD_LEN
    } else {
        MIN_DIAG_RECORD_LEN
    };
    fixed + 4 * nassocs as u64
}

/// Byte size of a record with these parts (`None` above 65535).
pub fn record_len(rectype: u16, nassocs: usize, args: &RecordArgs) -> Option<u16> {
    u16::try_from(fixed_len(rectype, nassocs) + args.disk_len()).ok()
}

/// What a record's definition lookup gives: (associations, arguments).
fn lookup(defs: &RecDefIndex, intvltype: u16, bebits: u8) -> Option<(u16, u16)> {
    defs.get(&(intvltype, bebits)).copied()
}

/// Whether the stated byte size is what the parts need (fixed-size types) or
/// leaves room for them (variable-size types).
fn size_fits(bytesize: u16, rectype: u16, def: Option<(u16, u16)>) -> bool {
    let Some((na, ng)) = def else { return true };
    let fixed = fixed_len(rectype, na as usize);
    if is_variable(rectype) {
        fixed <= bytesize as u64
    } else {
        fixed + 4 * ng as u64 == bytesize as u64
    }
}

/// An interval record: a state (diagonal) or an arrow (off-diagonal), whole or a
/// piece of a split interval.
#[binrw]
#[brw(big)]
#[br(import(defs: &RecDefIndex))]
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalRecord {
    #[br(temp)]
    #[bw(try_calc = record_len(*rectype, assocs.len(), args).ok_or("a record longer than 65535 bytes"))]
    bytesize: u16,
    /// Record type: 0–63 variable state, 64–127 fixed state, 128–191 variable
    /// arrow, 192–255 fixed arrow, 256 and up fixed state.
    pub rectype: u16,
    /// Interval type (key into the profile and the record definitions).
    pub intvltype: u16,
    /// Bebits code: 0 middle, 1 begin, 2 final, 3 whole.
    #[br(parse_with = bebits_code, args("a record", row::RECORD))]
    pub bebits: u8,
    /// Start time in seconds.
    pub starttime: f64,
    /// Duration in seconds (end = start + duration).
    pub duration: f64,
    /// Origin task.
    pub origin: TaskLabel,
    /// Destination task (off-diagonal types only).
    #[br(if(is_off_diagonal(rectype)))]
    pub destination: Option<TaskLabel>,
    /// Instruction address (0 if unknown).
    pub instr_addr: u32,
    #[br(temp, calc = lookup(defs, intvltype, bebits))]
    #[br(assert(def.is_some(), RowError::new(row::RECORD, format!("no record definition for interval type {} bebits {}", intvltype, bebits))))]
    #[br(assert(size_fits(bytesize, rectype, def), RowError::new(row::RECORD, format!("the record's byte size {} does not match its definition {:?} (associations, arguments)", bytesize, def.unwrap_or_default()))))]
    #[bw(ignore)]
    def: Option<(u16, u16)>,
    /// Association words (as many as the definition says).
    #[br(count = def.map_or(0, |d| d.0))]
    pub assocs: Vec<u32>,
    /// Arguments.
    #[br(parse_with = record_args, args(
        is_variable(rectype),
        def.map_or(0, |d| d.1),
        (bytesize as u64).saturating_sub(fixed_len(rectype, assocs.len())),
    ))]
    pub args: RecordArgs,
}

impl IntervalRecord {
    /// End time: start + duration.
    pub fn endtime(&self) -> f64 {
        self.starttime + self.duration
    }

    /// Bytes on disk (saturating at 65535).
    pub fn disk_len(&self) -> u64 {
        fixed_len(self.rectype, self.assocs.len()) + self.args.disk_len()
    }

    /// Whether this is an arrow (off-diagonal type).
    pub fn is_arrow(&self) -> bool {
        is_off_diagonal(self.rectype)
    }

    /// The encoded bytes (empty if the record cannot be encoded).
    pub fn encode(&self) -> Vec<u8> {
        let mut c = binrw::io::Cursor::new(Vec::new());
        match self.write_options(&mut c, Endian::Big, ()) {
            Ok(()) => c.into_inner(),
            Err(_) => Vec::new(),
        }
    }
}

/// The four sectors of a frame, in on-disk order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sector {
    /// Records that start and end in the frame.
    Cur,
    /// Copies of records that started in an earlier frame and end in this one.
    Inc,
    /// Copies of records that started earlier and end after this frame.
    Pas,
    /// Records that start in the frame and end after it.
    Out,
}

impl Sector {
    /// All four, in on-disk order.
    pub const ALL: [Sector; 4] = [Sector::Cur, Sector::Inc, Sector::Pas, Sector::Out];

    /// Short name (`cur`, `inc`, `pas`, `out`).
    pub fn name(self) -> &'static str {
        match self {
            Sector::Cur => "cur",
            Sector::Inc => "inc",
            Sector::Pas => "pas",
            Sector::Out => "out",
        }
    }

    /// Whether the sector holds the record's home copy (the frame it starts in).
    pub fn is_home(self) -> bool {
        matches!(self, Sector::Cur | Sector::Out)
    }
}

/// Bytes of a sector's records (for the frame header).
fn sector_len(recs: &[IntervalRecord]) -> Result<u32, &'static str> {
    let n: u64 = recs.iter().map(IntervalRecord::disk_len).sum();
    u32::try_from(n).map_err(|_| "a sector longer than 4 GiB")
}

/// Reads a sector: `nrec` records that must use exactly `nbytes` bytes, each
/// checked to lie inside the sector before it is read.
#[binrw::parser(reader, endian)]
fn sector(
    nbytes: u32,
    nrec: u32,
    defs: &RecDefIndex,
    name: &'static str,
) -> BinResult<Vec<IntervalRecord>> {
    let start = reader.stream_position()?;
    let end = start + nbytes as u64;
    if nrec as u64 * MIN_DIAG_RECORD_LEN > nbytes as u64 {
        return Err(reject(
            start,
            row::SECTOR,
            format!("the {name} sector's {nrec} records cannot fit in its {nbytes} bytes (at least 34 each)"),
        ));
    }
    let mut recs = Vec::with_capacity(nrec as usize);
    for i in 0..nrec {
        let pos = reader.stream_position()?;
        let size = u16::read_options(reader, endian, ())? as u64;
        if size < MIN_DIAG_RECORD_LEN || pos + size > end {
            return Err(reject(
                pos,
                row::SECTOR,
                format!(
                    "record {i} of the {name} sector has byte size {size}: {}",
                    if size < MIN_DIAG_RECORD_LEN {
                        "less than the 34-byte fixed part".to_string()
                    } else {
                        format!("it runs past the sector's end at byte {end}")
                    }
                ),
            ));
        }
        // An arrow's fixed part is longer: refuse a record too short for it
        // before its destination is read past the record's end.
        let rectype = u16::read_options(reader, endian, ())?;
        if is_off_diagonal(rectype) && size < MIN_OFFDIAG_RECORD_LEN {
            return Err(reject(
                pos,
                row::RECORD,
                format!("record {i} of the {name} sector has byte size {size}: less than the 41-byte fixed part of an arrow (record type {rectype})"),
            ));
        }
        reader.seek(SeekFrom::Start(pos))?;
        let r = IntervalRecord::read_options(reader, endian, (defs,))?;
        let used = reader.stream_position()? - pos;
        if used != size {
            return Err(reject(
                pos,
                row::RECORD,
                format!("record {i} of the {name} sector has byte size {size} but its fields take {used} bytes"),
            ));
        }
        recs.push(r);
    }
    let pos = reader.stream_position()?;
    if pos != end {
        return Err(reject(
            start,
            row::SECTOR,
            format!("the {name} sector's {nrec} records take {} bytes, not the {nbytes} its header says", pos - start),
        ));
    }
    Ok(recs)
}

/// A frame: its header (computed), the four sectors and the unused tail up to the
/// header's `frame_bytesize`.
#[binrw]
#[brw(big)]
#[br(import(defs: &RecDefIndex, frame_bytesize: u32))]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Frame {
    #[br(temp)]
    #[bw(try_calc = sector_len(cur))]
    nbytes_cur: u32,
    #[br(temp)]
    #[bw(try_calc = u32::try_from(cur.len()))]
    nrec_cur: u32,
    #[br(temp)]
    #[bw(try_calc = sector_len(inc))]
    nbytes_inc: u32,
    #[br(temp)]
    #[bw(try_calc = u32::try_from(inc.len()))]
    nrec_inc: u32,
    #[br(temp)]
    #[bw(try_calc = sector_len(pas))]
    nbytes_pas: u32,
    #[br(temp)]
    #[bw(try_calc = u32::try_from(pas.len()))]
    nrec_pas: u32,
    #[br(temp)]
    #[bw(try_calc = sector_len(out))]
    nbytes_out: u32,
    #[br(temp)]
    #[bw(try_calc = u32::try_from(out.len()))]
    nrec_out: u32,
    #[br(temp, calc = FRAME_HEADER_LEN + nbytes_cur as u64 + nbytes_inc as u64 + nbytes_pas as u64 + nbytes_out as u64)]
    #[br(assert(used <= frame_bytesize as u64, RowError::new(row::FRAME_SIZE, format!("the frame's sectors take {} bytes with its header, more than the frame size {}", used, frame_bytesize))))]
    #[bw(ignore)]
    used: u64,
    /// Records that start and end in the frame.
    #[br(parse_with = sector, args(nbytes_cur, nrec_cur, defs, "cur"))]
    pub cur: Vec<IntervalRecord>,
    /// Copies of records that started earlier and end in the frame.
    #[br(parse_with = sector, args(nbytes_inc, nrec_inc, defs, "inc"))]
    pub inc: Vec<IntervalRecord>,
    /// Copies of records that started earlier and end after the frame.
    #[br(parse_with = sector, args(nbytes_pas, nrec_pas, defs, "pas"))]
    pub pas: Vec<IntervalRecord>,
    /// Records that start in the frame and end after it.
    #[br(parse_with = sector, args(nbytes_out, nrec_out, defs, "out"))]
    pub out: Vec<IntervalRecord>,
    /// The bytes after the sectors up to the frame size (zeros or stale data).
    #[br(parse_with = fitting_bytes, args(frame_bytesize as u64 - used, "the frame's unused tail"))]
    pub tail: Vec<u8>,
}

impl Frame {
    /// A sector's records.
    pub fn sector(&self, s: Sector) -> &[IntervalRecord] {
        match s {
            Sector::Cur => &self.cur,
            Sector::Inc => &self.inc,
            Sector::Pas => &self.pas,
            Sector::Out => &self.out,
        }
    }

    /// A sector's records, mutable.
    pub fn sector_mut(&mut self, s: Sector) -> &mut Vec<IntervalRecord> {
        match s {
            Sector::Cur => &mut self.cur,
            Sector::Inc => &mut self.inc,
            Sector::Pas => &mut self.pas,
            Sector::Out => &mut self.out,
        }
    }

    /// Bytes of the header and the four sectors (without the tail).
    pub fn content_len(&self) -> u64 {
        FRAME_HEADER_LEN
            + Sector::ALL
                .iter()
                .flat_map(|&s| self.sector(s))
                .map(IntervalRecord::disk_len)
                .sum::<u64>()
    }
}

/// One statistics set: the time histogram of one interval type.
#[binrw]
#[brw(big)]
#[br(import(nbin: u32))]
#[derive(Debug, Clone, PartialEq)]
pub struct StatSet {
    /// Record type (the writer always puts 0).
    pub rectype: u16,
    /// Interval type.
    pub intvltype: u16,
    #[br(temp, assert(label_size == FIELD_LEN as u16, RowError::new(row::STAT_SET, format!("a statistics label size is {}, not 35", label_size))))]
    #[bw(calc = FIELD_LEN as u16)]
    label_size: u16,
    /// Label: 34 bytes of NUL-padded text and an LF.
    pub label: [u8; FIELD_LEN],
    #[br(temp, assert(n == nbin, RowError::new(row::STAT_SET, format!("a statistics set has {} bins, the section says {}", n, nbin))))]
    #[bw(try_calc = u32::try_from(bins.len()))]
    n: u32,
    /// Average number of active intervals of the type in each bin.
    #[br(count = n)]
    pub bins: Vec<f64>,
}

impl StatSet {
    /// The label text (up to the first NUL or LF, trimmed).
    pub fn label_text(&self) -> String {
        let b = &self.label[..FIELD_LEN - 1];
        let b = &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())];
        String::from_utf8_lossy(b).trim().to_string()
    }

    /// A label field holding `s` (at most 34 bytes, NUL padded, LF).
    pub fn label_field(s: &str) -> [u8; FIELD_LEN] {
        let mut l = [0u8; FIELD_LEN];
        for (d, &c) in l.iter_mut().zip(s.as_bytes().iter().take(FIELD_LEN - 2)) {
            *d = c;
        }
        l[FIELD_LEN - 1] = b'\n';
        l
    }
}

/// Reads `nset` statistics sets of `nbin` bins after checking that they fit.
#[binrw::parser(reader, endian)]
fn stat_sets(nset: u32, nbin: u32) -> BinResult<Vec<StatSet>> {
    let pos = reader.stream_position()?;
    let each = STAT_SET_FIXED_LEN + 8 * nbin as u64;
    // Report the Nset field: the sets start 24 bytes after it.
    need(
        reader,
        pos.saturating_sub(24),
        row::COUNT,
        (nset as u64).saturating_mul(each),
        || format!("{nset} statistics sets of {nbin} bins"),
    )?;
    (0..nset)
        .map(|_| StatSet::read_options(reader, endian, (nbin,)))
        .collect()
}

/// The body of the statistics: present when both counts are non-zero.
#[binrw]
#[brw(big)]
#[br(import(nset: u32, nbin: u32))]
#[derive(Debug, Clone, PartialEq)]
pub struct StatBody {
    /// Start of the histogram range.
    pub starttime: f64,
    /// End of the histogram range.
    pub endtime: f64,
    /// One set per whole profile entry, in profile order.
    #[br(parse_with = stat_sets, args(nset, nbin))]
    pub sets: Vec<StatSet>,
}

/// The preview statistics (Jumpshot-3's time histogram).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Statistics {
    /// Number of sets (0 in the writer's placeholder).
    pub nset: u32,
    /// Bins per set (0 in the writer's placeholder).
    pub nbin: u32,
    /// Times and sets; absent when `nset` or `nbin` is 0 (the C reader then reads
    /// nothing more; Jumpshot-3 refuses the file).
    #[br(if(nset > 0 && nbin > 0), args(nset, nbin))]
    pub body: Option<StatBody>,
}

impl Statistics {
    /// Bytes on disk.
    pub fn disk_len(&self) -> u64 {
        8 + self.body.as_ref().map_or(0, |b| {
            16 + b
                .sets
                .iter()
                .map(|s| STAT_SET_FIXED_LEN + 8 * s.bins.len() as u64)
                .sum::<u64>()
        })
    }
}
