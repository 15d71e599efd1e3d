//! On-disk sizes of drawables, shadows and stubs, for locating items inside blocks
//! (error offsets) and for writers that size blocks before writing them.

use crate::types::*;

impl Primitive {
    /// Bytes on disk, without a tag byte.
    pub fn disk_len(&self) -> u64 {
        4 + self.info.disk_len() as u64 + 2 + 12 * self.vertices.len() as u64
    }

    /// Earliest vertex time (`+inf` without vertices).
    pub fn earliest(&self) -> f64 {
        self.vertices
            .iter()
            .map(|c| c.time)
            .fold(f64::INFINITY, f64::min)
    }

    /// Latest vertex time (`-inf` without vertices).
    pub fn latest(&self) -> f64 {
        self.vertices
            .iter()
            .map(|c| c.time)
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

impl Composite {
    /// Bytes on disk, without a tag byte.
    pub fn disk_len(&self) -> u64 {
        4 + self.info.disk_len() as u64
            + 2
            + self.primitives.iter().map(Primitive::disk_len).sum::<u64>()
    }
}

impl Drawable {
    /// Bytes on disk, tag byte included.
    pub fn disk_len(&self) -> u64 {
        1 + match self {
            Drawable::Primitive(p) => p.disk_len(),
            Drawable::Composite(c) => c.disk_len(),
        }
    }

    /// Category index.
    pub fn category(&self) -> i32 {
        match self {
            Drawable::Primitive(p) => p.category,
            Drawable::Composite(c) => c.category,
        }
    }

    /// Start of the time box (vertex minimum; union for composites).
    pub fn earliest(&self) -> f64 {
        self.bound(Primitive::earliest, f64::INFINITY, f64::min)
    }

    /// End of the time box.
    pub fn latest(&self) -> f64 {
        self.bound(Primitive::latest, f64::NEG_INFINITY, f64::max)
    }

    /// A primitive's `bound`, or for a composite its parts' bounds folded with
    /// `pick` from `none`.
    #[inline]
    fn bound(&self, bound: fn(&Primitive) -> f64, none: f64, pick: fn(f64, f64) -> f64) -> f64 {
        match self {
            Drawable::Primitive(p) => bound(p),
            Drawable::Composite(c) => c.primitives.iter().map(bound).fold(none, pick),
        }
    }

    /// Line IDs of the first and last vertex (of the first and last part for
    /// composites), as Java's start-time order compares them.
    pub fn end_lines(&self) -> (i32, i32) {
        let (first, last) = match self {
            Drawable::Primitive(p) => (p.vertices.first(), p.vertices.last()),
            Drawable::Composite(c) => (
                c.primitives.iter().find_map(|p| p.vertices.first()),
                c.primitives.iter().rev().find_map(|p| p.vertices.last()),
            ),
        };
        (
            first.map_or(0, |c| c.line_id),
            last.map_or(0, |c| c.line_id),
        )
    }
}

impl Shadow {
    /// Bytes on disk.
    pub fn disk_len(&self, v206: bool) -> u64 {
        4 + self.info.disk_len() as u64
            + 2
            + 12 * self.vertices.len() as u64
            + 16
            + 8
            + 4
            + if v206 { 20 } else { 12 } * self.weights.len() as u64
    }
}

impl Stub {
    /// Bytes on disk.
    pub fn disk_len(&self, v206: bool) -> u64 {
        34 + 4
            + 4
            + self
                .nestless
                .iter()
                .chain(&self.nestable)
                .map(|s| s.disk_len(v206))
                .sum::<u64>()
    }
}

/// The sort key of [`start_order`]: (earliest, latest, category, (start line,
/// final line)).
pub(crate) type OrderKey = (f64, f64, i32, (i32, i32));

/// A real drawable's [`start_order`] key: its box is the vertex minimum and
/// maximum (for a composite, over all its parts).
#[inline]
pub(crate) fn drawable_key(d: &Drawable) -> OrderKey {
    (d.earliest(), d.latest(), d.category(), d.end_lines())
}

/// A shadow's [`start_order`] key: its box is the stored union box, its line IDs
/// those of the first and last vertex (0 without vertices).
#[inline]
pub(crate) fn shadow_key(s: &Shadow) -> OrderKey {
    (
        s.earliest,
        s.latest,
        s.category,
        (
            s.vertices.first().map_or(0, |c| c.line_id),
            s.vertices.last().map_or(0, |c| c.line_id),
        ),
    )
}

/// Java's `Drawable.INCRE_STARTTIME_ORDER` (spec/slog2.md §10.1) on the sort key
/// (earliest, latest, category, (start line, final line)): earliest ascending, then
/// latest descending, then category, start line and final line ascending.
pub fn start_order(
    a: (f64, f64, i32, (i32, i32)),
    b: (f64, f64, i32, (i32, i32)),
) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0)
        .then(b.1.total_cmp(&a.1))
        .then(a.2.cmp(&b.2))
        .then(a.3 .0.cmp(&b.3 .0))
        .then(a.3 .1.cmp(&b.3 .1))
}
