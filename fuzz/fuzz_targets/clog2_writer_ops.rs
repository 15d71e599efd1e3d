//! Structured fuzzing of the CLOG2 writer (zip2-style): an `arbitrary` sequence
//! of writer operations (records of every kind, any version, byte order and block
//! size) is written with `Clog2Writer`, then read back: the reader must return
//! exactly the records pushed, and the file must rewrite byte for byte.
#![no_main]

use clog2_format::record::*;
use clog2_format::version::Version;
use clog2_format::{Clog2File, Clog2Reader, Clog2Writer, FixedBytes, PreambleInfo, Record};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;

#[derive(Debug, Arbitrary)]
enum Op {
    Bare {
        t: u16,
        rank: u8,
        etype: i16,
    },
    Cargo {
        t: u16,
        rank: u8,
        etype: i16,
        byte: u8,
    },
    Msg {
        t: u16,
        rank: u8,
        send: bool,
        partner: u8,
        tag: i16,
        size: u16,
    },
    StateDef {
        id: i16,
        start: i16,
        name: u8,
    },
    Comm {
        rank: u8,
        icomm: u8,
    },
    TimeShift {
        t: u16,
        rank: u8,
        shift: i16,
    },
}

#[derive(Debug, Arbitrary)]
struct Plan {
    little: bool,
    block_kb: u8,
    ops: Vec<Op>,
}

fuzz_target!(|plan: Plan| {
    let mut info = PreambleInfo::mpe_default(8);
    info.version = Version::V2_44;
    info.big_endian = !plan.little;
    info.block_size = 1024 * (1 + (plan.block_kb as u32 % 8));
    let mut w = match Clog2Writer::new(Cursor::new(Vec::new()), info) {
        Ok(w) => w,
        Err(_) => return,
    };
    let mut pushed = Vec::new();
    let mut time = 0.0f64;
    for op in plan.ops.iter().take(2000) {
        let (dt, rank, body) = match *op {
            Op::Bare { t, rank, etype } => (
                t,
                rank,
                Body::Bare(BareEvt {
                    etype: etype as i32,
                    pad: FixedBytes::ZERO,
                }),
            ),
            Op::Cargo {
                t,
                rank,
                etype,
                byte,
            } => (
                t,
                rank,
                Body::Cargo(CargoEvt {
                    etype: etype as i32,
                    pad: FixedBytes::ZERO,
                    bytes: FixedBytes([byte; 32]),
                }),
            ),
            Op::Msg {
                t,
                rank,
                send,
                partner,
                tag,
                size,
            } => (
                t,
                rank,
                Body::Msg(MsgEvt {
                    etype: if send { SEND_ETYPE } else { RECV_ETYPE },
                    icomm: 0,
                    rank: (partner % 8) as i32,
                    tag: tag as i32,
                    size: size as i32,
                    pad: FixedBytes::ZERO,
                }),
            ),
            Op::StateDef { id, start, name } => (
                0,
                0,
                Body::StateDef(StateDef {
                    state_id: id as i32,
                    start_etype: start as i32,
                    final_etype: start as i32 + 1,
                    pad: FixedBytes::ZERO,
                    color: FixedBytes::from_str_truncated("red"),
                    name: FixedBytes::from_str_truncated(&format!("s{name}")),
                    format: FixedBytes::ZERO,
                }),
            ),
            Op::Comm { rank, icomm } => (
                0,
                rank,
                Body::Comm(CommEvt {
                    etype: 0,
                    icomm: (icomm % 4) as i32,
                    rank: (rank % 8) as i32,
                    wrank: (rank % 8) as i32,
                    gcomm: Uuid::ZERO,
                }),
            ),
            Op::TimeShift { t, rank, shift } => (
                t,
                rank,
                Body::TimeShift(TimeShift {
                    timeshift: shift as f64 * 1e-6,
                }),
            ),
        };
        time += dt as f64 * 1e-6;
        let rec = Record {
            time,
            icomm: 0,
            rank: (rank % 8) as i32,
            thread: 0,
            body,
        };
        if w.push(&rec).is_ok() {
            pushed.push(rec);
        } else {
            return;
        }
    }
    let Ok((out, _)) = w.finish(None) else { return };
    let bytes = out.into_inner();
    let mut r = Clog2Reader::from_slice(&bytes).expect("our file opens");
    let mut back = Vec::new();
    while let Some(rec) = r.next_record().expect("our file reads") {
        if !matches!(rec.body, Body::EndBlock | Body::EndLog) {
            back.push(rec);
        }
    }
    assert_eq!(
        back, pushed,
        "records read back differ from the records pushed"
    );
    let f = Clog2File::parse(&bytes).expect("our file parses whole");
    assert!(
        f.to_bytes().expect("rewrites") == bytes,
        "not byte-identical"
    );
});
