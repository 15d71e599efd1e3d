//! Old (MPE1) CLOG (spec/clog.md): records of every type, unknown types
//! included, block sizes and fills, and whole files.
//!
//! * [`record()`] gives any record: a finite time, any process ID and pad, and
//!   any [`body()`] (an unknown record type with a body of whole 8-byte words
//!   among them).
//! * [`file()`] gives files that MPICH-1 could have written: [`known_record`]s
//!   in time order, ending with a state on process 0 (so the file makes a
//!   drawable), in blocks of 1024 bytes or in one 64 KiB block, packed either
//!   way ([`block_fill`]). They read with the block size inferred and convert
//!   to SLOG-2 (`slog2_format::convert::clog_to_slog2`).

use clog2_format::clog::*;
use clog2_format::FixedBytes;
use proptest::prelude::*;
use std::ops::Range;

/// The block sizes [`file()`] uses: MPICH-1 up to 1.1.2 (1024), and 65536, which
/// holds every generated file in one block. Both are inferred from the bytes
/// (spec/clog.md §2); other sizes may be mistaken for a smaller power of two.
pub const FILE_BLOCK_SIZES: [usize; 2] = [1024, 65536];

/// Records per file in [`file()`], before the closing state.
pub const RECORDS: Range<usize> = 0..120;

/// Times of [`file()`] records are drawn from this range (seconds; old-CLOG
/// detection wants times of magnitude at most `MAX_PLAUSIBLE_TIME`).
pub const TIMES: Range<f64> = 0.0..1.0e4;

/// The MPI placeholder state (events 1 and 2) [`file()`] logs last.
pub const CLOSING_STATE: (i32, i32) = (1, 2);

/// `N` arbitrary bytes.
pub fn fixed<const N: usize>() -> impl Strategy<Value = FixedBytes<N>> {
    proptest::array::uniform::<_, N>(any::<u8>()).prop_map(FixedBytes)
}

/// Any body of a known record type other than the terminators: RAWEVENT, MSGEVENT,
/// COLLEVENT, COMMEVENT, EVENTDEF, STATEDEF, SRCLOC, SHIFT, with any fields.
pub fn known_body() -> BoxedStrategy<Body> {
    let i = any::<i32>;
    prop_oneof![
        (i(), i(), i(), fixed(), fixed()).prop_map(|(etype, data, srcloc, pad, string)| {
            Body::Raw(RawEvent {
                etype,
                data,
                srcloc,
                pad,
                string,
            })
        }),
        (i(), i(), i(), i(), i(), i()).prop_map(|(etype, tag, partner, comm, size, srcloc)| {
            Body::Msg(MsgEvent {
                etype,
                tag,
                partner,
                comm,
                size,
                srcloc,
            })
        }),
        (i(), i(), i(), i(), i(), fixed()).prop_map(|(etype, root, comm, size, srcloc, pad)| {
            Body::Coll(CollEvent {
                etype,
                root,
                comm,
                size,
                srcloc,
                pad,
            })
        }),
        (i(), i(), i(), i()).prop_map(|(etype, parent, newcomm, srcloc)| {
            Body::Comm(CommEvent {
                etype,
                parent,
                newcomm,
                srcloc,
            })
        }),
        (i(), fixed(), fixed()).prop_map(|(etype, pad, description)| {
            Body::EventDef(EventDef {
                etype,
                pad,
                description,
            })
        }),
        (i(), i(), i(), fixed(), fixed(), fixed()).prop_map(
            |(stateid, startetype, endetype, pad, color, description)| {
                Body::StateDef(StateDef {
                    stateid,
                    startetype,
                    endetype,
                    pad,
                    color,
                    description,
                })
            }
        ),
        (i(), i(), fixed()).prop_map(|(srcloc, lineno, filename)| {
            Body::SrcLoc(SrcLoc {
                srcloc,
                lineno,
                filename,
            })
        }),
        any::<f64>().prop_map(|timeshift| Body::Shift(Shift { timeshift })),
    ]
    .boxed()
}

/// A record type no MPICH-1 writer uses (9 to 999, -1000 to -4, or 0) with a
/// body of 0 to 5 arbitrary 8-byte words.
pub fn unknown_body() -> impl Strategy<Value = Body> {
    (prop_oneof![9..1000i32, -1000..-3i32, Just(0)], 0usize..6).prop_flat_map(|(rectype, words)| {
        proptest::collection::vec(any::<u8>(), words * 8)
            .prop_map(move |bytes| Body::Unknown { rectype, bytes })
    })
}

/// Any body but a terminator: a [`known_body`] (8 times in 9) or an
/// [`unknown_body`].
pub fn body() -> impl Strategy<Value = Body> {
    prop_oneof![8 => known_body(), 1 => unknown_body()]
}

/// Any record: a finite time, any process ID and pad, any [`body()`].
pub fn record() -> impl Strategy<Value = Record> {
    (
        any::<f64>().prop_filter("finite", |t| t.is_finite()),
        any::<i32>(),
        fixed::<4>(),
        body(),
    )
        .prop_map(|(time, procid, pad, body)| Record {
            time,
            procid,
            pad,
            body,
        })
}

/// Like [`record()`] with a [`known_body`] and a time from `times`.
pub fn known_record(times: Range<f64>) -> impl Strategy<Value = Record> {
    (times, any::<i32>(), fixed::<4>(), known_body()).prop_map(|(time, procid, pad, body)| Record {
        time,
        procid,
        pad,
        body,
    })
}

/// `n` [`record()`]s.
pub fn records(n: Range<usize>) -> impl Strategy<Value = Vec<Record>> {
    proptest::collection::vec(record(), n)
}

/// Either way of packing blocks: MPICH-1's rule or as full as possible.
pub fn block_fill() -> impl Strategy<Value = BlockFill> {
    prop_oneof![Just(BlockFill::Mpe1), Just(BlockFill::Tight)]
}

/// The records of a [`file()`]: [`RECORDS`] [`known_record`]s sorted by time,
/// then the start and end of [`CLOSING_STATE`] on process 0 at the last time.
pub fn ordered_records() -> impl Strategy<Value = Vec<Record>> {
    proptest::collection::vec(known_record(TIMES), RECORDS).prop_map(|mut recs| {
        recs.sort_by(|a, b| a.time.total_cmp(&b.time));
        let last = recs.last().map_or(TIMES.start, |r| r.time);
        for etype in [CLOSING_STATE.0, CLOSING_STATE.1] {
            recs.push(Record::new(
                last,
                0,
                Body::Raw(RawEvent {
                    etype,
                    data: 0,
                    srcloc: 0,
                    pad: FixedBytes::ZERO,
                    string: FixedBytes::ZERO,
                }),
            ));
        }
        recs
    })
}

/// Writes `records` with `ClogWriter` in blocks of `block_size` bytes packed as
/// `fill` says.
///
/// # Panics
///
/// When the writer refuses them (a block size below 24 or not a multiple of 8,
/// a record type it cannot write).
pub fn write(records: &[Record], block_size: usize, fill: BlockFill) -> Vec<u8> {
    let mut w = ClogWriter::with_fill(Vec::new(), block_size, fill).expect("a valid block size");
    for r in records {
        w.push(r).expect("a writable record");
    }
    w.finish().expect("the file finishes")
}

/// A whole file: [`ordered_records`] in one of [`FILE_BLOCK_SIZES`], packed by
/// either [`block_fill`].
pub fn file() -> impl Strategy<Value = Vec<u8>> {
    (
        ordered_records(),
        prop::sample::select(FILE_BLOCK_SIZES.to_vec()),
        block_fill(),
    )
        .prop_map(|(recs, bs, fill)| write(&recs, bs, fill))
}
