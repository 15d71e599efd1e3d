//! Perfetto's native trace format: a `Trace` of `TracePacket`s holding
//! `TrackDescriptor`s and `TrackEvent`s (protos/perfetto/trace in Perfetto's
//! sources), which the Perfetto UI and trace processor read directly.
//!
//! One track per track of the export, all children of a root track that names
//! the export and orders them explicitly (`child_ordering` EXPLICIT, each
//! track's `sibling_order_rank` its [`Track::sort_key`]: by rank in the
//! process view, then lane), states as `SLICE_BEGIN`/`SLICE_END`,
//! events as `INSTANT`s, arrows as zero-length slices at both ends joined by a
//! flow (`flow_ids` at the send, `terminating_flow_ids` at the receive). The
//! category index, its colour and the decoded info values are debug
//! annotations. Event names, event categories (`state`, `event`, `arrow`) and
//! annotation names are interned (one sequence, cleared at its first packet). Timestamps are nanoseconds from the earliest
//! exported time, whose absolute value in seconds is in the name of the first
//! track ("mpelog export, start S s").
//!
//! The encoding is written here directly (a few message types, varints and
//! length prefixes), so no protobuf runtime is linked.

use super::{ArgRef, Cat, Flow, Sink, Track};
use rustc_hash::FxHashMap as HashMap;
use std::io::{self, Write};

// Field numbers (protos/perfetto/trace/...).
const TRACE_PACKET: u32 = 1;
const PACKET_TIMESTAMP: u32 = 8;
const PACKET_SEQUENCE_ID: u32 = 10;
const PACKET_TRACK_EVENT: u32 = 11;
const PACKET_INTERNED_DATA: u32 = 12;
const PACKET_SEQUENCE_FLAGS: u32 = 13;
const PACKET_TRACK_DESCRIPTOR: u32 = 60;
const EVENT_ANNOTATIONS: u32 = 4;
const EVENT_TYPE: u32 = 9;
const EVENT_NAME_IID: u32 = 10;
const EVENT_TRACK_UUID: u32 = 11;
const EVENT_CATEGORY_IIDS: u32 = 3;
const EVENT_FLOW_IDS: u32 = 47;
const EVENT_TERMINATING_FLOW_IDS: u32 = 48;
const TRACK_UUID: u32 = 1;
const TRACK_NAME: u32 = 2;
const TRACK_PARENT: u32 = 5;
const TRACK_CHILD_ORDERING: u32 = 11;
const TRACK_SIBLING_ORDER_RANK: u32 = 12;
/// `TrackDescriptor.ChildTracksOrdering.EXPLICIT`: children by
/// `sibling_order_rank`.
const CHILD_ORDERING_EXPLICIT: u64 = 3;
const ANNOTATION_INT: u32 = 4;
const ANNOTATION_DOUBLE: u32 = 5;
const ANNOTATION_STRING: u32 = 6;
const ANNOTATION_NAME_IID: u32 = 1;
const INTERNED_EVENT_CATEGORIES: u32 = 1;
const INTERNED_EVENT_NAMES: u32 = 2;
const INTERNED_ANNOTATION_NAMES: u32 = 3;
const NAME_IID: u32 = 1;
const NAME_NAME: u32 = 2;

const SLICE_BEGIN: u64 = 1;
const SLICE_END: u64 = 2;
const INSTANT: u64 = 3;
const INCREMENTAL_STATE_CLEARED: u64 = 1;
const NEEDS_INCREMENTAL_STATE: u64 = 2;
/// The sequence all packets belong to.
const SEQUENCE: u64 = 1;
/// The UUID of the root track that names the export and holds every track;
/// track `i` is `i + 2`.
const ROOT_UUID: u64 = 1;

/// A protobuf message being built.
#[derive(Debug, Default, Clone)]
struct Msg(Vec<u8>);

impl Msg {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
    fn key(&mut self, field: u32, wire: u8) {
        self.varint(u64::from(field) << 3 | u64::from(wire));
    }
    fn uint(&mut self, field: u32, v: u64) -> &mut Msg {
        self.key(field, 0);
        self.varint(v);
        self
    }
    fn int(&mut self, field: u32, v: i64) -> &mut Msg {
        self.uint(field, v as u64)
    }
    fn fixed64(&mut self, field: u32, v: u64) -> &mut Msg {
        self.key(field, 1);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn double(&mut self, field: u32, v: f64) -> &mut Msg {
        self.fixed64(field, v.to_bits())
    }
    fn bytes(&mut self, field: u32, b: &[u8]) -> &mut Msg {
        self.key(field, 2);
        self.varint(b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
    fn string(&mut self, field: u32, s: &str) -> &mut Msg {
        self.bytes(field, s.as_bytes())
    }
    fn msg(&mut self, field: u32, m: &Msg) -> &mut Msg {
        self.bytes(field, &m.0)
    }
}

/// A [`Sink`] writing a Perfetto trace to `W`.
#[derive(Debug)]
pub struct PerfettoTrace<W: Write> {
    out: W,
    base: f64,
    /// Interned event names, categories and argument names.
    names: HashMap<String, u64>,
    categories: HashMap<String, u64>,
    arg_names: HashMap<String, u64>,
    first_packet: bool,
    /// Reused buffers: the event, one annotation (or interned entry), the
    /// interned data, the packet, the packet's key and length.
    ev: Msg,
    scratch: Msg,
    interned: Msg,
    entry: Msg,
    pk: Msg,
    head: Msg,
}

impl<W: Write> PerfettoTrace<W> {
    /// A writer to `out`.
    ///
    /// ```
    /// use mpelog::export::{perfetto::PerfettoTrace, Sink};
    /// let mut p = PerfettoTrace::new(Vec::new());
    /// p.start(0.0, 1.0, 0.0)?;
    /// p.finish()?;
    /// assert!(!p.into_inner().is_empty()); // the trace's first packets
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(out: W) -> PerfettoTrace<W> {
        PerfettoTrace {
            out,
            base: 0.0,
            names: HashMap::default(),
            categories: HashMap::default(),
            arg_names: HashMap::default(),
            first_packet: true,
            ev: Msg::default(),
            scratch: Msg::default(),
            interned: Msg::default(),
            entry: Msg::default(),
            pk: Msg::default(),
            head: Msg::default(),
        }
    }

    /// The writer, after [`Sink::finish`].
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(3000))?;
    /// # let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let sink = mpelog::export::sorted::StartOrder::new();
    /// # let (mut sorted, _) = slog2_format::convert::clog2_into(&mut reader, sink, |_| {})?;
    /// use mpelog::export::{perfetto::PerfettoTrace, Options};
    /// let mut p = PerfettoTrace::new(Vec::new());
    /// mpelog::export::one_pass(&mut sorted, &Options::default(), &mut p)?;
    /// let bytes = p.into_inner();
    /// assert_eq!(bytes[0], 0x0a); // a Trace's first field: packet 1, length-delimited
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_inner(self) -> W {
        self.out
    }

    fn ns(&self, t: f64) -> u64 {
        ((t - self.base) * 1e9).round().max(0.0) as u64
    }

    /// Writes the packet in `self.pk` (after adding the sequence fields).
    fn packet(&mut self) -> io::Result<()> {
        self.pk.uint(PACKET_SEQUENCE_ID, SEQUENCE);
        if self.first_packet {
            self.first_packet = false;
            self.pk
                .uint(PACKET_SEQUENCE_FLAGS, INCREMENTAL_STATE_CLEARED);
        }
        // The Trace's `packet` field: key, length, bytes.
        self.head.0.clear();
        self.head.key(TRACE_PACKET, 2);
        self.head.varint(self.pk.0.len() as u64);
        self.out.write_all(&self.head.0)?;
        self.out.write_all(&self.pk.0)
    }

    /// A packet holding the event in `self.ev` at `time`, interning `name`
    /// first, with the names the event interned first (`self.interned`).
    fn event(&mut self, time: f64, name: Option<&str>) -> io::Result<()> {
        self.pk.0.clear();
        let ts = self.ns(time);
        self.pk.uint(PACKET_TIMESTAMP, ts);
        if let Some(name) = name {
            let iid = intern(
                &mut self.names,
                name,
                (&mut self.interned, &mut self.entry),
                INTERNED_EVENT_NAMES,
            );
            self.ev.uint(EVENT_NAME_IID, iid);
        }
        if !self.interned.0.is_empty() {
            self.pk.msg(PACKET_INTERNED_DATA, &self.interned);
        }
        self.pk.msg(PACKET_TRACK_EVENT, &self.ev);
        self.pk.uint(PACKET_SEQUENCE_FLAGS, NEEDS_INCREMENTAL_STATE);
        self.packet()
    }

    /// Starts the event in `self.ev` (and its interned data).
    fn track_event(&mut self, kind: u64, t: &Track, category: &str) {
        self.interned.0.clear();
        let e = &mut self.ev;
        e.0.clear();
        e.uint(EVENT_TYPE, kind).uint(EVENT_TRACK_UUID, uuid(t));
        if !category.is_empty() {
            let iid = intern(
                &mut self.categories,
                category,
                (&mut self.interned, &mut self.entry),
                INTERNED_EVENT_CATEGORIES,
            );
            self.ev.uint(EVENT_CATEGORY_IIDS, iid);
        }
    }

    /// Adds the category, its colour, the info values and `extra` to the
    /// event in `self.ev` as debug annotations.
    fn annotations(&mut self, cat: &Cat, info: &[u8], extra: Option<(&str, &str)>) {
        let (e, a) = (&mut self.ev, &mut self.scratch);
        let (arg_names, interned) = (&mut self.arg_names, (&mut self.interned, &mut self.entry));
        let mut add = |name: &str, v: ArgRef<'_>| {
            let iid = intern(
                arg_names,
                name,
                (&mut *interned.0, &mut *interned.1),
                INTERNED_ANNOTATION_NAMES,
            );
            a.0.clear();
            a.uint(ANNOTATION_NAME_IID, iid);
            match v {
                ArgRef::Int(i) => a.int(ANNOTATION_INT, i),
                ArgRef::Float(f) => a.double(ANNOTATION_DOUBLE, f),
                ArgRef::Text(s) => a.string(ANNOTATION_STRING, &s),
            };
            e.msg(EVENT_ANNOTATIONS, a);
        };
        add("category", ArgRef::Int(i64::from(cat.index)));
        add("color", ArgRef::Text(cat.color.as_str().into()));
        cat.each_arg(info, &mut add);
        if let Some((k, v)) = extra {
            add(k, ArgRef::Text(v.into()));
        }
    }

    /// A zero-length slice with a flow end: `end` is the field (`flow_ids` or
    /// `terminating_flow_ids`) and the flow.
    fn flow_slice(&mut self, f: &Flow<'_>, field: u32, side: &str) -> io::Result<()> {
        self.track_event(SLICE_BEGIN, f.track, "arrow");
        self.annotations(f.cat, f.info, Some((side, &f.other.name)));
        self.ev.fixed64(field, f.flow);
        self.event(f.time, Some(&f.cat.name))?;
        self.track_event(SLICE_END, f.track, "");
        self.event(f.time, None)
    }

    /// Writes a packet holding one track descriptor, `d`.
    fn descriptor(&mut self, d: &Msg) -> io::Result<()> {
        self.pk.0.clear();
        self.pk.msg(PACKET_TRACK_DESCRIPTOR, d);
        self.packet()
    }
}

/// The interning ID of `name` in `table`; a new name gets the next ID and
/// its entry (`iid`, `name`) is added to the interned data as field `field`.
fn intern(
    table: &mut HashMap<String, u64>,
    name: &str,
    (interned, entry): (&mut Msg, &mut Msg),
    field: u32,
) -> u64 {
    if let Some(&iid) = table.get(name) {
        return iid;
    }
    let iid = table.len() as u64 + 1;
    table.insert(name.to_string(), iid);
    entry.0.clear();
    entry.uint(NAME_IID, iid).string(NAME_NAME, name);
    interned.msg(field, entry);
    iid
}

fn uuid(t: &Track) -> u64 {
    u64::from(t.id) + 2
}

impl<W: Write> Sink for PerfettoTrace<W> {
    fn start(&mut self, _from: f64, _to: f64, first: f64) -> io::Result<()> {
        self.base = first;
        let mut d = Msg::default();
        d.uint(TRACK_UUID, ROOT_UUID)
            .string(TRACK_NAME, &format!("mpelog export, start {first:?} s"))
            .uint(TRACK_CHILD_ORDERING, CHILD_ORDERING_EXPLICIT);
        self.descriptor(&d)
    }

    fn track(&mut self, t: &Track) -> io::Result<()> {
        let name = if t.lane == 0 {
            t.name.clone()
        } else {
            format!("{} ({})", t.name, t.lane + 1)
        };
        let mut d = Msg::default();
        d.uint(TRACK_UUID, uuid(t))
            .string(TRACK_NAME, &name)
            .uint(TRACK_PARENT, ROOT_UUID)
            .int(TRACK_SIBLING_ORDER_RANK, i64::from(t.sort_key()));
        self.descriptor(&d)
    }

    fn enter(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.track_event(SLICE_BEGIN, t, "state");
        self.annotations(cat, info, None);
        self.event(time, Some(&cat.name))
    }

    fn leave(&mut self, time: f64, t: &Track, _cat: &Cat) -> io::Result<()> {
        self.track_event(SLICE_END, t, "");
        self.event(time, None)
    }

    fn instant(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.track_event(INSTANT, t, "event");
        self.annotations(cat, info, None);
        self.event(time, Some(&cat.name))
    }

    fn send(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.flow_slice(f, EVENT_FLOW_IDS, "to")
    }

    fn receive(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.flow_slice(f, EVENT_TERMINATING_FLOW_IDS, "from")
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{compute, rank_track};
    use super::*;

    #[test]
    fn a_lane_after_the_first_adds_its_number_to_the_track_name() {
        // spec/export.md §3.3: lane k > 0 adds ` (k+1)`; lane 0 adds nothing.
        for (lane, name) in [
            (0, "world_rank 7"),
            (1, "world_rank 7 (2)"),
            (4, "world_rank 7 (5)"),
        ] {
            let mut out = PerfettoTrace::new(Vec::new());
            let t = rank_track(3, 7, lane);
            out.track(&t).unwrap();
            let mut want = Msg::default();
            // Track i has uuid i + 2 (spec/export.md §4 item 2).
            want.uint(TRACK_UUID, 5).string(TRACK_NAME, name);
            let bytes = out.into_inner();
            assert!(
                bytes.windows(want.0.len()).any(|w| w == want.0),
                "lane {lane}: {bytes:?}"
            );
        }
    }

    #[test]
    fn a_float_value_is_a_double_annotation() {
        // An `E` info value 1.5 becomes DebugAnnotation.double_value (field 5,
        // wire type 1): key 0x29, then 1.5's bits 0x3FF8000000000000 little-endian.
        let cat = compute(&["x="], b"E");
        let t = rank_track(0, 0, 0);
        let mut out = PerfettoTrace::new(Vec::new());
        out.start(0.0, 1.0, 0.0).unwrap();
        out.track(&t).unwrap();
        out.enter(0.5, &t, &cat, &1.5f64.to_be_bytes()).unwrap();
        let bytes = out.into_inner();
        let want = [0x29, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f];
        assert!(bytes.windows(want.len()).any(|w| w == want), "{bytes:?}");
    }

    #[test]
    fn interned_ids_count_from_one_in_order_of_first_use() {
        // spec/export.md §4 item 6: IDs 1, 2, ... per table; an entry is added
        // to the interned data only on first use.
        let (mut table, mut interned, mut entry) =
            (HashMap::default(), Msg::default(), Msg::default());
        let ids: Vec<u64> = ["send", "recv", "send", "wait"]
            .iter()
            .map(|n| {
                intern(
                    &mut table,
                    n,
                    (&mut interned, &mut entry),
                    INTERNED_EVENT_NAMES,
                )
            })
            .collect();
        assert_eq!(ids, [1, 2, 1, 3]);
        // Field 2 (InternedData.event_names), length 8: iid (field 1), name (field 2).
        let mut want = Vec::new();
        for (iid, name) in [(1u8, "send"), (2, "recv"), (3, "wait")] {
            want.extend_from_slice(&[0x12, 8, 0x08, iid, 0x12, 4]);
            want.extend_from_slice(name.as_bytes());
        }
        assert_eq!(interned.0, want);
    }

    #[test]
    fn finish_flushes_the_writer() {
        // A buffered writer holds the packets until `finish` flushes it.
        super::super::assert_finish_flushes(PerfettoTrace::new, |t| &t.out);
    }
}
