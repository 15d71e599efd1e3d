//! `mpelog check` for SLOG-2: the rules a reader relies on (see `spec/slog2.md`,
//! "Rules `mpelog check` enforces"). Nodes are read one at a time, so memory stays
//! bounded by the largest block plus the TreeDir.

use crate::error::{Error, FileRuleError, PointerProblem};
use crate::read::Slog2Reader;
use crate::read::{Validation, CATEGORIES_AT, LINEIDMAPS_AT, TREEDIR_AT, TREEROOT_AT};
use crate::size::start_order;
use crate::types::*;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{Read, Seek};

mod file_parts;
mod file_rules;
pub(crate) use file_parts::FileParts;
mod node_rules;
use file_rules::*;
use node_rules::*;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Jumpshot-4 or slog2print would misread the file or crash.
    Error,
    /// Legal but suspicious, or a loss of information.
    Warning,
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Stable rule ID, e.g. `S2-BOX`.
    pub rule: &'static str,
    /// Severity.
    pub severity: Severity,
    /// Byte offset of the offending structure.
    pub offset: u64,
    /// The node concerned, if any.
    pub node: Option<NodeId>,
    /// What is wrong and what to do.
    pub message: String,
}

/// Every rule `check` enforces, with its severity and a one-line description. The
/// IDs are those of `spec/conformance.md` §8.
pub const RULES: &[(&str, Severity, &str)] = &[
    ("S2-HDR-001", Severity::Error, "the version is not SLOG 2.0.6 or SLOG 2.0.5, or the file is not SLOG-2"),
    ("S2-HDR-003", Severity::Warning, "version SLOG 2.0.5: Jumpshot-4 asks for confirmation, then misreads the CategoryMap; convert it to 2.0.6"),
    ("S2-HDR-004", Severity::Error, "num_children_per_node is below 2 (Jumpshot's zoom factor is its logarithm)"),
    ("S2-HDR-005", Severity::Error, "the categories, line-ID maps, tree root or TreeDir pointer is NULL (Java exits)"),
    ("S2-HDR-006", Severity::Error, "a block is larger than max_buffer_bytesize (Java refuses it)"),
    ("S2-HDR-007", Severity::Error, "a pointer reaches outside the file (truncated or corrupt file)"),
    ("S2-HDR-008", Severity::Warning, "max_treedepth differs from the root's depth (viewers ignore the field)"),
    ("S2-HDR-009", Severity::Warning, "methoddefs, annotations or postamble is not NULL (no reader uses them)"),
    ("S2-HDR-010", Severity::Warning, "max_buffer_bytesize exceeds the largest block (Java allocates it up front)"),
    ("S2-PARSE-001", Severity::Error, "the file cannot be parsed (the message names the byte offset)"),
    ("S2-BLK-001", Severity::Warning, "a block has bytes after its content (readers ignore them)"),
    ("S2-DIR-001", Severity::Error, "the TreeDir has no depth-0 entry (slog2print and slog2filter need one)"),
    ("S2-DIR-002", Severity::Error, "the tree-root pointer differs from the TreeDir's root entry"),
    ("S2-DIR-003", Severity::Error, "a TreeDir entry's ID, time box or pointer differs from the node's own header"),
    ("S2-DIR-004", Severity::Error, "a TreeDir ID is duplicated or negative"),
    ("S2-TREE-001", Severity::Error, "a node above the leaves has no child stubs (Jumpshot dereferences null)"),
    ("S2-TREE-002", Severity::Error, "a stub is not a child of its node, has no TreeDir entry, or points elsewhere than the child"),
    ("S2-TREE-005", Severity::Error, "nodes of one depth overlap in time or are not in time order by xpos"),
    ("S2-DRW-001", Severity::Error, "a drawable tag byte is neither 0 nor 1"),
    ("S2-DRW-002", Severity::Error, "a drawable or shadow list is not in increasing start-time order"),
    ("S2-DRW-003", Severity::Error, "a drawable lies outside its node's time box"),
    ("S2-DRW-004", Severity::Error, "a drawable's category is missing from the CategoryMap"),
    ("S2-DRW-005", Severity::Error, "a primitive has no vertices or a composite has no parts"),
    ("S2-DRW-006", Severity::Warning, "a primitive's vertex count does not fit its category's topology"),
    ("S2-DRW-007", Severity::Error, "a shadow has no category weights (Jumpshot dereferences a null array)"),
    ("S2-DRW-008", Severity::Error, "a shadow weight's category is missing from the CategoryMap"),
    ("S2-DRW-009", Severity::Error, "a shadow's category is not a preview category of the map"),
    ("S2-DRW-010", Severity::Warning, "2.0.6: a shadow's weight counts do not add up to num_real_objs"),
    ("S2-INF-001", Severity::Error, "an info buffer is shorter than its category's formats need (Jumpshot exits when the popup opens)"),
    ("S2-INF-002", Severity::Error, "a category format character is not one of s h d x l X e E (Jumpshot exits)"),
    ("S2-INF-003", Severity::Warning, "a category has formats but the drawable no info, or the reverse"),
    ("S2-CAT-001", Severity::Error, "two categories share an index (one silently replaces the other)"),
    ("S2-CAT-002", Severity::Error, "a category's topology code is not 0, 1 or 2"),
    ("S2-CAT-003", Severity::Warning, "a category has formats but not one more key than types"),
    ("S2-LID-001", Severity::Error, "a drawable's line ID is missing from a line-ID map"),
    ("S2-LID-002", Severity::Error, "the file has no line-ID map"),
    ("S2-LID-003", Severity::Warning, "a line-ID map has duplicate rows or no columns"),
    ("S2Z-FRM-001", Severity::Error, "2.0.6Z: a node frame is shorter than 50 bytes, names an unknown codec, or has non-zero reserved bytes"),
    ("S2Z-FRM-002", Severity::Error, "2.0.6Z: a frame's payload length is not its block size minus 50"),
    ("S2Z-FRM-003", Severity::Error, "2.0.6Z: a frame's uncompressed length is below 34 or above max_buffer_bytesize (refused before inflating)"),
    ("S2Z-FRM-004", Severity::Error, "2.0.6Z: a frame's payload does not decode to exactly the announced length (corrupt deflate stream or column form)"),
    ("S2Z-FRM-005", Severity::Error, "2.0.6Z: the CRC-32 of a decoded node differs from its frame's"),
    ("S2Z-FRM-006", Severity::Error, "2.0.6Z: a decoded node's own pointer differs from the frame's block pointer"),
];

/// The frame rules, indexed by the check number of spec/slog2-compressed.md §5
/// minus one.
const FRAME_RULES: [&str; 6] = [
    "S2Z-FRM-001",
    "S2Z-FRM-002",
    "S2Z-FRM-003",
    "S2Z-FRM-004",
    "S2Z-FRM-005",
    "S2Z-FRM-006",
];

fn severity(rule: &str) -> Severity {
    RULES
        .iter()
        .find(|r| r.0 == rule)
        .map_or(Severity::Error, |r| r.1)
}

struct Ctx {
    findings: Vec<Finding>,
    limit: usize,
    per_rule: HashMap<&'static str, usize>,
}

impl Ctx {
    fn add(&mut self, rule: &'static str, offset: u64, node: Option<NodeId>, message: String) {
        let n = self.per_rule.entry(rule).or_insert(0);
        *n += 1;
        if *n <= self.limit {
            self.findings.push(Finding {
                rule,
                severity: severity(rule),
                offset,
                node,
                message,
            });
        }
    }
}

/// Checks a SLOG-2 file. At most `limit` findings are kept per rule (the count of
/// the rest is not reported). A parse error ends the check with an `S2-PARSE`
/// finding.
pub fn check<R: Read + Seek>(inner: R, limit: usize) -> Vec<Finding> {
    let mut cx = Ctx {
        findings: Vec::new(),
        limit: limit.max(1),
        per_rule: HashMap::new(),
    };
    if let Err(e) = run(inner, &mut cx) {
        let offset = e.offset().unwrap_or(0);
        let rule = match &e {
            Error::NotSlog2 { .. } | Error::UnsupportedVersion { .. } => "S2-HDR-001",
            Error::BadPointer { kind, .. } => match kind {
                PointerProblem::TooLarge => "S2-HDR-006",
                PointerProblem::OutsideFile => "S2-HDR-007",
                _ => "S2-HDR-005",
            },
            Error::BadDrawable { problem, .. } => problem.rule(),
            Error::BadTree { problem, .. } => problem.rule(),
            Error::BadTag { .. } => "S2-DRW-001",
            Error::BadFrame { step, .. } => FRAME_RULES[(*step as usize).clamp(1, 6) - 1],
            _ => "S2-PARSE-001",
        };
        cx.add(rule, offset, None, e.detail());
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
        .filter(|f| f.severity == Severity::Error)
        .min_by_key(|f| f.offset)
        .map(|f| FileRuleError {
            rule: f.rule,
            offset: f.offset,
            node: f.node,
            message: f.message,
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
