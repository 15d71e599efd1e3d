//! `mpelog filter`: keep or remove categories, cut a window and re-tree a
//! SLOG-2 file ([`mpelog::filter`]), written atomically.

use crate::detect::Format;
use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::Output;
use mpelog::filter::{filter, Error, Options};
use mpelog::trace::TreeMut;
use std::path::Path;

/// What `mpelog filter` was asked.
#[derive(Debug, Clone)]
pub struct Args {
    /// `--remove`: category indices or names.
    pub remove: Vec<String>,
    /// `--keep`.
    pub keep: Option<Vec<String>>,
    /// `--from`.
    pub from: Option<f64>,
    /// `--to`.
    pub to: Option<f64>,
    /// Tree options.
    pub tree: super::convert::TreeOptions,
}

/// Category indices from indices or names of the legend.
fn categories(asked: &[String], legend: &[slog2_format::types::Category]) -> CliResult<Vec<i32>> {
    asked
        .iter()
        .map(|a| {
            if let Ok(i) = a.trim().parse::<i32>() {
                return Ok(i);
            }
            let named: Vec<i32> = legend
                .iter()
                .filter(|c| c.name.text().eq_ignore_ascii_case(a.trim()))
                .map(|c| c.index)
                .collect();
            match named[..] {
                [i] => Ok(i),
                [] => Err(CliError::Usage(format!(
                    "no category {a:?} in the legend (give an index or a name; `mpelog print FILE | grep ^category` lists them)"
                ))),
                _ => {
                    let list: Vec<String> = named.iter().map(i32::to_string).collect();
                    Err(CliError::Usage(format!(
                        "{} categories are named {a:?} (indexes {}): give the index of the one you mean",
                        named.len(),
                        list.join(", ")
                    )))
                }
            }
        })
        .collect()
}

/// Runs `mpelog filter`.
pub fn run(input: &Path, output: &Path, args: Args) -> CliResult {
    let tree = super::convert::tree_options(&args.tree)?;
    let out = Output::create(output, &[input], false)?;
    let mut t = super::trace(input, None)?;
    let format = t.format();
    // Messages name the input as given (a copy of `-` or of a URL by its name).
    let input = &t.local_path().map_err(super::failed(format))?;
    if format == Format::Annotation {
        return Err(CliError::Usage(format!(
            "{}: this is an mpelog annotation file; filter the trace it annotates",
            shown(input)
        )));
    }
    let started = std::time::Instant::now();
    // Any other trace than SLOG-2: converted once into a temporary SLOG-2
    // file (removed with `t`), which is then filtered.
    let r = match t.tree_mut().map_err(super::failed(format))? {
        TreeMut::Slog2(r) => r,
        _ => unreachable!("an annotation was refused above"),
    };
    let legend = r.category_list().to_vec();
    let mut opts = Options::default()
        .remove(categories(&args.remove, &legend)?)
        .window(args.from, args.to)
        .tree(tree);
    if let Some(k) = &args.keep {
        opts = opts.keep(categories(k, &legend)?);
    }
    let w = out.writer()?;
    let (w, stats) = filter(r, w, &opts).map_err(|e| match e {
        Error::Slog2(e) => CliError::slog2(input)(e),
        source => CliError::Filter {
            path: input.to_path_buf(),
            source,
        },
    })?;
    let shown_out = crate::output::name(&out);
    out.finish(w)?;
    eprintln!(
        "filtered {} to {}: kept {} drawables, removed {}; {} nodes, depth {}, {} bytes, in {:.2} s",
        shown(input),
        shown_out,
        stats.kept,
        stats.removed,
        stats.tree.nodes,
        stats.tree.depth,
        stats.tree.bytes,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
