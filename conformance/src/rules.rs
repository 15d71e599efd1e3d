//! The rule table: every rule the checker enforces, for every format, with its
//! severity and a one-line summary. The IDs are stable; `spec/conformance.md`
//! lists them all and points to the spec section each comes from.
//!
//! ID scheme: a format prefix (`C2` CLOG2, `C1` old CLOG, `AL` ALOG, `S1` SLOG-1,
//! `S2` SLOG-2, `S2Z` compressed SLOG-2 frames, `IDX` annotation, `OTF2`), a group, and
//! a number. `…-REJ-NNN` rules are the numbered rows of a spec's "What a reader
//! must reject" table (`C2-REJ-011` is row 11 of spec/clog2.md §10); the others
//! are checks beyond parsing.

pub use crate::rule::{general, Rule, Severity, FORMAT_001, GENERAL};
use crate::Format;

/// Every rule of every format: the general rules, then the tables of
/// [`crate::check`]'s format modules, then SLOG-2's and compressed
/// SLOG-2's frame rules.
///
/// ```
/// let all = mpelog_conformance::rules::all();
/// assert_eq!(all[0].id, "FORMAT-001"); // the general rules first
/// let mut ids: Vec<&str> = all.iter().map(|r| r.id).collect();
/// ids.sort();
/// ids.dedup();
/// assert_eq!(ids.len(), all.len()); // every ID once
/// ```
pub fn all() -> &'static [Rule] {
    static ALL: std::sync::OnceLock<Vec<Rule>> = std::sync::OnceLock::new();
    ALL.get_or_init(build)
}

fn build() -> Vec<Rule> {
    let mut v: Vec<Rule> = GENERAL.to_vec();
    for t in [
        crate::check::clog2::RULES,
        crate::check::clog::RULES,
        crate::check::alog::RULES,
        crate::check::slog1::RULES,
        crate::check::annotation::RULES,
        crate::check::otf2::RULES,
    ] {
        v.extend_from_slice(t);
    }
    v.extend_from_slice(crate::check::slog2::RULES);
    v.extend_from_slice(crate::check::slog2::frame::RULES);
    v
}

/// The rule with ID `id`.
///
/// ```
/// use mpelog_conformance::{rules::lookup, Format, Severity};
/// let r = lookup("C2-REJ-011").unwrap();
/// assert_eq!((r.format, r.severity), (Some(Format::Clog2), Severity::Error));
/// assert!(lookup("NO-SUCH-RULE").is_none());
/// ```
pub fn lookup(id: &str) -> Option<Rule> {
    all().iter().find(|r| r.id == id).copied()
}

/// The rules of `format` (for compressed SLOG-2: SLOG-2's and the frame rules).
///
/// ```
/// use mpelog_conformance::{rules::of, Format};
/// assert!(of(Format::Alog).iter().all(|r| r.id.starts_with("AL-")));
/// // Compressed SLOG-2 has SLOG-2's rules and its frames' own.
/// assert!(of(Format::Slog2Compressed).len() > of(Format::Slog2).len());
/// ```
pub fn of(format: Format) -> Vec<Rule> {
    all()
        .iter()
        .filter(|r| {
            r.format == Some(format)
                || (format == Format::Slog2Compressed && r.format == Some(Format::Slog2))
        })
        .copied()
        .collect()
}
