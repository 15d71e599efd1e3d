//! `mpelog check` for SLOG-2: the rules a reader relies on (see `spec/slog2.md`,
//! "Rules `mpelog check` enforces"). Nodes are read one at a time, so memory stays
//! bounded by the largest block plus the TreeDir.

use crate::error::{Error, PointerProblem};
use crate::read::Slog2Reader;
use crate::read::{Validation, CATEGORIES_AT, LINEIDMAPS_AT, TREEDIR_AT, TREEROOT_AT};
use crate::size::start_order;
use crate::types::*;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{Read, Seek};

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
    file_rules(&r, cx);
    node_rules(&mut r, cx)
}

/// The first error-severity finding of the rules about the header, the
/// CategoryMap's indexes, the line-ID maps and the TreeDir (everything `check`
/// reports before it reads the nodes): `(rule, offset, node, message)`. Window
/// queries refuse a file that has one (spec/queries.md §2.2).
pub(crate) fn first_file_error<R: Read + Seek>(
    r: &Slog2Reader<R>,
) -> Option<(&'static str, u64, Option<NodeId>, String)> {
    let mut cx = Ctx {
        findings: Vec::new(),
        limit: 1,
        per_rule: HashMap::new(),
    };
    file_rules(r, &mut cx);
    cx.findings
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .min_by_key(|f| f.offset)
        .map(|f| (f.rule, f.offset, f.node, f.message))
}

fn file_rules<R: Read + Seek>(r: &Slog2Reader<R>, cx: &mut Ctx) {
    let h = r.header().clone();
    let v206 = r.version().is_v206();
    let at = |a: u64| r.pointer_at(a);
    if !v206 {
        cx.add(
            "S2-HDR-003",
            2,
            None,
            "version is \"SLOG 2.0.5\"; convert it with `mpelog convert FILE -o NEW.slog2`".into(),
        );
    }
    if h.num_children_per_node < 2 {
        cx.add(
            "S2-HDR-004",
            12,
            None,
            format!("num_children_per_node is {}", h.num_children_per_node),
        );
    }
    for (name, p, field) in [
        ("categories", h.categories, CATEGORIES_AT),
        ("lineidmaps", h.lineidmaps, LINEIDMAPS_AT),
        ("treeroot", h.treeroot, TREEROOT_AT),
        ("treedir", h.treedir, TREEDIR_AT),
    ] {
        if p.is_null() {
            cx.add(
                "S2-HDR-005",
                at(field),
                None,
                format!("the {name} pointer is NULL; Jumpshot-4 exits"),
            );
        }
    }
    for (p, t) in [
        (
            r.categories().map(|c| (c.ptr, c.trailing.len())),
            "CategoryMap",
        ),
        (
            r.line_id_maps().map(|c| (c.ptr, c.trailing.len())),
            "LineIDMapList",
        ),
        (r.tree_dir().map(|c| (c.ptr, c.trailing.len())), "TreeDir"),
    ] {
        if let Some((ptr, n)) = p.filter(|p| p.1 > 0) {
            cx.add(
                "S2-BLK-001",
                ptr.offset as u64 + ptr.size as u64 - n as u64,
                None,
                format!("the {t} block has {n} bytes after its content"),
            );
        }
    }
    for (name, p, field) in [
        ("methoddefs", h.methoddefs, 36u64),
        ("annotations", h.annotations, 84),
        ("postamble", h.postamble, 96),
    ] {
        if !p.is_null() {
            cx.add(
                "S2-HDR-009",
                at(field),
                None,
                format!("the {name} pointer is not NULL; no reader uses it"),
            );
        }
    }
    if let Some(c) = r.categories() {
        let mut seen = HashSet::new();
        let mut at = c.ptr.offset as u64 + 4;
        for cat in &c.value.categories {
            if !seen.insert(cat.index) {
                cx.add(
                    "S2-CAT-001",
                    at,
                    None,
                    format!("category index {} appears twice", cat.index),
                );
            }
            if !(0..=2).contains(&cat.topology) {
                cx.add(
                    "S2-CAT-002",
                    at,
                    None,
                    format!("category {} has topology code {}", cat.index, cat.topology),
                );
            }
            if !cat.types.is_empty() && cat.keys.len() != cat.types.len() + 1 {
                cx.add(
                    "S2-CAT-003",
                    at,
                    None,
                    format!(
                        "category {} has {} keys for {} types",
                        cat.index,
                        cat.keys.len(),
                        cat.types.len()
                    ),
                );
            }
            at += category_len(cat);
        }
    }
    match r.line_id_maps() {
        None => {}
        Some(m) if m.value.maps.is_empty() => {
            cx.add(
                "S2-LID-002",
                m.ptr.offset as u64,
                None,
                "the LineIDMapList holds no map".into(),
            );
        }
        Some(m) => {
            for map in &m.value.maps {
                let mut ids = HashSet::new();
                let dup = map.rows.iter().any(|r| !ids.insert(r.line_id));
                if dup || map.ncols < 1 {
                    cx.add(
                        "S2-LID-003",
                        m.ptr.offset as u64,
                        None,
                        format!(
                            "line-ID map {:?} has {} columns{}",
                            map.title.text(),
                            map.ncols,
                            if dup { " and duplicate rows" } else { "" }
                        ),
                    );
                }
            }
        }
    }
    let entries: Vec<TreeDirEntry> = r
        .tree_dir()
        .map(|t| t.value.entries.clone())
        .unwrap_or_default();
    let by_id: BTreeMap<NodeId, TreeDirEntry> = entries.iter().map(|e| (e.id, *e)).collect();
    let dir_at = (h.treedir.offset.max(0) as u64).saturating_add(4);
    if by_id.len() != entries.len() {
        cx.add(
            "S2-DIR-004",
            dir_at,
            None,
            format!(
                "{} TreeDir entries share an ID",
                entries.len() - by_id.len()
            ),
        );
    }
    for (i, e) in entries.iter().enumerate() {
        if e.id.depth < 0 || e.id.xpos < 0 {
            cx.add(
                "S2-DIR-004",
                dir_at + 34 * i as u64,
                Some(e.id),
                format!(
                    "TreeDir entry ({},{}) has a negative depth or xpos",
                    e.id.depth, e.id.xpos
                ),
            );
        }
    }
    // Blocks that overlap: a TreeDir pointer into another block cannot be the
    // pointer of a node (S2-DIR-003; the later-starting block's entry is blamed, at
    // its pointer field; ties: the later entry).
    let mut blocks: Vec<(u64, u64, Option<usize>)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.ptr.is_null() && e.ptr.offset >= 0)
        .map(|(i, e)| {
            let start = e.ptr.offset as u64;
            (start, start.saturating_add(e.ptr.size as u64), Some(i))
        })
        .collect();
    for p in [h.categories, h.lineidmaps, h.treedir] {
        if !p.is_null() && p.offset >= 0 {
            let start = p.offset as u64;
            blocks.push((start, start.saturating_add(p.size as u64), None));
        }
    }
    blocks.sort_unstable();
    let mut reach: Option<(u64, Option<usize>)> = None;
    for &(start, end, entry) in &blocks {
        if let Some((until, holder)) = reach.filter(|r| start < r.0) {
            if let Some(i) = entry.or(holder) {
                let e = &entries[i];
                cx.add(
                    "S2-DIR-003",
                    dir_at + 34 * i as u64 + 22,
                    Some(e.id),
                    format!(
                        "the block of node ({},{}) at {}@{} overlaps another block (which ends at byte {until})",
                        e.id.depth, e.id.xpos, e.ptr.size, e.ptr.offset
                    ),
                );
            }
        }
        if reach.is_none_or(|r| end > r.0) {
            reach = Some((end, entry));
        }
    }
    if !entries.is_empty() && !entries.iter().any(|e| e.id.depth == 0) {
        cx.add(
            "S2-DIR-001",
            dir_at,
            None,
            "no TreeDir entry has depth 0".into(),
        );
    }
    if let Some(root) = entries
        .iter()
        .max_by_key(|e| (e.id.depth, std::cmp::Reverse(e.id.xpos)))
    {
        if root.ptr != h.treeroot {
            cx.add(
                "S2-DIR-002",
                at(TREEROOT_AT),
                Some(root.id),
                format!(
                    "treeroot points at {}@{} but the TreeDir's root ({},{}) is at {}@{}",
                    h.treeroot.size,
                    h.treeroot.offset,
                    root.id.depth,
                    root.id.xpos,
                    root.ptr.size,
                    root.ptr.offset
                ),
            );
        }
        if root.id.depth != h.max_treedepth {
            cx.add(
                "S2-HDR-008",
                18,
                Some(root.id),
                format!(
                    "max_treedepth is {} but the root has depth {}",
                    h.max_treedepth, root.id.depth
                ),
            );
        }
    }
    // Same-depth nodes: xpos in time order, no overlap.
    let mut prev: Option<&TreeDirEntry> = None;
    for (i, e) in by_id.values().enumerate() {
        if let Some(p) = prev.filter(|p| p.id.depth == e.id.depth) {
            if e.earliest < p.latest || e.earliest < p.earliest {
                let at =
                    dir_at + 34 * entries.iter().position(|x| x.id == e.id).unwrap_or(i) as u64;
                cx.add(
                    "S2-TREE-005",
                    at,
                    Some(e.id),
                    format!(
                        "node ({},{}) starts at {:?}, before node ({},{}) ends at {:?}",
                        e.id.depth, e.id.xpos, e.earliest, p.id.depth, p.id.xpos, p.latest
                    ),
                );
            }
        }
        prev = Some(e);
    }
}

fn node_rules<R: Read + Seek>(r: &mut Slog2Reader<R>, cx: &mut Ctx) -> Result<(), Error> {
    let h = r.header().clone();
    let v206 = r.version().is_v206();
    let cats: HashMap<i32, (i32, usize)> = r
        .categories()
        .map(|c| {
            c.value
                .categories
                .iter()
                .map(|c| (c.index, (c.topology, c.types.len())))
                .collect()
        })
        .unwrap_or_default();
    let formats: HashMap<i32, Vec<u8>> = r
        .categories()
        .map(|c| {
            c.value
                .categories
                .iter()
                .map(|c| (c.index, c.types.clone()))
                .collect()
        })
        .unwrap_or_default();
    let maps: Vec<(String, HashSet<i32>)> = r
        .line_id_maps()
        .map(|m| {
            m.value
                .maps
                .iter()
                .map(|m| (m.title.text(), m.rows.iter().map(|r| r.line_id).collect()))
                .collect()
        })
        .unwrap_or_default();
    let entries: Vec<TreeDirEntry> = r
        .tree_dir()
        .map(|t| t.value.entries.clone())
        .unwrap_or_default();
    let by_id: BTreeMap<NodeId, TreeDirEntry> = entries.iter().map(|e| (e.id, *e)).collect();
    let mut largest = [h.categories, h.lineidmaps, h.treedir]
        .iter()
        .filter(|p| !p.is_null())
        .map(|p| p.size)
        .max()
        .unwrap_or(0);
    // A root pointer that is not the TreeDir's root: Jumpshot and window queries
    // read that block, so it must parse (the mismatch itself is S2-DIR-002).
    if !h.treeroot.is_null() && !entries.iter().any(|e| e.ptr == h.treeroot) {
        r.read_node(h.treeroot)?;
    }
    let k = h.num_children_per_node.max(1) as i32;
    let preview = |cat: i32| cats.contains_key(&cat) && cat < 0;
    for e in &entries {
        let node = r.read_node(e.ptr)?;
        let n = &node.value;
        largest = largest.max(e.ptr.size);
        if r.version().is_compressed() {
            // max_buffer_bytesize bounds the inflated node too.
            let plain = 34
                + 4
                + n.nestless.iter().map(Drawable::disk_len).sum::<u64>()
                + 4
                + n.nestable.iter().map(Drawable::disk_len).sum::<u64>()
                + 4
                + n.stubs.iter().map(|s| s.disk_len(v206)).sum::<u64>()
                + node.trailing.len() as u64;
            largest = largest.max(i32::try_from(plain).unwrap_or(i32::MAX));
        }
        let base = e.ptr.offset as u64;
        let id = Some(e.id);
        if !node.trailing.is_empty() {
            cx.add(
                "S2-BLK-001",
                base + e.ptr.size as u64 - node.trailing.len() as u64,
                id,
                format!("{} bytes after the node's content", node.trailing.len()),
            );
        }
        if n.header.ptr != e.ptr {
            cx.add(
                "S2-DIR-003",
                base + 22,
                id,
                format!(
                    "the node says it is {}@{} but was read from {}@{}",
                    n.header.ptr.size, n.header.ptr.offset, e.ptr.size, e.ptr.offset
                ),
            );
        }
        if n.header.id != e.id
            || n.header.earliest.to_bits() != e.earliest.to_bits()
            || n.header.latest.to_bits() != e.latest.to_bits()
        {
            // At the ID field when the ID differs, else at the box.
            cx.add(
                "S2-DIR-003",
                if n.header.id != e.id { base + 16 } else { base },
                id,
                format!(
                    "TreeDir says ({},{}) [{:?},{:?}], the node header says ({},{}) [{:?},{:?}]",
                    e.id.depth,
                    e.id.xpos,
                    e.earliest,
                    e.latest,
                    n.header.id.depth,
                    n.header.id.xpos,
                    n.header.earliest,
                    n.header.latest
                ),
            );
        }
        // Real drawables.
        let mut off = base + 34;
        for list in [&n.nestless, &n.nestable] {
            off += 4;
            let mut last: Option<(f64, f64, i32, (i32, i32))> = None;
            for d in list.iter() {
                let key = (d.earliest(), d.latest(), d.category(), d.end_lines());
                if let Some(l) = last {
                    if start_order(l, key) == Ordering::Greater {
                        cx.add(
                            "S2-DRW-002",
                            off,
                            id,
                            format!(
                                "a drawable starting at {:?} follows one starting at {:?}",
                                key.0, l.0
                            ),
                        );
                    }
                }
                last = Some(key);
                let (ne, nl) = (n.header.earliest, n.header.latest);
                let outside = |p: &Primitive| {
                    p.vertices
                        .iter()
                        .any(|v| !crate::validate::inside(v.time, ne, nl))
                };
                let out = match d {
                    Drawable::Primitive(p) => outside(p),
                    Drawable::Composite(c) => c.primitives.iter().any(outside),
                };
                if out {
                    cx.add(
                        "S2-DRW-003",
                        off,
                        id,
                        format!(
                            "drawable [{:?},{:?}] lies outside the node's box [{:?},{:?}]",
                            key.0, key.1, n.header.earliest, n.header.latest
                        ),
                    );
                }
                let prims: Vec<&Primitive> = match d {
                    Drawable::Primitive(p) => vec![p],
                    Drawable::Composite(c) => {
                        if c.primitives.is_empty() {
                            cx.add("S2-DRW-005", off, id, "a composite has no parts".into());
                        }
                        if !cats.contains_key(&c.category) {
                            cx.add(
                                "S2-DRW-004",
                                off + 1,
                                id,
                                format!(
                                    "composite category {} is not in the CategoryMap",
                                    c.category
                                ),
                            );
                        }
                        c.primitives.iter().collect()
                    }
                };
                let infos: Vec<(i32, &JStr)> = match d {
                    Drawable::Primitive(p) => vec![(p.category, &p.info)],
                    Drawable::Composite(c) => std::iter::once((c.category, &c.info))
                        .chain(c.primitives.iter().map(|p| (p.category, &p.info)))
                        .collect(),
                };
                for (cat, info) in infos {
                    let Some(types) = formats.get(&cat) else {
                        continue;
                    };
                    match (types.is_empty(), info.bytes.is_empty()) {
                        (true, true) => {}
                        (false, false) => match crate::info::decode(types, &info.bytes) {
                            Ok(_) => {}
                            Err(e @ crate::info::InfoError::UnknownFormat { .. }) => {
                                cx.add("S2-INF-002", off + 1, id, format!("category {cat}: {e}"))
                            }
                            Err(e) => {
                                cx.add("S2-INF-001", off + 1, id, format!("category {cat}: {e}"))
                            }
                        },
                        (false, true) => cx.add(
                            "S2-INF-003",
                            off + 1,
                            id,
                            format!("category {cat} has formats but the drawable has no info"),
                        ),
                        (true, false) => cx.add(
                            "S2-INF-003",
                            off + 1,
                            id,
                            format!(
                                "the drawable has {} info bytes but category {cat} has no formats",
                                info.bytes.len()
                            ),
                        ),
                    }
                }
                for p in prims {
                    if p.vertices.is_empty() {
                        cx.add(
                            "S2-DRW-005",
                            off,
                            id,
                            format!("a primitive of category {} has no vertices", p.category),
                        );
                    }
                    match cats.get(&p.category) {
                        None => cx.add("S2-DRW-004", off + 1, id, format!("category {} is not in the CategoryMap (Jumpshot invents an \"UnknownType\" state)", p.category)),
                        Some(&(topo, _)) => {
                            let want = if topo == topology::EVENT { 1 } else { 2 };
                            if p.vertices.len() != want {
                                cx.add("S2-DRW-006", off + 1, id, format!("a {} of category {} has {} vertices", topology::name(topo), p.category, p.vertices.len()));
                            }
                        }
                    }
                    for c in &p.vertices {
                        for (title, rows) in &maps {
                            if !rows.contains(&c.line_id) {
                                cx.add(
                                    "S2-LID-001",
                                    off + 1,
                                    id,
                                    format!(
                                        "line ID {} is missing from the line-ID map {title:?}",
                                        c.line_id
                                    ),
                                );
                            }
                        }
                    }
                }
                off += d.disk_len();
            }
        }
        // Stubs.
        off += 4;
        if e.id.depth > 0 && n.stubs.is_empty() {
            cx.add(
                "S2-TREE-001",
                off - 4,
                id,
                format!(
                    "node ({},{}) has depth {} but no child stubs",
                    e.id.depth, e.id.xpos, e.id.depth
                ),
            );
        }
        if e.id.depth == 0 && !n.stubs.is_empty() {
            cx.add("S2-TREE-002", off - 4, id, "a leaf has child stubs".into());
        }
        for s in &n.stubs {
            let sid = s.header.id;
            if Some(sid.depth) != e.id.depth.checked_sub(1)
                || sid.xpos.checked_div(k) != Some(e.id.xpos)
            {
                cx.add(
                    "S2-TREE-002",
                    off + 16,
                    id,
                    format!(
                        "stub ({},{}) is not a child of node ({},{}) with {k} children per node",
                        sid.depth, sid.xpos, e.id.depth, e.id.xpos
                    ),
                );
            } else {
                match by_id.get(&sid) {
                    None => cx.add(
                        "S2-TREE-002",
                        off + 16,
                        id,
                        format!("stub ({},{}) has no TreeDir entry", sid.depth, sid.xpos),
                    ),
                    Some(c) if c.ptr != s.header.ptr => cx.add(
                        "S2-TREE-002",
                        off + 22,
                        id,
                        format!(
                            "stub ({},{}) points at {}@{} but the child is at {}@{}",
                            sid.depth,
                            sid.xpos,
                            s.header.ptr.size,
                            s.header.ptr.offset,
                            c.ptr.size,
                            c.ptr.offset
                        ),
                    ),
                    _ => {}
                }
            }
            let mut so = off + 34;
            for list in [&s.nestless, &s.nestable] {
                so += 4;
                let mut last: Option<(f64, f64, i32, (i32, i32))> = None;
                for sh in list.iter() {
                    let key = (
                        sh.earliest,
                        sh.latest,
                        sh.category,
                        (
                            sh.vertices.first().map_or(0, |c| c.line_id),
                            sh.vertices.last().map_or(0, |c| c.line_id),
                        ),
                    );
                    if let Some(l) = last {
                        if start_order(l, key) == Ordering::Greater {
                            cx.add(
                                "S2-DRW-002",
                                so,
                                id,
                                format!(
                                    "a shadow starting at {:?} follows one starting at {:?}",
                                    key.0, l.0
                                ),
                            );
                        }
                    }
                    last = Some(key);
                    if !preview(sh.category) {
                        cx.add(
                            "S2-DRW-009",
                            so,
                            id,
                            format!(
                                "shadow category {} is not a preview category of the map",
                                sh.category
                            ),
                        );
                    }
                    if v206 {
                        let sum: i64 = sh
                            .weights
                            .iter()
                            .filter_map(|w| w.count)
                            .fold(0i64, |a, c| a.saturating_add(c));
                        if !sh.weights.is_empty() && sum != sh.num_real_objs {
                            cx.add(
                                "S2-DRW-010",
                                so,
                                id,
                                format!(
                                    "weight counts add up to {sum}, num_real_objs is {}",
                                    sh.num_real_objs
                                ),
                            );
                        }
                    }
                    if sh.weights.is_empty() {
                        cx.add(
                            "S2-DRW-007",
                            so,
                            id,
                            "a shadow has no category weights".into(),
                        );
                    }
                    for w in &sh.weights {
                        if !cats.contains_key(&w.category) {
                            cx.add("S2-DRW-008", so, id, format!("a shadow weight names category {}, which is not in the CategoryMap", w.category));
                        }
                    }
                    so += sh.disk_len(v206);
                }
            }
            off += s.disk_len(v206);
        }
    }
    if h.max_buffer_bytesize > largest && !entries.is_empty() {
        cx.add(
            "S2-HDR-010",
            20,
            None,
            format!(
                "max_buffer_bytesize is {} but the largest block has {} bytes",
                h.max_buffer_bytesize, largest
            ),
        );
    }
    Ok(())
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
