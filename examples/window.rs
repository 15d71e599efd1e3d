//! Queries a time window of a SLOG-2 file: reads only the tree nodes that meet it.
//!
//! ```sh
//! cargo run --example window [FILE.slog2 FROM TO]
//! ```
//!
//! Without arguments, it converts a generated trace in memory and queries the
//! middle tenth of it.

use slog2_format::convert::clog2_to_slog2;
use slog2_format::write::TreeOptions;
use slog2_format::Slog2Reader;
use std::io::Cursor;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut reader, from, to) = if let [path, from, to] = &args[..] {
        let file = std::fs::read(path)?;
        (
            Slog2Reader::new(Cursor::new(file))?,
            from.parse()?,
            to.parse()?,
        )
    } else {
        let clog2 = clog2_format::synth::generate_vec(
            &clog2_format::synth::Options::default()
                .ranks(4)
                .events(50_000),
        )?;
        let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
        let (out, _) = clog2_to_slog2(
            &mut trace,
            Cursor::new(Vec::new()),
            TreeOptions::default(),
            |_| {},
        )?;
        let reader = Slog2Reader::new(Cursor::new(out.into_inner()))?;
        let root = reader.tree_dir().expect("a tree").value.entries[0];
        let span = root.latest - root.earliest;
        let from = root.earliest + 0.45 * span;
        (reader, from, from + 0.1 * span)
    };
    let answer = reader.window(from, to)?;
    println!(
        "[{from}, {to}): {} drawables from {} of the file's nodes ({} bytes read)",
        answer.drawables.len(),
        answer.counters.nodes_read,
        answer.counters.bytes_read
    );
    for d in answer.drawables.iter().take(10) {
        let v = &d.value;
        println!(
            "  node ({},{}): category {} from {:.6} to {:.6}",
            d.node.depth,
            d.node.xpos,
            v.category(),
            v.earliest(),
            v.latest()
        );
    }
    // A preview for a view 800 pixels wide: subtrees narrower than a pixel are
    // summarised by their shadows instead of being read.
    let preview = reader.window_preview(from, to, 800)?;
    println!(
        "preview: {} drawables and {} shadows from {} nodes",
        preview.drawables.len(),
        preview.shadows.len(),
        preview.counters.nodes_read
    );
    Ok(())
}
