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
use crate::rule::{Rule, Severity};
use crate::Format;
use slog2_format::slog1::check::{all_warnings, RULES as WARNINGS};
use slog2_format::slog1::Slog1File;

const fn reject(id: &'static str, summary: &'static str) -> Rule {
    Rule {
        id,
        format: Some(Format::Slog1),
        severity: Severity::Error,
        summary,
    }
}

/// The rule of warning `i` of [`slog2_format::slog1::check::RULES`] (its ID and
/// summary).
const fn warning(i: usize) -> Rule {
    let (id, summary) = WARNINGS[i];
    Rule {
        id,
        format: Some(Format::Slog1),
        severity: Severity::Warning,
        summary,
    }
}

/// The SLOG-1 rules: the 14 rows of spec/slog1.md §13 (errors), then the
/// warnings of spec/conformance.md §7.1.
pub const RULES: &[Rule] = &[
    reject("S1-REJ-001", "the file is shorter than the 74-byte header"),
    reject(
        "S1-REJ-002",
        "the first 8 bytes are not version 0.9 (00000000 00000009)",
    ),
    reject(
        "S1-REJ-003",
        "a section pointer of the header is 0 or not inside the file",
    ),
    reject(
        "S1-REJ-004",
        "frame_bytesize is below 32 (the frame header)",
    ),
    reject(
        "S1-REJ-005",
        "a count whose items, at their minimum size, cannot fit in the rest of the file",
    ),
    reject("S1-REJ-006", "a structure runs past the end of the file"),
    reject(
        "S1-REJ-007",
        "a malformed display-profile entry (field without its TAB, bad number, flag or line end)",
    ),
    reject("S1-REJ-008", "a record definition's bebits code is above 3"),
    reject(
        "S1-REJ-009",
        "a statistics set whose label size is not 35 or whose bin count differs from the section's",
    ),
    reject(
        "S1-REJ-010",
        "a frame directory entry whose pointer is 0 or whose frame is not inside the file",
    ),
    reject(
        "S1-REJ-011",
        "a frame's header and sectors are larger than frame_bytesize",
    ),
    reject(
        "S1-REJ-012",
        "a sector whose record count, record sizes and byte count do not agree",
    ),
    reject(
        "S1-REJ-013",
        "a malformed record (bebits, missing definition, byte size, argument group)",
    ),
    reject(
        "S1-REJ-014",
        "two extents (header, sections, frames) overlap",
    ),
    warning(0),
    warning(1),
    warning(2),
    warning(3),
    warning(4),
    warning(5),
    warning(6),
    warning(7),
    warning(8),
    warning(9),
    warning(10),
    warning(11),
    warning(12),
    warning(13),
    warning(14),
];

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

/// What to do about a warning of `rule`.
fn warning_hint(rule: &str) -> &'static str {
    match rule {
        "S1-STAT-001" => "Jumpshot-3 cannot show the file; `mpelog convert FILE OUT.slog2` does not need the statistics",
        "S1-DIR-001" => "readers ignore the fields: nothing to do",
        "S1-DIR-002" => "readers use Nframe: nothing to do unless another tool sizes the directory from max_Ndirframe",
        "S1-DIR-003" => "Jumpshot-3 finds the frame of a time by scanning these ranges, so it can miss frames; write the file again with frames that tile time",
        "S1-SEC-001" => "Jumpshot-3 may show the record in the wrong frame; `mpelog convert` takes the cur and out copies regardless of times",
        "S1-SEC-002" => "the interval exists only as a copy, so `mpelog convert` and other converters lose it; write the file again with the record's home copy",
        "S1-SEC-003" => "`mpelog convert` draws the interval twice; write the file again with one home copy per record",
        "S1-THR-001" => "readers take the first entry of the key: drop the later ones",
        "S1-THR-002" => "Jumpshot-3 throws on it; `mpelog convert` gives the thread a timeline of its own; add the thread to the table",
        "S1-DEF-001" => "the viewers have no name or colour for these records (`mpelog convert` names them `type N`); add a profile entry for the key",
        "S1-DEF-002" => "argument labels and values do not line up in the info popups; make the labels match the definition",
        "S1-J3-001" => "Jumpshot-3 reads it as a negative number; renumber the interval types below 32768",
        "S1-J3-002" => "Jumpshot-3 draws the arrow as a state; use record type 192",
        "S1-REC-001" => "viewers cannot place the interval and `mpelog convert` refuses a non-finite time; correct the record's times",
        "S1-SPLIT-001" => "the interval is shown unfinished or in loose pieces; nothing to do if the program really stopped inside the interval",
        _ => "see spec/conformance.md §7.1",
    }
}

/// Checks a SLOG-1 file.
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
            crate::rule::by_id(RULES, w.rule, RULES[RULES.len() - 1]),
            w.offset,
            place,
            format!("{}; {}", w.what, warning_hint(w.rule)),
        );
    }
}
