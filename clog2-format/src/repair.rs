//! Repairing a CLOG2 file that was cut anywhere or damaged after some point
//! (`spec/conversion.md` §10).
//!
//! [`repair`] keeps everything the input still holds in whole: the preamble, every
//! whole block before the first problem (copied byte for byte), the whole records of
//! the block where the problem was found, then ends the file properly: ENDLOG, the
//! comm table (kept if it survived, otherwise rebuilt from the recovered COMMEVT
//! records) and the preamble's `commtable_fptr`. [`RepairReport`] says what was
//! recovered, what was lost and why.
//!
//! ```
//! use clog2_format::{repair, synth, Clog2Reader};
//! let bytes = synth::generate_vec(&synth::Options::default().events(2000).block_size(4096)).unwrap();
//! let cut = &bytes[..bytes.len() / 2];
//! let (fixed, report) = repair::repair(cut).unwrap();
//! assert!(report.records > 500 && report.lost > 0 && !report.had_endlog);
//! let mut reader = Clog2Reader::from_slice(&fixed).unwrap();
//! while reader.next_record().unwrap().is_some() {}
//! reader.finish().unwrap();
//! ```
//!
//! An intact file comes out byte for byte ([`RepairReport::is_intact`]).

use crate::codec::{decode_record, encode_record, Layout};
use crate::commtable::{comm_kind, CommEntry, CommTable, ENTRY_LEN};
use crate::error::{bytes, Error, Expected, Result, ValueProblem};
use crate::preamble::{Preamble, PREAMBLE_LEN};
use crate::record::{comm_etype, rectype_name, Body, Record, Uuid, ENDLOG_TIME};
use crate::version::Version;
use binrw::Endian;
use std::fmt;
use std::io::Write;

/// Why the input stopped being usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossKind {
    /// The input ends inside a block, or where the comm table should start.
    Cut,
    /// The input ends at a block boundary before any ENDLOG record.
    NoEndLog,
    /// A record that does not decode (unknown type), runs past its block's end or
    /// leaves no room for the block's terminator. Nothing after it is trusted.
    BadRecord,
    /// The comm table after the ENDLOG block is cut or damaged (it is rebuilt).
    BadCommTable,
    /// Bytes after the place where the file must end: after the comm table (which
    /// is then rebuilt rather than trusted), or after the ENDLOG block of a version
    /// without a table.
    ExtraBytes,
}

/// Where and why the input stopped being usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loss {
    /// What kind of problem.
    pub kind: LossKind,
    /// First input byte not carried into the output (equal to
    /// [`RepairReport::used`]).
    pub offset: u64,
    /// Explanation (names the byte offsets involved).
    pub reason: String,
}

/// What happened to the comm table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableRepair {
    /// The version has no comm table (before CLOG-02.43).
    NotInVersion,
    /// The input's table was whole, right after the ENDLOG block, and ended the
    /// input exactly; it is kept byte for byte.
    Kept {
        /// Its number of entries.
        entries: usize,
        /// Whether the preamble's `commtable_fptr` had to be corrected to point at it.
        fptr_fixed: bool,
    },
    /// The table was missing or damaged and was rebuilt from the recovered COMMEVT
    /// records.
    Rebuilt {
        /// Entries of the new table.
        entries: usize,
        /// COMMEVT records it was built from (all recovered COMMEVTs).
        from_commevts: u64,
        /// Distinct table slots those records describe (the other entries are
        /// placeholders).
        described: usize,
        /// COMMEVTs whose local ID was too large to be a plausible table index.
        ignored: u64,
        /// Why the table was rebuilt.
        why: String,
    },
}

/// What [`repair`] recovered and lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairReport {
    /// Format version (from the preamble, kept).
    pub version: Version,
    /// Block size (from the preamble, kept).
    pub block_size: u32,
    /// Size of the input.
    pub input_len: u64,
    /// Records recovered, ENDBLOCK and ENDLOG not counted.
    pub records: u64,
    /// COMMEVT records among them.
    pub commevts: u64,
    /// Input blocks copied byte for byte (whole, ending with their terminator).
    pub blocks_kept: u64,
    /// Blocks of the output.
    pub blocks: u64,
    /// Input bytes `[0, used)` went into the output (the comm table only when kept).
    pub used: u64,
    /// Input bytes from `used` to the end, not in the output.
    pub lost: u64,
    /// The first problem, or `None` when every input byte was used.
    pub loss: Option<Loss>,
    /// Whether the input's block stream had its ENDLOG record.
    pub had_endlog: bool,
    /// The comm table of the output.
    pub table: TableRepair,
    /// Size of the output.
    pub output_len: u64,
}

impl RepairReport {
    /// Whether the input was a whole, proper file; the output is then the input
    /// byte for byte.
    ///
    /// ```
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// assert!(clog2_format::repair::repair(&bytes)?.1.is_intact());
    /// assert!(!clog2_format::repair::repair(&bytes[..bytes.len() - 100])?.1.is_intact());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn is_intact(&self) -> bool {
        self.loss.is_none()
            && self.had_endlog
            && matches!(
                self.table,
                TableRepair::NotInVersion
                    | TableRepair::Kept {
                        fptr_fixed: false,
                        ..
                    }
            )
    }
}

impl fmt::Display for RepairReport {
    /// One line: `recovered N records (B bytes); lost L bytes after byte X: why;
    /// comm table ...; the file now ends with ENDLOG`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "recovered {} records ({}); ",
            self.records,
            bytes(self.used)
        )?;
        match &self.loss {
            Some(l) => write!(
                f,
                "lost {} after byte {}: {}",
                bytes(self.lost),
                l.offset,
                l.reason
            )?,
            None => write!(f, "nothing lost")?,
        }
        match &self.table {
            TableRepair::NotInVersion => write!(f, "; no comm table ({})", self.version)?,
            TableRepair::Kept {
                entries,
                fptr_fixed,
            } => {
                write!(f, "; comm table of {entries} entries kept")?;
                if *fptr_fixed {
                    write!(f, " (commtable_fptr corrected)")?;
                }
            }
            TableRepair::Rebuilt {
                entries,
                from_commevts,
                ignored,
                why,
                ..
            } => {
                write!(
                    f,
                    "; comm table rebuilt from {from_commevts} COMMEVT records ({entries} entries"
                )?;
                if *ignored > 0 {
                    write!(f, ", {ignored} implausible local IDs ignored")?;
                }
                write!(f, ") because {why}")?;
            }
        }
        if self.is_intact() {
            write!(f, "; the input was intact and is unchanged")
        } else if self.had_endlog && self.loss.is_none() {
            write!(f, "; the file ends with ENDLOG")
        } else {
            write!(f, "; the file now ends with ENDLOG")
        }
    }
}

/// Repairs `data` (a CLOG2 file, possibly cut or damaged) into a proper file.
///
/// Fails only when the preamble is cut or invalid (nothing can be recovered then;
/// the error names the byte offset) or when the repaired preamble cannot be written.
///
/// # Errors
///
/// The error of [`Preamble::parse`] (with its byte offset) when the preamble is cut
/// or invalid, and [`Error::Write`] when the repaired preamble cannot be written.
/// Damage after the preamble is repaired, not returned.
///
/// ```
/// use clog2_format::{repair::repair, Clog2File};
/// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
/// let cut = &bytes[..bytes.len() / 2]; // a run that died mid-write
/// let (fixed, report) = repair(cut)?;
/// assert!(report.records > 0 && report.lost > 0);
/// assert!(Clog2File::parse(&fixed).is_ok());
/// assert!(repair(&bytes[..10]).is_err()); // no preamble: nothing to recover
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn repair(data: &[u8]) -> Result<(Vec<u8>, RepairReport)> {
    let mut out = Vec::new();
    let report = repair_to(data, &mut out)?;
    Ok((out, report))
}

/// Like [`repair`], writing the repaired file to `out` (which is not flushed).
/// Nothing is written when the preamble is unreadable.
///
/// # Errors
///
/// As [`repair`], and [`Error::Io`] when `out` fails.
///
/// ```
/// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut out = Vec::new();
/// let report = clog2_format::repair::repair_to(&bytes, &mut out)?;
/// assert_eq!(out, bytes); // an intact file comes out byte for byte
/// assert_eq!(report.output_len, bytes.len() as u64);
/// # Ok::<(), clog2_format::Error>(())
/// ```
pub fn repair_to<W: Write>(data: &[u8], mut out: W) -> Result<RepairReport> {
    let mut preamble = Preamble::parse(&data[..data.len().min(PREAMBLE_LEN)])?;
    let info = preamble.info().clone();
    let layout = Layout {
        endian: preamble.endian(),
        version: info.version,
    };
    let scan = scan(data, layout, info.block_size as usize);

    // The comm table, and the losses found after the block stream.
    let mut loss = scan.loss;
    let mut used = scan.used;
    let len = data.len() as u64;
    let (table, kept_table) = if !info.version.has_comm_table() {
        if loss.is_none() && scan.stream_end < len {
            loss = Some(Loss {
                kind: LossKind::ExtraBytes,
                offset: scan.stream_end,
                reason: format!(
                    "{} bytes follow the block that holds ENDLOG ({} files have no comm table)",
                    len - scan.stream_end,
                    info.version
                ),
            });
        }
        (TableRepair::NotInVersion, None)
    } else {
        let fptr = info.commtable_fptr.unwrap_or(0);
        let rebuild = |why: &str| {
            let r = rebuild_table(&scan.commevts);
            (
                TableRepair::Rebuilt {
                    entries: r.table.entries.len(),
                    from_commevts: scan.commevts.len() as u64,
                    described: r.described,
                    ignored: r.ignored,
                    why: why.to_string(),
                },
                Some(TableBytes::New(r.table)),
            )
        };
        match loss.as_ref().map(|l| l.kind) {
            Some(LossKind::BadRecord) => rebuild("the input is damaged before its end"),
            Some(_) => rebuild("the input was cut before its table"),
            None => {
                let at = scan.stream_end;
                let rest = &data[at as usize..];
                let misplaced = if fptr != at {
                    format!("commtable_fptr = {fptr} but the block stream ends at byte {at}; ")
                } else {
                    String::new()
                };
                if rest.is_empty() && fptr == 0 {
                    rebuild("commtable_fptr is 0 and no table follows the ENDLOG block (the file was never finished)")
                } else if rest.is_empty() {
                    loss = Some(Loss {
                        kind: LossKind::Cut,
                        offset: at,
                        reason: format!(
                            "{misplaced}the input ends at byte {at}, where the comm table should start"
                        ),
                    });
                    rebuild("the input was cut before its table")
                } else {
                    match read_table(rest, layout.endian, at) {
                        Ok((t, n)) if n == rest.len() => {
                            used = len;
                            (
                                TableRepair::Kept {
                                    entries: t.entries.len(),
                                    fptr_fixed: fptr != at,
                                },
                                Some(TableBytes::Input(at as usize..at as usize + n)),
                            )
                        }
                        // A table followed by more bytes is not trusted: zeros, for
                        // example, read as ENDLOG and an empty table.
                        Ok((t, n)) => {
                            loss = Some(Loss {
                                kind: LossKind::ExtraBytes,
                                offset: at,
                                reason: format!(
                                    "{misplaced}{} bytes follow the comm table at byte {at} ({} entries, {n} bytes), so the table is not trusted",
                                    rest.len() - n,
                                    t.entries.len()
                                ),
                            });
                            rebuild("the input's table is followed by other bytes")
                        }
                        Err(e) => {
                            loss = Some(Loss {
                                kind: LossKind::BadCommTable,
                                offset: at,
                                reason: format!("{misplaced}{e}"),
                            });
                            rebuild("the input's table is damaged")
                        }
                    }
                }
            }
        }
    };

    // The block stream of the output: the kept blocks, then (unless the ENDLOG block
    // was kept) a block with the last recovered records and ENDLOG.
    let bs = info.block_size as u64;
    let blocks = scan.blocks_kept + u64::from(scan.last.is_some());
    let stream_end = PREAMBLE_LEN as u64 + blocks * bs;
    if info.version.has_comm_table() && info.commtable_fptr != Some(stream_end) {
        preamble.set_commtable_fptr(stream_end)?;
    }
    let io = |offset: u64| move |source| Error::Io { offset, source };
    out.write_all(&preamble.to_bytes()?).map_err(io(0))?;
    let kept_end = PREAMBLE_LEN + (scan.blocks_kept * bs) as usize;
    out.write_all(&data[PREAMBLE_LEN..kept_end])
        .map_err(io(PREAMBLE_LEN as u64))?;
    if let Some(last) = &scan.last {
        let mut buf = data[last.start..last.records_end].to_vec();
        let endlog = Record {
            time: ENDLOG_TIME,
            icomm: 0,
            rank: 0,
            thread: 0,
            body: Body::EndLog,
        };
        encode_record(&endlog, layout, &mut buf)?;
        out.write_all(&buf).map_err(io(kept_end as u64))?;
        write_zeros(&mut out, bs - buf.len() as u64).map_err(io(kept_end as u64))?;
    }
    let table_len = match &kept_table {
        Some(TableBytes::Input(r)) => {
            out.write_all(&data[r.clone()]).map_err(io(stream_end))?;
            r.len() as u64
        }
        Some(TableBytes::New(t)) => {
            let mut buf = Vec::new();
            t.encode(layout.endian, &mut buf)?;
            out.write_all(&buf).map_err(io(stream_end))?;
            buf.len() as u64
        }
        None => 0,
    };
    Ok(RepairReport {
        version: info.version,
        block_size: info.block_size,
        input_len: len,
        records: scan.records,
        commevts: scan.commevts.len() as u64,
        blocks_kept: scan.blocks_kept,
        blocks,
        used,
        lost: len - used,
        loss,
        had_endlog: scan.had_endlog,
        table,
        output_len: stream_end + table_len,
    })
}

enum TableBytes {
    Input(std::ops::Range<usize>),
    New(CommTable),
}

fn write_zeros<W: Write>(out: &mut W, mut n: u64) -> std::io::Result<()> {
    const ZEROS: [u8; 4096] = [0; 4096];
    while n > 0 {
        let k = n.min(ZEROS.len() as u64) as usize;
        out.write_all(&ZEROS[..k])?;
        n -= k as u64;
    }
    Ok(())
}

/// The comm table at the start of `rest` (file offset `at`) and its length: its
/// count must be non-negative and its entries must be there.
fn read_table(rest: &[u8], endian: Endian, at: u64) -> Result<(CommTable, usize)> {
    let Some(count) = rest.get(..4) else {
        return Err(Error::Truncated {
            offset: at + rest.len() as u64,
            expected: Expected::CommTableCount {
                at: Some((at, rest.len() as u64)),
            },
        });
    };
    let b = [count[0], count[1], count[2], count[3]];
    let count = match endian {
        Endian::Big => i32::from_be_bytes(b),
        Endian::Little => i32::from_le_bytes(b),
    };
    let need = 4 + (count.max(0) as u64) * ENTRY_LEN;
    if count < 0 || need > rest.len() as u64 {
        return Err(Error::BadValue {
            offset: at,
            field: "comm table count",
            value: count as i64,
            problem: if count < 0 {
                ValueProblem::Negative
            } else {
                ValueProblem::CommTableCut {
                    need,
                    have: rest.len() as u64,
                }
            },
        });
    }
    let need = need as usize;
    Ok((CommTable::parse(&rest[..need], endian, at)?, need))
}

/// The last block of the output when it is not an input block kept whole.
struct LastBlock {
    /// Its input offset.
    start: usize,
    /// End of its last recovered record (not a terminator).
    records_end: usize,
}

/// A recovered COMMEVT: the local ID it describes, its global ID, its event type and
/// the world rank that logged it.
struct CommDesc {
    lid: i32,
    gcomm: Uuid,
    etype: i32,
    wrank: i32,
}

struct Scan {
    records: u64,
    commevts: Vec<CommDesc>,
    blocks_kept: u64,
    last: Option<LastBlock>,
    /// ENDLOG seen (in a whole block, or in the block where the input ends).
    had_endlog: bool,
    /// End of the kept ENDLOG block (the comm table must follow it).
    stream_end: u64,
    used: u64,
    loss: Option<Loss>,
}

enum Step {
    Record(Record, usize),
    Cut { inside: bool },
    Bad(String),
}

/// Decodes the record at `pos` of a block of which only `block.len()` of `bs`
/// bytes are present.
fn step(block: &[u8], bs: usize, pos: usize, layout: Layout, base: u64, index: u64) -> Step {
    let hl = layout.header_len();
    let whole = block.len() == bs;
    if !whole && pos + hl > block.len() {
        return Step::Cut {
            inside: pos < block.len(),
        };
    }
    let no_room = |what: String, len: usize| {
        Step::Bad(format!(
            "the {what} record at byte {} ({len} bytes) leaves no room for the {hl}-byte terminator of block {index} (which ends at byte {})",
            base + pos as u64,
            base + bs as u64
        ))
    };
    match decode_record(block, pos, layout, base, index) {
        Ok((rec, len)) if !rec.is_terminator() && pos + len + hl > bs => {
            no_room(rectype_name(rec.rectype()).to_string(), len)
        }
        Ok((rec, len)) => Step::Record(rec, len),
        Err(Error::BlockOverrun {
            offset, len, what, ..
        }) => {
            let len = len as usize;
            if !whole && pos + len + hl <= bs {
                Step::Cut { inside: true }
            } else if pos + len <= bs {
                no_room(what.to_string(), len)
            } else {
                Step::Bad(format!(
                    "the {what} record at byte {offset} ({len} bytes) runs past the end of block {index} (byte {})",
                    base + bs as u64
                ))
            }
        }
        Err(e) => Step::Bad(e.to_string()),
    }
}

/// How the records of one block ended.
enum BlockEnd {
    /// ENDBLOCK in a whole block: the block is kept, the next one follows.
    Next,
    /// ENDLOG in a whole block: the block is kept, the stream is complete.
    EndLog,
    /// Recovery stops at block offset `at`: the records before it are kept.
    Stop(LossKind, String, usize),
}

/// Reads the block stream up to the first problem.
fn scan(data: &[u8], layout: Layout, bs: usize) -> Scan {
    let mut s = Scan {
        records: 0,
        commevts: Vec::new(),
        blocks_kept: 0,
        last: None,
        had_endlog: false,
        stream_end: 0,
        used: 0,
        loss: None,
    };
    let len = data.len();
    let mut start = PREAMBLE_LEN;
    loop {
        let index = s.blocks_kept;
        if start >= len {
            s.used = len as u64;
            s.last = Some(LastBlock {
                start: len,
                records_end: len,
            });
            s.loss = Some(Loss {
                kind: LossKind::NoEndLog,
                offset: len as u64,
                reason: if index == 0 {
                    format!(
                        "the input ends at byte {len}, right after the preamble: there is no block"
                    )
                } else {
                    format!(
                        "the input ends at byte {len}, at the end of block {}, with no ENDLOG record",
                        index - 1
                    )
                },
            });
            return s;
        }
        let avail = (len - start).min(bs);
        let block = &data[start..start + avail];
        let block_end = start + bs;
        let mut pos = 0;
        let end = loop {
            let (rec, n) = match step(block, bs, pos, layout, start as u64, index) {
                Step::Record(rec, n) => (rec, n),
                Step::Cut { inside } => {
                    let within = if inside {
                        format!(", in the middle of the record at byte {}", start + pos)
                    } else {
                        ", between two records".to_string()
                    };
                    break BlockEnd::Stop(
                        LossKind::Cut,
                        format!(
                            "the input ends at byte {len}, inside block {index} (bytes {start}..{block_end}){within}"
                        ),
                        pos,
                    );
                }
                Step::Bad(reason) => break BlockEnd::Stop(LossKind::BadRecord, reason, pos),
            };
            match rec.body {
                Body::EndBlock | Body::EndLog if avail < bs => {
                    let what = if matches!(rec.body, Body::EndLog) {
                        s.had_endlog = true;
                        "ENDLOG record"
                    } else {
                        "ENDBLOCK record; the blocks after it are missing"
                    };
                    break BlockEnd::Stop(
                        LossKind::Cut,
                        format!(
                            "the input ends at byte {len}, inside block {index} (bytes {start}..{block_end}) after its {what}"
                        ),
                        pos,
                    );
                }
                Body::EndBlock => break BlockEnd::Next,
                Body::EndLog => break BlockEnd::EndLog,
                Body::Comm(c) => s.commevts.push(CommDesc {
                    lid: c.icomm,
                    gcomm: c.gcomm,
                    etype: c.etype,
                    wrank: c.wrank,
                }),
                _ => {}
            }
            s.records += 1;
            pos += n;
        };
        match end {
            BlockEnd::Next => {
                s.blocks_kept += 1;
                start = block_end;
            }
            BlockEnd::EndLog => {
                s.blocks_kept += 1;
                s.had_endlog = true;
                s.stream_end = block_end as u64;
                s.used = s.stream_end;
                return s;
            }
            BlockEnd::Stop(kind, reason, at) => {
                s.last = Some(LastBlock {
                    start,
                    records_end: start + at,
                });
                s.used = (start + at) as u64;
                s.loss = Some(Loss {
                    kind,
                    offset: s.used,
                    reason,
                });
                return s;
            }
        }
    }
}

fn kind_of(etype: i32) -> i32 {
    match etype {
        comm_etype::WORLD_CREATE | comm_etype::SELF_CREATE | comm_etype::INTRA_CREATE => {
            comm_kind::INTRA
        }
        comm_etype::INTER_CREATE => comm_kind::INTER,
        comm_etype::INTRA_LOCAL => comm_kind::LOCAL,
        comm_etype::INTRA_REMOTE => comm_kind::REMOTE,
        _ => comm_kind::UNKNOWN,
    }
}

struct Rebuilt {
    table: CommTable,
    described: usize,
    ignored: u64,
}

/// Rebuilds the comm table from COMMEVT records, as MPE's merger builds it: the
/// table of the first process (lowest world rank), whose entries have a kind, then
/// the communicators only other processes know, of kind UNKNOWN.
///
/// Entry `i` describes the communicator of the first COMMEVT with local ID `i`: its
/// global ID, local ID `i`, and the kind the event type implies (INTRA for world,
/// self and intra creation, INTER, LOCAL, REMOTE) when the lowest world rank logged
/// a COMMEVT for it, UNKNOWN otherwise. An intercommunicator the first process
/// created at `i` also gets, at `i + 1`, the LOCAL entry of its local
/// intracommunicator (that one's global and local IDs), as in MPE. Indexes no
/// COMMEVT describes get a placeholder: the all-zero global ID, local ID `i`, kind
/// UNKNOWN. CommFree
/// events and negative local IDs are skipped, and so are IDs of at least
/// `max(65536, 4 × COMMEVTs)`, which no real table reaches (this also bounds the
/// table by the input's size).
fn rebuild_table(commevts: &[CommDesc]) -> Rebuilt {
    let limit = (commevts.len() as u64 * 4).max(65536);
    let describes = |c: &&CommDesc| c.lid >= 0 && c.etype != comm_etype::FREE;
    let first_rank = commevts
        .iter()
        .filter(describes)
        .map(|c| c.wrank)
        .filter(|&r| r >= 0)
        .min();
    let mut ignored = 0;
    let mut slots: Vec<Option<CommEntry>> = Vec::new();
    let mut place = |slots: &mut Vec<Option<CommEntry>>, i: i32, e: CommEntry| {
        if i as u64 >= limit {
            ignored += 1;
            return;
        }
        let i = i as usize;
        if slots.len() <= i {
            slots.resize(i + 1, None);
        }
        match &mut slots[i] {
            None => slots[i] = Some(e),
            // The first process's view of a communicator another one created.
            Some(old) if old.kind == comm_kind::UNKNOWN && old.gcomm == e.gcomm => {
                old.kind = e.kind
            }
            Some(_) => {}
        }
    };
    // The first process's last INTER_CREATE, whose LOCAL entry follows it.
    let mut inter: Option<i32> = None;
    for c in commevts.iter().filter(describes) {
        let first = Some(c.wrank) == first_rank;
        let kind = if first {
            kind_of(c.etype)
        } else {
            comm_kind::UNKNOWN
        };
        if first {
            if let (comm_etype::INTRA_LOCAL, Some(i)) = (c.etype, inter) {
                // MPE gives an intercommunicator three consecutive entries: INTER,
                // then LOCAL (the local intracommunicator's global and local IDs),
                // then REMOTE.
                let local = CommEntry {
                    gcomm: c.gcomm,
                    local_id: c.lid,
                    kind: comm_kind::LOCAL,
                };
                place(&mut slots, i.saturating_add(1), local);
            }
            inter = (c.etype == comm_etype::INTER_CREATE).then_some(c.lid);
        }
        let entry = CommEntry {
            gcomm: c.gcomm,
            local_id: c.lid,
            kind,
        };
        place(&mut slots, c.lid, entry);
    }
    let described = slots.iter().filter(|e| e.is_some()).count();
    let entries = slots
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            e.unwrap_or(CommEntry {
                gcomm: Uuid::ZERO,
                local_id: i as i32,
                kind: comm_kind::UNKNOWN,
            })
        })
        .collect();
    Rebuilt {
        table: CommTable::new(entries),
        described,
        ignored,
    }
}

/// Repair policy: which reader errors [`repair`] recovers from (kept here, with
/// the repair, so the error type does not depend on the preamble layout).
impl Error {
    /// Whether [`repair`] recovers the records before this problem: every
    /// problem found after the 1024-byte preamble in a CLOG2 file's block stream
    /// or comm table (a cut, a bad record, a missing ENDLOG, extra bytes). Records
    /// out of time order, I/O failures and write errors are not repairable.
    ///
    /// ```
    /// use clog2_format::{synth, Clog2File};
    /// let bytes = synth::generate_vec(&synth::Options::default().events(500).block_size(4096)).unwrap();
    /// let err = Clog2File::parse(&bytes[..bytes.len() - 100]).unwrap_err();
    /// assert!(err.repairable());
    /// assert!(!Clog2File::parse(&bytes[..100]).unwrap_err().repairable());
    /// ```
    pub fn repairable(&self) -> bool {
        match self {
            Error::Truncated { offset, .. }
            | Error::UnknownRecordType { offset, .. }
            | Error::BlockOverrun { offset, .. }
            | Error::MissingEndLog { offset }
            | Error::DataAfterEndLog { offset, .. }
            | Error::BadValue { offset, .. }
            | Error::TrailingBytes { offset, .. } => *offset >= PREAMBLE_LEN as u64,
            Error::Io { .. }
            | Error::NotClog2 { .. }
            | Error::UnsupportedVersion { .. }
            | Error::BadPreamble { .. }
            | Error::LimitExceeded { .. }
            | Error::Write(_)
            | Error::InvalidOptions(_) => false,
        }
    }
}
