//! `mpelog::filter` on a small SLOG-2 file built here, where every drawable is
//! known: exact kept and removed counts, the legend of what is kept (category 0
//! included), a drawable whose info fills the tree writer's whole buffer, and
//! each category's own topology (an event is never taken for a state).

use mpelog::filter::{filter, Error, Options};
use slog2_format::build::prim::MAX_INFO;
use slog2_format::build::tree::TreeWriter;
use slog2_format::build::{Prim, TreeOptions};
use slog2_format::types::{topology, Category, Drawable, JStr, Primitive};
use slog2_format::{Slog2File, Slog2Reader};
use std::io::Cursor;

/// Category 0 an event, 1 a state, 2 an arrow.
fn legend() -> Vec<Category> {
    [topology::EVENT, topology::STATE, topology::ARROW]
        .into_iter()
        .enumerate()
        .map(|(index, topology)| Category {
            index: index as i32,
            name: JStr::new(&format!("c{index}")),
            topology,
            argb: [255, 0, 0, 0],
            modifiable: 1,
            width: 1,
            keys: Vec::new(),
            types: Vec::new(),
            methods: Vec::new(),
            summary: None,
        })
        .collect()
}

/// The info of the state: exactly as long as the tree writer stores.
fn full_info() -> Vec<u8> {
    (0..MAX_INFO as u8).collect()
}

/// Two events, one state with a full info buffer, one arrow, in end order.
fn file() -> Vec<u8> {
    let mut tree = TreeWriter::new(Cursor::new(Vec::new()), TreeOptions::default()).unwrap();
    let info = full_info();
    for p in [
        Prim::event(0, 1.0, 0, b""),
        Prim::two(2, topology::ARROW, (1.2, 0), (1.8, 1), b""),
        Prim::event(0, 1.9, 1, b""),
        Prim::two(1, topology::STATE, (1.0, 0), (2.0, 0), &info),
    ] {
        tree.add(p).unwrap();
    }
    tree.finish(&legend(), Vec::new()).unwrap().0.into_inner()
}

/// Every real primitive of a file, by category then start.
fn primitives(bytes: &[u8]) -> Vec<Primitive> {
    let f = Slog2File::parse(bytes).unwrap();
    let mut out = Vec::new();
    for n in f.nodes() {
        for d in n.value.nestless.iter().chain(&n.value.nestable) {
            match d {
                Drawable::Primitive(p) => out.push(p.clone()),
                Drawable::Composite(c) => out.extend(c.primitives.iter().cloned()),
            }
        }
    }
    out.sort_by(|a, b| {
        (a.category, a.vertices[0].time)
            .partial_cmp(&(b.category, b.vertices[0].time))
            .unwrap()
    });
    out
}

fn run(opts: &Options) -> Result<(Vec<u8>, u64, u64), Error> {
    let mut r = Slog2Reader::new(Cursor::new(file())).unwrap();
    let (out, stats) = filter(&mut r, Cursor::new(Vec::new()), opts)?;
    Ok((out.into_inner(), stats.kept, stats.removed))
}

/// The legend's categories of drawables (the tree writer adds its own
/// negative ones for previews).
fn legend_of(bytes: &[u8]) -> Vec<i32> {
    let r = Slog2Reader::new(Cursor::new(bytes.to_vec())).unwrap();
    let cats = &r.categories().unwrap().value.categories;
    let mut v: Vec<i32> = cats.iter().map(|c| c.index).filter(|&i| i >= 0).collect();
    v.sort();
    v
}

#[test]
fn removing_category_0_counts_and_drops_exactly_its_drawables() {
    let (out, kept, removed) = run(&Options::default().remove(vec![0])).unwrap();
    assert_eq!((kept, removed), (2, 2), "the two events are removed");
    assert_eq!(legend_of(&out), [1, 2], "category 0 leaves the legend");
    let cats: Vec<i32> = primitives(&out).iter().map(|p| p.category).collect();
    assert_eq!(cats, [1, 2]);
}

#[test]
fn keeping_categories_keeps_only_them_and_their_legend() {
    let (out, kept, removed) = run(&Options::default().keep(vec![0, 2])).unwrap();
    assert_eq!((kept, removed), (3, 1));
    assert_eq!(legend_of(&out), [0, 2]);
    let (out, kept, removed) = run(&Options::default()).unwrap();
    assert_eq!((kept, removed), (4, 0), "no choice keeps everything");
    assert_eq!(legend_of(&out), [0, 1, 2]);
}

#[test]
fn a_full_info_buffer_is_written_whole() {
    let (out, _, _) = run(&Options::default().keep(vec![1])).unwrap();
    let got = primitives(&out);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].info.bytes, full_info(), "all {MAX_INFO} info bytes");
    assert_eq!(got[0].vertices.len(), 2);
    assert_eq!(
        (got[0].vertices[0].time, got[0].vertices[1].time),
        (1.0, 2.0)
    );
}

#[test]
fn a_filter_that_keeps_nothing_is_refused() {
    let r = run(&Options::default().keep(vec![7]));
    assert!(
        matches!(r, Err(Error::Empty)),
        "{:?}",
        r.map(|x| (x.1, x.2))
    );
}

/// Each node list's primitives (states nestable, the rest nestless) as
/// comparable text, sorted.
fn by_list(bytes: &[u8]) -> (Vec<String>, Vec<String>) {
    let f = Slog2File::parse(bytes).unwrap();
    let text = |d: &Drawable| format!("{d:?}");
    let (mut nestable, mut nestless) = (Vec::new(), Vec::new());
    for n in f.nodes() {
        nestable.extend(n.value.nestable.iter().map(text));
        nestless.extend(n.value.nestless.iter().map(text));
    }
    nestable.sort();
    nestless.sort();
    (nestable, nestless)
}

#[test]
fn each_drawable_keeps_its_category_s_topology() {
    let input = file();
    let (out, _, _) = run(&Options::default()).unwrap();
    let (nestable, nestless) = by_list(&out);
    assert_eq!(
        (nestable.len(), nestless.len()),
        (1, 3),
        "one state, two events, one arrow"
    );
    assert_eq!((nestable, nestless), by_list(&input));
    // The preview categories too: one per topology, as in the input.
    let kinds = |b: &[u8]| {
        let r = Slog2Reader::new(Cursor::new(b.to_vec())).unwrap();
        let mut v: Vec<(i32, i32)> = r
            .categories()
            .unwrap()
            .value
            .categories
            .iter()
            .map(|c| (c.index, c.topology))
            .collect();
        v.sort();
        v
    };
    assert_eq!(kinds(&out), kinds(&input));
}
