//! Typed errors; every error about input bytes names the byte offset.

mod detail;
mod drawable_problem;
mod frame_problem;
mod not_storable;
mod problem;
mod tree_problem;
mod write_problem;

pub use crate::types::{Count, NegativeCount};
pub use detail::{Detail, HeaderPointer, Refusal};
pub use drawable_problem::{DrawableProblem, Drawn};
pub use frame_problem::{ColumnProblem, FrameProblem};
pub use not_storable::NotStorable;
pub use problem::Problem;
pub use tree_problem::TreeProblem;

pub use write_problem::{Invariant, Limit, OptionsProblem, Oversized, Worker, WriteProblem};

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong reading or writing SLOG-2.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The underlying reader or writer failed.
    #[error("byte {offset}: I/O error: {source}")]
    Io {
        /// Offset of the operation.
        offset: u64,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not SLOG-2.
    #[error("byte 0: {}", self.detail())]
    NotSlog2 {
        /// The file's first bytes (at most 16).
        found: Vec<u8>,
    },
    /// A SLOG-2 version this crate does not read.
    #[error("byte 2: {}", self.detail())]
    UnsupportedVersion {
        /// The version string's bytes.
        found: Vec<u8>,
    },
    /// A structure ends before its fields do (truncated file or block).
    #[error("byte {offset}: {}", self.detail())]
    Truncated {
        /// Offset where the structure (or the missing bytes) starts.
        offset: u64,
        /// What was being read.
        what: Part,
        /// The file or the block it lies in.
        within: Within,
    },
    /// A file block pointer that cannot be followed (spec/slog2.md §14 #3).
    #[error("byte {offset}: {}", self.detail())]
    BadPointer {
        /// Offset of the pointer field itself (header 24, 48, 60, 72; a TreeDir
        /// entry + 22; a stub + 22).
        offset: u64,
        /// Why it cannot be followed.
        kind: PointerProblem,
        /// Which pointer.
        what: Part,
        /// Target offset.
        target: i64,
        /// Target size.
        size: i32,
        /// The bound the block breaks: the file's length for
        /// [`PointerProblem::OutsideFile`], the header's `max_buffer_bytesize` for
        /// [`PointerProblem::TooLarge`]; 0 for [`PointerProblem::Null`].
        limit: i64,
    },
    /// A value that the format forbids (bad tag byte, negative count, ...).
    #[error("byte {offset}: {}", self.detail())]
    BadValue {
        /// Offset of the value.
        offset: u64,
        /// What is wrong.
        problem: ValueProblem,
    },
    /// A block larger than the caller's limit
    /// ([`crate::ReadOptions::max_block_bytes`]): refused before allocating.
    #[error("byte {offset}: {}", self.detail())]
    LimitExceeded {
        /// Offset of the pointer to the block.
        offset: u64,
        /// Which block.
        what: Part,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The input holds no drawable: there is no tree to write.
    #[error("{}", self.detail())]
    Empty,
    /// Options that cannot be used (a caller's mistake, not bad input).
    #[error("{}", self.detail())]
    InvalidOptions(OptionsProblem),
    /// A drawable's tag byte is neither 0 (primitive) nor 1 (composite)
    /// (spec/slog2.md §14 #9, rule `S2-DRW-001`).
    #[error("byte {offset}: {}", self.detail())]
    BadTag {
        /// Offset of the tag byte.
        offset: u64,
        /// The block it lies in.
        within: Part,
        /// The tag byte, when the parser names it.
        found: Option<u8>,
    },
    /// A compressed tree-node frame (SLOG 2.0.6Z) fails one of the checks of
    /// spec/slog2-compressed.md §5; [`FrameProblem::step`] is the number of that
    /// check (1–6), which `check` reports as rule `S2Z-FRM-00<step>`.
    #[error("byte {offset}: {}", self.detail())]
    BadFrame {
        /// Offset of the offending frame field (or of the frame, see
        /// [`FrameProblem`]).
        offset: u64,
        /// Offset of the frame (the pointer's target).
        frame: u64,
        /// The node the frame's node header names; `None` when the block is
        /// too short to hold one ([`FrameProblem::TooShort`]).
        node: Option<crate::types::NodeId>,
        /// Which check fails, and how.
        problem: FrameProblem,
    },
    /// A tree node holds a drawable or a shadow that the file cannot resolve or
    /// that is impossible: a category missing from the CategoryMap, a line ID
    /// missing from a line-ID map, a time outside the node's box, ... (spec/slog2.md
    /// §14 #9–#12). Raised while a node is decoded, unless the reader is lenient
    /// ([`crate::read::Validation`]).
    #[error("byte {offset}: {}", self.detail())]
    BadDrawable {
        /// Offset of the offending drawable or shadow (see [`DrawableProblem`]).
        offset: u64,
        /// The node that holds it.
        node: crate::types::NodeId,
        /// What is wrong.
        problem: DrawableProblem,
    },
    /// A window query meets a file whose tree it cannot trust (spec/queries.md
    /// §2.2): a node read disagrees with its TreeDir entry, a stub names no child
    /// of its node, an upper node has no stubs, or the header or the TreeDir break
    /// an error rule of `check`; and, whatever the validation, a block reached
    /// twice or a stub leading to a node of the wrong depth.
    #[error("byte {offset}: {}", self.detail())]
    BadTree {
        /// Offset of the offending field (see [`TreeProblem`]).
        offset: u64,
        /// The node concerned.
        node: crate::types::NodeId,
        /// What is wrong.
        problem: TreeProblem,
    },
    /// A conversion's input record completes a drawable that ends before the
    /// previous one, or at a time that is not finite: the one-pass tree writer
    /// needs drawables in end-time order (spec/conversion.md §3).
    #[error("byte {offset}: {}", self.detail())]
    OutOfOrder {
        /// Offset of the input record.
        offset: u64,
        /// The record's time.
        time: f64,
        /// The drawable's end time.
        end: f64,
        /// What is wrong.
        problem: OrderProblem,
    },
    /// The CLOG2 input of a conversion is bad.
    #[error("CLOG2 input: {0}")]
    Clog2(Box<clog2_format::Error>),
    /// The OTF2 input of a conversion is bad (its error names the file).
    #[error("OTF2 input: {0}")]
    Otf2(Box<otf2_format::Error>),
    /// The structure cannot be written as asked.
    #[error("{}", self.detail())]
    Write(WriteProblem),
    /// A [`PrimSink`](crate::write::PrimSink) other than the tree writer
    /// failed (its own error: for an exporter's sorter, writing a sorted run
    /// to a temporary file).
    #[error("{}", self.detail())]
    Sink(Box<dyn std::error::Error + Send + Sync>),
}

/// What a truncated structure lies in ([`Error::Truncated`]).
///
/// ```
/// use slog2_format::error::Within;
/// assert_eq!(Within::Block { size: 40 }.to_string(), "its 40-byte block");
/// assert_eq!(Within::File { len: Some(3) }.to_string(), "the file (3 bytes)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Within {
    /// The file, with its length when known.
    File {
        /// The file's length in bytes.
        len: Option<u64>,
    },
    /// The block the structure was read from, of `size` bytes.
    Block {
        /// The block's size in bytes.
        size: i32,
    },
}

impl std::fmt::Display for Within {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Within::File { len: None } => f.write_str("the file"),
            Within::File { len: Some(len) } => write!(f, "the file ({len} bytes)"),
            Within::Block { size } => write!(f, "its {size}-byte block"),
        }
    }
}

/// A part of a SLOG-2 file that was being read, or the pointer that leads to
/// it: what [`Error::Truncated`], [`Error::BadPointer`],
/// [`Error::LimitExceeded`] and [`Error::BadTag`] name.
///
/// ```
/// use slog2_format::error::Part;
/// use slog2_format::types::NodeId;
/// assert_eq!(Part::Header { len: Some(108) }.to_string(), "the 108-byte header");
/// let (parent, child) = (NodeId { depth: 1, xpos: 0 }, NodeId { depth: 0, xpos: 1 });
/// assert_eq!(
///     Part::Stub { parent, child }.to_string(),
///     "the stub for node (0,1) in node (1,0)"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Part {
    /// The header, with its length when known.
    Header {
        /// The header's length in bytes (its version string's length decides it).
        len: Option<u64>,
    },
    /// The CategoryMap (the legend).
    CategoryMap,
    /// The LineIDMapList (the timeline views).
    LineIdMaps,
    /// The TreeDir (the directory of tree nodes).
    TreeDir,
    /// The header's pointer to the tree root.
    TreeRoot,
    /// The TreeDir's entry for a node, and its pointer.
    TreeDirEntry(crate::types::NodeId),
    /// A tree node.
    Node,
    /// A compressed tree node's frame (SLOG 2.0.6Z).
    NodeFrame,
    /// The stub of `child` in node `parent`, and its pointer.
    Stub {
        /// The node that holds the stub.
        parent: crate::types::NodeId,
        /// The node the stub names.
        child: crate::types::NodeId,
    },
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Part::Header { len: None } => f.write_str("the header"),
            Part::Header { len: Some(len) } => write!(f, "the {len}-byte header"),
            Part::CategoryMap => f.write_str("the CategoryMap"),
            Part::LineIdMaps => f.write_str("the LineIDMapList"),
            Part::TreeDir => f.write_str("the TreeDir"),
            Part::TreeRoot => f.write_str("the header's treeroot pointer"),
            Part::TreeDirEntry(id) => {
                write!(f, "the TreeDir entry for node ({},{})", id.depth, id.xpos)
            }
            Part::Node => f.write_str("a tree node"),
            Part::NodeFrame => f.write_str("a tree node frame"),
            Part::Stub { parent, child } => write!(
                f,
                "the stub for node ({},{}) in node ({},{})",
                child.depth, child.xpos, parent.depth, parent.xpos
            ),
        }
    }
}

/// What is wrong with a value ([`Error::BadValue`]).
///
/// ```
/// use slog2_format::error::ValueProblem;
/// let p = ValueProblem::Overlap { start: 300, previous_end: 320 };
/// assert_eq!(
///     p.to_string(),
///     "the block at byte 300 overlaps the structure before it (which ends at byte 320)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ValueProblem {
    /// A count field of a block is negative.
    NegativeCount {
        /// The block being parsed.
        part: Part,
        /// Which count, and its value.
        count: NegativeCount,
    },
    /// The parser failed in a way the layouts of [`crate::types`] do not
    /// raise (binrw's words for it; not seen from this crate's layouts).
    Layout {
        /// The block being parsed.
        part: Part,
        /// The parser's words.
        message: String,
    },
    /// Two pointers to one block disagree on its size.
    SizeDisagrees {
        /// The block's offset.
        at: i64,
        /// The size the first pointer gives.
        first: i32,
        /// The size the other gives.
        other: i32,
    },
    /// A block starts inside the structure before it.
    Overlap {
        /// The block's offset.
        start: u64,
        /// Where the structure before it ends.
        previous_end: u64,
    },
    /// A SLOG-1 record's times are not finite (SLOG-2 needs finite times).
    NotFinite {
        /// The record's interval type.
        interval_type: u32,
        /// Its start time.
        start: f64,
        /// Its end time.
        end: f64,
    },
    /// A window answer does not fit a [`WindowBuf`](crate::WindowBuf) (more
    /// than 4 Gi vertices, info bytes, parts or weights).
    AnswerTooLarge {
        /// The [`WindowBuf`](crate::WindowBuf) push that refused a drawable,
        /// when the answer was built by pushing (an annotation's window);
        /// `None` for a window query's own answer.
        refused: Option<NotStorable>,
    },
    /// A drawable or shadow that the window query's scan accepted could not be
    /// decoded (the scan and the decoder disagree).
    Undecodable,
    /// A tree node has a stub for a node that comes later in the file: the
    /// rewriter needs children before parents.
    ChildAfterParent(crate::types::NodeId),
    /// The header's root pointer names no TreeDir entry.
    RootNotInTreeDir,
}

impl std::fmt::Display for ValueProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueProblem::NegativeCount { part, count } => write!(f, "{part}: {count}"),
            ValueProblem::Layout { part, message } => write!(f, "{part}: {message}"),
            ValueProblem::SizeDisagrees { at, first, other } => write!(
                f,
                "two pointers to the block at byte {at} disagree on its size ({first} and {other})"
            ),
            ValueProblem::Overlap { start, previous_end } => write!(
                f,
                "the block at byte {start} overlaps the structure before it (which ends at byte {previous_end})"
            ),
            ValueProblem::NotFinite {
                interval_type,
                start,
                end,
            } => write!(
                f,
                "a record of interval type {interval_type} starts at {start:?} and ends at {end:?}: SLOG-2 needs finite times"
            ),
            ValueProblem::AnswerTooLarge { refused: None } => f.write_str(
                "the window answer does not fit a WindowBuf (more than 4 Gi vertices, info bytes, parts or weights)",
            ),
            ValueProblem::AnswerTooLarge {
                refused: Some(refused),
            } => write!(f, "{refused} (more than 4 Gi vertices or info bytes)"),
            ValueProblem::Undecodable => f.write_str(
                "a drawable or shadow accepted by the window query's scan could not be decoded",
            ),
            ValueProblem::ChildAfterParent(id) => write!(
                f,
                "tree node ({}, {}) has a stub for a node that comes later in the file; only files with children before parents can be rewritten",
                id.depth, id.xpos
            ),
            ValueProblem::RootNotInTreeDir => {
                f.write_str("the header's root pointer names no TreeDir entry")
            }
        }
    }
}

/// Why a block pointer cannot be followed (spec/slog2.md §14 #3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PointerProblem {
    /// The pointer is NULL where a block is needed (a TreeDir entry, a stub, the
    /// tree root).
    Null,
    /// The block starts before the file or ends after it.
    OutsideFile,
    /// The block is larger than the header's `max_buffer_bytesize`.
    TooLarge,
}

/// Why a conversion's drawable breaks the end-time order the one-pass tree
/// writer needs ([`Error::OutOfOrder`]).
///
/// ```
/// use slog2_format::error::{Error, OrderProblem};
/// let e = Error::OutOfOrder {
///     offset: 168,
///     time: 2.0,
///     end: 2.0,
///     problem: OrderProblem::BeforePrevious { previous_end: 3.0 },
/// };
/// assert!(e.to_string().contains("previous drawable's end 3"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum OrderProblem {
    /// The drawable has a time that is not finite (NaN or infinite).
    NotFinite,
    /// The drawable ends before the previous drawable's end.
    BeforePrevious {
        /// The end time of the previous drawable.
        previous_end: f64,
    },
}

/// The first error-severity rule of `check` that a file's header, CategoryMap,
/// line-ID maps or TreeDir break (`check::first_file_error`): what a window query
/// reports as [`Error::BadTree`] with [`TreeProblem::File`] for such a file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FileRuleError {
    /// What is wrong.
    pub(crate) problem: Problem,
    /// The offset `check` reports.
    pub(crate) offset: u64,
    /// The node concerned, if any.
    pub(crate) node: Option<crate::types::NodeId>,
    /// What is wrong, with its values.
    pub(crate) detail: Detail,
}

impl FileRuleError {
    /// The error a window query gives for a file that breaks the rule.
    pub(crate) fn to_error(&self) -> Error {
        Error::BadTree {
            offset: self.offset,
            node: self.node.unwrap_or_default(),
            problem: TreeProblem::File {
                problem: self.problem,
                detail: self.detail.clone(),
            },
        }
    }
}

/// A CLOG2 or old-CLOG reader's error, for `?` in a conversion
/// ([`Error::Clog2`]).
///
/// ```
/// fn records(data: &[u8]) -> slog2_format::Result<usize> {
///     Ok(clog2_format::clog::ClogRecords::new(data)?.count())
/// }
/// let e = records(&[0; 10]).unwrap_err();
/// assert!(matches!(e, slog2_format::Error::Clog2(_)));
/// assert_eq!(e.offset(), Some(0));
/// ```
impl From<clog2_format::Error> for Error {
    fn from(e: clog2_format::Error) -> Error {
        Error::Clog2(Box::new(e))
    }
}

impl Error {
    /// The message without its position (the byte offset, [`Self::offset`]):
    /// what a report that shows the offset beside it prints.
    ///
    /// ```
    /// let e = slog2_format::Slog2File::parse(b"CLOG-02.44 and more").unwrap_err();
    /// assert_eq!(e.offset(), Some(0));
    /// assert!(e.detail().starts_with("not a SLOG-2 file"));
    /// assert!(e.to_string().ends_with(&e.detail())); // the message is the offset, then the detail
    /// ```
    pub fn detail(&self) -> String {
        match self {
            Error::Io { source, .. } => format!("I/O error: {source}"),
            Error::NotSlog2 { found } => {
                let found = String::from_utf8_lossy(&found[..found.len().min(16)]);
                format!("not a SLOG-2 file: the header starts with {found:?}")
            }
            Error::UnsupportedVersion { found } => {
                let found = String::from_utf8_lossy(found);
                format!("unsupported SLOG-2 version {found:?} (supported: \"SLOG 2.0.5\", \"SLOG 2.0.6\", \"SLOG 2.0.6Z\")")
            }
            Error::Truncated { what, within, .. } => {
                format!("{what} runs past the end of {within}")
            }
            Error::BadPointer {
                what,
                target,
                size,
                kind,
                limit,
                ..
            } => {
                let problem = match kind {
                    PointerProblem::Null => "the pointer is NULL".to_string(),
                    PointerProblem::OutsideFile => {
                        format!("the block runs past the end of the file ({limit} bytes)")
                    }
                    PointerProblem::TooLarge => {
                        format!("the block is larger than the header's max_buffer_bytesize {limit}")
                    }
                };
                format!("{what} points at {size} bytes at byte {target}: {problem}")
            }
            Error::BadValue { problem, .. } => problem.to_string(),
            Error::LimitExceeded {
                what, size, limit, ..
            } => format!("{what} is {size} bytes, over the reader's limit of {limit} bytes"),
            Error::Empty => "no drawable in the input: nothing to write".to_string(),
            Error::InvalidOptions(v) => format!("invalid options: {v}"),
            Error::BadTag {
                within,
                found: Some(found),
                ..
            } => format!(
                "drawable tag {found} in {within} is neither 0 (primitive) nor 1 (composite)"
            ),
            Error::BadTag { within, .. } => {
                format!("drawable tag in {within} is neither 0 (primitive) nor 1 (composite)")
            }
            Error::BadFrame {
                frame,
                node: Some(node),
                problem,
                ..
            } => format!(
                "tree node ({}, {}) at byte {frame}: {problem}",
                node.depth, node.xpos
            ),
            Error::BadFrame { frame, problem, .. } => {
                format!("the tree node at byte {frame}: {problem}")
            }
            Error::BadDrawable { node, problem, .. } => format!(
                "a {} in node ({},{}) {problem}",
                problem.subject(),
                node.depth,
                node.xpos
            ),
            Error::BadTree { problem, .. } => problem.to_string(),
            Error::OutOfOrder {
                time, end, problem, ..
            } => {
                let problem = match problem {
                    OrderProblem::NotFinite => "which is not a finite time".to_string(),
                    OrderProblem::BeforePrevious { previous_end } => format!(
                        "before the previous drawable's end {previous_end}: the records must be in time order, as MPE's merger writes them"
                    ),
                };
                format!("the record at time {time} completes a drawable ending at {end}, {problem}")
            }
            Error::Clog2(v) => format!("CLOG2 input: {}", v.detail()),
            Error::Otf2(v) => format!("OTF2 input: {v}"),
            Error::Write(v) => format!("cannot write: {v}"),
            Error::Sink(e) => e.to_string(),
        }
    }

    /// The byte offset the error refers to, if it concerns input bytes.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let e = slog2_format::Slog2File::parse(&bytes[..bytes.len() - 10]).unwrap_err();
    /// assert!(e.offset().unwrap() < bytes.len() as u64);
    /// assert_eq!(slog2_format::Error::Empty.offset(), None); // not about input bytes
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Io { offset, .. }
            | Error::Truncated { offset, .. }
            | Error::BadPointer { offset, .. }
            | Error::BadValue { offset, .. }
            | Error::BadTag { offset, .. }
            | Error::LimitExceeded { offset, .. }
            | Error::OutOfOrder { offset, .. }
            | Error::BadFrame { offset, .. }
            | Error::BadDrawable { offset, .. }
            | Error::BadTree { offset, .. } => Some(*offset),
            Error::NotSlog2 { .. } => Some(0),
            Error::UnsupportedVersion { .. } => Some(2),
            Error::Clog2(e) => e.offset(),
            Error::Otf2(e) => Some(e.offset()),
            Error::Write(_) | Error::InvalidOptions(_) | Error::Empty | Error::Sink(_) => None,
        }
    }

    /// Converts a binrw error raised while parsing `what`, a block that starts
    /// at `base`.
    pub(crate) fn from_binrw(e: binrw::Error, base: u64, what: Part, within: Within) -> Error {
        match e {
            binrw::Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                Error::Truncated {
                    offset: base,
                    what,
                    within,
                }
            }
            binrw::Error::Io(source) => Error::Io {
                offset: base,
                source,
            },
            binrw::Error::BadMagic { pos, found } => Error::BadTag {
                offset: base + pos,
                within: what,
                found: format!("{found:?}").parse().ok(),
            },
            binrw::Error::EnumErrors {
                pos,
                mut variant_errors,
            } => {
                // A tag byte that names a variant whose fields then fail: that
                // failure, not the tag, is what is wrong.
                let named =
                    |e: &binrw::Error| !matches!(e.root_cause(), binrw::Error::BadMagic { .. });
                if variant_errors.iter().filter(|(_, e)| named(e)).count() == 1 {
                    if let Some(i) = variant_errors.iter().position(|(_, e)| named(e)) {
                        let (_, e) = variant_errors.swap_remove(i);
                        if e.is_eof() {
                            // Cut short inside this drawable: name where it starts.
                            return Error::Truncated {
                                offset: base + pos,
                                what,
                                within,
                            };
                        }
                        return Error::from_binrw(e, base, what, within);
                    }
                }
                let found = variant_errors
                    .iter()
                    .find_map(|(_, e)| match e.root_cause() {
                        binrw::Error::BadMagic { found, .. } => format!("{found:?}").parse().ok(),
                        _ => None,
                    });
                Error::BadTag {
                    offset: base + pos,
                    within: what,
                    found,
                }
            }
            binrw::Error::NoVariantMatch { pos } => Error::BadTag {
                offset: base + pos,
                within: what,
                found: None,
            },
            binrw::Error::AssertFail { pos, message } => Error::BadValue {
                offset: base + pos,
                problem: ValueProblem::Layout {
                    part: what,
                    message,
                },
            },
            binrw::Error::Custom { pos, err } => match err.downcast::<NegativeCount>() {
                Ok(count) => Error::BadValue {
                    offset: base + pos,
                    problem: ValueProblem::NegativeCount {
                        part: what,
                        count: *count,
                    },
                },
                Err(err) => Error::BadValue {
                    offset: base + pos,
                    problem: ValueProblem::Layout {
                        part: what,
                        message: err.to_string(),
                    },
                },
            },
            binrw::Error::Backtrace(bt) => Error::from_binrw(*bt.error, base, what, within),
            other => Error::BadValue {
                offset: base,
                problem: ValueProblem::Layout {
                    part: what,
                    message: other.to_string(),
                },
            },
        }
    }
}
