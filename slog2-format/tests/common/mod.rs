//! A tiny valid SLOG-2 file built from our own layouts, shared by the tests.
#![allow(dead_code)]

pub mod compare;

use binrw::{BinWrite, Endian};
use slog2_format::*;
use std::io::Cursor;
use std::path::PathBuf;

/// A plain SLOG-2 file converted from a generated trace (4 KiB CLOG2 blocks)
/// with these tree options.
pub fn generated(ranks: u32, events: u64, leaf_bytes: u32, children: u16, seed: u64) -> Vec<u8> {
    let clog2 = mpelog_conformance::strategies::clog2::generate(
        &clog2_format::synth::Options::default()
            .ranks(ranks)
            .events(events)
            .seed(seed)
            .block_size(4096),
    );
    mpelog_conformance::strategies::slog2::convert(
        &clog2,
        slog2_format::write::TreeOptions::default()
            .leaf_bytes(leaf_bytes)
            .children(children)
            .compression(slog2_format::frame::Compression::None),
    )
    .0
}

/// The TreeDir entries of a SLOG-2 file in memory.
pub fn tree_entries(bytes: &[u8]) -> Vec<TreeDirEntry> {
    let r = Slog2Reader::new(Cursor::new(bytes)).unwrap();
    r.tree_dir().unwrap().value.entries.clone()
}

/// The root's TreeDir entry (the deepest) of a SLOG-2 file in memory.
pub fn root_entry(bytes: &[u8]) -> TreeDirEntry {
    tree_entries(bytes)
        .into_iter()
        .max_by_key(|e| e.id.depth)
        .unwrap()
}

/// The node blocks `(offset, size)` of a SLOG-2 file in memory.
pub fn node_blocks(bytes: &[u8]) -> Vec<(usize, usize)> {
    tree_entries(bytes)
        .iter()
        .map(|e| (e.ptr.offset as usize, e.ptr.size as usize))
        .collect()
}

/// The corpus directory, or `None` (after saying so) when `MPELOG_CORPUS` is unset.
/// A relative path is taken from the workspace root, as `.ci/run` gives it.
pub fn corpus() -> Option<PathBuf> {
    mpelog_conformance::corpus::root()
}

/// Serializes a structure.
pub fn bytes_of<T: for<'a> BinWrite<Args<'a> = ()>>(v: &T) -> Vec<u8> {
    let mut c = Cursor::new(Vec::new());
    v.write_options(&mut c, Endian::Big, ()).unwrap();
    c.into_inner()
}

/// A valid file: header, one leaf with a state and an arrow, the CategoryMap, the
/// LineIDMapList and the TreeDir. Returns the bytes and the offsets of the node,
/// categories, line-ID maps and TreeDir.
pub fn tiny() -> (Vec<u8>, [u64; 4]) {
    let state = Primitive {
        category: 5,
        info: JStr::default(),
        vertices: vec![
            Coord {
                time: 1.0,
                line_id: 0,
            },
            Coord {
                time: 2.0,
                line_id: 0,
            },
        ],
    };
    let arrow = Primitive {
        category: 0,
        info: JStr {
            len: 8,
            bytes: vec![0, 0, 0, 7, 0, 0, 0, 4],
        },
        vertices: vec![
            Coord {
                time: 1.5,
                line_id: 0,
            },
            Coord {
                time: 1.75,
                line_id: 1,
            },
        ],
    };
    let node = TreeNodeBody {
        header: NodeHeader {
            earliest: 1.0,
            latest: 2.0,
            id: NodeId { depth: 0, xpos: 0 },
            ptr: FileBlockPtr {
                offset: 108,
                size: 0,
            },
        },
        nestless: vec![Drawable::Primitive(arrow)],
        nestable: vec![Drawable::Primitive(state)],
        stubs: vec![],
    };
    let cats = CategoryMap {
        categories: vec![
            category(0, "message", 2, &["msg_tag=", ", msg_size=", ""], b"dd"),
            category(5, "Compute", 1, &[], b""),
        ],
    };
    let maps = LineIdMapList {
        maps: vec![LineIdMap {
            title: JStr::new("Identity Map"),
            ncols: 1,
            labels: vec![JStr::new("LineID")],
            rows: vec![
                LineIdRow {
                    line_id: 0,
                    values: vec![0],
                },
                LineIdRow {
                    line_id: 1,
                    values: vec![1],
                },
            ],
            methods: vec![],
        }],
    };
    one_node_file(node, &cats, &maps, "SLOG 2.0.6")
}

/// A category with a summary (incl 0.5, excl 0.5, count 1).
pub fn category(index: i32, name: &str, topology: i32, keys: &[&str], types: &[u8]) -> Category {
    Category {
        index,
        name: JStr::new(name),
        topology,
        argb: [255, 255, 0, 0],
        modifiable: 1,
        width: 1,
        keys: keys.iter().map(|k| JStr::new(k)).collect(),
        types: types.to_vec(),
        methods: vec![],
        summary: Some(CategorySummary {
            incl: 0.5,
            excl: 0.5,
            count: 1,
        }),
    }
}

/// A file of one node (at byte 108, its pointer set here), then these
/// categories, line-ID maps and the TreeDir, for version `version` ("SLOG 2.0.6"
/// or "SLOG 2.0.5"). Returns the bytes and the offsets of the node, categories,
/// line-ID maps and TreeDir.
pub fn one_node_file(
    mut node: TreeNodeBody,
    cats: &CategoryMap,
    maps: &LineIdMapList,
    version: &str,
) -> (Vec<u8>, [u64; 4]) {
    node.header.ptr = FileBlockPtr {
        offset: 108,
        size: 0,
    };
    node.header.ptr.size = bytes_of(&node).len() as i32;
    let node_b = bytes_of(&node);
    let cats_b = bytes_of(cats);
    let maps_b = bytes_of(maps);
    let node_at = 108u64;
    let cats_at = node_at + node_b.len() as u64;
    let maps_at = cats_at + cats_b.len() as u64;
    let dir_at = maps_at + maps_b.len() as u64;
    let dir = TreeDir {
        entries: vec![TreeDirEntry {
            id: node.header.id,
            earliest: node.header.earliest,
            latest: node.header.latest,
            ptr: node.header.ptr,
        }],
    };
    let dir_b = bytes_of(&dir);
    let p = |o: u64, b: &Vec<u8>| FileBlockPtr {
        offset: o as i64,
        size: b.len() as i32,
    };
    let header = Header {
        version: JStr::new(version),
        num_children_per_node: 2,
        treeleaf_bytesize: 65536,
        max_treedepth: node.header.id.depth,
        max_buffer_bytesize: [&node_b, &cats_b, &maps_b, &dir_b]
            .iter()
            .map(|b| b.len() as i32)
            .max()
            .unwrap(),
        categories: p(cats_at, &cats_b),
        methoddefs: FileBlockPtr::NULL,
        lineidmaps: p(maps_at, &maps_b),
        treeroot: node.header.ptr,
        treedir: p(dir_at, &dir_b),
        annotations: FileBlockPtr::NULL,
        postamble: FileBlockPtr::NULL,
    };
    let mut out = bytes_of(&header);
    assert_eq!(out.len(), 108);
    for b in [&node_b, &cats_b, &maps_b, &dir_b] {
        out.extend_from_slice(b);
    }
    (out, [node_at, cats_at, maps_at, dir_at])
}
