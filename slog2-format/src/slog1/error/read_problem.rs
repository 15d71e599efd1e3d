//! Why a SLOG-1 file is rejected ([`Error::BadValue`](super::Error::BadValue)),
//! each problem with the row of spec/slog1.md §13 ("What a reader must reject")
//! it breaks.

use super::super::read::Part;
use super::super::types::row;
use std::fmt;

/// What is wrong with a value of a SLOG-1 file. Each displays as the words of the
/// error and names its row of spec/slog1.md §13 ([`spec_row`](Self::spec_row)).
///
/// ```
/// use slog2_format::slog1::error::ReadProblem;
/// let p = ReadProblem::NoRecDef { intvltype: 7, bebits: 3 };
/// assert_eq!(p.to_string(), "no record definition for interval type 7 bebits 3");
/// assert_eq!(p.spec_row(), 13);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReadProblem {
    /// The file does not start with version 0.9 (row 2).
    NotSlog1 {
        /// The two version words found.
        version: [u32; 2],
    },
    /// A header section pointer is 0: the file was not closed (row 3).
    NoSection {
        /// The pointer's name (`fptr2profile`, ...).
        pointer: &'static str,
    },
    /// A header section pointer points past the end of the file (row 3).
    SectionPastEnd {
        /// The pointer's name.
        pointer: &'static str,
        /// Where it points.
        at: u64,
        /// The file's length.
        file_len: u64,
    },
    /// The header's frame size is below the 32-byte frame header (row 4).
    FrameSizeTooSmall {
        /// The header's frame size.
        frame_bytesize: u32,
    },
    /// A count whose items cannot fit in the bytes left after it (row 5).
    CountTooLarge {
        /// The count.
        count: u32,
        /// What it counts (`profile entries`, `record definitions`, ...).
        items: &'static str,
        /// The smallest size of one item.
        min: u64,
        /// The bytes the count needs.
        need: u64,
        /// The bytes left.
        have: u64,
    },
    /// A profile entry's argument label count larger than the bytes left (row 5).
    ArgLabelsTooMany {
        /// The count.
        count: u32,
        /// The bytes the labels and the entry's LF need.
        need: u64,
        /// The bytes left.
        have: u64,
    },
    /// More statistics sets than the bytes left hold (row 5).
    StatSetsTooMany {
        /// The sets counted.
        sets: u32,
        /// The bins of each.
        bins: u32,
        /// The bytes they need.
        need: u64,
        /// The bytes left.
        have: u64,
    },
    /// A structure runs past the end of the bytes it lies in (row 6).
    Cut {
        /// What (`the frame's unused tail`).
        what: &'static str,
        /// The bytes it needs.
        need: u64,
        /// The bytes left.
        have: u64,
    },
    /// A display-profile text field without its closing TAB, or with a TAB, LF
    /// or CR inside (row 7).
    ProfileField {
        /// The field's bytes, as text.
        text: String,
    },
    /// A profile entry's interval type is not a number from 0 to 65535 (row 7).
    ProfileIntervalType {
        /// The field's text.
        text: String,
    },
    /// A profile entry's bebits field is not a number from 0 to 3 (row 7).
    ProfileBebits {
        /// The field's text.
        text: String,
    },
    /// A profile entry's argument-label flag is neither 0 nor 1 (row 7).
    ProfileLabelFlag {
        /// The field's text.
        text: String,
    },
    /// A profile entry's argument label count is not a number (row 7).
    ProfileLabelCount {
        /// The field's text.
        text: String,
    },
    /// A profile entry does not end with an LF (row 7).
    ProfileEntryEnd {
        /// The byte found.
        byte: u8,
    },
    /// A record definition's bebits code is above 3 (row 8).
    RecDefBebits {
        /// The code.
        code: u8,
    },
    /// A statistics set's label size is not 35 (row 9).
    StatLabelSize {
        /// The size found.
        size: u16,
    },
    /// A statistics set's bin count differs from the section's (row 9).
    StatBins {
        /// The set's bin count.
        bins: u32,
        /// The section's.
        section: u32,
    },
    /// A directory entry with a null frame pointer (row 10).
    NullFrame {
        /// The entry's index.
        entry: usize,
    },
    /// A directory entry whose frame runs past the end of the file (row 10).
    FramePastEnd {
        /// The entry's index.
        entry: usize,
        /// Where the frame starts.
        at: u64,
        /// The frame size.
        frame_bytesize: u64,
        /// The file's length.
        file_len: u64,
    },
    /// A frame's sectors and header take more than the frame size (row 11).
    FrameOverfull {
        /// The bytes they take.
        used: u64,
        /// The frame size.
        frame_bytesize: u32,
    },
    /// A sector's record count cannot fit in its byte count (row 12).
    SectorRecords {
        /// The sector (`cur`, `inc`, `pas`, `out`).
        sector: &'static str,
        /// Its record count.
        records: u32,
        /// Its byte count.
        bytes: u32,
    },
    /// A sector's record smaller than the 34-byte fixed part (row 12).
    RecordTooSmall {
        /// The sector.
        sector: &'static str,
        /// The record's index in it.
        index: u32,
        /// Its byte size.
        size: u64,
    },
    /// A sector's record running past the sector's end (row 12).
    RecordPastSector {
        /// The sector.
        sector: &'static str,
        /// The record's index in it.
        index: u32,
        /// Its byte size.
        size: u64,
        /// Where the sector ends.
        end: u64,
    },
    /// A sector whose records take other than its byte count (row 12).
    SectorLength {
        /// The sector.
        sector: &'static str,
        /// Its record count.
        records: u32,
        /// The bytes its records take.
        used: u64,
        /// Its byte count.
        bytes: u32,
    },
    /// An arrow record smaller than the 41-byte fixed part of an arrow (row 13).
    ArrowTooSmall {
        /// The sector.
        sector: &'static str,
        /// The record's index in it.
        index: u32,
        /// Its byte size.
        size: u64,
        /// Its record type.
        rectype: u16,
    },
    /// A record whose fields take other than its byte size (row 13).
    RecordFields {
        /// The sector.
        sector: &'static str,
        /// The record's index in it.
        index: u32,
        /// Its byte size.
        size: u64,
        /// The bytes its fields take.
        used: u64,
    },
    /// A record's bebits code is above 3 (row 13).
    RecordBebits {
        /// The code.
        code: u8,
    },
    /// No record definition for a record's interval type and bebits (row 13).
    NoRecDef {
        /// The interval type.
        intvltype: u16,
        /// The bebits code.
        bebits: u8,
    },
    /// A record's byte size does not match its definition (row 13).
    RecordSize {
        /// The byte size.
        bytesize: u16,
        /// The definition's (associations, arguments).
        def: (u16, u16),
    },
    /// Too few bytes left in a variable-size record for an argument count (row 13).
    ArgCountCut {
        /// The bytes left.
        left: u64,
    },
    /// An argument group running past its record's end (row 13).
    ArgGroupPastEnd {
        /// Its value count.
        count: u16,
        /// Its bytes.
        len: u64,
        /// The record's bytes left.
        left: u64,
    },
    /// Sections or frames that overlap (row 14).
    Overlap {
        /// What starts too early.
        part: Part,
        /// Where it starts.
        at: u64,
        /// What it overlaps.
        previous: Part,
        /// Where that ends.
        previous_end: u64,
    },
    /// Any other failure of a declarative layout, in the binrw library's words
    /// (row 6; reading from memory raises none).
    Layout(String),
}

impl ReadProblem {
    /// The row of spec/slog1.md §13 the problem breaks (2 to 14).
    ///
    /// ```
    /// use slog2_format::slog1::error::ReadProblem;
    /// assert_eq!(ReadProblem::NotSlog1 { version: [0, 8] }.spec_row(), 2);
    /// assert_eq!(ReadProblem::RecDefBebits { code: 4 }.spec_row(), 8);
    /// ```
    pub fn spec_row(&self) -> u8 {
        use ReadProblem::*;
        match self {
            NotSlog1 { .. } => 2,
            NoSection { .. } | SectionPastEnd { .. } => 3,
            FrameSizeTooSmall { .. } => 4,
            CountTooLarge { .. } | ArgLabelsTooMany { .. } | StatSetsTooMany { .. } => row::COUNT,
            Cut { .. } | Layout(_) => row::TRUNCATED,
            ProfileField { .. }
            | ProfileIntervalType { .. }
            | ProfileBebits { .. }
            | ProfileLabelFlag { .. }
            | ProfileLabelCount { .. }
            | ProfileEntryEnd { .. } => row::PROFILE,
            RecDefBebits { .. } => row::RECDEF_BEBITS,
            StatLabelSize { .. } | StatBins { .. } => row::STAT_SET,
            NullFrame { .. } | FramePastEnd { .. } => row::DIR_ENTRY,
            FrameOverfull { .. } => row::FRAME_SIZE,
            SectorRecords { .. }
            | RecordTooSmall { .. }
            | RecordPastSector { .. }
            | SectorLength { .. } => row::SECTOR,
            ArrowTooSmall { .. }
            | RecordFields { .. }
            | RecordBebits { .. }
            | NoRecDef { .. }
            | RecordSize { .. }
            | ArgCountCut { .. }
            | ArgGroupPastEnd { .. } => row::RECORD,
            Overlap { .. } => row::OVERLAP,
        }
    }
}

impl fmt::Display for ReadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ReadProblem::*;
        match self {
            NotSlog1 { version: [a, b] } => write!(
                f,
                "not a SLOG-1 file: the version is {a}.{b}, not 0.9 (a SLOG-1 file starts with 00000000 00000009)"
            ),
            NoSection { pointer } => {
                write!(f, "{pointer} is 0: the section is missing (the file was not closed)")
            }
            SectionPastEnd { pointer, at, file_len } => write!(
                f,
                "{pointer} points at byte {at}, past the end of the file ({file_len} bytes)"
            ),
            FrameSizeTooSmall { frame_bytesize } => write!(
                f,
                "frame_bytesize {frame_bytesize} is less than the 32-byte frame header"
            ),
            CountTooLarge { count, items, min, need, have } => write!(
                f,
                "a count of {count} {items} (at least {min} bytes each) needs {need} bytes but only {have} are left"
            ),
            ArgLabelsTooMany { count, need, have } => write!(
                f,
                "a count of {count} argument labels (35 bytes each) needs {need} bytes but only {have} are left"
            ),
            StatSetsTooMany { sets, bins, need, have } => write!(
                f,
                "{sets} statistics sets of {bins} bins needs {need} bytes but only {have} are left"
            ),
            Cut { what, need, have } => {
                write!(f, "{what} needs {need} bytes but only {have} are left")
            }
            ProfileField { text } => write!(
                f,
                "a profile field {text:?} does not end with a TAB or holds a TAB, LF or CR"
            ),
            ProfileIntervalType { text } => write!(
                f,
                "the interval type field {text:?} is not a number from 0 to 65535"
            ),
            ProfileBebits { text } => {
                write!(f, "the bebits field {text:?} is not a number from 0 to 3")
            }
            ProfileLabelFlag { text } => {
                write!(f, "the argument-label flag {text:?} is neither 0 nor 1")
            }
            ProfileLabelCount { text } => {
                write!(f, "argument label count {text:?} is not a number")
            }
            ProfileEntryEnd { byte } => {
                write!(f, "a profile entry ends with byte {byte:#04x}, not an LF")
            }
            RecDefBebits { code } => {
                write!(f, "a record definition has bebits code {code}, not 0 to 3")
            }
            StatLabelSize { size } => write!(f, "a statistics label size is {size}, not 35"),
            StatBins { bins, section } => write!(
                f,
                "a statistics set has {bins} bins, the section says {section}"
            ),
            NullFrame { entry } => write!(
                f,
                "directory entry {entry} points at byte 0: a null frame pointer"
            ),
            FramePastEnd { entry, at, frame_bytesize, file_len } => write!(
                f,
                "directory entry {entry} points at byte {at}: its {frame_bytesize}-byte frame runs past the end of the file ({file_len} bytes)"
            ),
            FrameOverfull { used, frame_bytesize } => write!(
                f,
                "the frame's sectors take {used} bytes with its header, more than the frame size {frame_bytesize}"
            ),
            SectorRecords { sector, records, bytes } => write!(
                f,
                "the {sector} sector's {records} records cannot fit in its {bytes} bytes (at least 34 each)"
            ),
            RecordTooSmall { sector, index, size } => write!(
                f,
                "record {index} of the {sector} sector has byte size {size}: less than the 34-byte fixed part"
            ),
            RecordPastSector { sector, index, size, end } => write!(
                f,
                "record {index} of the {sector} sector has byte size {size}: it runs past the sector's end at byte {end}"
            ),
            SectorLength { sector, records, used, bytes } => write!(
                f,
                "the {sector} sector's {records} records take {used} bytes, not the {bytes} its header says"
            ),
            ArrowTooSmall { sector, index, size, rectype } => write!(
                f,
                "record {index} of the {sector} sector has byte size {size}: less than the 41-byte fixed part of an arrow (record type {rectype})"
            ),
            RecordFields { sector, index, size, used } => write!(
                f,
                "record {index} of the {sector} sector has byte size {size} but its fields take {used} bytes"
            ),
            RecordBebits { code } => write!(f, "a record has bebits code {code}, not 0 to 3"),
            NoRecDef { intvltype, bebits } => write!(
                f,
                "no record definition for interval type {intvltype} bebits {bebits}"
            ),
            RecordSize { bytesize, def } => write!(
                f,
                "the record's byte size {bytesize} does not match its definition {def:?} (associations, arguments)"
            ),
            ArgCountCut { left } => write!(
                f,
                "{left} byte left in a variable-size record, too few for an argument count"
            ),
            ArgGroupPastEnd { count, len, left } => write!(
                f,
                "an argument group of {count} values ({len} bytes) runs past the record's end ({left} bytes left)"
            ),
            Overlap { part, at, previous, previous_end } => write!(
                f,
                "{} at byte {at} overlaps {}, which ends at byte {previous_end}",
                part.name(),
                previous.name()
            ),
            Layout(message) => f.write_str(message),
        }
    }
}
