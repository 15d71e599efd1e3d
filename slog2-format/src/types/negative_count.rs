//! A count field that is negative: the one condition the layouts of this
//! module (and of the annotation files built on them) check while parsing,
//! raised as a typed value rather than as words.

/// Which count of a layout ([`NegativeCount`]).
///
/// ```
/// use slog2_format::error::Count;
/// assert_eq!(Count::TreeDir.to_string(), "TreeDir count");
/// assert_eq!(Count::Key.to_string(), "key count");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Count {
    /// The TreeDir's entry count.
    TreeDir,
    /// A drawable's or shadow's vertex count.
    Vertex,
    /// A composite's primitive count.
    Primitive,
    /// A shadow's category-weight count.
    Weight,
    /// A tree node's shadow count (nestless or nestable).
    Shadow,
    /// A tree node's drawable count (nestless or nestable).
    Drawable,
    /// A tree node's stub count.
    Stub,
    /// A category's method-key count.
    Key,
    /// A category's method-type count.
    Type,
    /// A category's (or a line-ID map's) method count.
    Method,
    /// The CategoryMap's category count.
    Category,
    /// A line-ID map's column count.
    Column,
    /// A line-ID map's row count.
    Row,
    /// The LineIDMapList's map count.
    Map,
    /// An annotation file's leaf-table count.
    Leaf,
    /// The entry count of an annotation file's carry-in or definitions block.
    Entry,
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Count::TreeDir => "TreeDir count",
            Count::Vertex => "vertex count",
            Count::Primitive => "primitive count",
            Count::Weight => "weight count",
            Count::Shadow => "shadow count",
            Count::Drawable => "drawable count",
            Count::Stub => "stub count",
            Count::Key => "key count",
            Count::Type => "type count",
            Count::Method => "method count",
            Count::Category => "category count",
            Count::Column => "column count",
            Count::Row => "row count",
            Count::Map => "map count",
            Count::Leaf => "leaf count",
            Count::Entry => "count",
        })
    }
}

/// A count field that is negative, as a layout's `#[br(assert)]` raises it
/// (binrw carries it as its custom error; [`crate::Error`] turns it into
/// [`ValueProblem::NegativeCount`](crate::error::ValueProblem::NegativeCount)).
///
/// ```
/// use slog2_format::error::{Count, NegativeCount};
/// let e = NegativeCount { count: Count::Method, value: -256 };
/// assert_eq!(e.to_string(), "negative method count -256");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NegativeCount {
    /// Which count.
    pub count: Count,
    /// Its value (below 0).
    pub value: i32,
}

impl std::fmt::Display for NegativeCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "negative {} {}", self.count, self.value)
    }
}
