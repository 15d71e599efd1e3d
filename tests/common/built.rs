//! Parts of SLOG-2 files built by hand in the tests (the codec lays them out).

use slog2_format::*;

/// A primitive of `category` with `info` and the vertices `v` (time, line ID).
pub fn prim(category: i32, info: &[u8], v: &[(f64, i32)]) -> Primitive {
    Primitive {
        category,
        info: JStr {
            len: info.len() as i16,
            bytes: info.to_vec(),
        },
        vertices: v
            .iter()
            .map(|&(time, line_id)| Coord { time, line_id })
            .collect(),
    }
}

/// A block pointer that only holds a place (the layout fills in the real one).
pub fn placeholder(i: i64) -> FileBlockPtr {
    FileBlockPtr {
        offset: 1000 + i,
        size: 1,
    }
}

/// A node's header: its ID, time box and a placeholder pointer.
pub fn header(depth: i16, xpos: i32, earliest: f64, latest: f64, i: i64) -> NodeHeader {
    NodeHeader {
        earliest,
        latest,
        id: NodeId { depth, xpos },
        ptr: placeholder(i),
    }
}

/// A category as the built files have it: opaque red, width 1, an empty
/// summary.
pub fn category(index: i32, name: &str, topology: i32, keys: &[&str], types: &[u8]) -> Category {
    Category {
        index,
        name: JStr::new(name),
        topology,
        argb: [255, 0, 0, 255],
        modifiable: 1,
        width: 1,
        keys: keys.iter().map(|k| JStr::new(k)).collect(),
        types: types.to_vec(),
        methods: vec![],
        summary: Some(CategorySummary {
            incl: 0.0,
            excl: 0.0,
            count: 0,
        }),
    }
}

/// A block's value read from `ptr`.
pub fn parsed<T>(value: T, ptr: FileBlockPtr) -> Parsed<T> {
    Parsed {
        value,
        ptr,
        trailing: vec![],
    }
}

/// The bytes of a SLOG-2 file of `nodes` (node `i` headed with
/// `placeholder(i)`, the root the `root`-th), the legend `categories`, the
/// identity map of lines `0..lines`, `children` per node and leaves of
/// `leaf_bytes`: laid out by the codec (`relayout`).
pub fn file(
    nodes: Vec<TreeNodeBody>,
    root: i64,
    categories: Vec<Category>,
    lines: i32,
    children: i16,
    leaf_bytes: i32,
) -> Vec<u8> {
    let maps = LineIdMapList {
        maps: vec![LineIdMap {
            title: JStr::new("Identity Map"),
            ncols: 1,
            labels: vec![JStr::new("LineID")],
            rows: (0..lines)
                .map(|l| LineIdRow {
                    line_id: l,
                    values: vec![l],
                })
                .collect(),
            methods: vec![],
        }],
    };
    let dir = TreeDir {
        entries: nodes
            .iter()
            .map(|n| TreeDirEntry {
                id: n.header.id,
                earliest: n.header.earliest,
                latest: n.header.latest,
                ptr: n.header.ptr,
            })
            .collect(),
    };
    let n = nodes.len() as i64;
    let mut f = Slog2File {
        header: Header {
            version: JStr::new("SLOG 2.0.6"),
            num_children_per_node: children,
            treeleaf_bytesize: leaf_bytes,
            max_treedepth: 1,
            max_buffer_bytesize: 0,
            categories: placeholder(n),
            methoddefs: FileBlockPtr::NULL,
            lineidmaps: placeholder(n + 1),
            treeroot: placeholder(root),
            treedir: placeholder(n + 2),
            annotations: FileBlockPtr::NULL,
            postamble: FileBlockPtr::NULL,
        },
        version: Version::V206,
        blocks: Default::default(),
        gaps: Default::default(),
    };
    let at = |i: i64| placeholder(i).offset as u64;
    for (i, node) in nodes.into_iter().enumerate() {
        let ptr = placeholder(i as i64);
        f.blocks
            .insert(at(i as i64), FileBlock::Node(parsed(node, ptr)));
    }
    let categories = CategoryMap { categories };
    f.blocks.insert(
        at(n),
        FileBlock::Categories(parsed(categories, placeholder(n))),
    );
    f.blocks.insert(
        at(n + 1),
        FileBlock::LineIdMaps(parsed(maps, placeholder(n + 1))),
    );
    f.blocks.insert(
        at(n + 2),
        FileBlock::TreeDir(parsed(dir, placeholder(n + 2))),
    );
    slog2_format::write::update::relayout(&mut f).unwrap();
    f.to_bytes().unwrap()
}
