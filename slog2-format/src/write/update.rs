//! Changing a file's version in place: 2.0.5 → 2.0.6 (what Java's `slog2updater` is
//! for; `spec/conversion.md` §8) and, for tests and tooling, 2.0.6 → 2.0.5. The tree,
//! drawables, shadows, maps, trailing bytes and gaps are kept; the blocks keep their
//! order and every pointer is rewritten for the new sizes.

use crate::error::{Error, Oversized, Result, WriteProblem};
use crate::file::{FileBlock, Slog2File};
use crate::read::Version;
use crate::types::*;
use binrw::{BinWrite, Endian};
use std::collections::HashMap;
use std::io::Cursor;

fn encoded_len<T: for<'a> BinWrite<Args<'a> = ()>>(v: &T) -> Result<u64> {
    let mut c = Cursor::new(Vec::new());
    v.write_options(&mut c, Endian::Big, ())
        .map_err(|e| Error::Write(e.into()))?;
    Ok(c.into_inner().len() as u64)
}

fn block_len(b: &FileBlock) -> Result<u64> {
    Ok(match b {
        FileBlock::Node(p) => encoded_len(&p.value)? + p.trailing.len() as u64,
        FileBlock::Categories(p) => encoded_len(&p.value)? + p.trailing.len() as u64,
        FileBlock::LineIdMaps(p) => encoded_len(&p.value)? + p.trailing.len() as u64,
        FileBlock::TreeDir(p) => encoded_len(&p.value)? + p.trailing.len() as u64,
    })
}

/// Lays the blocks out again, in their old order, for their current encoded sizes,
/// and rewrites every pointer (header, TreeDir, node self-pointers, stubs) and
/// `max_buffer_bytesize`.
///
/// # Errors
///
/// [`Error::Write`] when a block cannot be encoded, or with
/// [`WriteProblem::TooLarge`] when a block grows past what a pointer can hold.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use slog2_format::{write::update::relayout, Slog2File};
/// let mut f = Slog2File::parse(&bytes)?;
/// let drawables = |f: &Slog2File| f.nodes().map(|n| n.value.nestable.len() + n.value.nestless.len()).sum::<usize>();
/// let before = drawables(&f);
/// // Drop the stale bytes after every block, then lay the blocks out again.
/// for b in f.blocks.values_mut() {
///     if let slog2_format::FileBlock::Node(n) = b {
///         n.trailing.clear();
///     }
/// }
/// relayout(&mut f)?;
/// let again = Slog2File::parse(&f.to_bytes()?)?;
/// assert_eq!(drawables(&again), before);
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn relayout(f: &mut Slog2File) -> Result<()> {
    enum Item {
        Block(FileBlock),
        Gap(Vec<u8>),
    }
    let mut items: Vec<(u64, Item)> = std::mem::take(&mut f.blocks)
        .into_iter()
        .map(|(o, b)| (o, Item::Block(b)))
        .chain(
            std::mem::take(&mut f.gaps)
                .into_iter()
                .map(|(o, g)| (o, Item::Gap(g))),
        )
        .collect();
    items.sort_by_key(|i| i.0);
    let mut pos = encoded_len(&f.header)?;
    let mut moved: HashMap<i64, FileBlockPtr> = HashMap::new();
    let mut largest = 0i64;
    let mut new_at: Vec<u64> = Vec::with_capacity(items.len());
    for (old, item) in &items {
        new_at.push(pos);
        let len = match item {
            Item::Block(b) => block_len(b)?,
            Item::Gap(g) => g.len() as u64,
        };
        if let Item::Block(_) = item {
            let size = i32::try_from(len).map_err(|_| {
                Error::Write(WriteProblem::TooLarge(Oversized::UpdatedBlock(len as u64)))
            })?;
            moved.insert(
                *old as i64,
                FileBlockPtr {
                    offset: pos as i64,
                    size,
                },
            );
            largest = largest.max(len as i64);
        }
        pos += len;
    }
    let fix = |p: &mut FileBlockPtr| {
        if let Some(n) = moved.get(&p.offset).filter(|_| !p.is_null()) {
            *p = *n;
        }
    };
    let h = &mut f.header;
    for p in [
        &mut h.categories,
        &mut h.lineidmaps,
        &mut h.treeroot,
        &mut h.treedir,
    ] {
        fix(p);
    }
    h.max_buffer_bytesize = i32::try_from(largest).unwrap_or(i32::MAX);
    for ((_, item), at) in items.into_iter().zip(new_at) {
        match item {
            Item::Gap(g) => {
                f.gaps.insert(at, g);
            }
            Item::Block(mut b) => {
                match &mut b {
                    FileBlock::Node(p) => {
                        fix(&mut p.ptr);
                        fix(&mut p.value.header.ptr);
                        for s in &mut p.value.stubs {
                            fix(&mut s.header.ptr);
                        }
                    }
                    FileBlock::TreeDir(p) => {
                        fix(&mut p.ptr);
                        for e in &mut p.value.entries {
                            fix(&mut e.ptr);
                        }
                    }
                    FileBlock::Categories(p) => fix(&mut p.ptr),
                    FileBlock::LineIdMaps(p) => fix(&mut p.ptr),
                }
                f.blocks.insert(at, b);
            }
        }
    }
    Ok(())
}

/// A primitive's shadow key: category, topology and vertex line IDs.
type Key = (i32, i32, Vec<i32>);

fn primitives(d: &Drawable) -> Vec<&Primitive> {
    match d {
        Drawable::Primitive(p) => vec![p],
        Drawable::Composite(c) => c.primitives.iter().collect(),
    }
}

/// Updates a 2.0.5 file to 2.0.6: weight counts from the subtrees, category
/// summaries from all real primitives (spec/conversion.md §8), version string, new layout.
///
/// # Errors
///
/// [`Error::Write`] with [`WriteProblem::WrongVersion`] when `f` is not 2.0.5, and
/// as [`relayout`].
///
/// ```
/// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = slog2_format::convert::clog2_to_slog2(&mut trace, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use slog2_format::write::update::{downgrade_206_to_205, update_205_to_206};
/// use slog2_format::Slog2File;
/// use slog2_format::{Slog2Reader, Version};
/// let mut f = Slog2File::parse(&bytes)?;
/// downgrade_206_to_205(&mut f)?;
/// update_205_to_206(&mut f)?;
/// assert_eq!(f.version, Version::V206);
/// let all = |b: Vec<u8>| Slog2Reader::new(std::io::Cursor::new(b))?.window(f64::MIN, f64::MAX);
/// assert_eq!(all(f.to_bytes()?)?.drawables.len(), all(bytes)?.drawables.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn update_205_to_206(f: &mut Slog2File) -> Result<()> {
    if f.version != Version::V205 {
        return Err(Error::Write(WriteProblem::WrongVersion {
            found: f.version,
            wanted: Version::V205,
        }));
    }
    let topo: HashMap<i32, i32> = f
        .blocks
        .values()
        .find_map(|b| match b {
            FileBlock::Categories(c) => Some(
                c.value
                    .categories
                    .iter()
                    .map(|c| (c.index, c.topology))
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default();
    let t = |cat: i32| topo.get(&cat).copied().unwrap_or(topology::STATE);
    // Subtree primitive counts per node, bottom-up (children have smaller depth).
    let mut order: Vec<(NodeId, u64)> = f
        .nodes()
        .map(|n| (n.value.header.id, n.ptr.offset as u64))
        .collect();
    order.sort();
    let mut sub: HashMap<NodeId, HashMap<Key, i64>> = HashMap::new();
    for (id, at) in &order {
        let Some(FileBlock::Node(n)) = f.blocks.get(at) else {
            continue;
        };
        let mut m: HashMap<Key, i64> = HashMap::new();
        for d in n.value.nestless.iter().chain(&n.value.nestable) {
            for p in primitives(d) {
                let k = (
                    p.category,
                    t(p.category),
                    p.vertices.iter().map(|c| c.line_id).collect(),
                );
                *m.entry(k).or_insert(0) += 1;
            }
        }
        for s in &n.value.stubs {
            if let Some(c) = sub.get(&s.header.id) {
                for (k, v) in c {
                    *m.entry(k.clone()).or_insert(0) += v;
                }
            }
        }
        sub.insert(*id, m);
    }
    // Weight counts.
    for b in f.blocks.values_mut() {
        let FileBlock::Node(n) = b else { continue };
        for s in &mut n.value.stubs {
            let empty = HashMap::new();
            let c = sub.get(&s.header.id).unwrap_or(&empty);
            for sh in s.nestless.iter_mut().chain(s.nestable.iter_mut()) {
                let lines: Vec<i32> = sh.vertices.iter().map(|v| v.line_id).collect();
                let st = t(sh.category);
                for w in &mut sh.weights {
                    w.count = Some(*c.get(&(w.category, st, lines.clone())).unwrap_or(&0));
                }
            }
        }
    }
    // Category summaries.
    let mut all: Vec<(i32, f64, f64, i32)> = Vec::new(); // category, start, end, start line
    for n in f.nodes() {
        for d in n.value.nestless.iter().chain(&n.value.nestable) {
            for p in primitives(d) {
                all.push((
                    p.category,
                    p.earliest(),
                    p.latest(),
                    p.vertices.first().map_or(0, |c| c.line_id),
                ));
            }
        }
    }
    let root = f.nodes().max_by_key(|n| {
        (
            n.value.header.id.depth,
            std::cmp::Reverse(n.value.header.id.xpos),
        )
    });
    let span = root.map_or(0.0, |r| r.value.header.latest - r.value.header.earliest);
    let mut count: HashMap<i32, i64> = HashMap::new();
    let mut incl: HashMap<i32, f64> = HashMap::new();
    let mut excl: HashMap<i32, f64> = HashMap::new();
    for &(c, a, b, _) in &all {
        *count.entry(c).or_insert(0) += 1;
        *incl.entry(c).or_insert(0.0) += b - a;
    }
    // Exclusive time of states: minus the states directly nested in them on the same
    // start line.
    let mut states: Vec<(i32, f64, f64, i32)> = all
        .iter()
        .copied()
        .filter(|p| t(p.0) == topology::STATE)
        .collect();
    states.sort_by(|x, y| {
        x.3.cmp(&y.3)
            .then(x.1.total_cmp(&y.1))
            .then(y.2.total_cmp(&x.2))
    });
    let mut x: Vec<f64> = states.iter().map(|s| s.2 - s.1).collect();
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..states.len() {
        while let Some(&top) = stack.last() {
            let (p, q) = (states[top], states[i]);
            if p.3 == q.3 && q.1 >= p.1 && q.2 <= p.2 {
                break;
            }
            stack.pop();
        }
        if let Some(&top) = stack.last() {
            x[top] -= states[i].2 - states[i].1;
        }
        stack.push(i);
    }
    for (s, xs) in states.iter().zip(&x) {
        *excl.entry(s.0).or_insert(0.0) += xs;
    }
    for b in f.blocks.values_mut() {
        let FileBlock::Categories(c) = b else {
            continue;
        };
        for cat in &mut c.value.categories {
            let ratio = |v: Option<&f64>| {
                if span > 0.0 && cat.index >= 0 {
                    (v.copied().unwrap_or(0.0) / span) as f32
                } else {
                    0.0
                }
            };
            cat.summary = Some(CategorySummary {
                incl: ratio(incl.get(&cat.index)),
                excl: if cat.topology == topology::STATE {
                    ratio(excl.get(&cat.index))
                } else {
                    0.0
                },
                count: if cat.index >= 0 {
                    count.get(&cat.index).copied().unwrap_or(0)
                } else {
                    0
                },
            });
        }
    }
    f.header.version = JStr::new(Version::V206.as_str());
    f.version = Version::V206;
    relayout(f)
}

/// Turns a 2.0.6 file into 2.0.5: drops weight counts and category summaries. Meant
/// for making 2.0.5 test files; Jumpshot-4 does not read the result.
///
/// # Errors
///
/// [`Error::Write`] with [`WriteProblem::WrongVersion`] when `f` is not 2.0.6, and
/// as [`relayout`].
///
/// ```
/// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = slog2_format::convert::clog2_to_slog2(&mut trace, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use slog2_format::{write::update::downgrade_206_to_205, Slog2File};
/// let mut f = Slog2File::parse(&bytes)?;
/// downgrade_206_to_205(&mut f)?;
/// assert_eq!(&f.to_bytes()?[..12], b"\0\x0aSLOG 2.0.5");
/// assert!(downgrade_206_to_205(&mut f).is_err()); // no longer 2.0.6
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn downgrade_206_to_205(f: &mut Slog2File) -> Result<()> {
    if f.version != Version::V206 {
        return Err(Error::Write(WriteProblem::WrongVersion {
            found: f.version,
            wanted: Version::V206,
        }));
    }
    for b in f.blocks.values_mut() {
        match b {
            FileBlock::Node(n) => {
                for s in &mut n.value.stubs {
                    for sh in s.nestless.iter_mut().chain(s.nestable.iter_mut()) {
                        for w in &mut sh.weights {
                            w.count = None;
                        }
                    }
                }
            }
            FileBlock::Categories(c) => {
                for cat in &mut c.value.categories {
                    cat.summary = None;
                }
            }
            _ => {}
        }
    }
    f.header.version = JStr::new(Version::V205.as_str());
    f.version = Version::V205;
    relayout(f)
}
