//! OTF2 archives in `mpelog convert` (to SLOG-2) and `mpelog info`: an
//! archive is its anchor file (`traces.otf2`) or the directory holding it,
//! which `crate::detect` names [`Format::Otf2`] like any other format; the
//! other commands read an archive through its conversion to SLOG-2.

use super::convert::finish_writer;
use crate::detect::Format;
use crate::error::{CliError, CliResult};
use crate::input::shown;
use crate::output::Output;
use otf2_format::Archive;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// Opens the archive at `path` (its anchor file or directory).
pub fn open(path: &Path) -> CliResult<Archive> {
    Archive::open(path).map_err(|source| CliError::BadOtf2 {
        path: path.to_path_buf(),
        source,
    })
}

/// `mpelog convert ARCHIVE -o OUT.slog2`: the one-pass conversion of
/// spec/otf2.md §9, with one summary line on stderr.
pub fn convert(
    input: &Path,
    out: Output,
    target: Format,
    opts: slog2_format::write::TreeOptions,
) -> CliResult {
    if target != Format::Slog2 {
        return Err(CliError::Usage(format!(
            "converting OTF2 to {} is not supported (OTF2 converts to SLOG-2)",
            target.name()
        )));
    }
    let started = Instant::now();
    let archive = open(input)?;
    let (w, stats) =
        slog2_format::convert::otf2::otf2_to_slog2(&archive, out.writer()?, opts, |_| {})
            .map_err(conversion_error(input))?;
    let bytes = finish_writer(w, &out)?;
    let shown_out = crate::output::name(&out);
    out.commit()?;
    let counts = stats.otf2.unwrap_or_default();
    let u = stats.unmatched;
    eprintln!(
        "converted {} (OTF2, {} events) to {} (SLOG-2, {} bytes) in {:.2} s: {} states, {} arrows, {} collectives, {} metric events; unmatched: {} leaves, {} sends, {} receives, {} states closed at the end; not drawn: {}",
        shown(input),
        counts.events,
        shown_out,
        bytes,
        started.elapsed().as_secs_f64(),
        counts.states,
        counts.arrows,
        counts.collectives,
        counts.metrics,
        u.state_finals,
        u.sends,
        u.recvs,
        u.states_closed_at_end,
        counted(&counts.counted)
    );
    Ok(())
}

/// The CLI error of a conversion of the archive `input`: the reader's
/// ([`CliError::BadOtf2`], with its file and byte offset) or the writer's.
pub fn conversion_error(input: &Path) -> impl Fn(slog2_format::Error) -> CliError + '_ {
    move |e| match e {
        slog2_format::Error::Otf2(source) => CliError::BadOtf2 {
            path: input.to_path_buf(),
            source: *source,
        },
        e => CliError::slog2(input)(e),
    }
}

fn counted(m: &BTreeMap<String, u64>) -> String {
    if m.is_empty() {
        return "none".into();
    }
    m.iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}
