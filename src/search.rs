//! Search and scan (`serve`'s `/api/search`): the next or previous real
//! primitive of a category after or before a time, as Jumpshot's search
//! finds it, reading windows that grow from the time until one holds a match,
//! so a near match costs a near window whatever the file's size.
//!
//! ```
//! use mpelog::search::{find, Direction};
//! use slog2_format::convert::clog2_to_slog2;
//! use slog2_format::write::TreeOptions;
//! use std::io::Cursor;
//! let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
//! let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
//! let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
//! let mut r = slog2_format::Slog2Reader::new(Cursor::new(out.into_inner()))?;
//! let states: Vec<i32> = r.categories().unwrap().value.categories.iter()
//!     .filter(|c| c.topology == slog2_format::topology::STATE).map(|c| c.index).collect();
//! // The category of the first state drawable of the file.
//! let state = r.window(f64::NEG_INFINITY, f64::INFINITY)?.drawables.iter()
//!     .find_map(|d| states.contains(&d.value.category()).then(|| d.value.category())).unwrap();
//! let first = find(&mut r, state, f64::NEG_INFINITY, Direction::Next)?.expect("a state");
//! let second = find(&mut r, state, first.start, Direction::Next)?.expect("another");
//! assert!(second.start > first.start);
//! assert_eq!(find(&mut r, state, second.start, Direction::Previous)?.map(|f| f.start), Some(first.start));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::slices::Piece;
use serde::Serialize;
use slog2_format::{Slog2Reader, WindowBuf};
use std::io::{Read, Seek};

/// Which way to look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Direction {
    /// The first primitive starting after the time.
    Next,
    /// The last primitive starting before the time.
    Previous,
}

/// A primitive found.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Found {
    /// Its category.
    pub category: i32,
    /// Its earliest vertex time.
    pub start: f64,
    /// Its latest vertex time.
    pub end: f64,
    /// The line of its first vertex.
    pub line: i32,
}

/// The first real primitive of `category` starting strictly after `t`
/// ([`Direction::Next`]), or the last starting strictly before it
/// ([`Direction::Previous`]); ties in start time go to the longer, then the
/// lower line. `None` when there is none in the file. At most a dozen
/// window queries, whatever `t` (a NaN `t` is the file's start, or end).
///
/// # Errors
/// Any error of the window queries it makes.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::search::{find, Direction};
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let send = r.categories().unwrap().value.categories.iter().find(|c| c.name.text() == "MPI_Send").unwrap().index;
/// let first = find(&mut r, send, f64::NEG_INFINITY, Direction::Next)?.unwrap();
/// let second = find(&mut r, send, first.start, Direction::Next)?.unwrap();
/// assert!(second.start > first.start);
/// let back = find(&mut r, send, second.start, Direction::Previous)?.unwrap();
/// assert_eq!(back.start, first.start);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find<R: Read + Seek>(
    r: &mut Slog2Reader<R>,
    category: i32,
    t: f64,
    dir: Direction,
) -> slog2_format::Result<Option<Found>> {
    search(r, category, t, None, dir)
}

/// The primitive of `found`'s category right after `found` ([`Direction::Next`])
/// or right before it ([`Direction::Previous`]) in the search's order: by
/// start, then the longer first, then the lower line. Unlike [`find`] from
/// `found.start`, this steps through primitives that share a start (ties),
/// and one step back undoes one step on (the viewer's ◀ ▶ after a first
/// match). `None` when `found` is the last (first) one; a NaN start is
/// [`find`] from no time (the first, or the last, primitive).
///
/// # Errors
/// Any error of the window queries it makes.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default())?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use mpelog::search::{find, find_after, Direction};
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let send = r.categories().unwrap().value.categories.iter().find(|c| c.name.text() == "MPI_Send").unwrap().index;
/// let first = find(&mut r, send, f64::NEG_INFINITY, Direction::Next)?.unwrap();
/// let second = find_after(&mut r, &first, Direction::Next)?.unwrap();
/// assert!((second.start, -second.end, second.line) > (first.start, -first.end, first.line));
/// assert_eq!(find_after(&mut r, &second, Direction::Previous)?, Some(first));
/// assert_eq!(find_after(&mut r, &first, Direction::Previous)?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_after<R: Read + Seek>(
    r: &mut Slog2Reader<R>,
    found: &Found,
    dir: Direction,
) -> slog2_format::Result<Option<Found>> {
    search(
        r,
        found.category,
        found.start,
        Some((found.end, found.line)),
        dir,
    )
}

/// [`find`] from `t`, or with `key` ([`find_after`]) from the primitive
/// starting at `t` with that end and line.
fn search<R: Read + Seek>(
    r: &mut Slog2Reader<R>,
    category: i32,
    t: f64,
    key: Option<(f64, i32)>,
    dir: Direction,
) -> slog2_format::Result<Option<Found>> {
    // No start (NaN): no primitive to step from, as `find` from no time.
    let key = key.filter(|_| !t.is_nan());
    let Some(root) = r.tree_dir().and_then(|d| d.value.root().copied()) else {
        return Ok(None);
    };
    let (lo, hi) = (root.earliest, root.latest);
    if hi.is_nan() || lo.is_nan() || hi < lo {
        return Ok(None);
    }
    let full = hi - lo;
    let mut width = full / 1e6;
    let mut buf = WindowBuf::new();
    // No time (NaN) searches from the file's start (end).
    let t = match (t.is_nan(), dir) {
        (false, _) => t,
        (true, Direction::Next) => f64::NEG_INFINITY,
        (true, Direction::Previous) => f64::INFINITY,
    };
    let at = t.clamp(lo, hi);
    loop {
        // A window starting (ending) at `at` meets every primitive that
        // starts after (before) it within the width; a long one that starts
        // before `at` is met too and skipped by the start test. The last
        // window reaches the file's end (start), so the search ends after at
        // most a dozen queries whatever the times.
        let last = width.partial_cmp(&full) != Some(std::cmp::Ordering::Less);
        let (a, b) = match (dir, last) {
            (Direction::Next, false) => (at, at + width),
            (Direction::Next, true) => (at, crate::slices::next_up(hi)),
            (Direction::Previous, false) => (at - width, crate::slices::next_up(at)),
            (Direction::Previous, true) => (lo, crate::slices::next_up(at)),
        };
        r.window_into(&mut buf, a, b)?;
        let mut best: Option<Found> = None;
        for d in buf.drawables() {
            for p in d.primitive().into_iter().chain(d.parts()) {
                if p.category() != category || p.vertices().is_empty() {
                    continue;
                }
                let piece = Piece::of(&p);
                // After (before) `key` among those starting at `t`: shorter
                // (longer), or as long on a higher (lower) line.
                let (end, line) = (piece.end, piece.first.1);
                let tie = |after: bool| match key {
                    Some((e, l)) if after => end < e || (end == e && line > l),
                    Some((e, l)) => end > e || (end == e && line < l),
                    None => false,
                };
                let ok = match dir {
                    Direction::Next => {
                        (piece.start > t || (piece.start == t && tie(true))) && piece.start < b
                    }
                    Direction::Previous => {
                        (piece.start < t || (piece.start == t && tie(false))) && piece.start >= a
                    }
                };
                if !ok {
                    continue;
                }
                let f = Found {
                    category,
                    start: piece.start,
                    end: piece.end,
                    line: piece.first.1,
                };
                let better = match (&best, dir) {
                    (None, _) => true,
                    (Some(x), Direction::Next) => {
                        (f.start, -f.end, f.line) < (x.start, -x.end, x.line)
                    }
                    // With a key, the one right before it: the latest start,
                    // then the shorter, then the higher line.
                    (Some(x), Direction::Previous) if key.is_some() => {
                        (f.start, -f.end, f.line) > (x.start, -x.end, x.line)
                    }
                    (Some(x), Direction::Previous) => {
                        (f.start, f.end, -f.line) > (x.start, x.end, -x.line)
                    }
                };
                if better {
                    best = Some(f);
                }
            }
        }
        if best.is_some() || last {
            return Ok(best);
        }
        width *= 4.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slog2_format::convert::clog2_to_slog2;
    use slog2_format::write::TreeOptions;
    use std::io::Cursor;

    /// A search ends, whatever the time asked: NaN, infinities, far outside
    /// the file, and a category with no drawable.
    #[test]
    fn every_search_ends() {
        let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
        let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
        let (out, _) = clog2_to_slog2(
            &mut trace,
            Cursor::new(Vec::new()),
            TreeOptions::default(),
            |_| {},
        )
        .unwrap();
        let mut r = Slog2Reader::new(Cursor::new(out.into_inner())).unwrap();
        for t in [
            f64::NAN,
            f64::NEG_INFINITY,
            f64::INFINITY,
            -1e300,
            1e300,
            0.5,
        ] {
            for dir in [Direction::Next, Direction::Previous] {
                assert_eq!(find(&mut r, 999_999, t, dir).unwrap(), None, "{t} {dir:?}");
            }
        }
        // NaN searches from the start: the same as -inf forwards.
        let some = r
            .categories()
            .unwrap()
            .value
            .categories
            .iter()
            .map(|c| c.index)
            .collect::<Vec<_>>();
        for c in some {
            assert_eq!(
                find(&mut r, c, f64::NAN, Direction::Next).unwrap(),
                find(&mut r, c, f64::NEG_INFINITY, Direction::Next).unwrap()
            );
        }
    }
}
