//! SLOG-1 (spec/slog1.md): inputs for `slog2_format::slog1::build` and the
//! files built from them.
//!
//! * [`interval_types`] gives 1 to 5 interval types, each with its record
//!   definition (any bebits code, 0 to 2 associations, 0 to 4 arguments) and
//!   the record type its records use: fixed or variable-size, state or arrow.
//! * [`build_input`] gives a thread table, a display profile entry per type,
//!   the record definitions and 1 to 59 interval records of those types (any
//!   start from 0 to 100 s, zero, short or long durations, arguments and
//!   associations as the definitions say, a few on an undeclared node).
//! * [`file()`] builds it (`build`, then `to_bytes`) with random frame size,
//!   directory capacity and statistics bins; the frame size is raised when the
//!   records active at one instant would not fit in a frame. The file parses
//!   and converts to SLOG-2.

use proptest::prelude::*;
use slog2_format::slog1::*;
use std::ops::Range;

/// Records per file in [`build_input`].
pub const RECORDS: Range<usize> = 1..60;

/// Start times of [`build_input`] records are drawn from this range (seconds).
pub const STARTS: Range<f64> = 0.0..100.0;

/// Declared nodes (thread-table entries, thread 0 each) in [`build_input`].
pub const NODES: Range<u16> = 1..5;

/// Colour names of the display profile (the last is in no colour table).
pub const COLORS: [&str; 6] = [
    "red",
    "green",
    "blue",
    "DimGrey",
    "purple",
    "no such colour",
];

/// One interval type of a generated file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntervalType {
    /// Its record definition (interval type, bebits, associations, arguments).
    pub def: RecDef,
    /// The record type of its records: 0–63 variable state, 64–127 or 256 and
    /// up fixed state, 128–191 variable arrow, 192–255 fixed arrow.
    pub rectype: u16,
}

impl IntervalType {
    /// Whether its records are arrows.
    pub fn is_arrow(&self) -> bool {
        is_off_diagonal(self.rectype)
    }
}

/// A record type of each kind: variable or fixed-size, state or arrow.
pub fn rectype() -> impl Strategy<Value = u16> {
    prop_oneof![0u16..64, 64u16..128, 128u16..192, 192u16..256, 256u16..1000]
}

/// 1 to 5 interval types with distinct interval types (1, 2, ... plus an
/// offset), any bebits code, 0 to 2 associations and 0 to 4 arguments.
pub fn interval_types() -> impl Strategy<Value = Vec<IntervalType>> {
    (
        0u16..60000,
        prop::collection::vec((rectype(), 0u8..=3, 0u16..3, 0u16..5), 1..6),
    )
        .prop_map(|(base, v)| {
            v.into_iter()
                .enumerate()
                .map(|(i, (rectype, bebits, nassocs, nargs))| IntervalType {
                    def: RecDef {
                        intvltype: base + i as u16,
                        bebits,
                        nassocs,
                        nargs,
                    },
                    rectype,
                })
                .collect()
        })
}

/// The arguments of a record of type `t`: `nargs` words for fixed-size types,
/// 0 to 2 groups of 0 to 3 words for variable-size ones.
pub fn record_args(t: IntervalType) -> BoxedStrategy<RecordArgs> {
    if is_variable(t.rectype) {
        prop::collection::vec(prop::collection::vec(any::<u32>(), 0..4), 0..3)
            .prop_map(|g| {
                RecordArgs::Variable(g.into_iter().map(|values| ArgGroup { values }).collect())
            })
            .boxed()
    } else {
        prop::collection::vec(any::<u32>(), t.def.nargs as usize)
            .prop_map(RecordArgs::Fixed)
            .boxed()
    }
}

/// A duration: zero, short or long (seconds).
pub fn duration() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), 0.0f64..2.0, 0.0f64..20.0]
}

/// A record of one of `types` on nodes 0 to `nodes` (node `nodes` is not in the
/// thread table): a start from [`STARTS`], a [`duration`], a destination for
/// arrows, associations and [`record_args`] as its type says.
pub fn interval_record(
    types: Vec<IntervalType>,
    nodes: u16,
) -> impl Strategy<Value = IntervalRecord> {
    prop::sample::select(types).prop_flat_map(move |t| {
        (
            STARTS,
            duration(),
            (0..=nodes, 0u8..2),
            (0..=nodes, 0u8..2),
            any::<u32>(),
            prop::collection::vec(any::<u32>(), t.def.nassocs as usize),
            record_args(t),
        )
            .prop_map(
                move |(
                    starttime,
                    duration,
                    (node, cpu),
                    (to, to_cpu),
                    instr_addr,
                    assocs,
                    args,
                )| {
                    IntervalRecord {
                        rectype: t.rectype,
                        intvltype: t.def.intvltype,
                        bebits: t.def.bebits,
                        starttime,
                        duration,
                        origin: TaskLabel {
                            node,
                            cpu,
                            thread: 0,
                        },
                        destination: t.is_arrow().then_some(TaskLabel {
                            node: to,
                            cpu: to_cpu,
                            thread: 0,
                        }),
                        instr_addr,
                        assocs,
                        args,
                    }
                },
            )
    })
}

/// A display profile entry for `t`: class `message` for arrows, else `state`;
/// the label `label`, a colour from [`COLORS`], argument labels `a0`, `a1`, ...
/// for its fixed arguments.
pub fn profile_entry(t: IntervalType, label: &str, color: &str) -> ProfileEntry {
    let class = if t.is_arrow() { "message" } else { "state" };
    let names: Vec<String> = if is_variable(t.rectype) {
        Vec::new()
    } else {
        (0..t.def.nargs).map(|i| format!("a{i}")).collect()
    };
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    ProfileEntry::new(t.def.intvltype, t.def.bebits, class, label, color, &names)
}

/// What `build` takes: a preview of 0 to 15 bytes, a thread table for
/// [`NODES`] nodes, [`interval_types`] with their [`profile_entry`]s and
/// definitions, and [`RECORDS`] [`interval_record`]s.
pub fn build_input() -> impl Strategy<Value = BuildInput> {
    (interval_types(), NODES).prop_flat_map(|(types, nodes)| {
        let n = types.len();
        (
            Just(types.clone()),
            prop::collection::vec(any::<u8>(), 0..16),
            prop::collection::vec((any::<u32>(), any::<u32>()), nodes as usize),
            prop::collection::vec(
                (
                    "[A-Za-z][A-Za-z0-9_ ]{0,20}",
                    prop::sample::select(COLORS.to_vec()),
                ),
                n,
            ),
            prop::collection::vec(interval_record(types, nodes), RECORDS),
        )
            .prop_map(|(types, preview, os, labels, records)| BuildInput {
                preview,
                threads: os
                    .iter()
                    .enumerate()
                    .map(|(i, &(os_process_id, os_thread_id))| ThreadInfo {
                        node_id: i as u16,
                        thread_id: 0,
                        os_process_id,
                        os_thread_id,
                        app_id: i as u32,
                    })
                    .collect(),
                profile: types
                    .iter()
                    .zip(&labels)
                    .map(|(&t, (label, color))| profile_entry(t, label, color))
                    .collect(),
                recdefs: types.iter().map(|t| t.def).collect(),
                records,
            })
    })
}

/// Build options: a frame size of 128 to 4095 bytes (see [`frame_size`]), a
/// directory capacity of 0 to 63 slots, 1 to 512 statistics bins.
pub fn build_options() -> impl Strategy<Value = BuildOptions> {
    (128u32..4096, 0u32..64, 1u32..=512).prop_map(|(frame_bytesize, max_ndirframe, nbin)| {
        BuildOptions::default()
            .frame_bytesize(frame_bytesize)
            .max_ndirframe(max_ndirframe)
            .nbin(nbin)
    })
}

/// The smallest frame size with which `build` can place `records`: the frame
/// header plus, at the busiest start time, the records that started before
/// and are still open and those that start then.
pub fn frame_size(records: &[IntervalRecord]) -> u32 {
    let busiest = records
        .iter()
        .map(|r| {
            let s = r.starttime;
            records
                .iter()
                .filter(|q| q.starttime == s || (q.starttime < s && q.endtime() > s))
                .map(IntervalRecord::disk_len)
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0);
    u32::try_from(FRAME_HEADER_LEN + busiest).unwrap_or(u32::MAX)
}

/// Builds `input` with `opts`, the frame size raised to [`frame_size`] if
/// needed.
///
/// # Panics
///
/// When `build` refuses the input (a bug: generated inputs are valid).
pub fn build_file(input: &BuildInput, opts: BuildOptions) -> Slog1File {
    let opts = opts.frame_bytesize(opts.frame_bytesize.max(frame_size(&input.records)));
    build(input, opts).expect("a generated input builds")
}

/// A file built from a [`build_input`] with [`build_options`].
pub fn slog1_file() -> impl Strategy<Value = Slog1File> {
    (build_input(), build_options()).prop_map(|(i, o)| build_file(&i, o))
}

/// The bytes of a [`slog1_file`].
pub fn file() -> impl Strategy<Value = Vec<u8>> {
    slog1_file().prop_map(|f| f.to_bytes().expect("a built file writes"))
}

/// A fixed state record (rectype 64) of interval type `t` with bebits `b`, on
/// node `node` (cpu and thread 0), its instruction address `0x1000 + t`, no
/// associations and the fixed arguments `args`: a building block for tests that
/// write SLOG-1 files by hand.
pub fn state(t: u16, b: u8, s: f64, d: f64, node: u16, args: Vec<u32>) -> IntervalRecord {
    IntervalRecord {
        rectype: 64,
        intvltype: t,
        bebits: b,
        starttime: s,
        duration: d,
        origin: TaskLabel {
            node,
            cpu: 0,
            thread: 0,
        },
        destination: None,
        instr_addr: 0x1000 + t as u32,
        assocs: vec![],
        args: RecordArgs::Fixed(args),
    }
}

/// A fixed arrow record (rectype 192, interval type 10001, bebits 3) from node
/// `from` to node `to` carrying `tag`, with one association (7).
pub fn arrow(s: f64, d: f64, from: u16, to: u16, tag: u32) -> IntervalRecord {
    IntervalRecord {
        rectype: 192,
        intvltype: 10001,
        destination: Some(TaskLabel {
            node: to,
            cpu: 0,
            thread: 0,
        }),
        instr_addr: 0,
        assocs: vec![7],
        args: RecordArgs::Fixed(vec![tag]),
        ..state(10001, 3, s, d, from, vec![])
    }
}
