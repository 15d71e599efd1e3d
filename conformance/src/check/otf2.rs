//! OTF2 rules (spec/otf2.md §11): an archive is read with `otf2-format`'s
//! reader, whose errors become `OTF2-REJ-001` with the file and byte offset;
//! an archive that reads is then checked event by event, per location.

use crate::report::Collector;
use std::path::Path;

crate::rule::rule_table! {
    Some(crate::Format::Otf2);
    /// The OTF2 rules.
    OTF2_REJ_001 = "OTF2-REJ-001", Error,
        "every file of the archive reads (anchor, global and local definitions, event files): spec/otf2.md §1–§7";
}

/// Where a finding is: the file, relative to the archive's directory when it
/// is inside it.
fn place(dir: &Path, file: &Path) -> Option<String> {
    let shown = file.strip_prefix(dir).unwrap_or(file);
    Some(shown.display().to_string())
}

/// Checks the bytes of an anchor file alone (an archive's other files are
/// not there).
pub fn check_anchor(bytes: &[u8], c: &mut Collector) {
    let file = Path::new("traces.otf2");
    if let Err(e) = otf2_format::Anchor::parse(bytes, file) {
        c.add(
            OTF2_REJ_001,
            e.offset(),
            place(Path::new(""), e.file()),
            detail(&e),
        );
    }
}

/// An error's text without its file and offset, which the finding shows.
fn detail(e: &otf2_format::Error) -> String {
    use otf2_format::Error as E;
    match e {
        E::Io { source, .. } => source.to_string(),
        E::Truncated { expected, .. } => format!("input ends inside {expected}"),
        E::Invalid { problem, .. } => problem.clone(),
        E::Unsupported { what, .. } => format!("unsupported: {what}"),
        E::Limit {
            what, value, limit, ..
        } => format!("{what} is {value}, above the limit {limit}"),
        _ => e.to_string(),
    }
}

/// Checks the archive at `path` (its anchor file or the directory holding it).
pub fn check_archive(path: &Path, c: &mut Collector) {
    let dir = otf2_format::archive::find_anchor(path)
        .and_then(|a| a.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let reject = |c: &mut Collector, e: otf2_format::Error| {
        c.add(OTF2_REJ_001, e.offset(), place(&dir, e.file()), detail(&e));
    };
    let archive = match otf2_format::Archive::open(path) {
        Ok(a) => a,
        Err(e) => return reject(c, e),
    };
    for &(location, _) in &archive.defs.locations {
        let mut events = match archive.location_events(location) {
            Ok(r) => r,
            Err(e) => return reject(c, e),
        };
        loop {
            match events.next_event() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => {
                    reject(c, e);
                    break;
                }
            }
        }
    }
}
