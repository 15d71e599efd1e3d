//! Helpers shared by the conformance tests.
#![allow(dead_code)]

use clog2_format::commtable::{comm_kind, CommEntry, CommTable};
use clog2_format::record::{Body, CommEvt, Record, Uuid};
use clog2_format::{Clog2Reader, Clog2Writer, PreambleInfo};
use std::io::Cursor;

/// A COMMEVT record of `rank` (its world rank too) for the local communicator
/// `icomm`.
pub fn commevt(time: f64, rank: i32, etype: i32, icomm: i32) -> Record {
    Record::new(
        time,
        rank,
        Body::Comm(CommEvt {
            etype,
            icomm,
            rank,
            wrank: rank,
            gcomm: Uuid::ZERO,
        }),
    )
}

/// MPE 02.44's preamble for `ranks` processes with 1 KiB blocks; event IDs
/// 0..599 are the known states, -10 and -9 the known solo events.
pub fn info(ranks: i32) -> PreambleInfo {
    let mut i = PreambleInfo::mpe_default(ranks);
    i.block_size = 1024;
    i.known_solo_event_id_count = Some(2);
    i
}

/// A 2-rank trace: both ranks declare MPI_COMM_WORLD (the records of `body`
/// follow), and a comm table with that one communicator.
pub fn build_with(info: PreambleInfo, body: &[Record]) -> Vec<u8> {
    let mut w = Clog2Writer::new(Cursor::new(Vec::new()), info).unwrap();
    let world = clog2_format::record::comm_etype::WORLD_CREATE;
    for r in [commevt(0.0, 0, world, 0), commevt(0.0, 1, world, 0)]
        .iter()
        .chain(body)
    {
        w.push(r).unwrap();
    }
    let table = CommTable::new(vec![CommEntry {
        gcomm: Uuid::ZERO,
        local_id: 0,
        kind: comm_kind::INTRA,
    }]);
    w.finish(Some(&table)).unwrap().0.into_inner()
}

/// [`build_with`] and the preamble of [`info`]`(2)`.
pub fn build(body: &[Record]) -> Vec<u8> {
    build_with(info(2), body)
}

/// CRC-32 as zlib computes it (for patching checksums into broken files).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Where `mpelog convert` refuses the file for its time order (`Some(offset)`),
/// or `None` when it converts it.
pub fn convert_refusal(b: &[u8]) -> Option<u64> {
    let conv = slog2_format::convert::clog2_to_slog2(
        &mut Clog2Reader::from_slice(b).unwrap(),
        Cursor::new(Vec::new()),
        Default::default(),
        |_| {},
    );
    match conv {
        Ok(_) => None,
        Err(e @ slog2_format::Error::OutOfOrder { .. }) => {
            Some(e.offset().expect("OutOfOrder names its offset"))
        }
        Err(e) => panic!("convert failed otherwise: {e}"),
    }
}
