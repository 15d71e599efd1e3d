//! Indexes an existing CLOG2 trace with an annotation file (the trace is not
//! rewritten), then queries a time window through it.
//!
//! ```sh
//! cargo run --example annotate [TRACE.clog2]
//! ```
//!
//! Writes `TRACE.clog2.idx` beside the trace. Without an argument, it annotates a
//! generated trace in a temporary directory.

use mpelog_annotate::{annotate, AnnotateOptions, Annotation};
use std::fs::File;
use std::io::{BufWriter, Read};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let trace = match std::env::args_os().nth(1) {
        Some(path) => PathBuf::from(path),
        None => {
            let path = dir.path().join("trace.clog2");
            let opts = clog2_format::synth::Options::default()
                .ranks(4)
                .events(50_000);
            clog2_format::synth::generate(File::create(&path)?, &opts)?;
            path
        }
    };
    let mut index = trace.clone().into_os_string();
    index.push(".idx");

    // Annotating reads the trace once; the annotation records the trace's
    // preamble so that a changed trace is recognised later.
    let len = std::fs::metadata(&trace)?.len();
    let mut preamble = Vec::new();
    File::open(&trace)?.take(1024).read_to_end(&mut preamble)?;
    let mut reader = clog2_format::Clog2Reader::new(File::open(&trace)?)?;
    let out = BufWriter::new(File::create(&index)?);
    let opts = AnnotateOptions::default();
    let (out, stats) = annotate(&mut reader, out, opts.trace(len, &preamble), |_| {})?;
    out.into_inner()?.sync_all()?;
    println!(
        "{} -> {}: {} records in {} leaves, {} drawables in {} nodes (depth {})",
        trace.display(),
        PathBuf::from(&index).display(),
        stats.records,
        stats.leaves,
        stats.drawables,
        stats.nodes,
        stats.depth
    );

    // A window query reads the annotation's nodes that meet the window and only
    // the trace blocks of the leaves that meet it.
    let mut ann = Annotation::new(File::open(&index)?, File::open(&trace)?)?;
    let root = ann.tree_dir().entries[0];
    let span = root.latest - root.earliest;
    let from = root.earliest + 0.45 * span;
    let answer = ann.window(from, from + 0.01 * span)?;
    println!(
        "{} drawables from {} nodes ({} leaves), {} annotation and {} trace bytes read",
        answer.drawables.len(),
        answer.counters.nodes_read,
        answer.counters.leaves_read,
        answer.counters.annotation_bytes,
        answer.counters.trace_bytes
    );
    Ok(())
}
