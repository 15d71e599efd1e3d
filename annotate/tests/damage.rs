//! Each way an annotation file is damaged is an `Error::BadAnnotation` whose
//! `Damage` carries the values its message names, at the offset
//! spec/conformance.md §9 gives (a bad pointer at its field). No corpus.

use mpelog_annotate::error::{Block, Damage, Problem};
use mpelog_annotate::format::{CATEGORIES_AT, HEADER_LEN, LEAF_TABLE_AT, TREEDIR_AT};
use mpelog_annotate::{AnnotateOptions, Annotation, Error};
use mpelog_conformance::strategies::annotation::annotate;
use mpelog_conformance::strategies::clog2::generate;
use slog2_format::error::{Count, NegativeCount};
use slog2_format::types::FileBlockPtr;
use slog2_format::write::TreeOptions;
use std::io::Cursor;

/// A generated trace and its annotation (small leaves: several of them).
fn pair() -> (Vec<u8>, Vec<u8>) {
    let trace = generate(
        &clog2_format::synth::Options::default()
            .ranks(3)
            .events(3000)
            .seed(5)
            .block_size(1024),
    );
    let opts = AnnotateOptions::default().tree(TreeOptions::default().leaf_bytes(2048).children(2));
    let idx = annotate(&trace, opts);
    (trace, idx)
}

fn ptr_at(b: &[u8], at: u64) -> FileBlockPtr {
    let at = at as usize;
    FileBlockPtr {
        offset: i64::from_be_bytes(b[at..at + 8].try_into().unwrap()),
        size: i32::from_be_bytes(b[at + 8..at + 12].try_into().unwrap()),
    }
}

/// The offset and damage of opening `idx` over `trace`.
fn damage(idx: &[u8], trace: &[u8]) -> (u64, Damage) {
    match Annotation::new(Cursor::new(idx), Cursor::new(trace)) {
        Err(Error::BadAnnotation { offset, damage }) => (offset, damage),
        Err(e) => panic!("expected damage, got {e}"),
        Ok(_) => panic!("expected damage, the annotation opened"),
    }
}

#[test]
fn a_damaged_header_is_named_with_its_values() {
    let (trace, idx) = pair();
    let mut b = idx.clone();
    b[0] = b'X';
    assert_eq!(damage(&b, &trace), (0, Damage::NoMagic));
    assert_eq!(damage(&idx[..100], &trace), (100, Damage::HeaderCut));
    assert_eq!(
        Damage::HeaderCut.to_string(),
        format!("the {HEADER_LEN}-byte header is cut short")
    );
    let mut b = idx.clone();
    b[8..10].copy_from_slice(&2u16.to_be_bytes());
    assert_eq!(damage(&b, &trace), (8, Damage::Version { found: 2 }));
    let mut b = idx.clone();
    b[39..41].copy_from_slice(&1u16.to_be_bytes());
    let (offset, d) = damage(&b, &trace);
    assert_eq!((offset, &d), (39, &Damage::FewChildren { children: 1 }));
    assert_eq!(d.problem(), Problem::FewChildren);
}

#[test]
fn a_bad_pointer_is_named_at_its_field_with_the_pointer() {
    let (trace, idx) = pair();
    // A TreeDir pointer past the end of the file.
    let mut b = idx.clone();
    b[TREEDIR_AT as usize..TREEDIR_AT as usize + 8]
        .copy_from_slice(&(idx.len() as i64).to_be_bytes());
    let ptr = ptr_at(&b, TREEDIR_AT);
    let (offset, d) = damage(&b, &trace);
    assert_eq!(offset, TREEDIR_AT);
    assert_eq!(
        d,
        Damage::BadPointer {
            block: Block::TreeDir,
            ptr
        }
    );
    assert_eq!(
        d.to_string(),
        format!(
            "the TreeDir ({} bytes at byte {}) is not inside the file or exceeds max_block",
            ptr.size,
            idx.len()
        )
    );
    // A CategoryMap pointer with a negative size.
    let mut b = idx.clone();
    let size_at = CATEGORIES_AT as usize + 8;
    b[size_at..size_at + 4].copy_from_slice(&(-1i32).to_be_bytes());
    let (offset, d) = damage(&b, &trace);
    let block = Block::CategoryMap;
    let ptr = ptr_at(&b, CATEGORIES_AT);
    assert_eq!(
        (offset, d),
        (CATEGORIES_AT, Damage::BadPointer { block, ptr })
    );
    // A carry-in pointer of leaf 1 outside the file: reported when the leaf is read,
    // at its field in the leaf table.
    let table = ptr_at(&idx, LEAF_TABLE_AT).offset as u64;
    let field = table + 4 + 48 + 36;
    let mut b = idx.clone();
    b[field as usize..field as usize + 8].copy_from_slice(&(-5i64).to_be_bytes());
    let mut a = Annotation::new(Cursor::new(&b[..]), Cursor::new(&trace[..])).unwrap();
    let (block, ptr) = (Block::Carry, ptr_at(&b, field));
    let want = (field, Damage::BadPointer { block, ptr });
    assert_eq!(damage_of(a.verify_leaf(1).map(|_| ())), want);
}

/// The offset and damage of a read that fails with one.
fn damage_of(r: mpelog_annotate::Result<()>) -> (u64, Damage) {
    match r {
        Err(Error::BadAnnotation { offset, damage }) => (offset, damage),
        other => panic!("expected damage, got {:?}", other.err()),
    }
}

#[test]
fn a_bad_node_pointer_is_named_at_its_tree_dir_entry() {
    let (trace, idx) = pair();
    let dir = ptr_at(&idx, TREEDIR_AT).offset as u64;
    // Entry 0 (the root, whose box meets every window): its pointer past the end.
    let field = dir + 4 + 22;
    let mut b = idx.clone();
    b[field as usize..field as usize + 8].copy_from_slice(&(idx.len() as i64).to_be_bytes());
    let ptr = ptr_at(&b, field);
    let mut a = Annotation::new(Cursor::new(&b[..]), Cursor::new(&trace[..])).unwrap();
    let (t0, t1) = (a.header().earliest, a.header().latest);
    let block = Block::Node;
    let want = (field, Damage::BadPointer { block, ptr });
    assert_eq!(damage_of(a.window(t0, t1).map(|_| ())), want);
}

#[test]
fn bad_leaves_are_named_with_their_values() {
    let (trace, idx) = pair();
    let table = ptr_at(&idx, LEAF_TABLE_AT).offset as usize;
    let leaves = i32::from_be_bytes(idx[table..table + 4].try_into().unwrap());
    assert!(leaves >= 3, "{leaves} leaves");
    // The header says one leaf more than the table holds.
    let mut b = idx.clone();
    b[47..51].copy_from_slice(&(leaves as u32 + 1).to_be_bytes());
    let want = Damage::LeafCount {
        found: leaves as usize,
        header: leaves as u32 + 1,
    };
    assert_eq!(damage(&b, &trace), (table as u64, want));
    // Leaf 2's range is one byte longer: not whole blocks.
    let entry = table + 4 + 2 * 48;
    let mut b = idx.clone();
    let len = u32::from_be_bytes(b[entry + 8..entry + 12].try_into().unwrap()) + 1;
    b[entry + 8..entry + 12].copy_from_slice(&len.to_be_bytes());
    let offset = u64::from_be_bytes(b[entry..entry + 8].try_into().unwrap());
    let mut a = Annotation::new(Cursor::new(&b[..]), Cursor::new(&trace[..])).unwrap();
    let want = Damage::LeafRange {
        leaf: 2,
        offset,
        len,
    };
    assert_eq!(
        damage_of(a.verify_leaf(2).map(|_| ())),
        (entry as u64, want)
    );
}

/// A block that does not parse is named at the structure that fails (the
/// block, or the category inside it), in the layout's words alone: no binrw
/// backtrace, terminal colours or source lines of ours (which `mpelog check`
/// printed before).
#[test]
fn an_unparsable_block_is_named_at_the_failing_structure_in_plain_words() {
    let (trace, idx) = pair();
    let cats = ptr_at(&idx, CATEGORIES_AT).offset as usize;
    // The CategoryMap's count (its first field), then the first category's
    // key count: after the count (4), the index (4), the name (2 + n), the
    // topology (4), the colour (4), modifiable and width (1 + 1).
    let mut b = idx.clone();
    b[cats..cats + 4].copy_from_slice(&(-1i32).to_be_bytes());
    let negative = |count: Count, value: i32| Damage::NegativeCount {
        block: Block::CategoryMap,
        count: NegativeCount { count, value },
    };
    assert_eq!(
        damage(&b, &trace),
        (cats as u64, negative(Count::Category, -1))
    );
    let n = i16::from_be_bytes(idx[cats + 8..cats + 10].try_into().unwrap()) as usize;
    let nkeys = cats + 20 + n;
    let mut b = idx.clone();
    b[nkeys..nkeys + 2].copy_from_slice(&(-3i16).to_be_bytes());
    let (offset, d) = damage(&b, &trace);
    // The first category, which starts after the count.
    let first = cats as u64 + 4;
    assert_eq!((offset, &d), (first, &negative(Count::Key, -3)));
    assert_eq!(d.problem(), Problem::Unparsable);
    assert_eq!(d.to_string(), "the CategoryMap: negative key count -3");
}
