//! SLOG-2 (spec/slog2.md, spec/slog2-compressed.md): tree options, files
//! converted from generated CLOG2 traces, and query windows.
//!
//! * [`tree_options`] combines a leaf-size, a children and a compression
//!   strategy; [`leaf_bytes`], [`children`], [`compression`] and
//!   [`framed_compression`] are the usual ones.
//! * [`plain_file`] and [`compressed_file`] convert a trace from
//!   [`super::clog2::small_synth_options`] with `clog2_to_slog2` under random
//!   tree options: `SLOG 2.0.6` nodes, or framed `SLOG 2.0.6Z` nodes with any
//!   codec. They pass `slog2_format::check::check` without errors.
//! * [`RelWindow`], [`window`] and [`windows`]: query windows placed relative to
//!   a file's time range, from a little before it to a little after it.

use super::clog2::{generate, small_synth_options};
use clog2_format::synth;
use proptest::prelude::*;
use slog2_format::convert::{clog2_to_slog2, ConvertStats};
use slog2_format::frame::Compression;
use slog2_format::write::TreeOptions;
use std::io::Cursor;
use std::ops::Range;

/// Leaf sizes of [`leaf_bytes`]: tiny leaves (deep trees) to Java's default.
pub const LEAF_BYTES: [u32; 7] = [256, 700, 1024, 2048, 4096, 8192, 65536];

/// Children per node of [`children`].
pub const CHILDREN: Range<u16> = 2..5;

/// One of [`LEAF_BYTES`].
pub fn leaf_bytes() -> impl Strategy<Value = u32> {
    prop::sample::select(LEAF_BYTES.to_vec())
}

/// A number of children per node from [`CHILDREN`].
pub fn children() -> impl Strategy<Value = u16> {
    CHILDREN
}

/// A framed codec: stored, deflate or the column form, at any level 0 to 9.
pub fn framed_compression() -> impl Strategy<Value = Compression> {
    prop_oneof![
        Just(Compression::Stored),
        (0u32..=9).prop_map(Compression::Deflate),
        (0u32..=9).prop_map(Compression::Columns),
    ]
}

/// Plain nodes (`Compression::None`) or a [`framed_compression`].
pub fn compression() -> impl Strategy<Value = Compression> {
    prop_oneof![Just(Compression::None), framed_compression()]
}

/// Tree options with the leaf size, children and compression the three
/// strategies give.
pub fn tree_options(
    leaf_bytes: impl Strategy<Value = u32>,
    children: impl Strategy<Value = u16>,
    compression: impl Strategy<Value = Compression>,
) -> impl Strategy<Value = TreeOptions> {
    (leaf_bytes, children, compression).prop_map(|(leaf_bytes, children, compression)| {
        TreeOptions::default()
            .leaf_bytes(leaf_bytes)
            .children(children)
            .compression(compression)
    })
}

/// Tree options for plain files: [`leaf_bytes`], [`children`], no compression.
pub fn plain_tree_options() -> impl Strategy<Value = TreeOptions> {
    tree_options(leaf_bytes(), children(), Just(Compression::None))
}

/// Tree options for compressed files: [`leaf_bytes`], [`children`], a
/// [`framed_compression`].
pub fn compressed_tree_options() -> impl Strategy<Value = TreeOptions> {
    tree_options(leaf_bytes(), children(), framed_compression())
}

/// Converts the CLOG2 trace `clog2` into an in-memory SLOG-2 file under `opts`;
/// returns the bytes and the converter's statistics.
///
/// # Panics
///
/// When the trace does not read or convert (a generated trace always does).
pub fn convert(clog2: &[u8], opts: TreeOptions) -> (Vec<u8>, ConvertStats) {
    let mut r = clog2_format::Clog2Reader::from_slice(clog2).expect("a readable CLOG2 trace");
    let (out, stats) =
        clog2_to_slog2(&mut r, Cursor::new(Vec::new()), opts, |_| {}).expect("the trace converts");
    (out.into_inner(), stats)
}

/// The SLOG-2 file converted from the trace `trace` describes under `opts`.
pub fn converted(trace: &synth::Options, opts: TreeOptions) -> Vec<u8> {
    convert(&generate(trace), opts).0
}

/// SLOG-2 files converted from the traces `traces` gives under the tree options
/// `trees` gives.
pub fn file_with(
    traces: impl Strategy<Value = synth::Options>,
    trees: impl Strategy<Value = TreeOptions>,
) -> impl Strategy<Value = Vec<u8>> {
    (traces, trees).prop_map(|(t, o)| converted(&t, o))
}

/// A plain (`SLOG 2.0.6`) file: a [`small_synth_options`] trace under
/// [`plain_tree_options`].
pub fn plain_file() -> impl Strategy<Value = Vec<u8>> {
    file_with(small_synth_options(), plain_tree_options())
}

/// A compressed (`SLOG 2.0.6Z`) file: a [`small_synth_options`] trace under
/// [`compressed_tree_options`].
pub fn compressed_file() -> impl Strategy<Value = Vec<u8>> {
    file_with(small_synth_options(), compressed_tree_options())
}

/// A [`plain_file`] or a [`compressed_file`].
pub fn file() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![plain_file(), compressed_file()]
}

/// A query window relative to a time range `[t0, t1]` of span `s = t1 - t0`:
/// it starts at `t0 - 0.05 s + at × 1.1 s` (from 5 % before the range to 5 %
/// after it) and is `width × s` long.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelWindow {
    /// Where the window starts, 0 to 1 (see the type's documentation).
    pub at: f64,
    /// The window's length as a fraction of the span.
    pub width: f64,
}

impl RelWindow {
    /// The window `[start, end)` over the time range `[t0, t1]`.
    pub fn place(self, t0: f64, t1: f64) -> (f64, f64) {
        let span = t1 - t0;
        let start = t0 - 0.05 * span + self.at * 1.1 * span;
        (start, start + self.width * span)
    }
}

/// A window starting anywhere (`at` in [0, 1)) of width below `max_width`
/// (a fraction of the span; positive).
pub fn window(max_width: f64) -> impl Strategy<Value = RelWindow> {
    (0.0f64..1.0, 0.0f64..max_width).prop_map(|(at, width)| RelWindow { at, width })
}

/// `count` [`window`]s.
pub fn windows(max_width: f64, count: Range<usize>) -> impl Strategy<Value = Vec<RelWindow>> {
    prop::collection::vec(window(max_width), count)
}
