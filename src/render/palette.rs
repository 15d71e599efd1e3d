//! The one palette of the wait states (spec/queries.md §6.7): each
//! pattern's hatch colour and the way its stripes lean, the colour of the
//! "other patterns" share and of the critical path. `render --waits` draws
//! with it and `mpelog serve` hands it to the viewer (`/api/info`'s
//! `patterns`), so the picture and the page agree.
//!
//! The 14 colours were chosen far apart (at least 32 CIELAB units from one
//! another, 39 from white, from the ticks' yellow, from the viewer's outline
//! and from the grey of other patterns), all bright enough to stand out on
//! the black plot, and but for Late Sender's red at least 17 units from any
//! of MPE's category colours (Wait at Barrier is no longer MPE_Isend_waited's
//! magenta). A colour alone still cannot tell a pattern from a
//! category, so a pattern is always drawn hatched, its legend swatch too.

use crate::analysis::Pattern;

/// The colour of the critical path (bars and connectors).
pub const PATH_COLOUR: &str = "#ffffff";

/// The colour of the 1-pixel edges on both sides of every hatch stripe
/// (§6.7): a stripe shows over any state, one of its own colour too.
pub const STRIPE_EDGE: &str = "#000000";

/// The colour of a cell's "other patterns" share (code 255, §6.7): a
/// neutral grey.
pub const OTHER_PATTERNS_COLOUR: &str = "#9e9e9e";

/// The colour of a pattern's hatch (spec/queries.md §6.7).
///
/// ```
/// use mpelog::analysis::Pattern;
/// use mpelog::render::pattern_colour;
/// assert_eq!(pattern_colour(Pattern::LateSender), "#ff2020");
/// // Every pattern its own colour.
/// let mut all: Vec<_> = Pattern::ALL.iter().map(|p| pattern_colour(*p)).collect();
/// all.sort();
/// all.dedup();
/// assert_eq!(all.len(), Pattern::ALL.len());
/// ```
pub fn pattern_colour(p: Pattern) -> &'static str {
    match p {
        Pattern::LateSender => "#ff2020",
        Pattern::LateSenderWrongOrder => "#ff9988",
        Pattern::LswoDifferentSource => "#bb8822",
        Pattern::LswoSameSource => "#ffff99",
        Pattern::LateReceiver => "#00e5ff",
        Pattern::WaitAtBarrier => "#0088ee",
        Pattern::BarrierCompletion => "#00cc99",
        Pattern::WaitAtNxN => "#ff66ff",
        Pattern::NxNCompletion => "#ffaaee",
        Pattern::LateBroadcast => "#00ff77",
        Pattern::EarlyReduce => "#88ff00",
        Pattern::EarlyScan => "#77aa11",
        Pattern::WaitAtFinalize => "#9966ff",
        Pattern::InitCompletion => "#99bb77",
    }
}

/// Whether a pattern's stripes lean right (`/`: the point-to-point patterns,
/// whose cause is a message) or left (`\`: the collective ones).
///
/// ```
/// use mpelog::analysis::Pattern;
/// assert!(mpelog::render::leans_right(Pattern::LateReceiver));
/// assert!(!mpelog::render::leans_right(Pattern::WaitAtBarrier));
/// ```
pub fn leans_right(p: Pattern) -> bool {
    matches!(
        p,
        Pattern::LateSender
            | Pattern::LateSenderWrongOrder
            | Pattern::LswoDifferentSource
            | Pattern::LswoSameSource
            | Pattern::LateReceiver
    )
}
