//! What is wrong with a drawable or a shadow of a tree node
//! ([`Error::BadDrawable`](crate::Error::BadDrawable)), with its values.

use super::Problem;

/// What is wrong with a drawable or shadow of a tree node, with the values
/// the message names. The offset of [`Error::BadDrawable`](crate::Error::BadDrawable)
/// is the drawable's tag byte for `OutsideNode`, `Empty` and `Unsorted`, the
/// byte after it (the category field) for `UnknownCategory` and
/// `UnknownLineId`, the LineIDMapList for `NoLineIdMaps`, and the shadow's
/// first byte for the shadow problems: the offsets `check` reports for the
/// same rule.
///
/// It displays as the end of the error's sentence, after "a drawable in node
/// (d,x)" ([`Self::subject`] says which word stands for "drawable"):
///
/// ```
/// use slog2_format::error::{DrawableProblem, Drawn};
/// use slog2_format::{types::NodeId, Error};
/// let p = DrawableProblem::UnknownCategory(7);
/// assert_eq!(p.to_string(), "has category 7, which is not in the CategoryMap");
/// let e = Error::BadDrawable { offset: 300, node: NodeId { depth: 0, xpos: 1 }, problem: p };
/// assert_eq!(
///     e.to_string(),
///     "byte 300: a drawable in node (0,1) has category 7, which is not in the CategoryMap"
/// );
/// let late = DrawableProblem::Unsorted(Drawn::Shadow);
/// assert_eq!(late.subject(), "shadow");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum DrawableProblem {
    /// A category (of a primitive, a composite or a composite's part) that the
    /// CategoryMap does not define (`check`: S2-DRW-004).
    UnknownCategory(i32),
    /// A vertex line ID that is missing from a line-ID map (`check`:
    /// S2-LID-001).
    UnknownLineId(i32),
    /// A vertex line ID, in a file that has no line-ID map at all (`check`:
    /// S2-LID-001).
    NoLineIdMaps(i32),
    /// A vertex time outside the node's time box `[earliest, latest]`, or NaN
    /// (`check`: S2-DRW-003).
    OutsideNode {
        /// The node's earliest time.
        earliest: f64,
        /// The node's latest time.
        latest: f64,
    },
    /// A primitive without vertices or a composite without parts (S2-DRW-005).
    Empty,
    /// A drawable or shadow list that is not in start-time order (S2-DRW-002):
    /// which of the two.
    Unsorted(Drawn),
    /// A shadow whose category is not a preview category of the map (S2-DRW-009).
    ShadowCategory(i32),
    /// A shadow without category weights (S2-DRW-007).
    NoWeights,
    /// A shadow weight whose category the map does not define (S2-DRW-008).
    WeightCategory(i32),
}

/// What a tree node's list holds: drawables or shadows
/// ([`DrawableProblem::Unsorted`]).
///
/// ```
/// use slog2_format::error::Drawn;
/// assert_eq!(Drawn::Shadow.to_string(), "shadow");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Drawn {
    /// Drawables (primitives and composites).
    Drawable,
    /// Shadows (the previews of a stub).
    Shadow,
}

impl std::fmt::Display for Drawn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Drawn::Drawable => "drawable",
            Drawn::Shadow => "shadow",
        })
    }
}

impl DrawableProblem {
    /// The problem `check` reports for the same thing.
    ///
    /// ```
    /// use slog2_format::check::Problem;
    /// use slog2_format::error::DrawableProblem;
    /// assert_eq!(DrawableProblem::UnknownLineId(7).problem(), Problem::UnknownLineId);
    /// assert_eq!(DrawableProblem::NoLineIdMaps(7).problem(), Problem::UnknownLineId);
    /// ```
    pub fn problem(&self) -> Problem {
        match self {
            DrawableProblem::UnknownCategory(_) => Problem::UnknownCategory,
            DrawableProblem::UnknownLineId(_) | DrawableProblem::NoLineIdMaps(_) => {
                Problem::UnknownLineId
            }
            DrawableProblem::OutsideNode { .. } => Problem::OutsideNode,
            DrawableProblem::Empty => Problem::Empty,
            DrawableProblem::Unsorted(_) => Problem::Unsorted,
            DrawableProblem::ShadowCategory(_) => Problem::ShadowCategory,
            DrawableProblem::NoWeights => Problem::NoWeights,
            DrawableProblem::WeightCategory(_) => Problem::WeightCategory,
        }
    }

    /// What the problem is about, as the error's sentence names it:
    /// "drawable", "shadow" or "shadow weight".
    ///
    /// ```
    /// use slog2_format::error::DrawableProblem;
    /// assert_eq!(DrawableProblem::WeightCategory(3).subject(), "shadow weight");
    /// assert_eq!(DrawableProblem::Empty.subject(), "drawable");
    /// ```
    pub fn subject(&self) -> &'static str {
        match self {
            DrawableProblem::Unsorted(Drawn::Shadow)
            | DrawableProblem::ShadowCategory(_)
            | DrawableProblem::NoWeights => "shadow",
            DrawableProblem::WeightCategory(_) => "shadow weight",
            _ => "drawable",
        }
    }
}

impl std::fmt::Display for DrawableProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DrawableProblem::UnknownCategory(c) => {
                write!(f, "has category {c}, which is not in the CategoryMap")
            }
            DrawableProblem::UnknownLineId(l) => {
                write!(f, "has line ID {l}, which is missing from a line-ID map")
            }
            DrawableProblem::NoLineIdMaps(l) => write!(
                f,
                "has line ID {l}, which is missing from a line-ID map (the file has no line-ID map)"
            ),
            DrawableProblem::OutsideNode { earliest, latest } => write!(
                f,
                "has a time outside the node's box [{earliest:?},{latest:?}]"
            ),
            DrawableProblem::Empty => f.write_str("has no vertices or no parts"),
            DrawableProblem::Unsorted(_) => f.write_str(
                "starts before the one it follows (the list is not in start-time order)",
            ),
            DrawableProblem::ShadowCategory(c) => write!(
                f,
                "has category {c}, which is not a preview category of the CategoryMap"
            ),
            DrawableProblem::NoWeights => f.write_str("has no category weights"),
            DrawableProblem::WeightCategory(c) => {
                write!(f, "names category {c}, which is not in the CategoryMap")
            }
        }
    }
}
