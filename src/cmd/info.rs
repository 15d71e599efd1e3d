//! `mpelog info`: a file's own facts ([`mpelog::Trace::file_info`]), as
//! text or JSON.

use crate::error::{CliError, CliResult};
use mpelog::trace::{FileInfo, MpeFileInfo, Otf2FileInfo, Step};
use std::io::Write;
use std::path::Path;

/// Runs `mpelog info`.
pub fn run(path: &Path, json: bool) -> CliResult {
    let mut t = super::open_trace(path, None)?;
    let local = t.local_path()?;
    let bar = crate::progress::bytes_bar(0, "reading");
    let shown = bar.clone();
    t.set_progress(Box::new(move |step| {
        if let Step::Read { at, total } = step {
            shown.set_length(total);
            shown.set_position(at);
        }
    }));
    let info = t.file_info().map_err(super::failed(t.format()));
    bar.finish_and_clear();
    let info = info?;
    let (text, failure) = match info {
        FileInfo::Otf2(i) => (otf2_text(&i, json), None),
        FileInfo::Mpe(mut i) => {
            let failure = i
                .damaged
                .as_mut()
                .and_then(|d| d.take_error())
                .map(super::failed(t.format()));
            let text = if json {
                let mut t = mpelog::json_text::to_string(&i);
                t.push('\n');
                t
            } else {
                text(&local, &i)
            };
            (text, failure)
        }
        _ => unreachable!("FileInfo has two kinds"),
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        // A closed pipe (`mpelog info x | head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.map_err(CliError::io(Path::new("<stdout>")))?,
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The text (or JSON, keys in alphabetical order) of an OTF2 archive's facts.
fn otf2_text(i: &Otf2FileInfo, json: bool) -> String {
    if json {
        let v = serde_json::to_value(i).expect("JSON");
        return format!("{v}\n");
    }
    let mut t = format!(
        "format: OTF2 (libotf2 {}, written by {:?})\nanchor: {}\nchunk sizes: events {} bytes, definitions {} bytes\ntimer resolution: {} ticks/s\nlocations: {} in {} groups\nregions: {}, strings: {}, communicators: {}, metrics: {}, definition records: {}\nevents: {}\n",
        i.version,
        i.creator,
        crate::input::shown(&i.path),
        i.chunk_size_events,
        i.chunk_size_defs,
        i.timer_resolution,
        i.locations,
        i.location_groups,
        i.regions,
        i.strings,
        i.comms,
        i.metrics,
        i.definition_records,
        i.events,
    );
    for (k, n) in &i.events_by_kind {
        t.push_str(&format!("  {k}: {n}\n"));
    }
    if let Some((first, last)) = i.time_range {
        t.push_str(&format!("time range: {first:.9} .. {last:.9} s\n"));
    }
    t
}

fn text(path: &Path, s: &MpeFileInfo) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    // Writing to a String cannot fail.
    let _ = (|| -> std::fmt::Result {
        writeln!(o, "file:          {}", crate::input::shown(path))?;
        writeln!(o, "format:        {} ({})", s.format, s.version)?;
        if s.byte_order == "text" {
            writeln!(o, "encoding:      text")?;
        } else {
            writeln!(o, "byte order:    {}-endian", s.byte_order)?;
        }
        if let Some(f) = s.finalized {
            writeln!(
                o,
                "finalized:     {}",
                if f { "yes (merged)" } else { "no (local file)" }
            )?;
        }
        writeln!(o, "file size:     {} bytes", s.file_size)?;
        if let (Some(bs), Some(n)) = (s.block_size, s.blocks) {
            writeln!(o, "block size:    {bs} bytes ({n} blocks)")?;
        }
        if let Some(t) = &s.tree {
            writeln!(
                o,
                "tree:          {} nodes, depth {}, {} children per node, leaves up to {} bytes, largest block {} bytes",
                t.nodes, t.depth, t.children_per_node, t.leaf_bytesize, t.max_buffer_bytesize
            )?;
            writeln!(
                o,
                "legend:        {} categories, {} line-ID maps",
                t.categories, t.line_id_maps
            )?;
        }
        if let Some(r) = s.ranks {
            match s.max_threads {
                Some(t) => writeln!(o, "ranks:         {r} (max threads {t})")?,
                None => writeln!(o, "ranks:         {r}")?,
            }
        }
        match s.records {
            Some(n) => writeln!(o, "records:       {n}")?,
            None => writeln!(o, "drawables:")?,
        }
        for (k, v) in &s.record_counts {
            writeln!(o, "  {k:<11} {v}")?;
        }
        match (s.time_min, s.time_max) {
            (Some(a), Some(b)) => writeln!(o, "time range:    {a:?} .. {b:?} s")?,
            _ => writeln!(o, "time range:    (no timed records)")?,
        }
        if let Some(n) = s.comm_table_entries {
            writeln!(o, "comm table:    {n} entries")?;
        }
        if let Some(d) = &s.damaged {
            match d.offset {
                Some(at) => writeln!(
                    o,
                    "damaged:       at byte {at}; the counts above are of what comes before"
                )?,
                None => writeln!(
                    o,
                    "damaged:       the counts above are of what could be read"
                )?,
            }
        }
        Ok(())
    })();
    o
}
