//! SLOG-2 rules, plain and compressed (spec/conformance.md §8): the checker is [`slog2_format::check`], whose table holds the rules.

use crate::report::Collector;
use crate::rule::{Rule, Severity};
use crate::Format;
use std::io::{Read, Seek};
use std::sync::OnceLock;

/// Rules of this module beyond [`slog2_format::check::RULES`] (none: that table
/// has the frame rules `S2Z-FRM-*` too).
pub const RULES: &[Rule] = &[];

/// Checks a SLOG-2 file (2.0.5, 2.0.6 or 2.0.6Z) read from `r`.
pub fn check<R: Read + Seek>(r: R, c: &mut Collector) {
    for f in slog2_format::check::check(r, c.limit()) {
        let place = f.node.map(|n| format!("node ({},{})", n.depth, n.xpos));
        let rule = crate::rule::by_id(rules(), f.rule, crate::rule::FORMAT_001);
        c.add(rule, f.offset, place, f.message);
    }
}

/// The rules of [`slog2_format::check::RULES`] as [`Rule`]s (`S2Z-*` are the
/// compressed format's).
pub fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let mut v = Vec::new();
        v.extend(
            slog2_format::check::RULES
                .iter()
                .map(|&(id, severity, summary)| Rule {
                    id,
                    format: Some(if id.starts_with("S2Z-") {
                        Format::Slog2Compressed
                    } else {
                        Format::Slog2
                    }),
                    severity: Severity::from(severity),
                    summary,
                }),
        );
        v
    })
}
