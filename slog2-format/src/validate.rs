//! What a reader checks while it decodes a tree node (spec/slog2.md §14 #9–#12):
//! every category a drawable, a part or a shadow weight names is in the
//! CategoryMap, every vertex line ID is in every line-ID map, every vertex time lies
//! inside the node's box, no primitive or composite is empty, the lists are in
//! start-time order, and shadows have a preview category and weights.
//!
//! The sets of valid categories and line IDs are made once, when the file is
//! opened (`Legend`); each check is then a table look-up per value. Offsets are
//! computed only when something is wrong.

use crate::error::{DrawableProblem, Drawn, Error, Result};
use crate::size::{drawable_key, shadow_key, start_order, OrderKey};
use crate::types::*;
use std::cmp::Ordering;

/// How strictly a reader checks the drawables of the nodes it decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Validation {
    /// The default: a drawable or shadow that the file cannot resolve (or that is
    /// impossible, see [`DrawableProblem`]) is an [`Error::BadDrawable`] naming
    /// its byte offset.
    #[default]
    Strict,
    /// Drawables and shadows with an unresolvable category or line ID, a time
    /// outside their node's box, no vertices or parts, or (shadows) no weights or a
    /// bad category are dropped from the node, and counted
    /// ([`crate::Slog2Reader::dropped`]). Unsorted lists are accepted.
    Lenient,
    /// No check: nodes are returned as decoded. For tools that report or copy
    /// what is there (`check`, lossless copies).
    Off,
}

/// Drawables and shadows a lenient reader dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dropped {
    /// Real drawables (a composite counts as one).
    pub drawables: u64,
    /// Shadows.
    pub shadows: u64,
}

/// A set of `i32` IDs: a bit table over `[min, max]` when that range is small
/// compared with the number of IDs (at most 4096 + 512 per ID bits), a sorted
/// list otherwise. Its size is bounded by the IDs actually given, never by a
/// header field.
#[derive(Debug, Clone, Default)]
pub(crate) struct IdSet {
    min: i64,
    /// One bit per ID of `[min, max]`; empty for the sorted form.
    bits: Vec<u64>,
    /// The number of IDs the bit table covers (`max - min + 1`).
    span: u64,
    sorted: Vec<i32>,
}

impl IdSet {
    pub(crate) fn new(mut ids: Vec<i32>) -> IdSet {
        ids.sort_unstable();
        ids.dedup();
        let (Some(&lo), Some(&hi)) = (ids.first(), ids.last()) else {
            return IdSet::default();
        };
        let span = (hi as i64 - lo as i64 + 1) as u64;
        if span <= 4096 + 512 * ids.len() as u64 {
            let mut bits = vec![0u64; span.div_ceil(64) as usize];
            for id in &ids {
                let i = (*id as i64 - lo as i64) as u64;
                bits[(i / 64) as usize] |= 1 << (i % 64);
            }
            IdSet {
                min: lo as i64,
                bits,
                span,
                sorted: Vec::new(),
            }
        } else {
            IdSet {
                min: 0,
                bits: Vec::new(),
                span: 0,
                sorted: ids,
            }
        }
    }

    #[inline(always)]
    pub(crate) fn contains(&self, id: i32) -> bool {
        if self.bits.is_empty() {
            self.sorted.binary_search(&id).is_ok()
        } else {
            // A negative difference wraps to a huge index: one comparison.
            let i = (id as i64).wrapping_sub(self.min) as u64;
            i < self.span && self.bits[(i / 64) as usize] & (1 << (i % 64)) != 0
        }
    }
}

/// What a node's references are checked against: made once per file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Legend {
    categories: IdSet,
    /// Preview categories: negative indexes of the map.
    previews: IdSet,
    /// Line IDs present in every line-ID map.
    line_ids: IdSet,
    /// When the file has no line-ID map: where `check` reports that (the header's
    /// lineIDmaps pointer, 48, or the empty LineIDMapList block).
    no_maps_at: Option<u64>,
}

impl Legend {
    pub(crate) fn new(
        categories: Option<&CategoryMap>,
        maps: Option<&LineIdMapList>,
        no_maps_at: u64,
    ) -> Legend {
        let cats: Vec<i32> = categories
            .map(|c| c.categories.iter().map(|c| c.index).collect())
            .unwrap_or_default();
        let previews = IdSet::new(cats.iter().copied().filter(|c| *c < 0).collect());
        let maps: &[LineIdMap] = maps.map_or(&[], |m| &m.maps);
        let (line_ids, no_maps_at) = match maps.split_first() {
            None => (IdSet::default(), Some(no_maps_at)),
            Some((first, rest)) => {
                let mut ids: Vec<i32> = first.rows.iter().map(|r| r.line_id).collect();
                for m in rest {
                    let other = IdSet::new(m.rows.iter().map(|r| r.line_id).collect());
                    ids.retain(|id| other.contains(*id));
                }
                (IdSet::new(ids), None)
            }
        };
        Legend {
            categories: IdSet::new(cats),
            previews,
            line_ids,
            no_maps_at,
        }
    }
}

impl Legend {
    /// Whether a drawable, part or weight may name category `c`.
    #[inline(always)]
    pub(crate) fn category_known(&self, c: i32) -> bool {
        self.categories.contains(c)
    }

    /// Whether a shadow may name category `c` (a preview category).
    #[inline(always)]
    pub(crate) fn preview_known(&self, c: i32) -> bool {
        self.previews.contains(c)
    }

    /// Whether line ID `l` is in every line-ID map.
    #[inline(always)]
    pub(crate) fn line_known(&self, l: i32) -> bool {
        self.line_ids.contains(l)
    }
}

/// Whether a vertex time lies inside the box `[earliest, latest]` (false for NaN).
#[inline]
pub(crate) fn inside(t: f64, earliest: f64, latest: f64) -> bool {
    t >= earliest && t <= latest
}

#[inline]
fn drawable(d: &Drawable, e: f64, l: f64, g: &Legend) -> Option<DrawableProblem> {
    drawable_box(d, e, l, g).err()
}

#[inline]
fn shadow(s: &Shadow, g: &Legend) -> Option<DrawableProblem> {
    if !g.previews.contains(s.category) {
        return Some(DrawableProblem::ShadowCategory(s.category));
    }
    if s.weights.is_empty() {
        return Some(DrawableProblem::NoWeights);
    }
    s.weights
        .iter()
        .find(|w| !g.categories.contains(w.category))
        .map(|w| DrawableProblem::WeightCategory(w.category))
}

/// Where item `i` of list `list` (0 nestless, 1 nestable) of a node starts.
fn drawable_at(n: &TreeNodeBody, base: u64, list: usize, i: usize) -> u64 {
    let sum = |l: &[Drawable]| l.iter().map(Drawable::disk_len).sum::<u64>();
    let mut at = base + 34 + 4;
    if list == 1 {
        at += sum(&n.nestless) + 4;
        at += sum(&n.nestable[..i]);
    } else {
        at += sum(&n.nestless[..i]);
    }
    at
}

/// Where stub `s` of a node starts.
pub(crate) fn stub_at(n: &TreeNodeBody, base: u64, v206: bool, s: usize) -> u64 {
    let sum = |l: &[Drawable]| l.iter().map(Drawable::disk_len).sum::<u64>();
    base + 34
        + 4
        + sum(&n.nestless)
        + 4
        + sum(&n.nestable)
        + 4
        + n.stubs[..s].iter().map(|s| s.disk_len(v206)).sum::<u64>()
}

/// Where shadow `i` of list `list` of stub `s` starts.
fn shadow_at(n: &TreeNodeBody, base: u64, v206: bool, s: usize, list: usize, i: usize) -> u64 {
    let stub = &n.stubs[s];
    let sum = |l: &[Shadow]| l.iter().map(|x| x.disk_len(v206)).sum::<u64>();
    let mut at = stub_at(n, base, v206, s) + 34 + 4;
    if list == 1 {
        at += sum(&stub.nestless) + 4 + sum(&stub.nestable[..i]);
    } else {
        at += sum(&stub.nestless[..i]);
    }
    at
}

/// Checks (or, in lenient mode, cleans) a decoded node that starts at `base`.
pub(crate) fn node(
    n: &mut TreeNodeBody,
    base: u64,
    v206: bool,
    g: &Legend,
    mode: Validation,
    dropped: &mut Dropped,
) -> Result<()> {
    let (e, l) = (n.header.earliest, n.header.latest);
    match mode {
        Validation::Off => Ok(()),
        Validation::Lenient => {
            for list in [&mut n.nestless, &mut n.nestable] {
                let before = list.len();
                list.retain(|d| drawable(d, e, l, g).is_none());
                dropped.drawables += (before - list.len()) as u64;
            }
            for s in &mut n.stubs {
                for list in [&mut s.nestless, &mut s.nestable] {
                    let before = list.len();
                    list.retain(|x| shadow(x, g).is_none());
                    dropped.shadows += (before - list.len()) as u64;
                }
            }
            Ok(())
        }
        Validation::Strict => strict(n, base, v206, g),
    }
}

/// One pass over a primitive's vertices: the first problem, else its time box
/// (vertex minimum and maximum).
#[inline(always)]
fn primitive_box(p: &Primitive, e: f64, l: f64, g: &Legend) -> Result<(f64, f64), DrawableProblem> {
    if !g.categories.contains(p.category) {
        return Err(DrawableProblem::UnknownCategory(p.category));
    }
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    // The vertices of a state share their line: look each line up once.
    let mut known: Option<i32> = None;
    for v in &p.vertices {
        if known != Some(v.line_id) {
            if !g.line_ids.contains(v.line_id) {
                return Err(DrawableProblem::UnknownLineId(v.line_id));
            }
            known = Some(v.line_id);
        }
        if !inside(v.time, e, l) {
            return Err(DrawableProblem::OutsideNode {
                earliest: e,
                latest: l,
            });
        }
        lo = lo.min(v.time);
        hi = hi.max(v.time);
    }
    if p.vertices.is_empty() {
        return Err(DrawableProblem::Empty);
    }
    Ok((lo, hi))
}

/// [`drawable`] and the drawable's time box, in one pass.
#[inline(always)]
fn drawable_box(d: &Drawable, e: f64, l: f64, g: &Legend) -> Result<(f64, f64), DrawableProblem> {
    match d {
        Drawable::Primitive(p) => primitive_box(p, e, l, g),
        Drawable::Composite(c) => {
            if !g.categories.contains(c.category) {
                return Err(DrawableProblem::UnknownCategory(c.category));
            }
            if c.primitives.is_empty() {
                return Err(DrawableProblem::Empty);
            }
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for p in &c.primitives {
                let (a, b) = primitive_box(p, e, l, g)?;
                lo = lo.min(a);
                hi = hi.max(b);
            }
            Ok((lo, hi))
        }
    }
}

fn strict(n: &TreeNodeBody, base: u64, v206: bool, g: &Legend) -> Result<()> {
    let (e, l) = (n.header.earliest, n.header.latest);
    let fail = |problem: DrawableProblem, offset: u64| -> Error {
        let (problem, offset) = match (problem, g.no_maps_at) {
            (DrawableProblem::UnknownLineId(l), Some(at)) => (DrawableProblem::NoLineIdMaps(l), at),
            _ => (problem, offset),
        };
        Error::BadDrawable {
            offset,
            node: n.header.id,
            problem,
        }
    };
    for (li, list) in [&n.nestless, &n.nestable].into_iter().enumerate() {
        // The previous drawable's box; equal boxes compare by the whole key.
        let mut last: Option<(f64, f64)> = None;
        for (i, d) in list.iter().enumerate() {
            let (lo, hi) = match drawable_box(d, e, l, g) {
                Ok(b) => b,
                Err(p) => {
                    let at = drawable_at(n, base, li, i);
                    let at = match p {
                        DrawableProblem::UnknownCategory(_) | DrawableProblem::UnknownLineId(_) => {
                            at + 1
                        }
                        _ => at,
                    };
                    return Err(fail(p, at));
                }
            };
            if let Some((plo, phi)) = last {
                // INCRE_STARTTIME_ORDER: earliest ascending, then latest
                // descending, then category and end lines (total order, as check).
                let out_of_order = match lo.total_cmp(&plo) {
                    Ordering::Less => true,
                    Ordering::Greater => false,
                    Ordering::Equal => match hi.total_cmp(&phi) {
                        Ordering::Greater => true,
                        Ordering::Less => false,
                        Ordering::Equal => {
                            start_order(drawable_key(&list[i - 1]), drawable_key(d))
                                == Ordering::Greater
                        }
                    },
                };
                if out_of_order {
                    let at = drawable_at(n, base, li, i);
                    return Err(fail(DrawableProblem::Unsorted(Drawn::Drawable), at));
                }
            }
            last = Some((lo, hi));
        }
    }
    for (si, s) in n.stubs.iter().enumerate() {
        for (li, list) in [&s.nestless, &s.nestable].into_iter().enumerate() {
            let mut last: Option<OrderKey> = None;
            for (i, x) in list.iter().enumerate() {
                let key = shadow_key(x);
                let p = shadow(x, g).or_else(|| {
                    last.filter(|k| start_order(*k, key) == Ordering::Greater)
                        .map(|_| DrawableProblem::Unsorted(Drawn::Shadow))
                });
                if let Some(p) = p {
                    let at = shadow_at(n, base, v206, si, li, i);
                    return Err(fail(p, at));
                }
                last = Some(key);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::IdSet;

    /// Both forms of the set (bit table and sorted list) answer as a plain set,
    /// at and around every member and at the ends of the `i32` range.
    #[test]
    fn id_sets_hold_exactly_their_ids() {
        let cases: Vec<Vec<i32>> = vec![
            vec![],
            vec![0],
            vec![-3, -2, -1, 0, 1, 3, 6, 7, 13, 23, 251, 309],
            vec![i32::MIN, -1, 5, i32::MAX],
            (0..200).map(|i| i * 97 - 5000).collect(),
            vec![7, 7, 7, 70_000],
            vec![1, 1_000_000_000],
            // A bit table of exactly one word, and of exactly two: the ID just past
            // the end is outside the table.
            vec![0, 63],
            vec![-64, 63],
        ];
        for ids in cases {
            let set = IdSet::new(ids.clone());
            let mut probes = vec![i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX];
            for &id in &ids {
                probes.extend([id.wrapping_sub(1), id, id.wrapping_add(1), id ^ 64]);
            }
            for p in probes {
                assert_eq!(set.contains(p), ids.contains(&p), "{p} in {ids:?}");
            }
        }
    }
}
