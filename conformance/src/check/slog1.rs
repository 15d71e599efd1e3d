//! SLOG-1 rules (spec/conformance.md §7).
//!
//! The file is parsed with [`Slog1File::parse_or_reject`]; an error is the
//! `S1-REJ-NNN` finding of the spec §13 row it breaks (the parser names the row,
//! see [`slog2_format::slog1::Rejection`]), at the offset the row gives, and ends
//! the check. A file that parses gets one finding per warning of spec/conformance.md §7.1
//! ([`slog2_format::slog1::check::all_warnings`]), at the warning's offset, with
//! the part of the file it lies in (`frame 2`, `the display profile`, …) as
//! place.

use crate::report::Collector;
use crate::rule::Rule;
use crate::Format;
use slog2_format::slog1::check::{all_warnings, Problem};
use slog2_format::slog1::Slog1File;

crate::rule::rule_table! {
    Some(Format::Slog1);
    /// The SLOG-1 rules: the 14 rows of spec/slog1.md §13 (errors), then the
    /// warnings of spec/conformance.md §7.1.
    S1_REJ_001 = "S1-REJ-001", Error,
        "the file is shorter than the 74-byte header";
    S1_REJ_002 = "S1-REJ-002", Error,
        "the first 8 bytes are not version 0.9 (00000000 00000009)";
    S1_REJ_003 = "S1-REJ-003", Error,
        "a section pointer of the header is 0 or not inside the file";
    S1_REJ_004 = "S1-REJ-004", Error,
        "frame_bytesize is below 32 (the frame header)";
    S1_REJ_005 = "S1-REJ-005", Error,
        "a count whose items, at their minimum size, cannot fit in the rest of the file";
    S1_REJ_006 = "S1-REJ-006", Error,
        "a structure runs past the end of the file";
    S1_REJ_007 = "S1-REJ-007", Error,
        "a malformed display-profile entry (field without its TAB, bad number, flag or line end)";
    S1_REJ_008 = "S1-REJ-008", Error,
        "a record definition's bebits code is above 3";
    S1_REJ_009 = "S1-REJ-009", Error,
        "a statistics set whose label size is not 35 or whose bin count differs from the section's";
    S1_REJ_010 = "S1-REJ-010", Error,
        "a frame directory entry whose pointer is 0 or whose frame is not inside the file";
    S1_REJ_011 = "S1-REJ-011", Error,
        "a frame's header and sectors are larger than frame_bytesize";
    S1_REJ_012 = "S1-REJ-012", Error,
        "a sector whose record count, record sizes and byte count do not agree";
    S1_REJ_013 = "S1-REJ-013", Error,
        "a malformed record (bebits, missing definition, byte size, argument group)";
    S1_REJ_014 = "S1-REJ-014", Error,
        "two extents (header, sections, frames) overlap";
    S1_STAT_001 = "S1-STAT-001", Warning,
        "the preview statistics are empty (Nset or Nbin is 0): Jumpshot-3 refuses the file";
    S1_DIR_001 = "S1-DIR-001", Warning,
        "prevdir or nextdir is not 0: multi-directory files were never written, readers ignore them";
    S1_DIR_002 = "S1-DIR-002", Warning,
        "the directory has more frames than max_Ndirframe slots";
    S1_DIR_003 = "S1-DIR-003", Warning,
        "directory entries do not tile time (a frame starts after it ends, or not where the previous one ends)";
    S1_SEC_001 = "S1-SEC-001", Warning,
        "a record copy is in a sector whose time condition it does not meet";
    S1_SEC_002 = "S1-SEC-002", Warning,
        "an inc or pas copy has no home (cur or out) copy in an earlier frame: converters do not see it";
    S1_SEC_003 = "S1-SEC-003", Warning,
        "the same record has home copies in two frames: converters see it twice";
    S1_THR_001 = "S1-THR-001", Warning,
        "the thread table lists a (node, thread) twice (the writer refuses that)";
    S1_THR_002 = "S1-THR-002", Warning,
        "a record's (node, thread) is not in the thread table (Jumpshot-3 throws)";
    S1_DEF_001 = "S1-DEF-001", Warning,
        "records of an (interval type, bebits) have no display-profile entry (no name or colour)";
    S1_DEF_002 = "S1-DEF-002", Warning,
        "a profile entry's argument labels do not match its record definition's argument count";
    S1_J3_001 = "S1-J3-001", Warning,
        "an interval type above 32767 (Jumpshot-3 reads them as signed 16-bit)";
    S1_J3_002 = "S1-J3-002", Warning,
        "an off-diagonal record type other than 192 (Jumpshot-3 draws it as a state)";
    S1_REC_001 = "S1-REC-001", Warning,
        "a record's duration is negative or a time is not finite";
    S1_SPLIT_001 = "S1-SPLIT-001", Warning,
        "pieces of a split interval do not form begin, middle..., final on their thread";
}

/// The rule of a SLOG-1 warning's problem (named as `check::slog2::rule` and
/// `check::annotation::rule` name theirs).
///
/// ```
/// use mpelog_conformance::check::slog1::rule;
/// use slog2_format::slog1::check::Problem;
/// assert_eq!(rule(Problem::BrokenSplit).id, "S1-SPLIT-001");
/// ```
pub fn rule(problem: Problem) -> Rule {
    match problem {
        Problem::NoStatistics => S1_STAT_001,
        Problem::LinkedDirectory => S1_DIR_001,
        Problem::TooManyFrames => S1_DIR_002,
        Problem::FramesDoNotTile => S1_DIR_003,
        Problem::WrongSector => S1_SEC_001,
        Problem::NoHomeCopy => S1_SEC_002,
        Problem::TwoHomeCopies => S1_SEC_003,
        Problem::DuplicateThread => S1_THR_001,
        Problem::UnknownThread => S1_THR_002,
        Problem::NoProfile => S1_DEF_001,
        Problem::ArgumentLabels => S1_DEF_002,
        Problem::TypeAbove32767 => S1_J3_001,
        Problem::OffDiagonalType => S1_J3_002,
        Problem::BadTimes => S1_REC_001,
        Problem::BrokenSplit => S1_SPLIT_001,
        _ => S1_REC_001,
    }
}

/// The rule ID of row `row` (1–14) of spec/slog1.md §13.
fn reject_id(row: u8) -> Rule {
    RULES[usize::from(row.clamp(1, 14)) - 1]
}

/// What to do about a file that breaks row `row`.
fn reject_hint(row: u8) -> &'static str {
    match row {
        1 | 6 => "the file is cut short: copy it again from its source, or re-create it",
        2 => "SLOG-1 has only version 0.9: this is not a SLOG-1 file (`mpelog info` names the formats it knows)",
        3 => "a null pointer means the writer did not close the file (the program stopped before SLOG_CloseOutputStream); re-create it with MPE's clog2slog",
        _ => "the file is damaged (overwritten or cut): copy it again, or re-create it from its CLOG file with MPE's clog2slog",
    }
}

/// What to do about a warning about `problem`.
fn warning_hint(problem: Problem) -> &'static str {
    match problem {
        Problem::NoStatistics => "Jumpshot-3 cannot show the file; `mpelog convert FILE OUT.slog2` does not need the statistics",
        Problem::LinkedDirectory => "readers ignore the fields: nothing to do",
        Problem::TooManyFrames => "readers use Nframe: nothing to do unless another tool sizes the directory from max_Ndirframe",
        Problem::FramesDoNotTile => "Jumpshot-3 finds the frame of a time by scanning these ranges, so it can miss frames; write the file again with frames that tile time",
        Problem::WrongSector => "Jumpshot-3 may show the record in the wrong frame; `mpelog convert` takes the cur and out copies regardless of times",
        Problem::NoHomeCopy => "the interval exists only as a copy, so `mpelog convert` and other converters lose it; write the file again with the record's home copy",
        Problem::TwoHomeCopies => "`mpelog convert` draws the interval twice; write the file again with one home copy per record",
        Problem::DuplicateThread => "readers take the first entry of the key: drop the later ones",
        Problem::UnknownThread => "Jumpshot-3 throws on it; `mpelog convert` gives the thread a timeline of its own; add the thread to the table",
        Problem::NoProfile => "the viewers have no name or colour for these records (`mpelog convert` names them `type N`); add a profile entry for the key",
        Problem::ArgumentLabels => "argument labels and values do not line up in the info popups; make the labels match the definition",
        Problem::TypeAbove32767 => "Jumpshot-3 reads it as a negative number; renumber the interval types below 32768",
        Problem::OffDiagonalType => "Jumpshot-3 draws the arrow as a state; use record type 192",
        Problem::BadTimes => "viewers cannot place the interval and `mpelog convert` refuses a non-finite time; correct the record's times",
        Problem::BrokenSplit => "the interval is shown unfinished or in loose pieces; nothing to do if the program really stopped inside the interval",
        _ => "see spec/conformance.md §7.1",
    }
}

/// Checks a SLOG-1 file.
///
/// ```
/// use mpelog_conformance::check::slog1::check;
/// use mpelog_conformance::{report::Collector, Format};
/// let mut c = Collector::new(Format::Slog1, 10);
/// check(&[0, 0, 0, 0, 0, 0, 0, 9, 0, 0], &mut c); // version 0.9, then cut
/// let report = c.finish();
/// assert_eq!(report.rule_ids(), ["S1-REJ-001"]);
/// assert_eq!(report.findings[0].offset, 10); // where the file ends
/// ```
pub fn check(bytes: &[u8], c: &mut Collector) {
    let f = match Slog1File::parse_or_reject(bytes) {
        Ok(f) => f,
        Err(r) => {
            c.add(
                reject_id(r.row),
                r.error.offset().unwrap_or(0),
                None,
                format!("{}; {}", r.error.detail(), reject_hint(r.row)),
            );
            return;
        }
    };
    let regions = f.regions();
    for w in all_warnings(&f) {
        let place = regions
            .iter()
            .find(|&&(start, end, _)| start <= w.offset && w.offset < end)
            .map(|(_, _, part)| part.name());
        c.add(
            rule(w.problem),
            w.offset,
            place,
            format!("{}; {}", w.what, warning_hint(w.problem)),
        );
    }
}
