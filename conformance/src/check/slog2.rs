//! SLOG-2 rules, plain and compressed (spec/conformance.md §8): the checker is [`slog2_format::check`], whose table holds the rules.

use crate::report::Collector;
use crate::rules::Rule;
use std::io::{Read, Seek};

/// Rules of this module beyond [`slog2_format::check::RULES`] (none: that table
/// has the frame rules `S2Z-FRM-*` too).
pub const RULES: &[Rule] = &[];

/// Checks a SLOG-2 file (2.0.5, 2.0.6 or 2.0.6Z) read from `r`.
pub fn check<R: Read + Seek>(r: R, c: &mut Collector) {
    for f in slog2_format::check::check(r, c.limit()) {
        let place = f.node.map(|n| format!("node ({},{})", n.depth, n.xpos));
        let rule = crate::rules::by_id(crate::rules::all(), f.rule, crate::rules::FORMAT_001);
        c.add(rule, f.offset, place, f.message);
    }
}
