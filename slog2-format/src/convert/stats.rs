//! What a conversion did: [`ConvertStats`] (with the tree writer's figures) and
//! [`PairStats`] (pairing alone, whatever took the primitives), and the end-time
//! order check every converter applies.

use crate::convert::clog2::events::Unmatched;
use crate::convert::otf2::Otf2Counts;
use crate::error::{Error, OrderProblem, Result};
use crate::types::{Category, LineIdMap};
use crate::write::prim::Prim;
use crate::write::tree::{TreeOptions, TreeStats, TreeWriter};
use crate::write::PrimSink;
use std::io::{Seek, Write};

/// What a conversion did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConvertStats {
    /// Input records read (CLOG2 and CLOG: up to and including ENDLOG; ALOG:
    /// lines with a record; SLOG-1: interval records converted).
    pub records: u64,
    /// Input bytes consumed (CLOG2 and CLOG; 0 for ALOG and SLOG-1, which are
    /// converted from a parsed file).
    pub input_bytes: u64,
    /// The tree writer's numbers.
    pub tree: TreeStats,
    /// Events that could not be paired or placed.
    pub unmatched: Unmatched,
    /// OTF2 conversions only: the events read and what was drawn of them, by
    /// kind (`None` for the other formats).
    pub otf2: Option<Otf2Counts>,
}

/// What pairing an input's events did, whatever took the primitives.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct PairStats {
    /// Input records read (as [`ConvertStats::records`](ConvertStats)).
    pub records: u64,
    /// Input bytes consumed (CLOG2 and CLOG; 0 for ALOG and SLOG-1).
    pub input_bytes: u64,
    /// Events that could not be paired or placed.
    pub unmatched: Unmatched,
    /// As [`ConvertStats::otf2`](ConvertStats).
    pub otf2: Option<Otf2Counts>,
}

impl PairStats {
    /// The conversion's figures with the tree writer's: what an `X_to_slog2`
    /// gives, for a caller that fed the tree writer through a sink of its
    /// own (one that stops or counts, say) with `X_into`.
    ///
    /// ```
    /// use slog2_format::write::{TreeOptions, TreeWriter};
    /// let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut r = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let tree = TreeWriter::new(std::io::Cursor::new(Vec::new()), TreeOptions::default())?;
    /// let ((_, tree), pair) = slog2_format::convert::clog2_into(&mut r, tree, |_| {})?;
    /// let records = pair.records;
    /// let stats = pair.with_tree(tree);
    /// assert_eq!(stats.records, records);
    /// assert!(stats.tree.drawables > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_tree(self, tree: TreeStats) -> ConvertStats {
        ConvertStats {
            records: self.records,
            input_bytes: self.input_bytes,
            tree,
            unmatched: self.unmatched,
            otf2: self.otf2,
        }
    }
}

/// Checks that the primitive `p`, completed by the record at byte `offset` of
/// time `time`, has finite times and does not end before the previous one
/// (`last_end`, advanced to its end); the converters need end-time order.
pub(crate) fn in_end_order(p: &Prim, last_end: &mut f64, offset: u64, time: f64) -> Result<()> {
    let end = p.latest();
    let problem = if !p.times_finite() {
        OrderProblem::NotFinite
    } else if end < *last_end {
        OrderProblem::BeforePrevious {
            previous_end: *last_end,
        }
    } else {
        *last_end = end;
        return Ok(());
    };
    Err(Error::OutOfOrder {
        offset,
        time,
        end,
        problem,
    })
}

/// A conversion into a SLOG-2 file: `pair` (a converter's `X_into`) feeds a tree
/// writer over `out`, and both figures are joined. Every `X_to_slog2` is this.
pub(crate) fn into_tree<W: Write + Seek>(
    out: W,
    opts: TreeOptions,
    pair: impl FnOnce(TreeWriter<W>) -> Result<((W, TreeStats), PairStats)>,
) -> Result<(W, ConvertStats)> {
    let tree = TreeWriter::new(out, opts)?;
    let ((out, tree), stats) = pair(tree)?;
    Ok((out, stats.with_tree(tree)))
}

/// Hands drawables made in memory from `records` input records (in increasing
/// end time) to `sink`, then the legend and the line-ID maps; `progress` once,
/// at the end. The `X_into` of the formats converted from memory.
pub(crate) fn from_memory<P: PrimSink>(
    (prims, categories, maps): (Vec<Prim>, &[Category], Vec<LineIdMap>),
    mut sink: P,
    records: u64,
    unmatched: Unmatched,
    progress: impl FnOnce(u64),
) -> Result<(P::Output, PairStats)> {
    for p in prims {
        sink.add(p)?;
    }
    let output = sink.finish(categories, maps)?;
    progress(records);
    Ok((
        output,
        PairStats {
            records,
            input_bytes: 0,
            unmatched,
            otf2: None,
        },
    ))
}
