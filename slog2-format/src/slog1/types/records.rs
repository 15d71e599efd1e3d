//! Record definitions, the frame directory, interval records and the frames that
//! hold them in sectors.

use super::*;

/// One record definition (7 bytes): how many association and argument words the
/// records of an (interval type, bebits) carry.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecDef {
    /// Interval type.
    pub intvltype: u16,
    /// Bebits code (0–3).
    #[br(parse_with = bebits_code, args(|code| ReadProblem::RecDefBebits { code }))]
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
pub(super) fn record_args(variable: bool, nargs: u16, left: u64) -> BinResult<RecordArgs> {
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
            return Err(reject(pos, ReadProblem::ArgCountCut { left }));
        }
        let n = u16::read_options(reader, endian, ())?;
        let len = 2 + 4 * n as u64;
        if len > left {
            let problem = ReadProblem::ArgGroupPastEnd {
                count: n,
                len,
                left,
            };
            return Err(reject(pos, problem));
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
pub(super) fn lookup(defs: &RecDefIndex, intvltype: u16, bebits: u8) -> Option<(u16, u16)> {
    defs.get(&(intvltype, bebits)).copied()
}

/// Whether the stated byte size is what the parts need (fixed-size types) or
/// leaves room for them (variable-size types).
pub(super) fn size_fits(bytesize: u16, rectype: u16, def: Option<(u16, u16)>) -> bool {
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
    #[br(parse_with = bebits_code, args(|code| ReadProblem::RecordBebits { code }))]
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
    #[br(assert(def.is_some(), ReadProblem::NoRecDef { intvltype, bebits }))]
    #[br(assert(size_fits(bytesize, rectype, def), ReadProblem::RecordSize { bytesize, def: def.unwrap_or_default() }))]
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
pub(super) fn sector_len(recs: &[IntervalRecord]) -> Result<u32, &'static str> {
    let n: u64 = recs.iter().map(IntervalRecord::disk_len).sum();
    u32::try_from(n).map_err(|_| "a sector longer than 4 GiB")
}

/// Reads a sector: `nrec` records that must use exactly `nbytes` bytes, each
/// checked to lie inside the sector before it is read.
#[binrw::parser(reader, endian)]
pub(super) fn sector(
    nbytes: u32,
    nrec: u32,
    defs: &RecDefIndex,
    name: &'static str,
) -> BinResult<Vec<IntervalRecord>> {
    let start = reader.stream_position()?;
    let end = start + nbytes as u64;
    if nrec as u64 * MIN_DIAG_RECORD_LEN > nbytes as u64 {
        let problem = ReadProblem::SectorRecords {
            sector: name,
            records: nrec,
            bytes: nbytes,
        };
        return Err(reject(start, problem));
    }
    let mut recs = Vec::with_capacity(nrec as usize);
    for i in 0..nrec {
        let pos = reader.stream_position()?;
        let size = u16::read_options(reader, endian, ())? as u64;
        if size < MIN_DIAG_RECORD_LEN || pos + size > end {
            let (sector, index) = (name, i);
            let problem = if size < MIN_DIAG_RECORD_LEN {
                ReadProblem::RecordTooSmall {
                    sector,
                    index,
                    size,
                }
            } else {
                ReadProblem::RecordPastSector {
                    sector,
                    index,
                    size,
                    end,
                }
            };
            return Err(reject(pos, problem));
        }
        // An arrow's fixed part is longer: refuse a record too short for it
        // before its destination is read past the record's end.
        let rectype = u16::read_options(reader, endian, ())?;
        if is_off_diagonal(rectype) && size < MIN_OFFDIAG_RECORD_LEN {
            let problem = ReadProblem::ArrowTooSmall {
                sector: name,
                index: i,
                size,
                rectype,
            };
            return Err(reject(pos, problem));
        }
        reader.seek(SeekFrom::Start(pos))?;
        let r = IntervalRecord::read_options(reader, endian, (defs,))?;
        let used = reader.stream_position()? - pos;
        if used != size {
            let problem = ReadProblem::RecordFields {
                sector: name,
                index: i,
                size,
                used,
            };
            return Err(reject(pos, problem));
        }
        recs.push(r);
    }
    let pos = reader.stream_position()?;
    if pos != end {
        let problem = ReadProblem::SectorLength {
            sector: name,
            records: nrec,
            used: pos - start,
            bytes: nbytes,
        };
        return Err(reject(start, problem));
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
    #[br(assert(used <= frame_bytesize as u64, ReadProblem::FrameOverfull { used, frame_bytesize }))]
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
