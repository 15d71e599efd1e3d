//! Bad input gives a typed error that names the byte offset; never a panic. Each test
//! cuts or corrupts a file built by our writer (and, where the corpus is available,
//! a real one).

mod common;

use clog2_format::error::{Expected, PreambleProblem, ValueProblem};
use clog2_format::record::*;
use clog2_format::{
    Body, Clog2File, Clog2Reader, Clog2Writer, Error, FixedBytes, PreambleInfo, Record,
};
use std::io::Cursor;

/// A small valid file: 02.44, big-endian, 256-byte blocks, 60 bare events, a comm
/// table of two entries.
fn sample() -> Vec<u8> {
    let mut info = PreambleInfo::mpe_default(2);
    info.block_size = 256;
    let mut w = Clog2Writer::new(Cursor::new(Vec::new()), info).unwrap();
    for k in 0..60 {
        w.push(&Record {
            time: k as f64 * 0.5,
            icomm: 0,
            rank: k % 2,
            thread: 0,
            body: Body::Bare(BareEvt {
                etype: 600 + (k % 2),
                pad: FixedBytes::ZERO,
            }),
        })
        .unwrap();
    }
    let table = clog2_format::CommTable::new(vec![
        clog2_format::CommEntry {
            gcomm: Uuid::ZERO,
            local_id: 0,
            kind: 1,
        },
        clog2_format::CommEntry {
            gcomm: Uuid::ZERO,
            local_id: 1,
            kind: 1,
        },
    ]);
    w.finish(Some(&table)).unwrap().0.into_inner()
}

/// Parses with both the slice and the `Read` paths and checks they agree.
fn parse(bytes: &[u8]) -> Result<Clog2File, Error> {
    let a = Clog2File::parse(bytes);
    let b = Clog2File::read(Cursor::new(bytes));
    assert_eq!(
        format!("{a:?}"),
        format!("{b:?}"),
        "slice and Read readers disagree"
    );
    a
}

fn set_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// Rebuilds the preamble with one token replaced (and the rest re-padded).
fn with_token(bytes: &[u8], index: usize, value: &str) -> Vec<u8> {
    let raw = clog2_format::RawPreamble::parse(bytes).unwrap();
    let mut tokens = raw.tokens.clone();
    tokens[index] = value.as_bytes().to_vec();
    let mut out = clog2_format::RawPreamble::from_tokens(tokens)
        .unwrap()
        .to_bytes()
        .unwrap()
        .to_vec();
    out.extend_from_slice(&bytes[1024..]);
    out
}

#[test]
fn the_sample_is_valid() {
    let f = parse(&sample()).unwrap();
    assert_eq!(f.blocks.len(), 9);
}

#[test]
fn a_file_shorter_than_the_preamble_is_truncated() {
    let b = sample();
    match parse(&b[..500]) {
        Err(Error::Truncated { offset, expected }) => {
            assert_eq!(offset, 500);
            assert_eq!(expected, Expected::Preamble { have: 500 });
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_preamble_that_is_not_clog2_is_rejected_at_offset_0() {
    let mut b = sample();
    b[..8].copy_from_slice(b"SLOG 2.0");
    match parse(&b) {
        Err(e @ Error::NotClog2 { .. }) => {
            assert_eq!(e.offset(), Some(0));
            assert!(e.to_string().contains("SLOG 2.0"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unknown_version_is_named() {
    let b = with_token(&sample(), 0, "CLOG-02.99");
    match parse(&b) {
        Err(e @ Error::UnsupportedVersion { .. }) => assert!(e.to_string().contains("CLOG-02.99")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_non_numeric_block_size_names_its_token() {
    // Token 6 is the block_size value (version, is_big_endian=, v, is_finalzed=, v, block_size=, v).
    let b = with_token(&sample(), 6, "64k");
    match parse(&b) {
        Err(e @ Error::BadPreamble { offset, field, .. }) => {
            assert_eq!(field, "block_size=");
            assert_eq!(&b[offset as usize..offset as usize + 3], b"64k");
            let Error::BadPreamble { problem, .. } = &e else {
                unreachable!()
            };
            assert_eq!(*problem, PreambleProblem::NotInteger("64k".into()));
            assert_eq!(e.spec_row(), Some(5));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_block_size_that_is_not_a_multiple_of_8_is_rejected() {
    let b = with_token(&sample(), 6, "1001");
    match parse(&b) {
        Err(e @ Error::BadPreamble { .. }) => {
            assert_eq!(e.spec_row(), Some(7));
            let Error::BadPreamble { field, problem, .. } = e else {
                unreachable!()
            };
            assert_eq!(field, "block_size=");
            let max = clog2_format::preamble::MAX_BLOCK_SIZE.into();
            let min = clog2_format::preamble::MIN_BLOCK_SIZE.into();
            assert_eq!(
                problem,
                PreambleProblem::BlockSize {
                    value: 1001,
                    min,
                    max
                }
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_cut_inside_a_record_is_a_truncation_at_the_end_of_the_input() {
    let b = sample();
    let cut = 1024 + 256 * 3 + 40; // inside the second record of block 3
    match parse(&b[..cut]) {
        Err(Error::Truncated { offset, .. }) => assert_eq!(offset, cut as u64),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_cut_at_a_block_boundary_is_a_missing_endlog() {
    let b = sample();
    let cut = 1024 + 256 * 4;
    match parse(&b[..cut]) {
        Err(Error::MissingEndLog { offset }) => assert_eq!(offset, cut as u64),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unknown_record_type_stops_the_block_with_its_offset() {
    let mut b = sample();
    let at = 1024 + 256 * 2 + 32; // the second record of block 2
    set_i32(&mut b, at + 20, 42);
    match parse(&b) {
        Err(Error::UnknownRecordType {
            offset,
            block,
            rectype,
        }) => {
            assert_eq!((offset, block, rectype), (at as u64, 2, 42));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_record_running_past_its_block_is_an_overrun() {
    let mut b = sample();
    // Block 0 holds 7 bare events (224 bytes) then ENDBLOCK at 224; make that a
    // 136-byte STATEDEF, which cannot fit in the 32 bytes left.
    let at = 1024 + 224;
    set_i32(&mut b, at + 20, rectype::STATEDEF);
    match parse(&b) {
        Err(Error::BlockOverrun {
            offset,
            block,
            block_end,
            len,
            ..
        }) => {
            assert_eq!(
                (offset, block, block_end, len),
                (at as u64, 0, 1024 + 256, 136)
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_block_without_terminator_is_an_overrun() {
    let mut b = sample();
    // Turn ENDBLOCK and everything after it in block 0 into 32-byte bare events.
    for at in (1024 + 224..1024 + 256).step_by(32) {
        set_i32(&mut b, at + 20, rectype::BAREEVT);
    }
    match parse(&b) {
        Err(Error::BlockOverrun {
            offset, block: 0, ..
        }) => assert_eq!(offset, 1024 + 256),
        other => panic!("{other:?}"),
    }
}

#[test]
fn blocks_after_the_endlog_block_are_rejected() {
    let b = sample();
    let f = parse(&b).unwrap();
    // Move ENDLOG into block 4: everything after it is unexpected.
    let mut c = b.clone();
    let at = 1024 + 256 * 4 + 224;
    set_i32(&mut c, at + 20, rectype::ENDLOG);
    assert_eq!(f.blocks[4].records.len(), 8);
    match parse(&c) {
        Err(Error::DataAfterEndLog {
            offset,
            expected_end,
        }) => {
            assert_eq!(offset, 1024 + 256 * 5);
            assert_eq!(expected_end, f.preamble.info().commtable_fptr.unwrap());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_comm_table_pointer_off_the_block_grid_is_rejected() {
    let b = sample();
    let raw = clog2_format::RawPreamble::parse(&b).unwrap();
    let n = raw.tokens.len();
    let c = with_token(&b, n - 1, "1300");
    match parse(&c) {
        Err(Error::BadValue {
            field: "commtable_fptr",
            offset,
            value: 1300,
            problem: ValueProblem::CommTableNotAfterBlocks { block_size: 256 },
        }) => {
            // The offset names the first of the three value tokens ("0").
            assert_eq!(&c[offset as usize..offset as usize + 2], b"0\0");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_huge_comm_table_count_is_refused_without_allocating() {
    let mut b = sample();
    let fptr = Clog2File::parse(&b)
        .unwrap()
        .preamble
        .info()
        .commtable_fptr
        .unwrap() as usize;
    set_i32(&mut b, fptr, i32::MAX);
    match parse(&b) {
        Err(Error::BadValue {
            offset,
            value,
            problem,
            ..
        }) => {
            assert_eq!((offset, value), (fptr as u64, i32::MAX as i64));
            let need = 4 + i32::MAX as u64 * clog2_format::commtable::ENTRY_LEN;
            let have = (b.len() - fptr) as u64;
            assert_eq!(problem, ValueProblem::CommTableCut { need, have });
        }
        other => panic!("{other:?}"),
    }
    set_i32(&mut b, fptr, -3);
    assert!(matches!(
        parse(&b),
        Err(Error::BadValue {
            value: -3,
            problem: ValueProblem::Negative,
            ..
        })
    ));
}

#[test]
fn a_huge_block_size_in_a_small_file_is_a_truncation_not_an_allocation() {
    let b = with_token(&sample(), 6, "1073741824");
    // The comm-table pointer no longer fits the block grid; drop it to reach the
    // block read.
    let raw = clog2_format::RawPreamble::parse(&b).unwrap();
    let n = raw.tokens.len();
    let b = with_token(&with_token(&b, n - 3, "0"), n - 1, "0");
    match Clog2Reader::new(Cursor::new(&b)).unwrap().next_record() {
        Err(Error::Truncated { offset, .. }) => assert_eq!(offset, b.len() as u64),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bytes_after_the_comm_table_are_rejected() {
    let mut b = sample();
    let len = b.len() as u64;
    b.extend_from_slice(b"junk");
    match parse(&b) {
        Err(Error::TrailingBytes { offset, count, .. }) => assert_eq!((offset, count), (len, 4)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_truncated_comm_table_is_rejected() {
    let b = sample();
    let cut = b.len() - 10;
    assert!(matches!(
        parse(&b[..cut]),
        Err(Error::BadValue {
            field: "comm table count",
            ..
        })
    ));
}

#[test]
fn the_reader_is_exhausted_after_an_error() {
    let mut b = sample();
    set_i32(&mut b, 1024 + 20, 99);
    let mut r = Clog2Reader::from_slice(&b).unwrap();
    let items: Vec<_> = r.records().collect();
    assert_eq!(items.len(), 1);
    assert!(items[0].is_err());
}

#[test]
fn corpus_files_cut_or_corrupted_give_errors_with_offsets() {
    let Some(dir) = common::corpus() else { return };
    let data = common::read(&dir, "mpe/p2p_n4_bs4k.clog2");
    // Cut inside block 5.
    let cut = 1024 + 4096 * 5 + 1000;
    match parse(&data[..cut]) {
        Err(Error::Truncated { offset, .. }) => assert_eq!(offset, cut as u64),
        other => panic!("{other:?}"),
    }
    // Unknown type in the first record.
    let mut c = data.clone();
    set_i32(&mut c, 1024 + 20, 12);
    match parse(&c) {
        Err(Error::UnknownRecordType {
            offset: 1024,
            rectype: 12,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
}
