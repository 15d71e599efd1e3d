//! Annotation rules (spec/conformance.md §9): the annotation's own structure, and
//! that it still describes its trace.
//!
//! The check opens the annotation with its trace (header, TreeDir, leaf table,
//! definitions, legend, maps), then reads every node and compares it with its
//! TreeDir entry, checks that the leaves tile the trace's block stream in order,
//! and finally reads every leaf as a window query does (carry-in block, trace
//! range with its checksum, pairing of its records), one leaf at a time.

use crate::report::Collector;
use crate::rule::Rule;
use crate::Format;
use mpelog_annotate::error::Problem;
use mpelog_annotate::{Annotation, Error};
use std::io::{Cursor, Read, Seek};
use std::path::Path;

crate::rule::rule_table! {
    Some(Format::Annotation);
    /// The annotation rules.
    IDX_HDR_001 = "IDX-HDR-001", Error,
        "the file does not start with the MPELOGIX magic, or its 131-byte header is cut short or unreadable";
    IDX_HDR_002 = "IDX-HDR-002", Error,
        "the header's format_version is not 1";
    IDX_HDR_003 = "IDX-HDR-003", Error,
        "the header's children per node is below 2";
    IDX_BLK_001 = "IDX-BLK-001", Error,
        "a block pointer (header or leaf table) lies outside the file or exceeds max_block";
    IDX_BLK_002 = "IDX-BLK-002", Error,
        "a block (TreeDir, leaf table, definitions, CategoryMap, LineIDMapList, carry-in or node) does not parse";
    IDX_LEAF_001 = "IDX-LEAF-001", Error,
        "the leaf table's count differs from the header's leaves";
    IDX_LEAF_002 = "IDX-LEAF-002", Error,
        "a leaf's trace range is not whole blocks inside the trace";
    IDX_LEAF_003 = "IDX-LEAF-003", Error,
        "the leaves do not tile the trace's block stream in order from byte 1024 (records would be missed or read twice)";
    IDX_NODE_001 = "IDX-NODE-001", Error,
        "a node's header (ID, time box or own pointer) differs from its TreeDir entry";
    IDX_NODE_002 = "IDX-NODE-002", Error,
        "a node holds a drawable outside its time box";
    IDX_STALE_001 = "IDX-STALE-001", Error,
        "the trace's size differs from the one recorded: the trace changed since it was annotated";
    IDX_STALE_002 = "IDX-STALE-002", Error,
        "the CRC-32 of the trace's preamble differs from the one recorded";
    IDX_STALE_003 = "IDX-STALE-003", Error,
        "the CRC-32 of a leaf's trace range differs from the one recorded";
    IDX_TRACE_001 = "IDX-TRACE-001", Error,
        "the trace the annotation belongs to cannot be opened";
    IDX_TRACE_002 = "IDX-TRACE-002", Error,
        "the trace's preamble or records (in a leaf's range) are not valid CLOG2";
}

/// Checks an annotation, against its trace when given. Without a trace only the
/// header is checked, and `IDX-TRACE-001` is reported.
///
/// ```
/// use mpelog_annotate::{annotate, AnnotateOptions};
/// use mpelog_conformance::check::annotation::check;
/// use mpelog_conformance::{report::Collector, Format};
/// use std::io::Cursor;
/// let trace = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut reader = clog2_format::Clog2Reader::from_slice(&trace)?;
/// let opts = AnnotateOptions::default().trace(trace.len() as u64, &trace[..1024]);
/// let (idx, _) = annotate(&mut reader, Cursor::new(Vec::new()), opts, |_| {})?;
/// let idx = idx.into_inner();
/// let mut c = Collector::new(Format::Annotation, 10);
/// check(Cursor::new(&idx), Some(Cursor::new(&trace)), &mut c);
/// assert!(c.finish().passes());
/// let mut c = Collector::new(Format::Annotation, 10);
/// check(Cursor::new(&idx), None::<Cursor<Vec<u8>>>, &mut c); // no trace
/// assert_eq!(c.finish().rule_ids(), ["IDX-TRACE-001"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check<A: Read + Seek, T: Read + Seek>(a: A, trace: Option<T>, c: &mut Collector) {
    let Some(trace) = trace else {
        // Open against an empty trace: header errors come first; the stale size
        // that follows is expected.
        if let Err(e) = Annotation::new(a, Cursor::new(Vec::new())) {
            if !matches!(e, Error::Stale { .. }) {
                report(e, c);
            }
        }
        if c.seen(IDX_TRACE_001) == 0 {
            c.add(
                IDX_TRACE_001,
                0,
                None,
                "no trace was given: only the header was checked; check the annotation with its trace (`mpelog check X.clog2.idx` next to X.clog2, or --trace X.clog2)".into(),
            );
        }
        return;
    };
    let mut ann = match Annotation::new(a, trace) {
        Ok(ann) => ann,
        Err(e) => return report(e, c),
    };
    if let Err(e) = nodes(&mut ann, c) {
        return report(e, c);
    }
    tiling(&ann, c);
    if c.errors() > 0 {
        return;
    }
    // Every leaf, one at a time (what a whole-file window reads, in bounded
    // memory).
    for i in 0..ann.leaves().len() {
        if let Err(e) = ann.verify_leaf(i) {
            return report(e, c);
        }
    }
}

/// Reports that the trace at `path` cannot be opened.
///
/// ```
/// use mpelog_conformance::check::annotation::no_trace;
/// use mpelog_conformance::{report::Collector, Format};
/// use std::path::Path;
/// let mut c = Collector::new(Format::Annotation, 10);
/// let gone = std::io::Error::from(std::io::ErrorKind::NotFound);
/// no_trace(Path::new("run.clog2"), gone, &mut c);
/// let report = c.finish();
/// assert_eq!(report.rule_ids(), ["IDX-TRACE-001"]);
/// assert!(!report.passes());
/// ```
pub fn no_trace(path: &Path, e: std::io::Error, c: &mut Collector) {
    c.add(
        IDX_TRACE_001,
        0,
        None,
        format!(
            "cannot open the trace it annotates, {}: {e}; give it with --trace TRACE.clog2",
            path.display()
        ),
    );
}

/// Every node against its TreeDir entry and its own box.
fn nodes<A: Read + Seek, T: Read + Seek>(
    ann: &mut Annotation<A, T>,
    c: &mut Collector,
) -> Result<(), Error> {
    let entries = ann.tree_dir().entries.clone();
    for e in entries {
        let node = ann.node(&e)?;
        let h = node.header;
        let at = e.ptr.offset.max(0) as u64;
        let place = Some(format!("node ({},{})", e.id.depth, e.id.xpos));
        if h.id != e.id
            || h.ptr != e.ptr
            || h.earliest.to_bits() != e.earliest.to_bits()
            || h.latest.to_bits() != e.latest.to_bits()
        {
            c.add(
                IDX_NODE_001,
                at,
                place.clone(),
                format!(
                    "the node's header says ID ({},{}), box [{}, {}], {} bytes at byte {}; its TreeDir entry says ({},{}), [{}, {}], {} bytes at byte {}; annotate the trace again",
                    h.id.depth, h.id.xpos, h.earliest, h.latest, h.ptr.size, h.ptr.offset,
                    e.id.depth, e.id.xpos, e.earliest, e.latest, e.ptr.size, e.ptr.offset
                ),
            );
        }
        for d in node.nestless.iter().chain(&node.nestable) {
            let (t0, t1) = (d.earliest(), d.latest());
            if !(t0 >= h.earliest && t1 <= h.latest) {
                c.add(
                    IDX_NODE_002,
                    at,
                    place.clone(),
                    format!(
                        "a drawable of category {} spans [{t0}, {t1}], outside the node's box [{}, {}]; annotate the trace again",
                        d.category(),
                        h.earliest,
                        h.latest
                    ),
                );
            }
        }
    }
    Ok(())
}

/// The leaves, in order, cover the block stream from byte 1024 without gap or
/// overlap.
fn tiling<A: Read + Seek, T: Read + Seek>(ann: &Annotation<A, T>, c: &mut Collector) {
    let table = ann.header().leaf_table.offset.max(0) as u64;
    let mut expect = clog2_format::preamble::PREAMBLE_LEN as u64;
    for (i, leaf) in ann.leaves().iter().enumerate() {
        if leaf.offset != expect {
            c.add(
                IDX_LEAF_003,
                table + 4 + 48 * i as u64,
                Some(format!("leaf {i}")),
                format!(
                    "leaf {i} starts at trace byte {}, where the previous leaf ends at {expect}: the leaves must cover the block stream in order; annotate the trace again",
                    leaf.offset
                ),
            );
        }
        expect = leaf.offset.saturating_add(leaf.len as u64);
    }
}

/// The rule of a problem the annotation crate reports.
///
/// ```
/// use mpelog_annotate::error::Problem;
/// use mpelog_conformance::check::annotation::rule;
/// assert_eq!(rule(Problem::LeafChanged).id, "IDX-STALE-003");
/// ```
pub fn rule(problem: Problem) -> Rule {
    match problem {
        Problem::NotAnnotation => IDX_HDR_001,
        Problem::Version => IDX_HDR_002,
        Problem::FewChildren => IDX_HDR_003,
        Problem::BadPointer => IDX_BLK_001,
        Problem::Unparsable => IDX_BLK_002,
        Problem::LeafCount => IDX_LEAF_001,
        Problem::LeafRange => IDX_LEAF_002,
        Problem::TraceSize => IDX_STALE_001,
        Problem::PreambleChanged => IDX_STALE_002,
        Problem::LeafChanged => IDX_STALE_003,
        _ => IDX_BLK_002,
    }
}

fn report(e: Error, c: &mut Collector) {
    let (rule, offset) = match &e {
        Error::BadAnnotation { offset, damage } => (rule(damage.problem()), *offset),
        Error::Stale { offset, change } => (rule(change.problem()), *offset),
        Error::Slog2(inner) => (IDX_BLK_002, inner.offset().unwrap_or(0)),
        Error::Clog2(inner) => (IDX_TRACE_002, inner.offset().unwrap_or(0)),
        Error::Io {
            file: "trace",
            offset,
            ..
        } => (IDX_TRACE_001, *offset),
        Error::Io { offset, .. } => (IDX_BLK_001, *offset),
        Error::Write(_) => (IDX_BLK_002, 0),
        _ => (IDX_BLK_002, 0),
    };
    let stale = [IDX_STALE_001, IDX_STALE_002, IDX_STALE_003].contains(&rule);
    let hint = match rule {
        _ if stale => "",
        IDX_TRACE_001 | IDX_TRACE_002 => "; check the trace itself with `mpelog check TRACE.clog2`",
        _ => "; the annotation is damaged: annotate the trace again",
    };
    let in_trace = stale || [IDX_TRACE_001, IDX_TRACE_002].contains(&rule);
    let place = in_trace.then(|| "in the trace".to_string());
    c.add(rule, offset, place, format!("{}{hint}", e.detail()));
}
