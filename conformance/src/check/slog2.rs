//! SLOG-2 rules, plain and compressed (spec/conformance.md §8): the checker is
//! [`slog2_format::check`], which reports a typed
//! [`Problem`] for each finding; this module's
//! table names each problem's rule.

use crate::report::Collector;
use crate::rule::Rule;
use crate::Format;
use slog2_format::check::Problem;
use std::io::{Read, Seek};

crate::rule::rule_table! {
    Some(Format::Slog2);
    /// The SLOG-2 rules (spec/conformance.md §8); the frame rules of
    /// compressed SLOG-2 are [`frame::RULES`].
    S2_HDR_001 = "S2-HDR-001", Error,
        "the version is not SLOG 2.0.6 or SLOG 2.0.5, or the file is not SLOG-2";
    S2_HDR_003 = "S2-HDR-003", Warning,
        "version SLOG 2.0.5: Jumpshot-4 asks for confirmation, then misreads the CategoryMap; convert it to 2.0.6";
    S2_HDR_004 = "S2-HDR-004", Error,
        "num_children_per_node is below 2 (Jumpshot's zoom factor is its logarithm)";
    S2_HDR_005 = "S2-HDR-005", Error,
        "the categories, line-ID maps, tree root or TreeDir pointer is NULL (Java exits)";
    S2_HDR_006 = "S2-HDR-006", Error,
        "a block is larger than max_buffer_bytesize (Java refuses it)";
    S2_HDR_007 = "S2-HDR-007", Error,
        "a pointer reaches outside the file (truncated or corrupt file)";
    S2_HDR_008 = "S2-HDR-008", Warning,
        "max_treedepth differs from the root's depth (viewers ignore the field)";
    S2_HDR_009 = "S2-HDR-009", Warning,
        "methoddefs, annotations or postamble is not NULL (no reader uses them)";
    S2_HDR_010 = "S2-HDR-010", Warning,
        "max_buffer_bytesize exceeds the largest block (Java allocates it up front)";
    S2_PARSE_001 = "S2-PARSE-001", Error,
        "the file cannot be parsed (the message names the byte offset)";
    S2_BLK_001 = "S2-BLK-001", Warning,
        "a block has bytes after its content (readers ignore them)";
    S2_DIR_001 = "S2-DIR-001", Error,
        "the TreeDir has no depth-0 entry (slog2print and slog2filter need one)";
    S2_DIR_002 = "S2-DIR-002", Error,
        "the tree-root pointer differs from the TreeDir's root entry";
    S2_DIR_003 = "S2-DIR-003", Error,
        "a TreeDir entry's ID, time box or pointer differs from the node's own header";
    S2_DIR_004 = "S2-DIR-004", Error,
        "a TreeDir ID is duplicated or negative";
    S2_TREE_001 = "S2-TREE-001", Error,
        "a node above the leaves has no child stubs (Jumpshot dereferences null)";
    S2_TREE_002 = "S2-TREE-002", Error,
        "a stub is not a child of its node, has no TreeDir entry, or points elsewhere than the child";
    S2_TREE_005 = "S2-TREE-005", Error,
        "nodes of one depth overlap in time or are not in time order by xpos";
    S2_DRW_001 = "S2-DRW-001", Error,
        "a drawable tag byte is neither 0 nor 1";
    S2_DRW_002 = "S2-DRW-002", Error,
        "a drawable or shadow list is not in increasing start-time order";
    S2_DRW_003 = "S2-DRW-003", Error,
        "a drawable lies outside its node's time box";
    S2_DRW_004 = "S2-DRW-004", Error,
        "a drawable's category is missing from the CategoryMap";
    S2_DRW_005 = "S2-DRW-005", Error,
        "a primitive has no vertices or a composite has no parts";
    S2_DRW_006 = "S2-DRW-006", Warning,
        "a primitive's vertex count does not fit its category's topology";
    S2_DRW_007 = "S2-DRW-007", Error,
        "a shadow has no category weights (Jumpshot dereferences a null array)";
    S2_DRW_008 = "S2-DRW-008", Error,
        "a shadow weight's category is missing from the CategoryMap";
    S2_DRW_009 = "S2-DRW-009", Error,
        "a shadow's category is not a preview category of the map";
    S2_DRW_010 = "S2-DRW-010", Warning,
        "2.0.6: a shadow's weight counts do not add up to num_real_objs";
    S2_INF_001 = "S2-INF-001", Error,
        "an info buffer is shorter than its category's formats need (Jumpshot exits when the popup opens)";
    S2_INF_002 = "S2-INF-002", Error,
        "a category format character is not one of s h d x l X e E (Jumpshot exits)";
    S2_INF_003 = "S2-INF-003", Warning,
        "a category has formats but the drawable no info, or the reverse";
    S2_CAT_001 = "S2-CAT-001", Error,
        "two categories share an index (one silently replaces the other)";
    S2_CAT_002 = "S2-CAT-002", Error,
        "a category's topology code is not 0, 1 or 2";
    S2_CAT_003 = "S2-CAT-003", Warning,
        "a category has formats but not one more key than types";
    S2_LID_001 = "S2-LID-001", Error,
        "a drawable's line ID is missing from a line-ID map";
    S2_LID_002 = "S2-LID-002", Error,
        "the file has no line-ID map";
    S2_LID_003 = "S2-LID-003", Warning,
        "a line-ID map has duplicate rows or no columns";
}

/// The rule of a problem `slog2_format::check` reports.
///
/// ```
/// use mpelog_conformance::check::slog2::rule;
/// use slog2_format::check::Problem;
/// assert_eq!(rule(Problem::NoRoot).id, "S2-DIR-001");
/// assert_eq!(rule(Problem::FrameChecksum).id, "S2Z-FRM-005");
/// ```
pub fn rule(problem: Problem) -> Rule {
    match problem {
        Problem::Version => S2_HDR_001,
        Problem::OldVersion => S2_HDR_003,
        Problem::FewChildren => S2_HDR_004,
        Problem::NullPointer => S2_HDR_005,
        Problem::BlockTooLarge => S2_HDR_006,
        Problem::OutsideFile => S2_HDR_007,
        Problem::MaxTreeDepth => S2_HDR_008,
        Problem::UnusedPointer => S2_HDR_009,
        Problem::BufferTooLarge => S2_HDR_010,
        Problem::Unparsable => S2_PARSE_001,
        Problem::TrailingBytes => S2_BLK_001,
        Problem::NoRoot => S2_DIR_001,
        Problem::RootMismatch => S2_DIR_002,
        Problem::DirMismatch => S2_DIR_003,
        Problem::BadDirId => S2_DIR_004,
        Problem::NoStubs => S2_TREE_001,
        Problem::BadStub => S2_TREE_002,
        Problem::NodesOverlap => S2_TREE_005,
        Problem::BadTag => S2_DRW_001,
        Problem::Unsorted => S2_DRW_002,
        Problem::OutsideNode => S2_DRW_003,
        Problem::UnknownCategory => S2_DRW_004,
        Problem::Empty => S2_DRW_005,
        Problem::VertexCount => S2_DRW_006,
        Problem::NoWeights => S2_DRW_007,
        Problem::WeightCategory => S2_DRW_008,
        Problem::ShadowCategory => S2_DRW_009,
        Problem::WeightCounts => S2_DRW_010,
        Problem::ShortInfo => S2_INF_001,
        Problem::BadFormat => S2_INF_002,
        Problem::InfoMismatch => S2_INF_003,
        Problem::DuplicateCategory => S2_CAT_001,
        Problem::BadTopology => S2_CAT_002,
        Problem::KeyCount => S2_CAT_003,
        Problem::UnknownLineId => S2_LID_001,
        Problem::NoLineIdMap => S2_LID_002,
        Problem::BadLineIdMap => S2_LID_003,
        Problem::FrameHeader => frame::S2Z_FRM_001,
        Problem::FrameLength => frame::S2Z_FRM_002,
        Problem::FrameSize => frame::S2Z_FRM_003,
        Problem::FrameDecode => frame::S2Z_FRM_004,
        Problem::FrameChecksum => frame::S2Z_FRM_005,
        Problem::FramePointer => frame::S2Z_FRM_006,
        _ => S2_PARSE_001,
    }
}

/// Checks a SLOG-2 file (2.0.5, 2.0.6 or 2.0.6Z) read from `r`.
///
/// ```
/// use mpelog_conformance::check::slog2::check;
/// use mpelog_conformance::{report::Collector, Format};
/// use slog2_format::convert::clog2_to_slog2;
/// use std::io::Cursor;
/// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// let slog2 = out.into_inner();
/// let mut c = Collector::new(Format::Slog2, 10);
/// check(Cursor::new(&slog2), &mut c);
/// assert!(c.finish().passes());
/// let mut c = Collector::new(Format::Slog2, 10);
/// check(Cursor::new(&slog2[..slog2.len() / 2]), &mut c);
/// assert!(c.finish().errors() > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check<R: Read + Seek>(r: R, c: &mut Collector) {
    for f in slog2_format::check::check(r, c.limit()) {
        let place = f.node.map(|n| format!("node ({},{})", n.depth, n.xpos));
        c.add(rule(f.problem), f.offset, place, f.detail.to_string());
    }
}

/// The frame rules of compressed SLOG-2 (spec/slog2-compressed.md §5).
pub mod frame {
    use crate::Format;
    crate::rule::rule_table! {
        Some(Format::Slog2Compressed);
        /// The frame rules of compressed SLOG-2 (spec/slog2-compressed.md §5).
        S2Z_FRM_001 = "S2Z-FRM-001", Error,
            "2.0.6Z: a node frame is shorter than 50 bytes, names an unknown codec, or has non-zero reserved bytes";
        S2Z_FRM_002 = "S2Z-FRM-002", Error,
            "2.0.6Z: a frame's payload length is not its block size minus 50";
        S2Z_FRM_003 = "S2Z-FRM-003", Error,
            "2.0.6Z: a frame's uncompressed length is below 34 or above max_buffer_bytesize (refused before inflating)";
        S2Z_FRM_004 = "S2Z-FRM-004", Error,
            "2.0.6Z: a frame's payload does not decode to exactly the announced length (corrupt deflate stream or column form)";
        S2Z_FRM_005 = "S2Z-FRM-005", Error,
            "2.0.6Z: the CRC-32 of a decoded node differs from its frame's";
        S2Z_FRM_006 = "S2Z-FRM-006", Error,
            "2.0.6Z: a decoded node's own pointer differs from the frame's block pointer";
    }
}
