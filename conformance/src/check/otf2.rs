//! OTF2 rules (spec/otf2.md §14): an archive is read with `otf2-format`'s
//! reader, whose errors become `OTF2-READ-001` with the file and byte offset;
//! an archive that reads is then checked event by event, location by
//! location (one location's reader at a time: memory stays bounded by the
//! definitions, the open regions and one counter per message channel).
//! A finding's place is the file, relative to the archive's directory; its
//! offset that of the offending record's fields.

use crate::report::Collector;
use otf2_format::defs::Ranks;
use otf2_format::{Archive, Event, EventKind};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

crate::rule::rule_table! {
    Some(crate::Format::Otf2);
    /// The OTF2 rules.
    OTF2_READ_001 = "OTF2-READ-001", Error,
        "every file of the archive reads (anchor, global and local definitions, event files): spec/otf2.md §1-§7, §10";
    OTF2_DEF_001 = "OTF2-DEF-001", Error,
        "an Enter or Leave names a defined region";
    OTF2_DEF_002 = "OTF2-DEF-002", Error,
        "an MPI message or collective names a defined communicator";
    OTF2_DEF_003 = "OTF2-DEF-003", Error,
        "a message's peer rank names a location of its communicator";
    OTF2_DEF_004 = "OTF2-DEF-004", Error,
        "a Metric event names a defined metric";
    OTF2_ORD_001 = "OTF2-ORD-001", Error,
        "timestamps do not decrease within a location";
    OTF2_NEST_001 = "OTF2-NEST-001", Error,
        "a Leave leaves the innermost region its location entered";
    OTF2_NEST_002 = "OTF2-NEST-002", Warning,
        "every region a location enters is left by the end of its events";
    OTF2_MSG_001 = "OTF2-MSG-001", Warning,
        "sends and receives match per communicator, sender, receiver and tag";
}

/// Where a finding is: the file, relative to the archive's directory when it
/// is inside it.
fn place(dir: &Path, file: &Path) -> Option<String> {
    let shown = file.strip_prefix(dir).unwrap_or(file);
    Some(shown.display().to_string())
}

/// Checks the bytes of an anchor file alone (an archive's other files are
/// not there).
///
/// ```
/// use mpelog_conformance::check::otf2::check_anchor;
/// use mpelog_conformance::{report::Collector, Format};
/// let mut c = Collector::new(Format::Otf2, 10);
/// check_anchor(b"not an anchor file", &mut c);
/// let report = c.finish();
/// assert_eq!(report.rule_ids(), ["OTF2-READ-001"]);
/// assert_eq!(report.findings[0].place.as_deref(), Some("traces.otf2"));
/// ```
pub fn check_anchor(bytes: &[u8], c: &mut Collector) {
    let file = Path::new("traces.otf2");
    if let Err(e) = otf2_format::Anchor::parse(bytes, file) {
        c.add(
            OTF2_READ_001,
            e.offset(),
            place(Path::new(""), e.file()),
            e.detail(),
        );
    }
}

/// A message channel: communicator, sending and receiving location, tag.
type Channel = (u32, u64, u64, u32);

/// Per channel: sends and receives seen, and where the first of each was.
#[derive(Default)]
struct Count {
    sends: u64,
    recvs: u64,
    first_send: Option<(PathBuf, u64)>,
    first_recv: Option<(PathBuf, u64)>,
}

/// The rules beyond reading, over one archive.
struct Rules<'a> {
    archive: &'a Archive,
    dir: &'a Path,
    ranks: HashMap<u32, Ranks>,
    channels: BTreeMap<Channel, Count>,
}

impl Rules<'_> {
    /// Checks one event of `file` at `offset`; `stack` holds the location's
    /// open regions, `last` its previous timestamp.
    fn event(
        &mut self,
        e: &Event,
        at: (&Path, u64),
        stack: &mut Vec<(u32, u64)>,
        last: &mut Option<u64>,
        c: &mut Collector,
    ) {
        let (file, offset) = at;
        // Made only for a finding: most events have none.
        let place = || place(self.dir, file);
        let defs = &self.archive.defs;
        if let Some(t) = last.filter(|&t| e.time < t) {
            let m = format!(
                "location {}: timestamp {} after {t}: events must not go back in time",
                e.location, e.time
            );
            c.add(OTF2_ORD_001, offset, place(), m);
        }
        *last = Some(e.time);
        let region_defined = |r: &u32| defs.regions.contains_key(r);
        match &e.kind {
            EventKind::Enter { region } | EventKind::Leave { region }
                if !region_defined(region) =>
            {
                let m = format!("location {}: region {region} is not defined", e.location);
                c.add(OTF2_DEF_001, offset, place(), m);
            }
            _ => {}
        }
        match &e.kind {
            EventKind::Enter { region } => stack.push((*region, offset)),
            EventKind::Leave { region } => match stack.last() {
                Some(&(open, _)) if open == *region => {
                    stack.pop();
                }
                Some(&(open, _)) => {
                    let m = format!(
                        "location {}: Leave of region {region} while region {open} is the innermost open one",
                        e.location
                    );
                    c.add(OTF2_NEST_001, offset, place(), m);
                }
                None => {
                    let m = format!(
                        "location {}: Leave of region {region} with no region open",
                        e.location
                    );
                    c.add(OTF2_NEST_001, offset, place(), m);
                }
            },
            EventKind::MpiSend {
                receiver: peer,
                comm,
                tag,
                ..
            }
            | EventKind::MpiIsend {
                receiver: peer,
                comm,
                tag,
                ..
            } => self.message(e.location, (*comm, *peer, *tag), true, (file, offset), c),
            EventKind::MpiRecv {
                sender: peer,
                comm,
                tag,
                ..
            }
            | EventKind::MpiIrecv {
                sender: peer,
                comm,
                tag,
                ..
            } => self.message(e.location, (*comm, *peer, *tag), false, (file, offset), c),
            EventKind::MpiCollectiveEnd { comm, .. } if !defs.comms.contains_key(comm) => {
                let m = format!(
                    "location {}: communicator {comm} is not defined",
                    e.location
                );
                c.add(OTF2_DEF_002, offset, place(), m);
            }
            EventKind::Metric { metric, .. } if !defs.metrics.contains_key(metric) => {
                let m = format!("location {}: metric {metric} is not defined", e.location);
                c.add(OTF2_DEF_004, offset, place(), m);
            }
            _ => {}
        }
    }

    /// A send (`send`) or receive of location `me` to or from `peer` of
    /// `comm` with `tag`.
    fn message(
        &mut self,
        me: u64,
        (comm, peer, tag): (u32, u32, u32),
        send: bool,
        (file, offset): (&Path, u64),
        c: &mut Collector,
    ) {
        let place = || place(self.dir, file);
        if !self.archive.defs.comms.contains_key(&comm) {
            let m = format!("location {me}: communicator {comm} is not defined");
            return c.add(OTF2_DEF_002, offset, place(), m);
        }
        let Some(other) = self.ranks.get(&comm).and_then(|r| r.location(peer, me)) else {
            let m = format!(
                "location {me}: rank {peer} is no location of communicator {comm} (its group has no such member)"
            );
            return c.add(OTF2_DEF_003, offset, place(), m);
        };
        let key = if send {
            (comm, me, other, tag)
        } else {
            (comm, other, me, tag)
        };
        let n = self.channels.entry(key).or_default();
        let (count, first) = if send {
            (&mut n.sends, &mut n.first_send)
        } else {
            (&mut n.recvs, &mut n.first_recv)
        };
        *count += 1;
        first.get_or_insert_with(|| (file.to_path_buf(), offset));
    }

    /// The channels whose sends and receives do not pair up.
    fn unmatched(&self, c: &mut Collector) {
        for (&(comm, from, to, tag), n) in &self.channels {
            let (surplus, what, first) = match n.sends.cmp(&n.recvs) {
                std::cmp::Ordering::Equal => continue,
                std::cmp::Ordering::Greater => (n.sends - n.recvs, "sends", &n.first_send),
                std::cmp::Ordering::Less => (n.recvs - n.sends, "receives", &n.first_recv),
            };
            let Some((file, offset)) = first else {
                continue;
            };
            let m = format!(
                "communicator {comm}, location {from} to {to}, tag {tag}: {} sends and {} receives, {surplus} {what} unmatched (the first {} is here)",
                n.sends,
                n.recvs,
                &what[..what.len() - 1]
            );
            c.add(OTF2_MSG_001, *offset, place(self.dir, file), m);
        }
    }
}

/// Checks the archive at `path` (its anchor file or the directory holding it).
///
/// ```
/// use mpelog_conformance::check::otf2::check_archive;
/// use mpelog_conformance::{report::Collector, Format};
/// let dir = std::env::temp_dir().join("mpelog-doc-no-archive-here");
/// let mut c = Collector::new(Format::Otf2, 10);
/// check_archive(&dir.join("traces.otf2"), &mut c);
/// assert_eq!(c.finish().rule_ids(), ["OTF2-READ-001"]); // no such file
/// ```
pub fn check_archive(path: &Path, c: &mut Collector) {
    check_archive_until(path, c, &AtomicBool::new(false));
}

/// [`check_archive`], ending before the next event once `stop` is set (what
/// [`check_path`](super::check_path) does for [`Options::stop`](super::Options::stop)):
/// the findings so far are kept, and none that needs the whole archive (a
/// region left open, a message without its partner) is added.
///
/// ```
/// use mpelog_conformance::check::otf2::check_archive_until;
/// use mpelog_conformance::{report::Collector, Format};
/// use std::sync::atomic::AtomicBool;
/// let tiny = concat!(env!("CARGO_MANIFEST_DIR"), "/../otf2-format/tests/data/tiny");
/// let mut c = Collector::new(Format::Otf2, 10);
/// check_archive_until(std::path::Path::new(tiny), &mut c, &AtomicBool::new(true));
/// assert!(c.finish().rule_ids().is_empty());
/// ```
pub fn check_archive_until(path: &Path, c: &mut Collector, stop: &AtomicBool) {
    let dir = otf2_format::archive::find_anchor(path)
        .and_then(|a| a.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let reject = |c: &mut Collector, e: otf2_format::Error| {
        c.add(OTF2_READ_001, e.offset(), place(&dir, e.file()), e.detail());
    };
    let archive = match otf2_format::Archive::open(path) {
        Ok(a) => a,
        Err(e) => return reject(c, e),
    };
    let mut rules = Rules {
        archive: &archive,
        dir: &dir,
        ranks: archive.defs.comm_ranks(),
        channels: BTreeMap::new(),
    };
    let mut complete = true;
    for &(location, _) in &archive.defs.locations {
        let file = archive.location_file(location, "evt");
        let mut events = match archive.location_events(location) {
            Ok(r) => r,
            Err(e) => return reject(c, e),
        };
        let (mut stack, mut last) = (Vec::new(), None);
        let read = loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            match events.next_event() {
                Ok(Some(e)) => {
                    let at = (file.as_path(), events.offset());
                    rules.event(&e, at, &mut stack, &mut last, c);
                }
                Ok(None) => break true,
                Err(e) => {
                    reject(c, e);
                    break false;
                }
            }
        };
        // A location read in part says nothing about its balance, nor the
        // archive about its messages.
        complete &= read;
        if let (true, Some(&(region, offset))) = (read, stack.first()) {
            let m = format!(
                "location {location}: {} regions still open at the end (the outermost, region {region}, entered here)",
                stack.len()
            );
            c.add(OTF2_NEST_002, offset, place(&dir, &file), m);
        }
    }
    if complete {
        rules.unmatched(c);
    }
}
