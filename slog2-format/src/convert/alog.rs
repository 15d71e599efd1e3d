//! ALOG → SLOG-2: events to drawables the way upshot draws them, written with the
//! one-pass tree writer (spec/conversion.md §6).
//!
//! * **States** come from the `-13` definitions (start event type in `task`, end
//!   event type in `data`, `color[:bitmap] name` comment). Pairing follows upshot:
//!   per process a list of slots; a start fills the first empty slot; an end
//!   closes the open instance of the same state in the highest slot; an end with
//!   nothing open is dropped and counted; states still open at the end are closed
//!   at the run's end time (the `-7` time, or the last event if later) and counted.
//! * **Arrows** come from `-101` (send: process → data) and `-102` (receive: data →
//!   process) records whose comment holds `tag size`, matched FIFO on (sender,
//!   receiver, tag); info = tag and the send's size.
//! * **Events**: every other event record (type ≥ 0 or ≤ -101) is a point event,
//!   one category per event type, named by its `-9` description if any.
//! * Times: `(cycle × rollover + timestamp) / 10^6` seconds. Line IDs: the process.
//!
//! ALOG files are small and, unlike CLOG2, may be unsorted: the events are sorted
//! by time (stable) in memory, and the drawables by end time (stable) before they
//! reach the writer, which needs increasing end times.

use crate::convert::clog2::events::arrow_category;
use crate::convert::colors;
use crate::convert::stats::{from_memory, into_tree, ConvertStats, PairStats};
use crate::convert::Unmatched;
use crate::error::Result;
use crate::types::{topology, Category, JStr, LineIdMap};
use crate::write::{Prim, PrimSink, TreeOptions};
use alog_format::record::{rtype, Kind};
use alog_format::AlogFile;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::io::{Seek, Write};

/// Index of the arrow category (`message`).
pub const ARROW_CATEGORY: i32 = 0;

/// upshot's default colours, taken in turn by states whose colouring word has
/// no colour part (upshot's `colorlist`; `darkgreen` is Tk's name for X11's
/// `dark green`).
pub const DEFAULT_COLORS: [&str; 14] = [
    "red",
    "blue",
    "green",
    "cyan",
    "yellow",
    "magenta",
    "orange3",
    "maroon",
    "gray25",
    "gray75",
    "purple4",
    "dark green",
    "white",
    "black",
];

/// Longest category name written (bytes; longer names are cut at a character
/// boundary).
pub const MAX_NAME: usize = 255;

/// Everything the conversion makes, before the tree is written.
#[derive(Debug, Clone)]
pub struct Drawables {
    /// The primitives, in increasing end time (stable).
    pub prims: Vec<Prim>,
    /// The categories (arrow, states in definition order, then one event category
    /// per event type in order of first use); the writer keeps those with
    /// drawables.
    pub categories: Vec<Category>,
    /// The "Process View" line-ID map (column `process`) of the processes used.
    pub maps: Vec<LineIdMap>,
    /// State drawables made.
    pub states: u64,
    /// Arrow drawables made.
    pub arrows: u64,
    /// Event drawables made.
    pub events: u64,
    /// What could not be paired.
    pub unmatched: Unmatched,
}

fn jstr(s: &str) -> JStr {
    let mut end = s.len().min(MAX_NAME);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    JStr::new(&s[..end])
}

/// Resolves a Tk colour name: as written, in lower case, or `#rrggbb`; `None`
/// when unknown.
fn resolve_color(name: &str) -> Option<[u8; 3]> {
    if let Some(hex) = name.strip_prefix('#') {
        if hex.len() == 6 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            let v = u32::from_str_radix(hex, 16).ok()?;
            return Some([(v >> 16) as u8, (v >> 8) as u8, v as u8]);
        }
        return None;
    }
    colors::lookup(name).or_else(|| colors::lookup(&name.to_ascii_lowercase()))
}

fn category(index: i32, topo: i32, name: &str, rgb: [u8; 3], width: i8) -> Category {
    Category {
        index,
        name: jstr(name),
        topology: topo,
        argb: colors::argb(rgb, 255),
        modifiable: 1,
        width,
        keys: Vec::new(),
        types: Vec::new(),
        methods: Vec::new(),
        summary: None,
    }
}

/// A pending message end: time (s), line, size.
type Pending = (f64, i32, i32);

/// Turns the file's events into drawables (see the module documentation).
///
/// ```
/// use slog2_format::convert::alog::drawables;
///
/// // Two processes in state "Work" (`-13`: start event 1, end event 2), and a
/// // message from process 0 to 1 (`-101` send, `-102` receive: the partner in
/// // the data field, then tag 7 and 64 bytes after the time).
/// let text = b"-3 0 0 2 0 0\n-13 0 1 2 0 0 red:gray Work\n\
///     1 0 0 0 0 10\n1 1 0 0 0 12\n-101 0 0 1 0 14 7 64\n-102 1 0 0 0 20 7 64\n\
///     2 0 0 0 0 25\n2 1 0 0 0 25\n";
/// let d = drawables(&alog_format::AlogFile::parse(text)?);
/// assert_eq!((d.states, d.arrows), (2, 1));
/// assert_eq!(d.prims.len(), 3);
/// // The arrow category first, then the states in definition order.
/// assert_eq!(d.categories[1].name.to_string(), "Work");
/// # Ok::<(), alog_format::Error>(())
/// ```
pub fn drawables(f: &AlogFile) -> Drawables {
    let mut u = Unmatched::default();
    let mut fallback = colors::Fallback::default();
    let mut cats = vec![arrow_category()];

    // States, as upshot's first pass defines them.
    let mut state_names: HashSet<Vec<u8>> = HashSet::new();
    let mut starts: HashMap<i32, i32> = HashMap::new();
    let mut ends: HashMap<i32, i32> = HashMap::new();
    let mut next_default = 0usize;
    let mut nstates = 0i32;
    for r in f.records.iter().filter(|r| r.etype == rtype::STATE_DEF) {
        let Some(d) = r.state_def() else {
            u.conflicting_definitions += 1;
            continue;
        };
        if !state_names.insert(d.text.name.clone()) {
            u.conflicting_definitions += 1;
            continue;
        }
        let index = 1 + nstates;
        nstates += 1;
        let color = String::from_utf8_lossy(d.text.color()).into_owned();
        let rgb = if color.is_empty() {
            let c = DEFAULT_COLORS[next_default % DEFAULT_COLORS.len()];
            next_default += 1;
            resolve_color(c)
        } else {
            resolve_color(&color)
        }
        .unwrap_or_else(|| fallback.next_rgb());
        let name = String::from_utf8_lossy(&d.text.name).into_owned();
        cats.push(category(index, topology::STATE, &name, rgb, 1));
        starts.insert(d.start, index);
        ends.insert(d.end, index);
    }

    // Event names from the -9 records (the first one of each type).
    let mut desc: HashMap<i32, String> = HashMap::new();
    for r in f.records.iter().filter(|r| r.etype == rtype::EVENT_DESC) {
        let text = r.comment.as_ref().map(|c| c.text()).unwrap_or_default();
        let text = text.trim();
        if !text.is_empty() {
            desc.entry(r.data).or_insert_with(|| text.to_string());
        }
    }

    // Events in time order (stable).
    let roll = f.rollover();
    let mut events: Vec<(f64, usize)> = Vec::new();
    let mut last_us = f64::NEG_INFINITY;
    for (i, r) in f.records.iter().enumerate() {
        if !r.is_event() {
            continue;
        }
        let t = r.time_us(roll);
        if !t.is_finite() {
            u.bad_times += 1;
            continue;
        }
        last_us = last_us.max(t);
        events.push((t, i));
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    let end_us = f
        .header(rtype::END_TIME)
        .map(|r| r.time_us(roll))
        .filter(|t| t.is_finite())
        .map_or(last_us, |t| t.max(last_us));
    let secs = |us: f64| us / 1e6;

    let mut prims: Vec<Prim> = Vec::with_capacity(events.len());
    let (mut nstate, mut narrow, mut nevent) = (0u64, 0u64, 0u64);
    let mut slots: BTreeMap<i32, Vec<Option<(i32, f64)>>> = BTreeMap::new();
    let mut sends: HashMap<(i32, i32, i32), VecDeque<Pending>> = HashMap::new();
    let mut recvs: HashMap<(i32, i32, i32), VecDeque<Pending>> = HashMap::new();
    let mut event_cats: HashMap<i32, i32> = HashMap::new();
    let mut next_index = 1 + nstates;
    let mut lines: BTreeSet<i32> = BTreeSet::new();

    for &(t_us, i) in &events {
        let r = &f.records[i];
        let t = secs(t_us);
        let line = r.process;
        if matches!(r.kind(), Kind::Send | Kind::Recv) {
            let m = r
                .message()
                .expect("send and receive records have a message");
            let key = (m.sender, m.receiver, m.tag);
            let (mine, theirs) = if m.send {
                (&mut sends, &mut recvs)
            } else {
                (&mut recvs, &mut sends)
            };
            let other = theirs.get_mut(&key).and_then(|q| q.pop_front());
            if theirs.get(&key).is_some_and(|q| q.is_empty()) {
                theirs.remove(&key);
            }
            match other {
                Some((t2, line2, size2)) => {
                    let (from, to, size) = if m.send {
                        ((t, line), (t2, line2), m.size)
                    } else {
                        ((t2, line2), (t, line), size2)
                    };
                    let mut info = [0u8; 8];
                    info[..4].copy_from_slice(&m.tag.to_be_bytes());
                    info[4..].copy_from_slice(&size.to_be_bytes());
                    prims.push(Prim::two(ARROW_CATEGORY, topology::ARROW, from, to, &info));
                    lines.insert(from.1);
                    lines.insert(to.1);
                    narrow += 1;
                }
                None => mine.entry(key).or_default().push_back((t, line, m.size)),
            }
        } else if let Some(&state) = starts.get(&r.etype) {
            let s = slots.entry(line).or_default();
            match s.iter().position(Option::is_none) {
                Some(k) => s[k] = Some((state, t)),
                None => s.push(Some((state, t))),
            }
        } else if let Some(&state) = ends.get(&r.etype) {
            let s = slots.entry(line).or_default();
            // upshot's GatherRemoveState: the top slot is removed, a lower one
            // emptied.
            let found = s
                .iter()
                .rposition(|x| matches!(x, Some((c, _)) if *c == state));
            match found {
                Some(k) => {
                    let (_, start) = s[k].take().expect("found an open state");
                    if k + 1 == s.len() {
                        s.pop();
                    }
                    prims.push(Prim::two(
                        state,
                        topology::STATE,
                        (start, line),
                        (t, line),
                        &[],
                    ));
                    lines.insert(line);
                    nstate += 1;
                }
                None => u.state_finals += 1,
            }
        } else {
            let cat = *event_cats.entry(r.etype).or_insert_with(|| {
                let index = next_index;
                next_index += 1;
                let name = desc
                    .get(&r.etype)
                    .cloned()
                    .unwrap_or_else(|| format!("event {}", r.etype));
                cats.push(category(
                    index,
                    topology::EVENT,
                    &name,
                    fallback.next_rgb(),
                    1,
                ));
                index
            });
            prims.push(Prim::event(cat, t, line, &[]));
            lines.insert(line);
            nevent += 1;
        }
    }

    // States still open: closed at the run's end, as upshot's NoMoreEvents does.
    let end = secs(end_us);
    for (&line, s) in &slots {
        for &(state, start) in s.iter().rev().flatten() {
            prims.push(Prim::two(
                state,
                topology::STATE,
                (start, line),
                (end.max(start), line),
                &[],
            ));
            lines.insert(line);
            nstate += 1;
            u.states_closed_at_end += 1;
        }
    }
    u.sends = sends.values().map(|q| q.len() as u64).sum();
    u.recvs = recvs.values().map(|q| q.len() as u64).sum();

    prims.sort_by(|a, b| a.latest().total_cmp(&b.latest()));
    let maps = vec![crate::write::tree::one_column_map(
        "Process View",
        "process",
        lines,
    )];
    Drawables {
        prims,
        categories: cats,
        maps,
        states: nstate,
        arrows: narrow,
        events: nevent,
        unmatched: u,
    }
}

/// Converts an ALOG file into a SLOG-2 file written to `out` (which must be at
/// its start), with the tree shape and compression of `opts`.
///
/// `progress` is called with the input records handled so far (ALOG is
/// converted from memory: once, at the end). The same signature and figures
/// as every converter of [`crate::convert`]; in [`Unmatched`], ALOG fills
/// `state_finals` (ends without a start), `states_closed_at_end`, `sends`,
/// `recvs`, `conflicting_definitions` (ignored `-13` records) and `bad_times`.
///
/// # Errors
///
/// [`crate::Error::Empty`] for a file without events; I/O errors.
///
/// # Examples
///
/// ```
/// // Two processes in state 1 (`-13`: start event 1, end event 2) from 10 to 25 µs.
/// let text = b"-3 0 0 2 0 0\n-13 0 1 2 0 0 red:gray Work\n1 0 0 0 0 10\n1 1 0 0 0 12\n2 0 0 0 0 25\n2 1 0 0 0 25\n";
/// let f = alog_format::AlogFile::parse(text)?;
/// let (out, stats) = slog2_format::convert::alog_to_slog2(&f, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// assert_eq!(stats.tree.drawables, 2);
/// assert!(slog2_format::looks_like(out.get_ref()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn alog_to_slog2<W: Write + Seek>(
    f: &AlogFile,
    out: W,
    opts: TreeOptions,
    progress: impl FnMut(u64),
) -> Result<(W, ConvertStats)> {
    into_tree(out, opts, |tree| alog_into(f, tree, progress))
}

/// Hands the drawables of `f` ([`drawables`]) to `sink` in increasing end
/// time, then the legend and the line-ID maps; `progress` as
/// [`alog_to_slog2`]'s.
///
/// # Errors
///
/// As [`alog_to_slog2`], and the sink's errors.
///
/// # Examples
///
/// ```
/// // Two processes in state 1 (`-13`: start event 1, end event 2) from 10 to 25 µs.
/// let text = b"-3 0 0 2 0 0\n-13 0 1 2 0 0 red:gray Work\n1 0 0 0 0 10\n1 1 0 0 0 12\n2 0 0 0 0 25\n2 1 0 0 0 25\n";
/// let f = alog_format::AlogFile::parse(text)?;
/// let tree = slog2_format::write::TreeWriter::new(std::io::Cursor::new(Vec::new()), Default::default())?;
/// let ((_, tree_stats), pair_stats) = slog2_format::convert::alog_into(&f, tree, |_| {})?;
/// assert_eq!(tree_stats.drawables, 2);
/// assert_eq!(pair_stats.unmatched.total_dropped(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn alog_into<P: PrimSink>(
    f: &AlogFile,
    sink: P,
    progress: impl FnMut(u64),
) -> Result<(P::Output, PairStats)> {
    let d = drawables(f);
    let records = f.records.len() as u64;
    from_memory(
        (d.prims, &d.categories, d.maps),
        sink,
        records,
        d.unmatched,
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(text: &str) -> Drawables {
        drawables(&AlogFile::parse(text.as_bytes()).unwrap())
    }

    #[test]
    fn upshot_slot_pairing() {
        // X opens slot 0, A1 slot 1; X ends (slot 0 emptied), A2 reuses slot 0.
        // The end of A closes the highest slot: A1.
        let d = conv(
            "-13 0 1 2 0 0 red A\n-13 0 3 4 0 0 blue X\n3 0 0 0 0 1\n1 0 0 0 0 2\n4 0 0 0 0 3\n1 0 0 0 0 4\n2 0 0 0 0 5\n2 0 0 0 0 6\n2 0 0 0 0 7\n",
        );
        let states: Vec<_> = d
            .prims
            .iter()
            .filter(|p| p.topology == topology::STATE)
            .map(|p| (p.category, p.times[0], p.times[1]))
            .collect();
        assert_eq!(
            states,
            vec![(2, 1e-6, 3e-6), (1, 2e-6, 5e-6), (1, 4e-6, 6e-6)]
        );
        assert_eq!(d.unmatched.state_finals, 1);
    }

    #[test]
    fn unsorted_input_is_sorted() {
        let d = conv("-13 0 1 2 0 0 : S\n2 0 0 0 0 9\n1 0 0 0 0 3\n5 1 0 0 0 1\n");
        let ends: Vec<f64> = d.prims.iter().map(|p| p.latest()).collect();
        assert_eq!(ends, vec![1e-6, 9e-6]);
        assert_eq!((d.states, d.events), (1, 1));
    }

    #[test]
    fn messages_fifo_and_unmatched() {
        let d = conv(
            "-102 1 0 0 0 5 7 4\n-101 0 0 1 0 2 7 8\n-101 0 0 1 0 6 7 9\n-101 0 0 1 0 7 8 1\n",
        );
        assert_eq!(d.arrows, 1);
        let a = d.prims[0];
        assert_eq!((a.times, a.lines), ([2e-6, 5e-6], [0, 1]));
        assert_eq!(a.info(), &[0, 0, 0, 7, 0, 0, 0, 8]);
        assert_eq!((d.unmatched.sends, d.unmatched.recvs), (2, 0));
    }

    #[test]
    fn open_states_close_at_the_end_time() {
        let d = conv("-7 0 0 0 0 100\n-13 0 1 2 0 0 : S\n1 3 0 0 0 10\n");
        assert_eq!(d.unmatched.states_closed_at_end, 1);
        assert_eq!(d.prims[0].times, [10e-6, 100e-6]);
    }

    #[test]
    fn colors() {
        assert_eq!(resolve_color("red"), Some([255, 0, 0]));
        assert_eq!(resolve_color("Red"), Some([255, 0, 0]));
        assert_eq!(resolve_color("#0a0B0c"), Some([10, 11, 12]));
        assert_eq!(resolve_color("#0a0B0"), None);
        for c in DEFAULT_COLORS {
            assert!(resolve_color(c).is_some(), "{c}");
        }
    }
}
