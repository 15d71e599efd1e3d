//! Reading a whole SLOG-1 file: the header, every section its pointers name, every
//! frame of the directory, and the bytes no section covers (kept verbatim, so the
//! model is lossless: [`Slog1File::to_bytes`] gives the input back byte for byte).

use super::error::{Error, ReadProblem, Result};
use super::types::*;
use binrw::io::{Cursor, Seek, SeekFrom};
use binrw::{BinRead, Endian};
use std::collections::BTreeMap;

/// Every structure of a SLOG-1 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Slog1File {
    /// The header (its pointers say where each section is).
    pub header: Header,
    /// The preview blob.
    pub preview: Preview,
    /// The thread table.
    pub threads: ThreadTable,
    /// The display profile.
    pub profile: Profile,
    /// The record definitions.
    pub recdefs: RecDefTable,
    /// The frame directory (valid entries only).
    pub directory: FrameDir,
    /// One frame per directory entry, in directory order.
    pub frames: Vec<Frame>,
    /// The preview statistics.
    pub statistics: Statistics,
    /// Bytes that no section covers, by offset: reserved and stale profile and
    /// definition slots, unused directory slots, anything else.
    pub gaps: BTreeMap<u64, Vec<u8>>,
}

/// What occupies a byte range of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// The header.
    Header,
    /// The preview statistics.
    Statistics,
    /// The preview blob.
    Preview,
    /// The display profile.
    Profile,
    /// The thread table.
    ThreadTable,
    /// The record definitions.
    RecDefs,
    /// The frame directory (header and valid entries).
    Directory,
    /// Frame `i` of the directory.
    Frame(usize),
    /// Bytes no section covers, at this offset ([`Slog1File::gaps`]; never in
    /// [`Slog1File::regions`]).
    Gap(u64),
}

impl Part {
    /// A name for messages.
    ///
    /// ```
    /// use slog2_format::slog1::Part;
    /// assert_eq!(Part::ThreadTable.name(), "the thread table");
    /// assert_eq!(Part::Header.name(), "the header");
    /// ```
    pub fn name(self) -> String {
        match self {
            Part::Header => "the header".into(),
            Part::Statistics => "the preview statistics".into(),
            Part::Preview => "the preview".into(),
            Part::Profile => "the display profile".into(),
            Part::ThreadTable => "the thread table".into(),
            Part::RecDefs => "the record definition table".into(),
            Part::Directory => "the frame directory".into(),
            Part::Frame(i) => format!("frame {i}"),
            Part::Gap(at) => format!("the gap at byte {at}"),
        }
    }
}

/// One copy of an interval record in a frame, with where it is.
#[derive(Debug, Clone, Copy)]
pub struct RecordRef<'a> {
    /// Frame index (directory order).
    pub frame: usize,
    /// Sector.
    pub sector: Sector,
    /// Byte offset of the record in the file.
    pub offset: u64,
    /// The record.
    pub record: &'a IntervalRecord,
}

/// Whether `data` starts like a SLOG-1 file: version 0.9 (`00000000 00000009`).
///
/// ```
/// # use slog2_format::slog1::*;
/// # let state = |s: f64, node: u16| IntervalRecord {
/// #     rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 0.5,
/// #     origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
/// #     instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
/// # };
/// # let f = build(&BuildInput {
/// #     threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
/// #     profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
/// #     recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
/// #     records: (0..6).map(|i| state(i as f64, (i % 2) as u16)).collect(),
/// #     ..Default::default()
/// # }, BuildOptions::default())?;
/// let bytes = f.to_bytes()?;
/// assert!(looks_like(&bytes));
/// assert_eq!(bytes[..8], [0, 0, 0, 0, 0, 0, 0, 9]);
/// assert!(!looks_like(b"SLOG 2.0.6"));
/// assert!(!looks_like(&[0, 0, 0, 0, 0, 0, 0, 8, 0])); // version 0.8
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn looks_like(data: &[u8]) -> bool {
    data.len() >= 8 && data[..8] == [0, 0, 0, 0, 0, 0, 0, 9]
}

/// Converts a binrw error raised reading `part`, which starts at `base` and lies
/// in the first `end` bytes of the file.
pub(crate) fn bin_err(e: binrw::Error, base: u64, part: Part, end: usize) -> Error {
    let bad = |offset, problem| Error::BadValue {
        offset,
        part: Some(part),
        problem,
    };
    match e {
        binrw::Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            Error::Truncated {
                offset: base,
                part,
                end: end as u64,
            }
        }
        binrw::Error::Io(source) => Error::Io {
            offset: base,
            source,
        },
        binrw::Error::AssertFail { pos, message } => bad(pos, ReadProblem::Layout(message)),
        binrw::Error::Custom { pos, err } => match err.downcast::<ReadProblem>() {
            Ok(problem) => bad(pos, *problem),
            Err(err) => bad(pos, ReadProblem::Layout(err.to_string())),
        },
        binrw::Error::Backtrace(bt) => bin_err(*bt.error, base, part, end),
        other => bad(base, ReadProblem::Layout(other.to_string())),
    }
}

/// Why a reader must reject a file: the error (with the byte offset the spec
/// gives) and the row of spec/slog1.md §13 ("What a reader must reject") it
/// breaks. [`Slog1File::parse_or_reject`] gives it.
#[derive(Debug)]
pub struct Rejection {
    /// The row of spec/slog1.md §13, 1 to 14.
    pub row: u8,
    /// The error; [`Error::offset`] is the offset the row names.
    pub error: Error,
}

impl Rejection {
    /// The rejection for `error`: its row is [`Error::spec_row`] (6 for an error
    /// of writing, which reading does not raise).
    fn new(error: Error) -> Rejection {
        let row = error.spec_row().unwrap_or(row::TRUNCATED);
        Rejection { row, error }
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.error, f)
    }
}

impl std::error::Error for Rejection {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Parses a `T` at `at`, bounded by the end of `data`.
fn section<'a, T>(
    data: &[u8],
    at: u64,
    part: Part,
    args: T::Args<'a>,
) -> std::result::Result<T, Rejection>
where
    T: BinRead,
{
    let mut c = Cursor::new(data);
    c.seek(SeekFrom::Start(at))
        .map_err(|source| Rejection::new(Error::Io { offset: at, source }))?;
    T::read_options(&mut c, Endian::Big, args)
        .map_err(|e| Rejection::new(bin_err(e, at, part, data.len())))
}

/// The header's six section pointers: name, field offset, value.
///
/// ```
/// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
/// #     use slog2_format::slog1::*;
/// #     let state = |s: f64, node: u16| IntervalRecord {
/// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
/// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
/// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
/// #     };
/// #     let input = BuildInput {
/// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
/// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
/// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
/// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
/// #         ..Default::default()
/// #     };
/// #     build(&input, BuildOptions::default().frame_bytesize(256))
/// # }
/// let f = file()?;
/// let p = slog2_format::slog1::read::pointers(&f.header);
/// assert_eq!(p[0], ("fptr2statistics", 26, f.header.fptr2statistics));
/// let len = f.to_bytes()?.len() as u64;
/// assert!(p.iter().all(|&(_, _, at)| at < len)); // every section in the file
/// # Ok::<(), slog2_format::slog1::Error>(())
/// ```
pub fn pointers(h: &Header) -> [(&'static str, u64, u64); 6] {
    [
        ("fptr2statistics", 26, h.fptr2statistics),
        ("fptr2preview", 34, h.fptr2preview),
        ("fptr2profile", 42, h.fptr2profile),
        ("fptr2threadtable", 50, h.fptr2threadtable),
        ("fptr2recdefs", 58, h.fptr2recdefs),
        ("fptr2framedata", 66, h.fptr2framedata),
    ]
}

impl Slog1File {
    /// Parses a whole file held in memory.
    ///
    /// # Errors
    ///
    /// Each naming a byte offset (see spec/slog1.md §13): a file shorter
    /// than the header, a version other than 0.9, a section pointer that is 0 or
    /// past the end of the file, a count whose items cannot fit in the bytes left,
    /// a malformed profile entry, a bebits code above 3, a record without a
    /// definition or whose byte size disagrees with its fields, sectors that do not
    /// add up to their header's counts or overflow the frame, a frame pointer that
    /// is 0 or whose frame runs past the end of the file, statistics sets with
    /// label sizes other than 35 or bin counts other than the section's, and
    /// sections or frames that overlap.
    ///
    /// ```
    /// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
    /// #     use slog2_format::slog1::*;
    /// #     let state = |s: f64, node: u16| IntervalRecord {
    /// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
    /// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
    /// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
    /// #     };
    /// #     let input = BuildInput {
    /// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
    /// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
    /// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
    /// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
    /// #         ..Default::default()
    /// #     };
    /// #     build(&input, BuildOptions::default().frame_bytesize(256))
    /// # }
    /// let bytes = file()?.to_bytes()?;
    /// let f = slog2_format::slog1::Slog1File::parse(&bytes)?;
    /// assert_eq!(f.home_records().count(), 40);
    /// assert_eq!(f.frame_range(), Some((0.0, 40.5)));
    /// let short = slog2_format::slog1::Slog1File::parse(&bytes[..100]).unwrap_err();
    /// assert!(short.offset().is_some());
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn parse(data: &[u8]) -> Result<Slog1File> {
        Slog1File::parse_or_reject(data).map_err(|r| r.error)
    }

    /// Parses a whole file from a reader (read to its end, then
    /// [`parse`](Self::parse)d).
    ///
    /// # Errors
    ///
    /// As [`Slog1File::parse`], and the reader's I/O errors.
    ///
    /// ```
    /// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
    /// #     use slog2_format::slog1::*;
    /// #     let state = |s: f64, node: u16| IntervalRecord {
    /// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
    /// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
    /// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
    /// #     };
    /// #     let input = BuildInput {
    /// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
    /// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
    /// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
    /// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
    /// #         ..Default::default()
    /// #     };
    /// #     build(&input, BuildOptions::default().frame_bytesize(256))
    /// # }
    /// let bytes = file()?.to_bytes()?;
    /// let f = slog2_format::slog1::Slog1File::read(&bytes[..])?;
    /// assert_eq!(f.to_bytes()?, bytes);
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn read<R: std::io::Read>(inner: R) -> Result<Slog1File> {
        let data =
            clog2_format::io::read_all(inner, |offset, source| Error::Io { offset, source })?;
        Self::parse(&data)
    }

    /// Parses a whole file held in memory, as [`Slog1File::parse`] does; an
    /// error also names the row of spec/slog1.md §13 it breaks (1 file too
    /// short, 2 version, 3 section pointer, 4 frame size, 5 count, 6 truncated
    /// structure, 7 profile entry, 8 definition bebits, 9 statistics set, 10
    /// directory entry, 11 frame overflow, 12 sector, 13 record, 14 overlap).
    ///
    /// # Errors
    ///
    /// A [`Rejection`] holding the error of [`Slog1File::parse`], with its offset, and
    /// the row it breaks.
    ///
    /// ```
    /// # use slog2_format::slog1::*;
    /// # let state = |s: f64, node: u16| IntervalRecord {
    /// #     rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 0.5,
    /// #     origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
    /// #     instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
    /// # };
    /// # let f = build(&BuildInput {
    /// #     threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
    /// #     profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
    /// #     recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
    /// #     records: (0..6).map(|i| state(i as f64, (i % 2) as u16)).collect(),
    /// #     ..Default::default()
    /// # }, BuildOptions::default())?;
    /// let bytes = f.to_bytes()?;
    /// assert_eq!(Slog1File::parse_or_reject(&bytes).map_err(|r| r.error)?.to_bytes()?, bytes);
    /// let cut = Slog1File::parse_or_reject(&bytes[..20]).unwrap_err();
    /// assert_eq!(cut.row, 1); // the file is too short for its header
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse_or_reject(data: &[u8]) -> std::result::Result<Slog1File, Rejection> {
        let len = data.len();
        let bad = |offset, problem| {
            Rejection::new(Error::BadValue {
                offset,
                part: None,
                problem,
            })
        };
        if len < HEADER_LEN as usize {
            return Err(Rejection::new(Error::Truncated {
                offset: len as u64,
                part: Part::Header,
                end: len as u64,
            }));
        }
        if !looks_like(data) {
            let v = |i: usize| u32::from_be_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
            let version = [v(0), v(4)];
            return Err(bad(0, ReadProblem::NotSlog1 { version }));
        }
        let header = section::<Header>(data, 0, Part::Header, ())?;
        for (pointer, field, at) in pointers(&header) {
            if at == 0 {
                return Err(bad(field, ReadProblem::NoSection { pointer }));
            }
            if at >= len as u64 {
                let file_len = len as u64;
                let problem = ReadProblem::SectionPastEnd {
                    pointer,
                    at,
                    file_len,
                };
                return Err(bad(field, problem));
            }
        }
        if (header.frame_bytesize as u64) < FRAME_HEADER_LEN {
            let frame_bytesize = header.frame_bytesize;
            return Err(bad(8, ReadProblem::FrameSizeTooSmall { frame_bytesize }));
        }
        let h = &header;
        let statistics = section::<Statistics>(data, h.fptr2statistics, Part::Statistics, ())?;
        let preview = section::<Preview>(data, h.fptr2preview, Part::Preview, ())?;
        let profile = section::<Profile>(data, h.fptr2profile, Part::Profile, ())?;
        let threads = section::<ThreadTable>(data, h.fptr2threadtable, Part::ThreadTable, ())?;
        let recdefs = section::<RecDefTable>(data, h.fptr2recdefs, Part::RecDefs, ())?;
        let directory = section::<FrameDir>(data, h.fptr2framedata, Part::Directory, ())?;

        let defs = recdefs.index();
        let fbs = h.frame_bytesize as u64;
        let mut frames = Vec::with_capacity(directory.entries.len());
        for (i, entry) in directory.entries.iter().enumerate() {
            let field = h.fptr2framedata + DIR_HEADER_LEN + DIR_ENTRY_LEN * i as u64;
            let at = entry.fptr2framehdr;
            if at == 0 {
                return Err(bad(field, ReadProblem::NullFrame { entry: i }));
            }
            if at.checked_add(fbs).is_none_or(|end| end > len as u64) {
                let problem = ReadProblem::FramePastEnd {
                    entry: i,
                    at,
                    frame_bytesize: fbs,
                    file_len: len as u64,
                };
                return Err(bad(field, problem));
            }
            let frame = section::<Frame>(
                &data[..(at + fbs) as usize],
                at,
                Part::Frame(i),
                (&defs, h.frame_bytesize),
            )?;
            frames.push(frame);
        }
        let mut f = Slog1File {
            header,
            preview,
            threads,
            profile,
            recdefs,
            directory,
            frames,
            statistics,
            gaps: BTreeMap::new(),
        };
        let mut pos = 0u64;
        let mut prev = Part::Header;
        for (start, end, part) in f.regions() {
            if start < pos {
                let problem = ReadProblem::Overlap {
                    part,
                    at: start,
                    previous: prev,
                    previous_end: pos,
                };
                return Err(bad(start, problem));
            }
            if start > pos {
                f.gaps
                    .insert(pos, data[pos as usize..start as usize].to_vec());
            }
            pos = end;
            prev = part;
        }
        if pos < len as u64 {
            f.gaps.insert(pos, data[pos as usize..].to_vec());
        }
        Ok(f)
    }

    /// Every copy of every record, frame by frame, sectors in on-disk order, with
    /// its byte offset (computed from the directory's frame pointers).
    ///
    /// ```
    /// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
    /// #     use slog2_format::slog1::*;
    /// #     let state = |s: f64, node: u16| IntervalRecord {
    /// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
    /// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
    /// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
    /// #     };
    /// #     let input = BuildInput {
    /// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
    /// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
    /// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
    /// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
    /// #         ..Default::default()
    /// #     };
    /// #     build(&input, BuildOptions::default().frame_bytesize(256))
    /// # }
    /// let f = file()?;
    /// let copies = f.records().count();
    /// let homes = f.home_records().count();
    /// assert_eq!(homes, 40);
    /// assert!(copies > homes); // states that reach a later frame have copies there
    /// let first = f.records().next().unwrap();
    /// assert_eq!((first.frame, first.record.starttime), (0, 0.0));
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn records(&self) -> impl Iterator<Item = RecordRef<'_>> {
        self.frames.iter().enumerate().flat_map(move |(i, f)| {
            let base =
                self.directory.entries.get(i).map_or(0, |e| e.fptr2framehdr) + FRAME_HEADER_LEN;
            let mut off = base;
            Sector::ALL
                .into_iter()
                .flat_map(move |s| f.sector(s).iter().map(move |r| (s, r)))
                .map(move |(s, r)| {
                    let at = off;
                    off = off.saturating_add(r.disk_len());
                    RecordRef {
                        frame: i,
                        sector: s,
                        offset: at,
                        record: r,
                    }
                })
        })
    }

    /// The home copy of every record: the `cur` and `out` sectors of every frame
    /// (each record starts in exactly one frame). The `inc` and `pas` sectors hold
    /// copies of records already listed in an earlier frame.
    ///
    /// ```
    /// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
    /// #     use slog2_format::slog1::*;
    /// #     let state = |s: f64, node: u16| IntervalRecord {
    /// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
    /// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
    /// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
    /// #     };
    /// #     let input = BuildInput {
    /// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
    /// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
    /// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
    /// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
    /// #         ..Default::default()
    /// #     };
    /// #     build(&input, BuildOptions::default().frame_bytesize(256))
    /// # }
    /// let f = file()?;
    /// assert_eq!(f.home_records().count(), 40); // each record once
    /// assert!(f.records().count() > 40); // with the copies of records spanning frames
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn home_records(&self) -> impl Iterator<Item = RecordRef<'_>> {
        self.records().filter(|r| r.sector.is_home())
    }

    /// The byte ranges the parsed structures occupy, by offset: (start, end, part).
    ///
    /// ```
    /// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
    /// #     use slog2_format::slog1::*;
    /// #     let state = |s: f64, node: u16| IntervalRecord {
    /// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
    /// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
    /// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
    /// #     };
    /// #     let input = BuildInput {
    /// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
    /// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
    /// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
    /// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
    /// #         ..Default::default()
    /// #     };
    /// #     build(&input, BuildOptions::default().frame_bytesize(256))
    /// # }
    /// let f = slog2_format::slog1::Slog1File::parse(&file()?.to_bytes()?)?;
    /// let regions = f.regions();
    /// assert_eq!(regions[0].0, 0); // the header first
    /// assert!(regions.windows(2).all(|w| w[0].1 <= w[1].0)); // sorted, no overlap
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn regions(&self) -> Vec<(u64, u64, Part)> {
        let h = &self.header;
        let profile: u64 = self
            .profile
            .entries
            .iter()
            .map(ProfileEntry::disk_len)
            .sum();
        let mut v = vec![(0, HEADER_LEN, Part::Header)];
        for (at, len, part) in [
            (
                h.fptr2statistics,
                self.statistics.disk_len(),
                Part::Statistics,
            ),
            (
                h.fptr2preview,
                4 + self.preview.bytes.len() as u64,
                Part::Preview,
            ),
            (h.fptr2profile, 4 + profile, Part::Profile),
            (
                h.fptr2threadtable,
                4 + THREAD_ENTRY_LEN * self.threads.entries.len() as u64,
                Part::ThreadTable,
            ),
            (
                h.fptr2recdefs,
                4 + RECDEF_LEN * self.recdefs.entries.len() as u64,
                Part::RecDefs,
            ),
            (
                h.fptr2framedata,
                DIR_HEADER_LEN + DIR_ENTRY_LEN * self.directory.entries.len() as u64,
                Part::Directory,
            ),
        ] {
            v.push((at, at.saturating_add(len), part));
        }
        for (i, e) in self.directory.entries.iter().enumerate() {
            v.push((
                e.fptr2framehdr,
                e.fptr2framehdr.saturating_add(h.frame_bytesize as u64),
                Part::Frame(i),
            ));
        }
        v.sort();
        v
    }

    /// Start of the first frame and end of the last (the directory's time range).
    ///
    /// ```
    /// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
    /// #     use slog2_format::slog1::*;
    /// #     let state = |s: f64, node: u16| IntervalRecord {
    /// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
    /// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
    /// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
    /// #     };
    /// #     let input = BuildInput {
    /// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
    /// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
    /// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
    /// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
    /// #         ..Default::default()
    /// #     };
    /// #     build(&input, BuildOptions::default().frame_bytesize(256))
    /// # }
    /// // 40 records of 1.5 s starting at 0, 1, ..., 39 s.
    /// assert_eq!(file()?.frame_range(), Some((0.0, 40.5)));
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn frame_range(&self) -> Option<(f64, f64)> {
        let first = self.directory.entries.first()?;
        let last = self.directory.entries.last()?;
        Some((first.starttime, last.endtime))
    }
}
