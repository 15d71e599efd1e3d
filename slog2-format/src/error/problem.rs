//! What [`check`](crate::check::check) finds in a SLOG-2 file, typed: one [`Problem`]
//! per rule of spec/slog2.md ("Rules `mpelog check` enforces") and
//! spec/slog2-compressed.md §5. The rule IDs, severities and summaries are
//! `mpelog-conformance`'s table; this crate says only what is wrong, and
//! whether a reader can trust a file that has it.

/// What is wrong with a SLOG-2 file: one variant per rule `mpelog check`
/// enforces (the rule's ID in spec/conformance.md §8 is in each variant's
/// doc). A [`Finding`](crate::check::Finding) carries one, with its offset and a
/// message for people.
///
/// ```
/// use slog2_format::check::Problem;
/// assert!(Problem::NullPointer.breaks_readers());
/// assert!(!Problem::TrailingBytes.breaks_readers());
/// assert!(Problem::ALL.contains(&Problem::FrameChecksum));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Problem {
    /// `S2-HDR-001`: the version is not SLOG 2.0.6, 2.0.6Z or 2.0.5, or the file is not SLOG-2.
    Version,
    /// `S2-HDR-003`: the version is SLOG 2.0.5, whose CategoryMap Jumpshot-4 misreads.
    OldVersion,
    /// `S2-HDR-004`: num_children_per_node is below 2.
    FewChildren,
    /// `S2-HDR-005`: the categories, line-ID maps, tree root or TreeDir pointer is NULL.
    NullPointer,
    /// `S2-HDR-006`: a block is larger than max_buffer_bytesize.
    BlockTooLarge,
    /// `S2-HDR-007`: a pointer reaches outside the file.
    OutsideFile,
    /// `S2-HDR-008`: max_treedepth differs from the root's depth.
    MaxTreeDepth,
    /// `S2-HDR-009`: the methoddefs, annotations or postamble pointer is not NULL.
    UnusedPointer,
    /// `S2-HDR-010`: max_buffer_bytesize exceeds the largest block.
    BufferTooLarge,
    /// `S2-PARSE-001`: the file cannot be parsed.
    Unparsable,
    /// `S2-BLK-001`: a block has bytes after its content.
    TrailingBytes,
    /// `S2-DIR-001`: the TreeDir has no depth-0 entry.
    NoRoot,
    /// `S2-DIR-002`: the tree-root pointer differs from the TreeDir's root entry.
    RootMismatch,
    /// `S2-DIR-003`: a TreeDir entry's ID, time box or pointer differs from the node's own header, or its block overlaps another.
    DirMismatch,
    /// `S2-DIR-004`: a TreeDir ID is duplicated or negative.
    BadDirId,
    /// `S2-TREE-001`: a node above the leaves has no child stubs.
    NoStubs,
    /// `S2-TREE-002`: a stub is not a child of its node, has no TreeDir entry, or points elsewhere than the child.
    BadStub,
    /// `S2-TREE-005`: nodes of one depth overlap in time or are not in time order by xpos.
    NodesOverlap,
    /// `S2-DRW-001`: a drawable tag byte is neither 0 nor 1.
    BadTag,
    /// `S2-DRW-002`: a drawable or shadow list is not in increasing start-time order.
    Unsorted,
    /// `S2-DRW-003`: a drawable lies outside its node's time box.
    OutsideNode,
    /// `S2-DRW-004`: a drawable's category is missing from the CategoryMap.
    UnknownCategory,
    /// `S2-DRW-005`: a primitive has no vertices or a composite has no parts.
    Empty,
    /// `S2-DRW-006`: a primitive's vertex count does not fit its category's topology.
    VertexCount,
    /// `S2-DRW-007`: a shadow has no category weights.
    NoWeights,
    /// `S2-DRW-008`: a shadow weight's category is missing from the CategoryMap.
    WeightCategory,
    /// `S2-DRW-009`: a shadow's category is not a preview category of the map.
    ShadowCategory,
    /// `S2-DRW-010`: a shadow's weight counts do not add up to num_real_objs (2.0.6).
    WeightCounts,
    /// `S2-INF-001`: an info buffer is shorter than its category's formats need.
    ShortInfo,
    /// `S2-INF-002`: a category format character is not one of s h d x l X e E.
    BadFormat,
    /// `S2-INF-003`: a category has formats but the drawable no info, or the reverse.
    InfoMismatch,
    /// `S2-CAT-001`: two categories share an index.
    DuplicateCategory,
    /// `S2-CAT-002`: a category's topology code is not 0, 1 or 2.
    BadTopology,
    /// `S2-CAT-003`: a category has formats but not one more key than types.
    KeyCount,
    /// `S2-LID-001`: a drawable's line ID is missing from a line-ID map.
    UnknownLineId,
    /// `S2-LID-002`: the file has no line-ID map.
    NoLineIdMap,
    /// `S2-LID-003`: a line-ID map has duplicate rows or no columns.
    BadLineIdMap,
    /// `S2Z-FRM-001`: a node frame is shorter than 50 bytes, names an unknown codec, or has non-zero reserved bytes (2.0.6Z).
    FrameHeader,
    /// `S2Z-FRM-002`: a frame's payload length is not its block size minus 50 (2.0.6Z).
    FrameLength,
    /// `S2Z-FRM-003`: a frame's uncompressed length is below 34 or above max_buffer_bytesize (2.0.6Z).
    FrameSize,
    /// `S2Z-FRM-004`: a frame's payload does not decode to exactly the announced length (2.0.6Z).
    FrameDecode,
    /// `S2Z-FRM-005`: the CRC-32 of a decoded node differs from its frame's (2.0.6Z).
    FrameChecksum,
    /// `S2Z-FRM-006`: a decoded node's own pointer differs from the frame's block pointer (2.0.6Z).
    FramePointer,
}

impl Problem {
    /// Every problem, in the order of spec/conformance.md §8.
    pub const ALL: &'static [Problem] = &[
        Problem::Version,
        Problem::OldVersion,
        Problem::FewChildren,
        Problem::NullPointer,
        Problem::BlockTooLarge,
        Problem::OutsideFile,
        Problem::MaxTreeDepth,
        Problem::UnusedPointer,
        Problem::BufferTooLarge,
        Problem::Unparsable,
        Problem::TrailingBytes,
        Problem::NoRoot,
        Problem::RootMismatch,
        Problem::DirMismatch,
        Problem::BadDirId,
        Problem::NoStubs,
        Problem::BadStub,
        Problem::NodesOverlap,
        Problem::BadTag,
        Problem::Unsorted,
        Problem::OutsideNode,
        Problem::UnknownCategory,
        Problem::Empty,
        Problem::VertexCount,
        Problem::NoWeights,
        Problem::WeightCategory,
        Problem::ShadowCategory,
        Problem::WeightCounts,
        Problem::ShortInfo,
        Problem::BadFormat,
        Problem::InfoMismatch,
        Problem::DuplicateCategory,
        Problem::BadTopology,
        Problem::KeyCount,
        Problem::UnknownLineId,
        Problem::NoLineIdMap,
        Problem::BadLineIdMap,
        Problem::FrameHeader,
        Problem::FrameLength,
        Problem::FrameSize,
        Problem::FrameDecode,
        Problem::FrameChecksum,
        Problem::FramePointer,
    ];

    /// Whether Jumpshot-4 or slog2print would misread a file with this problem
    /// or fail on it (an error, not a warning, in `mpelog check`'s report). A
    /// window query refuses a file whose header, maps or TreeDir have such a
    /// problem (spec/queries.md §2.2).
    ///
    /// ```
    /// use slog2_format::check::Problem;
    /// assert!(Problem::UnknownCategory.breaks_readers());
    /// assert!(!Problem::OldVersion.breaks_readers());
    /// ```
    pub fn breaks_readers(self) -> bool {
        !matches!(
            self,
            Problem::OldVersion
                | Problem::MaxTreeDepth
                | Problem::UnusedPointer
                | Problem::BufferTooLarge
                | Problem::TrailingBytes
                | Problem::VertexCount
                | Problem::WeightCounts
                | Problem::InfoMismatch
                | Problem::KeyCount
                | Problem::BadLineIdMap
        )
    }

    /// The frame check `step` (1–6) of spec/slog2-compressed.md §5; a step out
    /// of range is the nearest one.
    ///
    /// ```
    /// use slog2_format::check::Problem;
    /// assert_eq!(Problem::frame(1), Problem::FrameHeader);
    /// assert_eq!(Problem::frame(5), Problem::FrameChecksum);
    /// assert_eq!(Problem::frame(6), Problem::FramePointer);
    /// ```
    pub fn frame(step: u8) -> Problem {
        // The last six of `ALL` are the frame checks, in order.
        Problem::ALL[Problem::ALL.len() - 7 + usize::from(step.clamp(1, 6))]
    }
}
