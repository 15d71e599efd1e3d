//! CLOG2 (spec/clog2.md): records of every type for every version, comm tables,
//! whole files, and MPE-like traces from `clog2_format::synth`.
//!
//! * [`record()`] gives any record valid for a version's header layout except the
//!   terminators (which the writer adds): any times (NaN included), any IDs, pads
//!   and strings holding arbitrary bytes as stale bytes do in real files.
//! * [`case`] gives a whole file as a [`Case`]; [`write()`] writes it with
//!   `Clog2Writer`; [`file()`] gives the bytes. These files read back record for
//!   record and rewrite byte for byte, but their records are in no time order.
//! * [`ordered_case`] / [`ordered_file`]: the same with finite times in
//!   non-decreasing order and one solo event declared and logged, so the file
//!   also converts to SLOG-2 (`slog2_format::convert::clog2_to_slog2`).
//! * [`synth_options`] / [`trace`]: realistic `CLOG-02.44` traces (states,
//!   arrows, events, nested communicators) from the deterministic generator.

use clog2_format::record::*;
use clog2_format::synth;
use clog2_format::{
    Body, Clog2Writer, CommEntry, CommTable, FixedBytes, PreambleInfo, Record, Version,
};
use proptest::prelude::*;
use std::io::Cursor;
use std::ops::Range;

/// A whole CLOG2 file: version, big-endian, block size, the records (no
/// terminators), the comm table entries (empty for versions without a table).
pub type Case = (Version, bool, u32, Vec<Record>, Vec<CommEntry>);

/// The block sizes of [`case`] (small ones make many blocks of few records).
pub const BLOCK_SIZES: [u32; 4] = [256, 512, 1024, 4096];

/// Records per file in [`case`] and [`ordered_case`] (terminators not counted).
pub const RECORDS: Range<usize> = 0..120;

/// The event type [`ordered_case`] declares with an EVENTDEF and logs as the last
/// record, so that every ordered file makes at least one drawable. It lies
/// outside the ID ranges `PreambleInfo::mpe_default` reserves.
pub const SOLO_ETYPE: i32 = 4_000_000;

/// Times of [`ordered_case`] records are drawn from this range (seconds).
pub const ORDERED_TIMES: Range<f64> = 0.0..1.0e4;

/// The world size [`write()`] puts in the preamble.
pub const WORLD_SIZE: i32 = 4;

/// Seeds of [`synth_options`].
pub const SEEDS: Range<u64> = 0..1000;

/// `N` arbitrary bytes.
pub fn fixed<const N: usize>() -> impl Strategy<Value = FixedBytes<N>> {
    proptest::collection::vec(any::<u8>(), N).prop_map(|v| {
        FixedBytes(
            v.try_into()
                .unwrap_or_else(|_| unreachable!("the vector has N bytes")),
        )
    })
}

/// A communicator UUID: any `rand`, any time, any 20-byte name.
pub fn uuid() -> impl Strategy<Value = Uuid> {
    (any::<i32>(), any::<f64>(), fixed::<20>()).prop_map(|(rand, time, name)| Uuid {
        rand,
        time,
        name,
    })
}

/// Any body valid for a version with (`legacy`) or without legacy record headers,
/// except terminators: definitions, bare and cargo events, source locations and
/// time shifts for both; MSGEVT, COLLEVT and COMMEVT without legacy headers,
/// their legacy forms with them. Pads and strings hold arbitrary bytes.
pub fn body(legacy: bool) -> BoxedStrategy<Body> {
    let i = any::<i32>;
    let common =
        prop_oneof![
            (
                i(),
                i(),
                i(),
                fixed::<4>(),
                fixed::<24>(),
                fixed::<32>(),
                fixed::<40>()
            )
                .prop_map(
                    |(state_id, start_etype, final_etype, pad, color, name, format)| {
                        Body::StateDef(StateDef {
                            state_id,
                            start_etype,
                            final_etype,
                            pad,
                            color,
                            name,
                            format,
                        })
                    }
                ),
            (
                i(),
                fixed::<4>(),
                fixed::<24>(),
                fixed::<32>(),
                fixed::<40>()
            )
                .prop_map(|(etype, pad, color, name, format)| {
                    Body::EventDef(EventDef {
                        etype,
                        pad,
                        color,
                        name,
                        format,
                    })
                }),
            (i(), i(), fixed::<32>()).prop_map(|(etype, value, name)| Body::ConstDef(ConstDef {
                etype,
                value,
                name
            })),
            (i(), fixed::<4>()).prop_map(|(etype, pad)| Body::Bare(BareEvt { etype, pad })),
            (i(), fixed::<4>(), fixed::<32>())
                .prop_map(|(etype, pad, bytes)| Body::Cargo(CargoEvt { etype, pad, bytes })),
            (i(), i(), fixed::<40>()).prop_map(|(srcloc, lineno, filename)| Body::SrcLoc(SrcLoc {
                srcloc,
                lineno,
                filename
            })),
            any::<f64>().prop_map(|timeshift| Body::TimeShift(TimeShift { timeshift })),
        ];
    if legacy {
        prop_oneof![
            4 => common,
            1 => (i(), i(), i(), i(), i(), fixed::<4>()).prop_map(
                |(etype, tag, partner, comm, size, pad)| Body::LegacyMsg(LegacyMsgEvt {
                    etype,
                    tag,
                    partner,
                    comm,
                    size,
                    pad,
                })
            ),
            1 => (i(), i(), i(), i()).prop_map(|(etype, root, comm, size)| {
                Body::LegacyColl(LegacyCollEvt {
                    etype,
                    root,
                    comm,
                    size,
                })
            }),
            1 => (i(), i(), i(), fixed::<4>()).prop_map(|(etype, parent, newcomm, pad)| {
                Body::LegacyComm(LegacyCommEvt {
                    etype,
                    parent,
                    newcomm,
                    pad,
                })
            }),
        ]
        .boxed()
    } else {
        prop_oneof![
            4 => common,
            1 => (i(), i(), i(), i(), i(), fixed::<4>()).prop_map(
                |(etype, icomm, rank, tag, size, pad)| Body::Msg(MsgEvt {
                    etype,
                    icomm,
                    rank,
                    tag,
                    size,
                    pad,
                })
            ),
            1 => (i(), i(), i(), fixed::<4>()).prop_map(|(etype, root, size, pad)| {
                Body::Coll(CollEvt {
                    etype,
                    root,
                    size,
                    pad,
                })
            }),
            1 => (i(), i(), i(), i(), uuid()).prop_map(|(etype, icomm, rank, wrank, gcomm)| {
                Body::Comm(CommEvt {
                    etype,
                    icomm,
                    rank,
                    wrank,
                    gcomm,
                })
            }),
        ]
        .boxed()
    }
}

/// Any non-terminator record for a version with (`legacy`) or without legacy
/// headers: any time, rank and [`body()`]; legacy headers carry only a process ID,
/// so their communicator and thread are 0.
pub fn record(legacy: bool) -> impl Strategy<Value = Record> {
    (
        any::<f64>(),
        any::<i32>(),
        any::<i32>(),
        any::<i32>(),
        body(legacy),
    )
        .prop_map(move |(time, icomm, rank, thread, body)| Record {
            time,
            // Legacy headers carry only a process ID.
            icomm: if legacy { 0 } else { icomm },
            rank,
            thread: if legacy { 0 } else { thread },
            body,
        })
}

/// A comm table entry: any UUID, local ID and kind.
pub fn comm_entry() -> impl Strategy<Value = CommEntry> {
    (uuid(), any::<i32>(), any::<i32>()).prop_map(|(gcomm, local_id, kind)| CommEntry {
        gcomm,
        local_id,
        kind,
    })
}

/// Comm table entries for `version`: 0 to 4 [`comm_entry`]s when the version has
/// a comm table, none otherwise.
pub fn comm_table(version: Version) -> BoxedStrategy<Vec<CommEntry>> {
    if version.has_comm_table() {
        proptest::collection::vec(comm_entry(), 0..5).boxed()
    } else {
        Just(Vec::new()).boxed()
    }
}

/// Any version, either byte order, one of [`BLOCK_SIZES`].
pub fn layout() -> impl Strategy<Value = (Version, bool, u32)> {
    (
        prop::sample::select(Version::ALL.to_vec()),
        any::<bool>(),
        prop::sample::select(BLOCK_SIZES.to_vec()),
    )
}

/// A whole file: a [`layout`], [`RECORDS`] records valid for its version
/// ([`record()`]) and a [`comm_table`].
pub fn case() -> impl Strategy<Value = Case> {
    layout().prop_flat_map(|(v, big, bs)| {
        let legacy = v.has_legacy_header();
        (
            Just(v),
            Just(big),
            Just(bs),
            proptest::collection::vec(record(legacy), RECORDS),
            comm_table(v),
        )
    })
}

/// A [`case`] whose records are in time order and convert to SLOG-2: the times
/// are replaced by sorted draws from [`ORDERED_TIMES`], an EVENTDEF of
/// [`SOLO_ETYPE`] comes first, about a quarter of the bare and cargo events
/// become events of that type (each one drawable), and a bare event of it
/// comes last (at the last time).
pub fn ordered_case() -> impl Strategy<Value = Case> {
    layout()
        .prop_flat_map(|(v, big, bs)| {
            let legacy = v.has_legacy_header();
            (
                Just(v),
                Just(big),
                Just(bs),
                proptest::collection::vec(
                    (ORDERED_TIMES, prop::bool::weighted(0.25), record(legacy)),
                    RECORDS,
                ),
                comm_table(v),
            )
        })
        .prop_map(|(v, big, bs, timed, table)| {
            let mut times: Vec<f64> = timed.iter().map(|(t, _, _)| *t).collect();
            times.sort_by(f64::total_cmp);
            let last = times.last().copied().unwrap_or(ORDERED_TIMES.start);
            let mut records = Vec::with_capacity(timed.len() + 2);
            records.push(Record {
                time: ORDERED_TIMES.start,
                icomm: 0,
                rank: 0,
                thread: 0,
                body: Body::EventDef(EventDef {
                    etype: SOLO_ETYPE,
                    pad: FixedBytes::ZERO,
                    color: FixedBytes::from_str_truncated("red"),
                    name: FixedBytes::from_str_truncated("Generated"),
                    format: FixedBytes::ZERO,
                }),
            });
            records.extend(timed.into_iter().zip(times).map(|((_, solo, mut r), t)| {
                r.time = t;
                if solo {
                    if let Body::Bare(BareEvt { etype, .. }) | Body::Cargo(CargoEvt { etype, .. }) =
                        &mut r.body
                    {
                        *etype = SOLO_ETYPE;
                    }
                }
                r
            }));
            records.push(Record {
                time: last,
                icomm: 0,
                rank: 0,
                thread: 0,
                body: Body::Bare(BareEvt {
                    etype: SOLO_ETYPE,
                    pad: FixedBytes::ZERO,
                }),
            });
            (v, big, bs, records, table)
        })
}

/// Writes a [`Case`] with `Clog2Writer`: MPE's 02.44 preamble for
/// [`WORLD_SIZE`] processes adapted to the version, with the case's byte order
/// and block size; the comm table when the version has one.
///
/// # Panics
///
/// When the writer refuses the case (a bug: every generated case is valid).
pub fn write(case: &Case) -> Vec<u8> {
    let (version, big, block_size, records, table) = case;
    let mut info = PreambleInfo::mpe_default(WORLD_SIZE).for_version(*version);
    info.big_endian = *big;
    info.block_size = *block_size;
    let mut w = Clog2Writer::new(Cursor::new(Vec::new()), info).expect("a valid preamble");
    for r in records {
        w.push(r).expect("a generated record is writable");
    }
    let t = CommTable::new(table.clone());
    let (out, _) = w
        .finish(version.has_comm_table().then_some(&t))
        .expect("the file finishes");
    out.into_inner()
}

/// Event IDs that mean something under `PreambleInfo::mpe_default` (placeholder
/// states 0..600 in pairs), send and receive, IDs outside every range, and -1:
/// the IDs of [`pairing_body`].
pub const PAIRING_ETYPES: [i32; 14] = [
    0, 1, 2, 3, 598, 599, 600, 601, 5000, 5001, -10, -1, -101, -102,
];

/// Definitions (some clashing), bare and cargo events and messages (their
/// legacy form when `legacy`) of [`PAIRING_ETYPES`] between ranks 0..3 of
/// communicators 0..2 with tags 0..2: many states and arrows pair, some stay
/// unmatched, some IDs are undeclared.
pub fn pairing_body(legacy: bool) -> BoxedStrategy<Body> {
    let e = || prop::sample::select(PAIRING_ETYPES.to_vec());
    prop_oneof![
        2 => (e(), e()).prop_map(|(start_etype, final_etype)| Body::StateDef(StateDef {
            state_id: 1,
            start_etype,
            final_etype,
            pad: FixedBytes::ZERO,
            color: FixedBytes::from_str_truncated("red"),
            name: FixedBytes::from_str_truncated("s"),
            format: FixedBytes::ZERO,
        })),
        1 => e().prop_map(|etype| Body::EventDef(EventDef {
            etype,
            pad: FixedBytes::ZERO,
            color: FixedBytes::from_str_truncated("blue"),
            name: FixedBytes::from_str_truncated("e"),
            format: FixedBytes::ZERO,
        })),
        1 => Just(Body::ConstDef(ConstDef {
            etype: -201,
            value: 3,
            name: FixedBytes::ZERO,
        })),
        8 => e().prop_map(|etype| Body::Bare(BareEvt {
            etype,
            pad: FixedBytes::ZERO,
        })),
        4 => (e(), any::<u8>()).prop_map(|(etype, b)| Body::Cargo(CargoEvt {
            etype,
            pad: FixedBytes::ZERO,
            bytes: FixedBytes([b; 32]),
        })),
        6 => (
            prop_oneof![4 => Just(-101), 4 => Just(-102), 1 => e()],
            0..2i32,
            0..3i32,
            0..2i32,
            0..100i32
        )
            .prop_map(move |(etype, icomm, rank, tag, size)| if legacy {
                Body::LegacyMsg(LegacyMsgEvt {
                    etype,
                    tag,
                    partner: rank,
                    comm: icomm,
                    size,
                    pad: FixedBytes::ZERO,
                })
            } else {
                Body::Msg(MsgEvt {
                    etype,
                    icomm,
                    rank,
                    tag,
                    size,
                    pad: FixedBytes::ZERO,
                })
            }),
    ]
    .boxed()
}

/// A [`Case`] of up to 400 [`pairing_body`] records on ranks 0..3, threads
/// 0..2 and communicators 0..2 (0 with legacy headers), of any version, byte
/// order and a block size of 256 or 512 bytes; times in 0..100, in order or
/// not; no comm table. Written with [`write()`], it reads back; the pairing
/// (`slog2_format::convert::Clog2Drawables`) finds much to pair in it.
pub fn pairing_case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(Version::ALL.to_vec()),
        any::<bool>(),
        prop::sample::select(vec![256u32, 512]),
        any::<bool>(),
    )
        .prop_flat_map(|(v, big, bs, ordered)| {
            let legacy = v.has_legacy_header();
            (
                Just((v, big, bs, ordered)),
                proptest::collection::vec(
                    (
                        0.0..100.0f64,
                        0..3i32,
                        0..2i32,
                        0..2i32,
                        pairing_body(legacy),
                    ),
                    0..400,
                ),
            )
        })
        .prop_map(|((v, big, bs, ordered), recs)| {
            let mut times: Vec<f64> = recs.iter().map(|r| r.0).collect();
            if ordered {
                times.sort_by(f64::total_cmp);
            }
            let legacy = v.has_legacy_header();
            let records: Vec<Record> = recs
                .into_iter()
                .zip(times)
                .map(|((_, rank, icomm, thread, body), time)| Record {
                    time,
                    icomm: if legacy { 0 } else { icomm },
                    rank,
                    thread: if legacy { 0 } else { thread },
                    body,
                })
                .collect();
            (v, big, bs, records, Vec::new())
        })
}

/// The bytes of a [`case`]: they read back losslessly; they need not convert.
pub fn file() -> impl Strategy<Value = Vec<u8>> {
    case().prop_map(|c| write(&c))
}

/// The bytes of an [`ordered_case`]: they read back losslessly and convert to
/// SLOG-2.
pub fn ordered_file() -> impl Strategy<Value = Vec<u8>> {
    ordered_case().prop_map(|c| write(&c))
}

/// Options for `clog2_format::synth` with the number of ranks and of events in
/// the given ranges, a seed from [`SEEDS`] and one of `block_sizes` (each a
/// multiple of 8, at least `synth::MIN_BLOCK_SIZE`).
pub fn synth_options(
    ranks: Range<u32>,
    events: Range<u64>,
    block_sizes: &[u32],
) -> impl Strategy<Value = synth::Options> {
    (
        ranks,
        events,
        SEEDS,
        prop::sample::select(block_sizes.to_vec()),
    )
        .prop_map(|(ranks, events, seed, block_size)| {
            synth::Options::default()
                .ranks(ranks)
                .events(events)
                .seed(seed)
                .block_size(block_size)
        })
}

/// Small traces: 1 to 4 ranks, 300 to 3000 events, blocks of 512, 1024 or 4096
/// bytes.
pub fn small_synth_options() -> impl Strategy<Value = synth::Options> {
    synth_options(1..5, 300..3000, &[512, 1024, 4096])
}

/// Generates the trace `opts` describes.
///
/// # Panics
///
/// When the options are invalid (see `synth::Options::validate`).
pub fn generate(opts: &synth::Options) -> Vec<u8> {
    synth::generate_vec(opts).expect("valid synth options")
}

/// The bytes of a trace generated with [`small_synth_options`].
pub fn trace() -> impl Strategy<Value = Vec<u8>> {
    small_synth_options().prop_map(|o| generate(&o))
}
