//! Comparing a SLOG-2 file we converted with the one the real Java converter wrote:
//! drawables as multisets, category definitions and summaries, line-ID maps, tree
//! shape, and node blocks byte for byte.

use slog2_format::*;
use std::collections::BTreeMap;

/// A drawable as a comparable value: category, (time bits, line) per vertex, info.
pub type Key = (i32, Vec<(u64, i32)>, Vec<u8>);

/// Every primitive of the file, counted (converters write no composites).
pub fn drawables(f: &Slog2File) -> BTreeMap<Key, u32> {
    let mut m = BTreeMap::new();
    for n in f.nodes() {
        for d in n.value.nestless.iter().chain(&n.value.nestable) {
            let Drawable::Primitive(p) = d else {
                panic!("the converter writes no composites")
            };
            let k = (
                p.category,
                p.vertices
                    .iter()
                    .map(|v| (v.time.to_bits(), v.line_id))
                    .collect(),
                p.info.bytes.clone(),
            );
            *m.entry(k).or_insert(0) += 1;
        }
    }
    m
}

/// A category's definition: name, topology, colour, width, keys, types.
pub type CategoryDef = (String, i32, [u8; 4], i8, Vec<String>, Vec<u8>);

fn categories(f: &Slog2File) -> &CategoryMap {
    f.blocks
        .values()
        .find_map(|b| match b {
            FileBlock::Categories(c) => Some(&c.value),
            _ => None,
        })
        .expect("a category map")
}

/// The legend's definitions by index (the summaries are float sums, compared apart).
pub fn category_defs(f: &Slog2File) -> BTreeMap<i32, CategoryDef> {
    categories(f)
        .categories
        .iter()
        .map(|c| {
            (
                c.index,
                (
                    c.name.text(),
                    c.topology,
                    c.argb,
                    c.width,
                    c.keys.iter().map(JStr::text).collect(),
                    c.types.clone(),
                ),
            )
        })
        .collect()
}

/// The legend's summaries by index: inclusive and exclusive ratio, count.
pub fn summaries(f: &Slog2File) -> BTreeMap<i32, (f32, f32, i64)> {
    categories(f)
        .categories
        .iter()
        .map(|c| {
            let s = c.summary.expect("2.0.6 categories have summaries");
            (c.index, (s.incl, s.excl, s.count))
        })
        .collect()
}

/// The LineIDMapList.
pub fn line_maps(f: &Slog2File) -> LineIdMapList {
    f.blocks
        .values()
        .find_map(|b| match b {
            FileBlock::LineIdMaps(m) => Some(m.value.clone()),
            _ => None,
        })
        .expect("a line-ID map list")
}

/// Node IDs, time boxes (bits) and drawable counts, in file order.
pub fn shape(f: &Slog2File) -> Vec<(i16, i32, u64, u64, usize)> {
    f.nodes()
        .map(|n| {
            let h = &n.value.header;
            (
                h.id.depth,
                h.id.xpos,
                h.earliest.to_bits(),
                h.latest.to_bits(),
                n.value.nestless.len() + n.value.nestable.len(),
            )
        })
        .collect()
}

/// Asserts that our file's node blocks sit where the real file's do and are
/// byte-identical except for the order of shadow weights with equal inclusive
/// ratios (Java orders them by HashMap iteration over identity hashes). Returns
/// (byte-identical blocks, blocks).
pub fn node_blocks_match(name: &str, ours: &[u8], real: &[u8]) -> (u32, u32) {
    let mine = Slog2File::parse(ours).unwrap();
    let theirs = Slog2File::parse(real).unwrap();
    let (mut same, mut total) = (0, 0);
    for (a, b) in mine.nodes().zip(theirs.nodes()) {
        assert_eq!(a.ptr, b.ptr, "{name}: node block pointers");
        let (x, y) = (
            a.ptr.offset as usize,
            (a.ptr.offset + a.ptr.size as i64) as usize,
        );
        total += 1;
        if ours[x..y] == real[x..y] {
            same += 1;
            continue;
        }
        let canon = |n: &TreeNodeBody| {
            let mut n = n.clone();
            for st in &mut n.stubs {
                for sh in st.nestless.iter_mut().chain(st.nestable.iter_mut()) {
                    sh.weights.sort_by_key(|w| w.category);
                }
            }
            n
        };
        // Debug text, so that NaN ratios (0/0, as in Java) compare equal.
        assert_eq!(
            format!("{:?}", canon(&a.value)),
            format!("{:?}", canon(&b.value)),
            "{name}: node {:?} differs beyond the order of equal weights",
            a.value.header.id
        );
    }
    assert_eq!(
        mine.nodes().count(),
        theirs.nodes().count(),
        "{name}: node count"
    );
    (same, total)
}
