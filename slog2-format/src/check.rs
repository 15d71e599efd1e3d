//! `mpelog check` for SLOG-2: the rules a reader relies on (see `spec/slog2.md`,
//! "Rules `mpelog check` enforces"). Nodes are read one at a time, so memory stays
//! bounded by the largest block plus the TreeDir.

use crate::error::{Drawn, Error, FileRuleError, Part, PointerProblem};
use crate::read::Slog2Reader;
use crate::read::{Validation, CATEGORIES_AT, LINEIDMAPS_AT, TREEDIR_AT, TREEROOT_AT};
use crate::size::{drawable_key, shadow_key, start_order, OrderKey};
use crate::types::*;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{Read, Seek};

mod file_parts;
pub use crate::error::Problem;
pub use crate::error::{Detail, HeaderPointer, Refusal};
mod file_rules;
pub(crate) use file_parts::FileParts;
mod node_rules;
use file_rules::*;
use node_rules::*;

/// One broken rule: what is wrong, where, and a message for people.
///
/// ```
/// use slog2_format::check::{check, Problem};
/// // A SLOG-2 header cut after its version string.
/// let findings = check(std::io::Cursor::new(b"\0\x0aSLOG 2.0.6"), 10);
/// assert_eq!(findings[0].problem, Problem::Unparsable);
/// assert_eq!(findings[0].offset, 12);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Finding {
    /// What is wrong (`mpelog-conformance` names its rule and severity).
    pub problem: Problem,
    /// Byte offset of the offending structure.
    pub offset: u64,
    /// The node concerned, if any.
    pub node: Option<NodeId>,
    /// What is wrong, with its values; its `Display` is the message for
    /// people.
    pub detail: Detail,
}

struct Ctx {
    findings: Vec<Finding>,
    limit: usize,
    per_rule: HashMap<Problem, usize>,
}

impl Ctx {
    fn add(&mut self, problem: Problem, offset: u64, node: Option<NodeId>, detail: Detail) {
        let n = self.per_rule.entry(problem).or_insert(0);
        *n += 1;
        if *n <= self.limit {
            self.findings.push(Finding {
                problem,
                offset,
                node,
                detail,
            });
        }
    }
}

/// Checks a SLOG-2 file. At most `limit` findings are kept per rule (the count of
/// the rest is not reported). A parse error ends the check with an `S2-PARSE`
/// finding.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use slog2_format::check::check;
/// assert!(check(Cursor::new(&bytes), 10).is_empty()); // a converter's output is clean
/// let findings = check(Cursor::new(&bytes[..bytes.len() / 2]), 10); // cut in half
/// assert!(!findings.is_empty());
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn check<R: Read + Seek>(inner: R, limit: usize) -> Vec<Finding> {
    let mut cx = Ctx {
        findings: Vec::new(),
        limit: limit.max(1),
        per_rule: HashMap::new(),
    };
    if let Err(e) = run(inner, &mut cx) {
        let offset = e.offset().unwrap_or(0);
        let problem = match &e {
            Error::NotSlog2 { .. } | Error::UnsupportedVersion { .. } => Problem::Version,
            Error::BadPointer { kind, .. } => match kind {
                PointerProblem::TooLarge => Problem::BlockTooLarge,
                PointerProblem::OutsideFile => Problem::OutsideFile,
                _ => Problem::NullPointer,
            },
            Error::BadDrawable { problem, .. } => problem.problem(),
            Error::BadTree { problem, .. } => problem.problem(),
            Error::BadTag { .. } => Problem::BadTag,
            Error::BadFrame { problem, .. } => problem.problem(),
            _ => Problem::Unparsable,
        };
        cx.add(problem, offset, None, Detail::Refused(Refusal::new(e)));
    }
    cx.findings
}

fn run<R: Read + Seek>(inner: R, cx: &mut Ctx) -> Result<(), Error> {
    let mut r = Slog2Reader::new(inner)?;
    // `check` reports every drawable problem itself.
    r.set_validation(Validation::Off);
    file_rules(&FileParts::of(&r), cx);
    node_rules(&mut r, cx)
}

/// The first error-severity finding of the rules about the header, the
/// CategoryMap's indexes, the line-ID maps and the TreeDir (everything `check`
/// reports before it reads the nodes), by offset. Window queries refuse a file
/// that has one (spec/queries.md §2.2).
pub(crate) fn first_file_error(parts: &FileParts) -> Option<FileRuleError> {
    let mut cx = Ctx {
        findings: Vec::new(),
        limit: 1,
        per_rule: HashMap::new(),
    };
    file_rules(parts, &mut cx);
    cx.findings
        .into_iter()
        .filter(|f| f.problem.breaks_readers())
        .min_by_key(|f| f.offset)
        .map(|f| FileRuleError {
            problem: f.problem,
            offset: f.offset,
            node: f.node,
            detail: f.detail,
        })
}

fn category_len(c: &Category) -> u64 {
    4 + c.name.disk_len() as u64
        + 4
        + 4
        + 1
        + 1
        + 2
        + c.keys.iter().map(|k| k.disk_len() as u64).sum::<u64>()
        + 2
        + c.types.len() as u64
        + 2
        + 4 * c.methods.len() as u64
        + if c.summary.is_some() { 16 } else { 0 }
}
