//! `check` flags each rule on a file built to break it, with the right rule ID and
//! byte offset; the unbroken file is clean.

mod common;

use common::tiny;
use slog2_format::check::{check, Detail, Finding, Problem};
use std::io::Cursor;

fn findings(b: &[u8]) -> Vec<Finding> {
    check(Cursor::new(b), 10)
}

fn only(b: &[u8], problem: Problem) -> Finding {
    let f = findings(b);
    assert!(!f.is_empty(), "no finding for {problem:?}");
    assert!(
        f.iter().all(|x| x.problem == problem),
        "expected only {problem:?}: {f:#?}"
    );
    f[0].clone()
}

fn set_i32(b: &mut [u8], at: u64, v: i32) {
    b[at as usize..at as usize + 4].copy_from_slice(&v.to_be_bytes());
}

fn set_f64(b: &mut [u8], at: u64, v: f64) {
    b[at as usize..at as usize + 8].copy_from_slice(&v.to_be_bytes());
}

// Layout of the tiny node (at node_at): header 34, nestless count 4, then the arrow
// (tag 1 + cat 4 + infolen 2 + info 8 + nvert 2 + 2 x 12 = 41 bytes), nestable
// count 4, then the state (tag 1 + cat 4 + infolen 2 + nvert 2 + 24 = 33 bytes).
const ARROW: u64 = 38;
const STATE: u64 = 38 + 41 + 4;

#[test]
fn the_tiny_file_is_clean() {
    assert_eq!(findings(&tiny().0), vec![]);
}

#[test]
fn num_children_below_two() {
    let mut b = tiny().0;
    b[12..14].copy_from_slice(&1i16.to_be_bytes());
    let f = only(&b, Problem::FewChildren);
    assert_eq!((f.offset, f.problem.breaks_readers()), (12, true));
}

#[test]
fn a_null_line_id_map_pointer() {
    let mut b = tiny().0;
    b[48..60].fill(0);
    // Without maps no line ID can be missing; only the pointer is reported.
    let f = only(&b, Problem::NullPointer);
    assert_eq!(f.offset, 48);
}

#[test]
fn a_root_depth_that_disagrees() {
    let mut b = tiny().0;
    b[18..20].copy_from_slice(&2i16.to_be_bytes());
    let f = only(&b, Problem::MaxTreeDepth);
    assert_eq!((f.offset, f.problem.breaks_readers()), (18, false));
}

#[test]
fn a_node_whose_self_pointer_is_wrong() {
    let (mut b, [node_at, ..]) = tiny();
    set_i32(&mut b, node_at + 22 + 4, 999);
    let f = only(&b, Problem::DirMismatch);
    assert_eq!(f.offset, node_at + 22);
}

#[test]
fn a_node_header_that_disagrees_with_the_tree_dir() {
    let (mut b, [node_at, ..]) = tiny();
    set_f64(&mut b, node_at + 8, 3.0); // latest 2.0 -> 3.0
    let f = only(&b, Problem::DirMismatch);
    assert_eq!(f.offset, node_at);
}

#[test]
fn a_drawable_outside_its_node() {
    let (mut b, [node_at, ..]) = tiny();
    // The state's end vertex: 2.0 -> 2.5 (the node ends at 2.0).
    set_f64(&mut b, node_at + STATE + 1 + 4 + 2 + 2 + 12, 2.5);
    let f = only(&b, Problem::OutsideNode);
    assert_eq!(f.offset, node_at + STATE);
}

#[test]
fn an_unknown_category() {
    let (mut b, [node_at, ..]) = tiny();
    set_i32(&mut b, node_at + STATE + 1, 77);
    let f = only(&b, Problem::UnknownCategory);
    assert_eq!(f.offset, node_at + STATE + 1);
    assert_eq!(f.detail, Detail::UnknownCategory { category: 77 });
}

#[test]
fn a_line_id_missing_from_the_maps() {
    let (mut b, [node_at, ..]) = tiny();
    // The arrow's receiving line 1 -> 9.
    set_i32(&mut b, node_at + ARROW + 1 + 4 + 2 + 8 + 2 + 12 + 8, 9);
    let f = only(&b, Problem::UnknownLineId);
    assert_eq!(f.offset, node_at + ARROW + 1);
}

#[test]
fn a_vertex_count_that_does_not_fit_the_topology_is_a_warning() {
    // Declare the state's category (index 5) an Event: its 2 vertices no longer fit.
    let (mut b, [_, cats_at, ..]) = tiny();
    // Second category (index 5, "Compute"): after the first category record.
    let first = 4 + 4 + 2 + 7 + 4 + 4 + 1 + 1 + 2 + (2 + 8) + (2 + 11) + 2 + 2 + 2 + 2 + 16;
    let topo = cats_at + first as u64 + 4 + 2 + 7;
    set_i32(&mut b, topo, 0);
    let f = only(&b, Problem::VertexCount);
    assert!(!f.problem.breaks_readers());
}

#[test]
fn a_bad_tag_byte_is_one_finding_with_its_offset() {
    let (mut b, [node_at, ..]) = tiny();
    b[(node_at + ARROW) as usize] = 9;
    let f = only(&b, Problem::BadTag);
    assert_eq!(f.offset, node_at + ARROW);
}

#[test]
fn a_block_larger_than_max_buffer() {
    let mut b = tiny().0;
    b[20..24].copy_from_slice(&100i32.to_be_bytes());
    let f = only(&b, Problem::BlockTooLarge);
    assert!(f.problem.breaks_readers());
}

#[test]
fn max_buffer_larger_than_every_block_is_a_warning() {
    let mut b = tiny().0;
    b[20..24].copy_from_slice(&100_000i32.to_be_bytes());
    let f = only(&b, Problem::BufferTooLarge);
    assert_eq!((f.offset, f.problem.breaks_readers()), (20, false));
}

#[test]
fn a_pointer_past_the_end() {
    let b = tiny().0;
    let f = only(&b[..b.len() - 1], Problem::OutsideFile);
    assert!(f.problem.breaks_readers());
}

#[test]
fn a_shadow_less_tree_with_a_duplicated_category_index() {
    let (mut b, [_, cats_at, ..]) = tiny();
    // Give the second category (5) the first one's index (0): the state's category
    // 5 disappears and index 0 is duplicated.
    let first = 4 + 4 + 2 + 7 + 4 + 4 + 1 + 1 + 2 + (2 + 8) + (2 + 11) + 2 + 2 + 2 + 2 + 16;
    set_i32(&mut b, cats_at + first as u64, 0);
    let f = findings(&b);
    let rules: Vec<Problem> = f.iter().map(|x| x.problem).collect();
    assert!(
        rules.contains(&Problem::DuplicateCategory) && rules.contains(&Problem::UnknownCategory),
        "{rules:?}"
    );
    let dup = f
        .iter()
        .find(|x| x.problem == slog2_format::check::Problem::DuplicateCategory)
        .unwrap();
    assert_eq!(dup.offset, cats_at + first as u64);
}

#[test]
fn a_non_null_annotations_pointer_is_a_warning() {
    let mut b = tiny().0;
    b[84 + 7] = 1;
    b[84 + 11] = 1;
    let f = only(&b, Problem::UnusedPointer);
    assert_eq!((f.offset, f.problem.breaks_readers()), (84, false));
}

#[test]
fn an_info_buffer_too_short_for_its_formats() {
    // The arrow carries 8 info bytes for "dd"; turn the formats into "dE", which
    // needs 12, then into an unknown character.
    let (mut b, [node_at, cats_at, ..]) = tiny();
    // count, index, name, topology, argb, flag, width, 3 keys, the type count.
    let types_at =
        cats_at as usize + 4 + 4 + (2 + 7) + 4 + 4 + 1 + 1 + 2 + (2 + 8) + (2 + 11) + 2 + 2;
    assert_eq!(&b[types_at..types_at + 2], b"dd");
    b[types_at + 1] = b'E';
    let f = only(&b, Problem::ShortInfo);
    assert_eq!(f.offset, node_at + ARROW + 1);
    b[types_at + 1] = b'q';
    let f = only(&b, Problem::BadFormat);
    assert!(f.problem.breaks_readers());
}

/// Regression (found by the `slog2_check` fuzz target): a NULL TreeDir pointer with
/// a negative offset made an offset computation overflow.
#[test]
fn a_null_tree_dir_pointer_with_a_negative_offset() {
    let mut b = tiny().0;
    b[72..84].fill(0xff);
    let f = findings(&b);
    assert!(
        f.iter()
            .any(|x| x.problem == slog2_format::check::Problem::NullPointer && x.offset == 72),
        "{f:#?}"
    );
}

/// Regression companion: extreme node IDs do not overflow the stub and root checks.
#[test]
fn extreme_node_ids_do_not_overflow() {
    let (mut b, [node_at, ..]) = tiny();
    // Node header depth (+16) and xpos (+18) to i16::MIN / i32::MIN.
    b[node_at as usize + 16..node_at as usize + 18].copy_from_slice(&i16::MIN.to_be_bytes());
    b[node_at as usize + 18..node_at as usize + 22].copy_from_slice(&i32::MIN.to_be_bytes());
    let f = findings(&b);
    assert!(
        f.iter()
            .any(|x| x.problem == slog2_format::check::Problem::DirMismatch),
        "{f:#?}"
    );
}

#[test]
fn an_unknown_version() {
    let (mut b, _) = tiny();
    b[11] = b'9';
    let f = only(&b, Problem::Version);
    assert_eq!(f.offset, 2);
    // The reader's refusal, typed: the version found.
    let e = slog2_format::Slog2Reader::new(Cursor::new(&b))
        .err()
        .unwrap();
    assert!(
        matches!(&e, slog2_format::Error::UnsupportedVersion { found } if found == b"SLOG 2.0.9"),
        "{e:?}"
    );
    // The finding holds that error.
    let Detail::Refused(r) = &f.detail else {
        panic!("{f:?}")
    };
    assert!(
        matches!(r.error(), slog2_format::Error::UnsupportedVersion { found } if found == b"SLOG 2.0.9"),
        "{r:?}"
    );
}

#[test]
fn a_2_0_5_file_is_a_warning() {
    let (b, _) = tiny();
    let mut file = slog2_format::Slog2File::parse(&b).unwrap();
    slog2_format::write::update::downgrade_206_to_205(&mut file).unwrap();
    let f = only(&file.to_bytes().unwrap(), Problem::OldVersion);
    assert_eq!((f.offset, f.problem.breaks_readers()), (2, false));
}

#[test]
fn info_bytes_for_a_category_without_formats_is_a_warning() {
    // The arrow (8 info bytes) is given category 5, which has no formats.
    let (mut b, [node_at, ..]) = tiny();
    set_i32(&mut b, node_at + ARROW + 1, 5);
    let f = findings(&b);
    let inf: Vec<_> = f
        .iter()
        .filter(|x| x.problem == slog2_format::check::Problem::InfoMismatch)
        .collect();
    assert_eq!(inf.len(), 1, "{f:#?}");
    assert_eq!(
        (inf[0].offset, inf[0].problem.breaks_readers()),
        (node_at + ARROW + 1, false)
    );
    assert!(f.iter().all(|x| !x.problem.breaks_readers()), "{f:#?}");
}

#[test]
fn a_negative_drawable_count_is_a_parse_error() {
    let (mut b, [node_at, ..]) = tiny();
    set_i32(&mut b, node_at + 34, -1);
    // Reported at the node (the structure whose parse fails), naming the count.
    let f = only(&b, Problem::Unparsable);
    assert_eq!(f.offset, node_at, "{f:#?}");
    // The reader's refusal, typed: the count and its value.
    let e = slog2_format::Slog2File::parse(&b).err().unwrap();
    let count = slog2_format::error::NegativeCount {
        count: slog2_format::error::Count::Drawable,
        value: -1,
    };
    assert!(
        matches!(
            &e,
            slog2_format::Error::BadValue {
                offset,
                problem: slog2_format::error::ValueProblem::NegativeCount { count: c, .. },
            } if *offset == node_at && *c == count
        ),
        "{e:?}"
    );
    // The finding holds the same error.
    let Detail::Refused(r) = &f.detail else {
        panic!("{f:?}")
    };
    assert!(
        matches!(
            r.error(),
            slog2_format::Error::BadValue {
                offset,
                problem: slog2_format::error::ValueProblem::NegativeCount { count: c, .. },
            } if *offset == node_at && *c == count
        ),
        "{r:?}"
    );
}
