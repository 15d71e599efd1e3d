//! Writing SLOG-1: the lossless [`Slog1File::to_bytes`], [`Slog1File::lay_out`]
//! (fresh pointers for a model built in memory), and [`build`], which makes a
//! complete file — frames, sectors, pseudo copies, statistics — from interval
//! records and tables (spec/slog1.md §12).

use super::error::{Error, RecordProblem, Result, WriteProblem};
use super::read::{Part, Slog1File};
use super::types::*;
use binrw::io::Cursor;
use binrw::{BinWrite, Endian};
use std::cmp::Ordering;

fn encode<T>(v: &T, args: T::Args<'_>) -> Result<Vec<u8>>
where
    T: BinWrite,
{
    let mut c = Cursor::new(Vec::new());
    v.write_options(&mut c, Endian::Big, args)
        .map_err(|e| Error::Write(WriteProblem::Encode(e.to_string())))?;
    Ok(c.into_inner())
}

/// Largest file [`Slog1File::to_bytes`] makes (pointers beyond it are refused
/// rather than zero-filled).
pub const MAX_FILE_LEN: u64 = 1 << 34;

impl Slog1File {
    /// Writes the file (as [`to_bytes`](Self::to_bytes)) to `out` and gives it
    /// back.
    ///
    /// # Errors
    ///
    /// As [`Slog1File::to_bytes`], and the writer's I/O errors.
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
    /// assert_eq!(f.write_to(Vec::new())?, f.to_bytes()?);
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn write_to<W: std::io::Write>(&self, out: W) -> Result<W> {
        let bytes = self.to_bytes()?;
        clog2_format::io::write_all(out, &bytes, |source| Error::Io { offset: 0, source })
    }

    /// Writes the file: the header, each section at the offset its pointer names,
    /// each frame at its directory pointer (exactly `frame_bytesize` bytes with its
    /// tail), and every gap at its offset; bytes nothing covers are zeros (they
    /// read back as gaps). A parsed file gives its input back byte for byte.
    ///
    /// # Errors
    ///
    /// [`Error::Write`]: frames and directory entries that do not pair
    /// up, a frame whose content and tail are not `frame_bytesize` bytes, a
    /// section, frame or gap overlapping another, a file beyond [`MAX_FILE_LEN`],
    /// counts that do not fit their fields, or a result our reader would not read
    /// back (for example a record without a definition).
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
    /// let mut f = file()?;
    /// let bytes = f.to_bytes()?;
    /// assert_eq!(slog2_format::slog1::Slog1File::parse(&bytes)?, f);
    /// f.frames.pop(); // a frame without its directory entry
    /// assert!(f.to_bytes().is_err());
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let h = &self.header;
        if self.frames.len() != self.directory.entries.len() {
            return Err(Error::Write(WriteProblem::FramesAndEntries {
                frames: self.frames.len(),
                entries: self.directory.entries.len(),
            }));
        }
        let stats_ok = match &self.statistics.body {
            None => self.statistics.nset == 0 || self.statistics.nbin == 0,
            Some(b) => {
                self.statistics.nset as usize == b.sets.len()
                    && b.sets
                        .iter()
                        .all(|s| s.bins.len() == self.statistics.nbin as usize)
            }
        };
        if !stats_ok {
            return Err(Error::Write(WriteProblem::StatisticsShape));
        }
        let mut items: Vec<(u64, Vec<u8>, Part)> = vec![
            (0, encode(h, ())?, Part::Header),
            (
                h.fptr2statistics,
                encode(&self.statistics, ())?,
                Part::Statistics,
            ),
            (h.fptr2preview, encode(&self.preview, ())?, Part::Preview),
            (h.fptr2profile, encode(&self.profile, ())?, Part::Profile),
            (
                h.fptr2threadtable,
                encode(&self.threads, ())?,
                Part::ThreadTable,
            ),
            (h.fptr2recdefs, encode(&self.recdefs, ())?, Part::RecDefs),
            (
                h.fptr2framedata,
                encode(&self.directory, ())?,
                Part::Directory,
            ),
        ];
        for (i, (f, e)) in self.frames.iter().zip(&self.directory.entries).enumerate() {
            let b = encode(f, ())?;
            if b.len() as u64 != h.frame_bytesize as u64 {
                return Err(Error::Write(WriteProblem::FrameSize {
                    frame: i,
                    len: b.len() as u64,
                    content: f.content_len(),
                    tail: f.tail.len() as u64,
                    frame_bytesize: h.frame_bytesize,
                }));
            }
            items.push((e.fptr2framehdr, b, Part::Frame(i)));
        }
        for (&at, g) in &self.gaps {
            items.push((at, g.clone(), Part::Gap(at)));
        }
        items.sort_by_key(|i| i.0);
        let mut pos = 0u64;
        let mut prev = Part::Header;
        for &(at, ref b, part) in &items {
            if at < pos {
                return Err(Error::Write(WriteProblem::Overlap {
                    part,
                    at,
                    previous: prev,
                    previous_end: pos,
                }));
            }
            pos = at
                .checked_add(b.len() as u64)
                .filter(|&end| end <= MAX_FILE_LEN)
                .ok_or(Error::Write(WriteProblem::PastMaxLen {
                    part,
                    at,
                    max: MAX_FILE_LEN,
                }))?;
            prev = part;
        }
        if pos > MAX_FILE_LEN {
            return Err(Error::Write(WriteProblem::TooLarge {
                len: pos,
                max: MAX_FILE_LEN,
            }));
        }
        let mut out = vec![0u8; pos as usize];
        for (at, b, _) in &items {
            out[*at as usize..*at as usize + b.len()].copy_from_slice(b);
        }
        if let Err(e) = Slog1File::parse(&out) {
            return Err(Error::Write(WriteProblem::WouldNotReadBack(Box::new(e))));
        }
        Ok(out)
    }

    /// Places every section anew, in the order MPE's writer uses: header,
    /// preview, thread table, display profile, record definitions, frame
    /// directory with `max_ndirframe` slots (raised to the number of frames if
    /// needed; unused slots are written as the C writer leaves them, pointer 0 and
    /// times −1.0, and kept as a gap), the frames back to back, then the
    /// statistics. Frame tails become zeros of the right length; other gaps are
    /// dropped. Afterwards `parse(to_bytes())` gives back this value.
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
    /// let mut f = file()?;
    /// f.preview.bytes = vec![0; 64]; // a section grows: the pointers after it move
    /// f.lay_out();
    /// let again = slog2_format::slog1::Slog1File::parse(&f.to_bytes()?)?;
    /// assert_eq!(again.preview.bytes.len(), 64);
    /// assert_eq!(again.home_records().count(), 40);
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn lay_out(&mut self) {
        let h = &mut self.header;
        let nframes = self.frames.len() as u64;
        h.max_ndirframe = h.max_ndirframe.max(nframes as u32);
        let mut pos = HEADER_LEN;
        h.fptr2preview = pos;
        pos += 4 + self.preview.bytes.len() as u64;
        h.fptr2threadtable = pos;
        pos += 4 + THREAD_ENTRY_LEN * self.threads.entries.len() as u64;
        h.fptr2profile = pos;
        pos += 4 + self
            .profile
            .entries
            .iter()
            .map(ProfileEntry::disk_len)
            .sum::<u64>();
        h.fptr2recdefs = pos;
        pos += 4 + RECDEF_LEN * self.recdefs.entries.len() as u64;
        h.fptr2framedata = pos;
        self.gaps.clear();
        let dir_end = pos + DIR_HEADER_LEN + DIR_ENTRY_LEN * nframes;
        let slots = h.max_ndirframe as u64 - nframes;
        if slots > 0 {
            let mut empty = Vec::with_capacity((DIR_ENTRY_LEN * slots) as usize);
            for _ in 0..slots {
                empty.extend_from_slice(&0u64.to_be_bytes());
                empty.extend_from_slice(&(-1.0f64).to_be_bytes());
                empty.extend_from_slice(&(-1.0f64).to_be_bytes());
            }
            self.gaps.insert(dir_end, empty);
        }
        pos = dir_end + DIR_ENTRY_LEN * slots;
        let fbs = h.frame_bytesize as u64;
        for (f, e) in self
            .frames
            .iter_mut()
            .zip(self.directory.entries.iter_mut())
        {
            e.fptr2framehdr = pos;
            f.tail = vec![0; fbs.saturating_sub(f.content_len()) as usize];
            pos += fbs;
        }
        h.fptr2statistics = pos;
    }
}

/// Options for [`build`].
///
/// ```
/// use slog2_format::slog1::BuildOptions;
///
/// let opts = BuildOptions::default().frame_bytesize(4096).nbin(64);
/// assert_eq!((opts.frame_bytesize, opts.nbin), (4096, 64));
/// assert_eq!(BuildOptions::default().frame_bytesize, 65536); // MPE's clog2slog
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct BuildOptions {
    /// Frame size in bytes (at least 32 + the largest record).
    pub frame_bytesize: u32,
    /// Directory capacity; raised to the number of frames when smaller.
    pub max_ndirframe: u32,
    /// Bins per statistics set (1 to 512, as the C writer clamps).
    pub nbin: u32,
}

impl Default for BuildOptions {
    /// MPE's `clog2slog` frame size (64 KiB), one directory slot per frame, 512
    /// bins.
    fn default() -> Self {
        BuildOptions {
            frame_bytesize: 65536,
            max_ndirframe: 0,
            nbin: 512,
        }
    }
}

/// Setters, one per field (the struct is `#[non_exhaustive]`: start from
/// [`Default`]).
///
/// ```
/// use slog2_format::slog1::BuildOptions;
/// let o = BuildOptions::default().frame_bytesize(1024).max_ndirframe(8).nbin(16);
/// assert_eq!((o.frame_bytesize, o.max_ndirframe, o.nbin), (1024, 8, 16));
/// assert_eq!(BuildOptions::default().nbin, 512);
/// ```
impl BuildOptions {
    /// Sets `frame_bytesize` (see the field).
    ///
    /// ```
    /// let o = slog2_format::slog1::BuildOptions::default().frame_bytesize(4096);
    /// assert_eq!((o.frame_bytesize, o.nbin), (4096, 512));
    /// ```
    pub fn frame_bytesize(mut self, frame_bytesize: u32) -> Self {
        self.frame_bytesize = frame_bytesize;
        self
    }

    /// Sets `max_ndirframe` (see the field).
    ///
    /// ```
    /// let o = slog2_format::slog1::BuildOptions::default().max_ndirframe(16);
    /// assert_eq!((o.max_ndirframe, o.frame_bytesize), (16, 65536));
    /// ```
    pub fn max_ndirframe(mut self, max_ndirframe: u32) -> Self {
        self.max_ndirframe = max_ndirframe;
        self
    }

    /// Sets `nbin` (see the field).
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
    /// let o = BuildOptions::default().nbin(8);
    /// assert_eq!((o.nbin, o.frame_bytesize), (8, 65536));
    /// # let _ = f;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn nbin(mut self, nbin: u32) -> Self {
        self.nbin = nbin;
        self
    }
}

/// The tables and records of a file to [`build`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildInput {
    /// The preview bytes (empty in MPE's files).
    pub preview: Vec<u8>,
    /// Thread table entries.
    pub threads: Vec<ThreadInfo>,
    /// Display profile entries.
    pub profile: Vec<ProfileEntry>,
    /// Record definitions.
    pub recdefs: Vec<RecDef>,
    /// Every interval, once, in any order.
    pub records: Vec<IntervalRecord>,
}

fn total_order(a: f64, b: f64) -> Ordering {
    a.total_cmp(&b)
}

/// Builds a complete SLOG-1 file (spec/slog1.md §12): records sorted by start
/// time; frames tile time from the earliest start to the latest end; each record
/// has its home copy in the frame its start falls in (`cur` if it ends there,
/// else `out`) and a pseudo copy in every later frame it reaches (`inc` where it
/// ends, else `pas`); each frame is cut as late as its size allows. Statistics:
/// one set per whole (bebits 3) profile entry, in profile order, each bin the
/// average number of that type's intervals active in it. The header says
/// increasing end time, as MPE's files do.
///
/// # Errors
///
/// [`Error::Write`]: a non-finite time or negative duration, a record
/// without a definition or not matching it, a frame size below 32 bytes or
/// records starting at one instant that need more than a frame, `nbin` outside
/// 1–512.
///
/// ```
/// use slog2_format::slog1::*;
/// let state = |s: f64| IntervalRecord {
///     rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 0.5,
///     origin: TaskLabel { node: 0, cpu: 0, thread: 0 }, destination: None,
///     instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
/// };
/// let input = BuildInput {
///     threads: vec![ThreadInfo { node_id: 0, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: 0 }],
///     profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
///     recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
///     records: (0..10).map(|i| state(f64::from(i))).collect(),
///     ..Default::default()
/// };
/// let f = build(&input, BuildOptions::default())?;
/// assert_eq!(Slog1File::parse(&f.to_bytes()?)?.home_records().count(), 10);
/// assert!(build(&input, BuildOptions::default().frame_bytesize(8)).is_err()); // frames too small
/// # Ok::<(), slog2_format::slog1::Error>(())
/// ```
pub fn build(input: &BuildInput, opts: BuildOptions) -> Result<Slog1File> {
    if opts.nbin == 0 || opts.nbin > 512 {
        return Err(Error::Write(WriteProblem::Bins(opts.nbin)));
    }
    let fbs = opts.frame_bytesize as u64;
    if fbs < FRAME_HEADER_LEN + MIN_DIAG_RECORD_LEN {
        return Err(Error::Write(WriteProblem::FrameTooSmall(fbs)));
    }
    let recdefs = RecDefTable {
        entries: input.recdefs.clone(),
    };
    let defs = recdefs.index();
    for (i, r) in input.records.iter().enumerate() {
        let bad = |problem| Err(Error::Write(WriteProblem::Record { index: i, problem }));
        if !r.starttime.is_finite() || !r.duration.is_finite() || !r.endtime().is_finite() {
            return bad(RecordProblem::NotFinite);
        }
        if r.duration < 0.0 {
            return bad(RecordProblem::NegativeDuration(r.duration));
        }
        let Some(&(na, ng)) = defs.get(&(r.intvltype, r.bebits)) else {
            return bad(RecordProblem::NoDefinition {
                intvltype: r.intvltype,
                bebits: r.bebits,
            });
        };
        let args_ok = match &r.args {
            RecordArgs::Fixed(v) => !is_variable(r.rectype) && v.len() == ng as usize,
            RecordArgs::Variable(_) => is_variable(r.rectype),
        };
        if r.assocs.len() != na as usize
            || !args_ok
            || r.destination.is_some() != is_off_diagonal(r.rectype)
        {
            return bad(RecordProblem::Mismatch);
        }
        if FRAME_HEADER_LEN + r.disk_len() > fbs {
            return bad(RecordProblem::TooLong {
                len: r.disk_len(),
                frame_bytesize: fbs,
            });
        }
    }
    let mut order: Vec<usize> = (0..input.records.len()).collect();
    let recs = &input.records;
    order.sort_by(|&a, &b| total_order(recs[a].starttime, recs[b].starttime).then(a.cmp(&b)));

    // Cut frames: each holds its home records (starts in [Fs, Fe)) and the
    // records carried from earlier frames that end after Fs.
    let mut frames: Vec<Frame> = Vec::new();
    let mut entries: Vec<DirEntry> = Vec::new();
    let t_end = recs
        .iter()
        .map(IntervalRecord::endtime)
        .fold(f64::NEG_INFINITY, f64::max);
    let mut carried: Vec<usize> = Vec::new();
    let mut next = 0usize;
    while next < order.len() {
        let fs = recs[order[next]].starttime;
        carried.retain(|&r| recs[r].endtime() > fs);
        let carried_len: u64 = carried.iter().map(|&r| recs[r].disk_len()).sum();
        let mut used = FRAME_HEADER_LEN + carried_len;
        // Take whole groups of equal start times while they fit.
        let mut end = next;
        while end < order.len() {
            let t = recs[order[end]].starttime;
            let mut g = end;
            let mut glen = 0;
            while g < order.len() && recs[order[g]].starttime == t {
                glen += recs[order[g]].disk_len();
                g += 1;
            }
            if used + glen > fbs {
                break;
            }
            used += glen;
            end = g;
        }
        if end == next {
            return Err(Error::Write(WriteProblem::ActiveRecordsOverflow {
                time: fs,
                frame_bytesize: fbs,
            }));
        }
        let fe = if end == order.len() {
            t_end
        } else {
            recs[order[end]].starttime
        };
        let mut f = Frame::default();
        for &r in &carried {
            let rec = recs[r].clone();
            if rec.endtime() <= fe {
                f.inc.push(rec);
            } else {
                f.pas.push(rec);
            }
        }
        for &r in &order[next..end] {
            let rec = recs[r].clone();
            if rec.endtime() <= fe {
                f.cur.push(rec);
            } else {
                f.out.push(rec);
                carried.push(r);
            }
        }
        // Records still open after the frame (pas and out) reach the next one.
        carried.retain(|&r| recs[r].endtime() > fe);
        frames.push(f);
        entries.push(DirEntry {
            fptr2framehdr: 0,
            starttime: fs,
            endtime: fe,
        });
        next = end;
    }
    let (t0, t1) = match (entries.first(), entries.last()) {
        (Some(a), Some(b)) => (a.starttime, b.endtime),
        _ => (-1.0, -1.0),
    };
    let nbin = opts.nbin;
    let sets: Vec<StatSet> = input
        .profile
        .iter()
        .filter(|p| p.bebits_code() == 3)
        .map(|p| {
            let mut bins = vec![0.0f64; nbin as usize];
            let width = (t1 - t0) / nbin as f64;
            for r in recs.iter().filter(|r| r.intvltype == p.itype()) {
                add_to_bins(&mut bins, t0, width, r.starttime, r.endtime());
            }
            StatSet {
                rectype: 0,
                intvltype: p.itype(),
                label: StatSet::label_field(&p.label.as_text()),
                bins,
            }
        })
        .collect();
    let statistics = if sets.is_empty() {
        Statistics {
            nset: 0,
            nbin: 0,
            body: None,
        }
    } else {
        Statistics {
            nset: sets.len() as u32,
            nbin,
            body: Some(StatBody {
                starttime: t0,
                endtime: t1,
                sets,
            }),
        }
    };
    let mut f = Slog1File {
        header: Header {
            version: VERSION,
            frame_bytesize: opts.frame_bytesize,
            frame_reserved_size: 0,
            max_ndirframe: opts.max_ndirframe.max(frames.len() as u32),
            is_increasing_starttime: 0,
            is_increasing_endtime: 1,
            has_reserve_space_been_used: 0,
            fptr2statistics: 0,
            fptr2preview: 0,
            fptr2profile: 0,
            fptr2threadtable: 0,
            fptr2recdefs: 0,
            fptr2framedata: 0,
        },
        preview: Preview {
            bytes: input.preview.clone(),
        },
        threads: ThreadTable {
            entries: input.threads.clone(),
        },
        profile: Profile {
            entries: input.profile.clone(),
        },
        recdefs,
        directory: FrameDir {
            prevdir: 0,
            nextdir: 0,
            entries,
        },
        frames,
        statistics,
        gaps: Default::default(),
    };
    f.lay_out();
    Ok(f)
}

/// Adds the interval `[s, e]` to the histogram: each bin gets the fraction of its
/// width the interval covers (a zero-length interval adds nothing; with a
/// zero-width range every interval adds 1 to bin 0).
fn add_to_bins(bins: &mut [f64], t0: f64, width: f64, s: f64, e: f64) {
    let n = bins.len();
    let bin_of = |t: f64| -> usize {
        if width > 0.0 {
            (((t - t0) / width).floor().max(0.0) as usize).min(n - 1)
        } else {
            0
        }
    };
    if width <= 0.0 {
        bins[0] += 1.0;
        return;
    }
    for (i, b) in bins
        .iter_mut()
        .enumerate()
        .take(bin_of(e) + 1)
        .skip(bin_of(s))
    {
        let lo = t0 + width * i as f64;
        let hi = lo + width;
        let overlap = e.min(hi) - s.max(lo);
        if overlap > 0.0 {
            *b += overlap / width;
        }
    }
}
