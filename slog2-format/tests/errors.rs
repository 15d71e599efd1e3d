//! Bad SLOG-2 input gives a typed error with a byte offset, never a panic. The files
//! are built here from our own layouts (a one-leaf tree) and then cut or corrupted.

mod common;

use common::tiny;
use slog2_format::error::{PointerProblem, Within};
use slog2_format::*;
use std::io::Cursor;

fn parse(b: &[u8]) -> Result<Slog2File> {
    Slog2File::parse(b)
}

#[test]
fn the_tiny_file_is_valid_and_round_trips() {
    let (b, _) = tiny();
    let f = parse(&b).unwrap();
    assert_eq!(f.nodes().count(), 1);
    assert_eq!(f.to_bytes().unwrap(), b);
}

#[test]
fn a_file_shorter_than_its_header_is_truncated() {
    let (b, _) = tiny();
    match parse(&b[..50]) {
        Err(Error::Truncated { offset, .. }) => assert_eq!(offset, 50),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_file_that_is_not_slog2_is_named() {
    let mut b = tiny().0;
    b[2..8].copy_from_slice(b"CLOG-0");
    assert!(matches!(parse(&b), Err(Error::NotSlog2 { .. })));
}

#[test]
fn another_slog2_version_is_rejected_by_name() {
    let mut b = tiny().0;
    b[2..12].copy_from_slice(b"SLOG 2.0.4");
    match parse(&b) {
        Err(Error::UnsupportedVersion { found }) => assert_eq!(found, b"SLOG 2.0.4"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_truncated_file_leaves_a_pointer_past_the_end() {
    let (b, _) = tiny();
    let cut = b.len() - 10;
    match parse(&b[..cut]) {
        Err(Error::BadPointer {
            what, kind, limit, ..
        }) => {
            assert_eq!(what, slog2_format::error::Part::TreeDir);
            assert_eq!(kind, PointerProblem::OutsideFile);
            assert_eq!(limit, cut as i64, "the limit is the file's length");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_block_larger_than_max_buffer_is_refused_before_reading() {
    let mut b = tiny().0;
    // max_buffer_bytesize at offset 20.
    b[20..24].copy_from_slice(&10i32.to_be_bytes());
    match parse(&b) {
        Err(Error::BadPointer { kind, limit, .. }) => {
            assert_eq!(kind, PointerProblem::TooLarge);
            assert_eq!(limit, 10, "the limit is max_buffer_bytesize");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_bad_tag_byte_names_its_offset() {
    let (mut b, [node_at, ..]) = tiny();
    // Node header (34) then the nestless count (4): the first tag byte.
    let at = node_at as usize + 38;
    assert_eq!(b[at], 0);
    b[at] = 7;
    match parse(&b) {
        Err(Error::BadTag {
            offset,
            within,
            found,
            ..
        }) => {
            assert_eq!(offset, at as u64);
            assert_eq!((within, found), (slog2_format::error::Part::Node, Some(7)));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_string_running_past_its_block_is_truncated() {
    let (mut b, [_, cats_at, ..]) = tiny();
    // First category: index (4), then the name's length.
    let at = cats_at as usize + 4 + 4;
    b[at..at + 2].copy_from_slice(&30000i16.to_be_bytes());
    match parse(&b) {
        Err(Error::Truncated { offset, within, .. }) => {
            assert_eq!(offset, cats_at);
            assert!(matches!(within, Within::Block { .. }), "{within}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_huge_count_is_refused_without_allocating() {
    let (mut b, [.., dir_at]) = tiny();
    b[dir_at as usize..dir_at as usize + 4].copy_from_slice(&i32::MAX.to_be_bytes());
    assert!(matches!(parse(&b), Err(Error::Truncated { .. })));
    b[dir_at as usize..dir_at as usize + 4].copy_from_slice(&(-1i32).to_be_bytes());
    match parse(&b) {
        Err(Error::BadValue {
            offset,
            problem: slog2_format::error::ValueProblem::NegativeCount { part, count },
        }) => {
            assert_eq!(offset, dir_at);
            assert_eq!(part, slog2_format::error::Part::TreeDir);
            let want = slog2_format::error::NegativeCount {
                count: slog2_format::error::Count::TreeDir,
                value: -1,
            };
            assert_eq!(count, want);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn random_access_reads_exactly_the_asked_node() {
    let (b, [node_at, ..]) = tiny();
    let mut r = Slog2Reader::new(Cursor::new(&b)).unwrap();
    let before = r.counters();
    let n = r.read_root().unwrap();
    assert_eq!(n.ptr.offset as u64, node_at);
    assert_eq!(r.counters().nodes_read, 1);
    assert_eq!(
        r.counters().bytes_read - before.bytes_read,
        n.ptr.size as u64
    );
}

/// A drawable whose tag byte is fine but whose vertex count runs past its
/// block is reported as cut short at the drawable, not as a bad tag (binrw
/// tries both kinds; the one the tag names is what failed).
#[test]
fn a_drawable_cut_short_is_truncated_not_a_bad_tag() {
    let (mut b, [node_at, ..]) = tiny();
    // Node header (34), nestless count (4), then the arrow: tag, category (4),
    // info length (2), info (8), then its vertex count.
    let tag = node_at as usize + 38;
    assert_eq!(b[tag], 0, "a primitive");
    let nvert = tag + 1 + 4 + 2 + 8;
    assert_eq!(i16::from_be_bytes([b[nvert], b[nvert + 1]]), 2);
    b[nvert..nvert + 2].copy_from_slice(&30000i16.to_be_bytes());
    match parse(&b) {
        Err(Error::Truncated { offset, what, .. }) => {
            assert_eq!(
                (offset, what),
                (tag as u64, slog2_format::error::Part::Node)
            );
        }
        other => panic!("{other:?}"),
    }
}
