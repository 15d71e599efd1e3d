//! `mpelog convert`: format conversion, and lossless rewriting through the codecs.
//!
//! Every conversion prints one summary on stderr: what was read (format, bytes,
//! records), what was written (format, bytes) and, to SLOG-2, the tree and the
//! events that could not be paired.

use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::Output;
use crate::progress::bytes_bar;
use std::path::Path;
use std::time::Instant;

/// Tree options for conversions that write SLOG-2.
#[derive(Debug, Clone)]
pub struct TreeOptions {
    /// Leaf byte size limit.
    pub leaf_bytes: u32,
    /// Children per node.
    pub children: u16,
    /// Node storage: none, stored, deflate or deflate:LEVEL.
    pub compress: String,
    /// SLOG-2 to SLOG-2: build a new tree with these options (`--leaf-bytes`
    /// or `--children` given) instead of keeping the input's.
    pub retree: bool,
}

impl Default for TreeOptions {
    /// clog2TOslog2's defaults: 64 KiB leaves, 2 children, plain nodes.
    fn default() -> TreeOptions {
        TreeOptions {
            leaf_bytes: 64 * 1024,
            children: 2,
            compress: "none".into(),
            retree: false,
        }
    }
}

/// Converts any trace `convert` reads into `DIR/converted.slog2` with the
/// default tree (for commands that read SLOG-2: stats, export, render, serve)
/// and returns that path.
pub fn to_temp_slog2(input: &Path, dir: &Path, name: &str) -> CliResult<std::path::PathBuf> {
    let out = dir.join(name);
    run(input, &out, Some("slog2"), TreeOptions::default())?;
    Ok(out)
}

/// Runs `mpelog convert`.
pub fn run(input: &Path, output: &Path, format: Option<&str>, tree: TreeOptions) -> CliResult {
    let target = match format {
        Some(name) => mpelog::convert::format_named(name).ok_or_else(|| {
            CliError::Usage(format!(
                "--format {name}: unknown output format (known: clog2, clog, slog2, alog, slog)"
            ))
        })?,
        None => {
            let ext = output.extension().and_then(|e| e.to_str()).unwrap_or("");
            mpelog::convert::format_named(ext).ok_or_else(|| {
                CliError::Usage(format!(
                    "cannot tell the output format from {:?}: give --format clog2, clog, slog2, alog or slog, or use that extension",
                    shown(output)
                ))
            })?
        }
    };
    // Options are checked before anything is read or written.
    let opts = mpelog::convert::Options::default()
        .tree(tree_options(&tree)?)
        .retree(tree.retree);
    let out = Output::create(output, &[input], false)?;
    let started = Instant::now();
    let bar = bytes_bar(0, "converting");
    let done = mpelog::convert::convert(input, target, &out, &opts, &mut |step| match step {
        mpelog::trace::Step::Read { at, total } => {
            bar.set_length(total);
            bar.set_position(at);
        }
        mpelog::trace::Step::Events { at } => crate::progress::count_events(&bar, at),
        _ => {}
    });
    bar.finish_and_clear();
    let done = match done {
        // A pair that does not convert is the command line's mistake.
        Err(mpelog::trace::Error::Unsupported { what, .. }) => return Err(CliError::Usage(what)),
        done => done?,
    };
    let output_bytes = done.output_bytes;
    let shown_out = crate::output::name(&out);
    out.commit()?;
    let secs = started.elapsed().as_secs_f64();
    if let Some(counts) = done.stats.as_ref().and_then(|s| s.otf2.as_ref()) {
        eprintln!(
            "converted {} (OTF2, {} events) to {} (SLOG-2, {} bytes) in {:.2} s: {}",
            shown(&done.input),
            counts.events,
            shown_out,
            output_bytes,
            secs,
            done.details.join("; ")
        );
        return Ok(());
    }
    eprintln!(
        "{} {} ({}, {} bytes{}) to {} ({}, {} bytes) in {:.2} s, {:.1} MB/s",
        done.verb,
        shown(&done.input),
        done.source.name(),
        done.input_bytes,
        done.records
            .map(|r| format!(", {r} records"))
            .unwrap_or_default(),
        shown_out,
        done.output_format,
        output_bytes,
        secs,
        done.input_bytes as f64 / 1e6 / secs.max(1e-9)
    );
    for line in &done.details {
        eprintln!("{line}");
    }
    Ok(())
}

/// The library's tree options, checked (bad ones are a usage error).
pub fn tree_options(tree: &TreeOptions) -> CliResult<slog2_format::write::TreeOptions> {
    let compression =
        slog2_format::frame::Compression::parse(&tree.compress).map_err(CliError::Usage)?;
    let opts = slog2_format::write::TreeOptions::default()
        .leaf_bytes(tree.leaf_bytes)
        .children(tree.children)
        .compression(compression);
    if opts.validate().is_err() {
        return Err(CliError::Usage(format!(
            "--leaf-bytes {} --children {}: leaves take 64 to 2147483647 bytes, nodes 2 to 32767 children",
            tree.leaf_bytes, tree.children
        )));
    }
    Ok(opts)
}
