//! CLOG2 → SLOG-2 in one pass: records are read block by block, turned into
//! primitives and placed in the tree as they complete.

use super::events::{Clog2Drawables, Unmatched};
use super::tree::{TreeOptions, TreeStats, TreeWriter};
use crate::error::{Error, Result};
use clog2_format::{Clog2Reader, Source};
use std::io::{Seek, Write};

/// What a conversion did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConvertStats {
    /// Records read (up to and including ENDLOG).
    pub records: u64,
    /// CLOG2 bytes consumed.
    pub input_bytes: u64,
    /// The tree writer's numbers.
    pub tree: TreeStats,
    /// Events that could not be paired or placed.
    pub unmatched: Unmatched,
}

/// Converts the records of `reader` into a SLOG-2 file written to `out` (which
/// must be at its start). `progress` is called now and then with the input offset.
pub fn clog2_to_slog2<S: Source, W: Write + Seek>(
    reader: &mut Clog2Reader<S>,
    out: W,
    opts: TreeOptions,
    mut progress: impl FnMut(u64),
) -> Result<(W, ConvertStats)> {
    let clog = |e: clog2_format::Error| Error::Clog2(Box::new(e));
    let mut events = Clog2Drawables::new(reader.preamble().info());
    let mut tree = TreeWriter::new(out, opts)?;
    let mut records = 0u64;
    let mut last_block = 0;
    let mut last_end = f64::NEG_INFINITY;
    while let Some((rec, at)) = reader.next_record_at().map_err(clog)? {
        records += 1;
        if let Some(p) = events.push(&rec) {
            let (start, end) = (p.earliest(), p.latest());
            let problem = if !start.is_finite() || !end.is_finite() {
                Some("which is not a finite time".to_string())
            } else if end < last_end {
                Some(format!(
                    "before the previous drawable's end {last_end}: the records must be in time order, as MPE's merger writes them"
                ))
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(clog(clog2_format::Error::OutOfOrder {
                    offset: at,
                    time: rec.time,
                    end,
                    problem,
                }));
            }
            last_end = end;
            tree.add(p)?;
        }
        if events.ended() {
            break;
        }
        if reader.blocks_read() != last_block {
            last_block = reader.blocks_read();
            progress(reader.offset());
        }
    }
    let input_bytes = reader.offset();
    let (categories, maps, unmatched) = events.finish();
    let (out, tree) = tree.finish(&categories, maps)?;
    Ok((
        out,
        ConvertStats {
            records,
            input_bytes,
            tree,
            unmatched,
        },
    ))
}
