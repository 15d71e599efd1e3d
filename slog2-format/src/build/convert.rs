//! CLOG2 → SLOG-2 in one pass: records are read block by block, turned into
//! primitives and placed in the tree as they complete.

use super::events::{Clog2Drawables, Unmatched};
use super::tree::{TreeOptions, TreeStats, TreeWriter};
use crate::error::{Error, Result};
use clog2_format::{Body, Clog2Reader, Record, Source};
use std::io::{Seek, Write};
use std::sync::mpsc;

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

/// Records per batch handed from the reading thread to the converting one.
const BATCH: usize = 4096;

/// A batch of records with their offsets, and the input offset after them.
type Batch = (Vec<(Record, u64)>, u64);

/// Converts the records of `reader` into a SLOG-2 file written to `out` (which
/// must be at its start). `progress` is called now and then with the input offset.
///
/// Two threads: one reads and decodes the CLOG2 blocks, the calling thread pairs
/// events and builds the tree; batches of records pass between them through a
/// bounded channel (a few batches in flight), so memory stays bounded.
pub fn clog2_to_slog2<S: Source + Send, W: Write + Seek>(
    reader: &mut Clog2Reader<S>,
    out: W,
    opts: TreeOptions,
    mut progress: impl FnMut(u64),
) -> Result<(W, ConvertStats)> {
    let clog = |e: clog2_format::Error| Error::Clog2(Box::new(e));
    let mut events = Clog2Drawables::new(reader.preamble().info());
    let mut tree = TreeWriter::new(out, opts)?;
    let (full_tx, full_rx) =
        mpsc::sync_channel::<std::result::Result<Batch, clog2_format::Error>>(4);
    let (empty_tx, empty_rx) = mpsc::channel::<Vec<(Record, u64)>>();
    let (records, input_bytes) = std::thread::scope(|scope| -> Result<(u64, u64)> {
        let reader_thread = scope.spawn(move || loop {
            let mut batch = empty_rx
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(BATCH));
            batch.clear();
            let mut end = false;
            while batch.len() < BATCH {
                match reader.next_record_at() {
                    Ok(Some((rec, at))) => {
                        end = matches!(rec.body, Body::EndLog);
                        batch.push((rec, at));
                        if end {
                            break;
                        }
                    }
                    Ok(None) => {
                        end = true;
                        break;
                    }
                    Err(e) => {
                        let _ = full_tx.send(Err(e));
                        return;
                    }
                }
            }
            if full_tx.send(Ok((batch, reader.offset()))).is_err() || end {
                return;
            }
        });
        // Pairing and tree building; `full_rx` is consumed here, so when this ends
        // (at ENDLOG or on an error) the reader thread's next send fails and it
        // returns.
        let pairing = (|| -> Result<(u64, u64)> {
            let mut records = 0u64;
            let mut offset = 0u64;
            let mut last_end = f64::NEG_INFINITY;
            'batches: for msg in full_rx {
                let (batch, after) = msg.map_err(clog)?;
                for (rec, at) in &batch {
                    records += 1;
                    if let Some(p) = events.push(rec) {
                        let end = p.latest();
                        let problem = if !p.times_finite() {
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
                                offset: *at,
                                time: rec.time,
                                end,
                                problem,
                            }));
                        }
                        last_end = end;
                        tree.add(p)?;
                    }
                    if events.ended() {
                        offset = after;
                        break 'batches;
                    }
                }
                offset = after;
                progress(after);
                let _ = empty_tx.send(batch);
            }
            Ok((records, offset))
        })();
        // Join explicitly: joining waits until the thread has exited, its
        // thread-locals released; the scope's own wait at its end does not (a
        // leak checker run right after this function saw the thread's handle).
        if let Err(panic) = reader_thread.join() {
            std::panic::resume_unwind(panic);
        }
        pairing
    })?;
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
