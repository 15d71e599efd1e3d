//! Annotation files (spec/annotation.md): options for `mpelog_annotate::annotate`
//! and generated CLOG2 traces with their annotations.
//!
//! [`annotated_trace`] generates a trace ([`super::clog2::small_synth_options`])
//! and annotates it under [`annotate_options`]; the annotation opens over its
//! trace and answers window queries.

use super::clog2::{generate, small_synth_options};
use clog2_format::synth;
use mpelog_annotate::{annotate as annotate_trace, AnnotateOptions};
use proptest::prelude::*;
use std::io::Cursor;
use std::ops::Range;

/// Leaf sizes of [`annotate_options`] (a leaf holds at least one whole block).
pub const LEAF_BYTES: [u32; 4] = [512, 2048, 8192, 65536];

/// Children per node of [`annotate_options`].
pub const CHILDREN: Range<u16> = 2..5;

/// Annotation options with the leaf size and children the two strategies give.
pub fn annotate_options_with(
    leaf_bytes: impl Strategy<Value = u32>,
    children: impl Strategy<Value = u16>,
) -> impl Strategy<Value = AnnotateOptions> {
    (leaf_bytes, children).prop_map(|(leaf_bytes, children)| {
        AnnotateOptions::default().tree(
            slog2_format::write::TreeOptions::default()
                .leaf_bytes(leaf_bytes)
                .children(children),
        )
    })
}

/// Annotation options: one of [`LEAF_BYTES`], children from [`CHILDREN`].
pub fn annotate_options() -> impl Strategy<Value = AnnotateOptions> {
    annotate_options_with(prop::sample::select(LEAF_BYTES.to_vec()), CHILDREN)
}

/// Annotates the CLOG2 trace `clog2` (whole, in memory) under `opts`; returns
/// the annotation's bytes.
///
/// # Panics
///
/// When the trace does not read or annotate (a generated trace always does).
pub fn annotate(clog2: &[u8], opts: AnnotateOptions) -> Vec<u8> {
    let mut r = clog2_format::Clog2Reader::from_slice(clog2).expect("a readable CLOG2 trace");
    let preamble = &clog2[..clog2.len().min(clog2_format::preamble::PREAMBLE_LEN)];
    let (out, _) = annotate_trace(
        &mut r,
        Cursor::new(Vec::new()),
        opts.trace(clog2.len() as u64, preamble),
        |_| {},
    )
    .expect("the trace annotates");
    out.into_inner()
}

/// The trace `trace` describes and its annotation under `opts`: `(trace,
/// annotation)`.
pub fn annotated(trace: &synth::Options, opts: AnnotateOptions) -> (Vec<u8>, Vec<u8>) {
    let clog2 = generate(trace);
    let idx = annotate(&clog2, opts);
    (clog2, idx)
}

/// A generated trace and its annotation, `(trace, annotation)`: a
/// [`small_synth_options`] trace under [`annotate_options`].
pub fn annotated_trace() -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
    (small_synth_options(), annotate_options()).prop_map(|(t, o)| annotated(&t, o))
}

/// The bytes of an [`annotated_trace`]'s annotation (without its trace it only
/// opens as stale: use the pair to query it).
pub fn file() -> impl Strategy<Value = Vec<u8>> {
    annotated_trace().prop_map(|(_, idx)| idx)
}
