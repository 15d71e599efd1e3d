//! The tree, shadow, legend and map rules of `check`, each broken on purpose in a
//! real multi-level file (p2p_n8 converted with 4 KiB leaves and 4 children per
//! node). The mutated structure is laid out again with `relayout`, so every pointer
//! stays consistent and only the intended rule breaks.

mod common;

use common::corpus;
use slog2_format::check::{check, Finding, Problem};
use slog2_format::write::update::relayout;
use slog2_format::{Drawable, FileBlock, Slog2File, TreeNodeBody};

fn base() -> Option<Slog2File> {
    let path = corpus()?.join("mpe/p2p_n8_ls4k_nc4.slog2");
    assert!(path.is_file(), "corpus file missing: {}", path.display());
    Some(Slog2File::parse(&std::fs::read(path).unwrap()).unwrap())
}

fn run(mut f: Slog2File, m: impl FnOnce(&mut Slog2File)) -> Vec<Finding> {
    m(&mut f);
    relayout(&mut f).unwrap();
    check(std::io::Cursor::new(f.to_bytes().unwrap()), 50)
}

fn has(findings: &[Finding], problem: Problem) {
    assert!(
        findings.iter().any(|f| f.problem == problem),
        "expected {problem:?}: {findings:#?}"
    );
}

fn root(f: &mut Slog2File) -> &mut TreeNodeBody {
    let at = f.header.treeroot.offset as u64;
    match f.blocks.get_mut(&at) {
        Some(FileBlock::Node(n)) => &mut n.value,
        _ => panic!("no root"),
    }
}

fn first_leaf(f: &mut Slog2File) -> &mut TreeNodeBody {
    f.blocks
        .values_mut()
        .find_map(|b| match b {
            FileBlock::Node(n) if n.value.header.id.depth == 0 && n.value.nestable.len() > 2 => {
                Some(&mut n.value)
            }
            _ => None,
        })
        .unwrap()
}

fn tree_dir(f: &mut Slog2File) -> &mut Vec<slog2_format::TreeDirEntry> {
    f.blocks
        .values_mut()
        .find_map(|b| match b {
            FileBlock::TreeDir(t) => Some(&mut t.value.entries),
            _ => None,
        })
        .unwrap()
}

fn categories(f: &mut Slog2File) -> &mut Vec<slog2_format::Category> {
    f.blocks
        .values_mut()
        .find_map(|b| match b {
            FileBlock::Categories(c) => Some(&mut c.value.categories),
            _ => None,
        })
        .unwrap()
}

#[test]
fn the_base_file_is_clean_after_relayout() {
    let Some(f) = base() else { return };
    assert_eq!(run(f, |_| {}), vec![]);
}

#[test]
fn shadow_rules() {
    let Some(f) = base() else { return };
    has(
        &run(f.clone(), |f| root(f).stubs[0].nestable[0].weights.clear()),
        Problem::NoWeights,
    );
    has(
        &run(f.clone(), |f| {
            root(f).stubs[0].nestable[0].weights[0].category = 9999
        }),
        Problem::WeightCategory,
    );
    has(
        &run(f.clone(), |f| root(f).stubs[0].nestable[0].category = 9999),
        Problem::ShadowCategory,
    );
    has(
        &run(f.clone(), |f| {
            root(f).stubs[0].nestable[0].num_real_objs += 1
        }),
        Problem::WeightCounts,
    );
    has(
        &run(f, |f| root(f).stubs[0].nestable.reverse()),
        Problem::Unsorted,
    );
}

#[test]
fn tree_rules() {
    let Some(f) = base() else { return };
    has(&run(f.clone(), |f| root(f).stubs.clear()), Problem::NoStubs);
    has(
        &run(f.clone(), |f| root(f).stubs[0].header.id.xpos = 99),
        Problem::BadStub,
    );
    has(
        &run(f.clone(), |f| tree_dir(f).retain(|e| e.id.depth != 0)),
        Problem::NoRoot,
    );
    has(
        &run(f.clone(), |f| {
            let e = tree_dir(f)[1];
            tree_dir(f).push(e);
        }),
        Problem::BadDirId,
    );
    has(
        &run(f.clone(), |f| {
            let leaves: Vec<usize> = (0..tree_dir(f).len())
                .filter(|&i| tree_dir(f)[i].id.depth == 0)
                .collect();
            let first_end = tree_dir(f)[leaves[0]].latest;
            tree_dir(f)[leaves[1]].earliest = first_end - 0.01;
        }),
        Problem::NodesOverlap,
    );
    // The header's root pointer aimed at a leaf (relayout maps it like any pointer).
    let leaf = f
        .nodes()
        .find(|n| n.value.header.id.depth == 0)
        .unwrap()
        .ptr;
    has(
        &run(f, move |f| f.header.treeroot = leaf),
        Problem::RootMismatch,
    );
}

#[test]
fn drawable_legend_and_map_rules() {
    let Some(f) = base() else { return };
    has(
        &run(f.clone(), |f| first_leaf(f).nestable.reverse()),
        Problem::Unsorted,
    );
    has(
        &run(f.clone(), |f| {
            if let Drawable::Primitive(p) = &mut first_leaf(f).nestable[0] {
                p.vertices.clear();
            }
        }),
        Problem::Empty,
    );
    has(
        &run(f.clone(), |f| categories(f)[1].topology = 7),
        Problem::BadTopology,
    );
    has(
        &run(f.clone(), |f| {
            let c = categories(f)
                .iter_mut()
                .find(|c| !c.types.is_empty())
                .unwrap();
            c.keys.push(slog2_format::JStr::new("extra"));
        }),
        Problem::KeyCount,
    );
    has(
        &run(f.clone(), |f| {
            let c0 = categories(f)[0].clone();
            categories(f).push(c0);
        }),
        Problem::DuplicateCategory,
    );
    has(
        &run(f.clone(), |f| {
            for b in f.blocks.values_mut() {
                if let FileBlock::LineIdMaps(m) = b {
                    m.value.maps.clear();
                }
            }
        }),
        Problem::NoLineIdMap,
    );
    has(
        &run(f.clone(), |f| {
            for b in f.blocks.values_mut() {
                if let FileBlock::LineIdMaps(m) = b {
                    let r = m.value.maps[0].rows[0].clone();
                    m.value.maps[0].rows.push(r);
                }
            }
        }),
        Problem::BadLineIdMap,
    );
    let findings = run(f, |f| {
        for b in f.blocks.values_mut() {
            if let FileBlock::Node(n) = b {
                n.trailing = vec![0xAB; 3];
                break;
            }
        }
    });
    has(&findings, Problem::TrailingBytes);
    let t = findings
        .iter()
        .find(|x| x.problem == Problem::TrailingBytes)
        .unwrap();
    assert!(!t.problem.breaks_readers());
}
