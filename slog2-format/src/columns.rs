//! The column transform of frame codec 2 (spec/slog2-compressed.md §4): the
//! bytes of a node after its header are split into the 8-byte times (vertex
//! times, shadow and stub boxes) and everything else; the times are XORed with the
//! previous time and stored as 8 byte planes, which deflate compresses far better
//! than interleaved doubles.
//!
//! Transformed form: `u32 other_len`, the other bytes, then the time planes.
//! One walker over the node grammar serves both directions. Every loop consumes
//! input, so a walk ends within the input's length whatever the counts say.

use crate::error::ColumnProblem;

/// Where the walker takes fields from.
trait Source {
    fn bytes(&mut self, n: usize) -> Option<&[u8]>;
    fn time(&mut self) -> Option<[u8; 8]>;
}

/// Where the walker puts fields.
trait Sink {
    fn bytes(&mut self, b: &[u8]);
    fn time(&mut self, t: [u8; 8]);
}

fn copy<S: Source, K: Sink>(s: &mut S, k: &mut K, n: usize) -> Option<()> {
    let b = s.bytes(n)?;
    k.bytes(b);
    Some(())
}

fn int<S: Source, K: Sink>(s: &mut S, k: &mut K, n: usize) -> Option<i64> {
    let b = s.bytes(n)?;
    let v = match n {
        2 => i16::from_be_bytes([b[0], b[1]]) as i64,
        4 => i32::from_be_bytes([b[0], b[1], b[2], b[3]]) as i64,
        _ => b[0] as i64,
    };
    k.bytes(b);
    Some(v)
}

fn time<S: Source, K: Sink>(s: &mut S, k: &mut K) -> Option<()> {
    let t = s.time()?;
    k.time(t);
    Some(())
}

/// Category and info box: the start of primitives, composites and shadows.
fn category_info<S: Source, K: Sink>(s: &mut S, k: &mut K) -> Option<()> {
    copy(s, k, 4)?;
    let info = int(s, k, 2)?;
    if info > 0 {
        copy(s, k, info as usize)?;
    }
    Some(())
}

/// Category, info box, vertices: the start of primitives and shadows.
fn infobox_vertices<S: Source, K: Sink>(s: &mut S, k: &mut K) -> Option<()> {
    category_info(s, k)?;
    let nv = int(s, k, 2)?;
    for _ in 0..nv.max(0) {
        time(s, k)?;
        copy(s, k, 4)?;
    }
    Some(())
}

fn primitive<S: Source, K: Sink>(s: &mut S, k: &mut K) -> Option<()> {
    infobox_vertices(s, k)
}

fn shadow<S: Source, K: Sink>(s: &mut S, k: &mut K) -> Option<()> {
    infobox_vertices(s, k)?;
    time(s, k)?;
    time(s, k)?;
    copy(s, k, 8)?;
    let nw = int(s, k, 4)?;
    for _ in 0..nw.max(0) {
        copy(s, k, 20)?;
    }
    Some(())
}

/// The node grammar after the 34-byte header (2.0.6 layouts); whatever follows
/// the stubs stays in the other bytes.
fn walk<S: Source, K: Sink>(s: &mut S, k: &mut K) -> Option<()> {
    for _ in 0..2 {
        let n = int(s, k, 4)?;
        for _ in 0..n.max(0) {
            match int(s, k, 1)? {
                0 => primitive(s, k)?,
                1 => {
                    category_info(s, k)?;
                    let np = int(s, k, 2)?;
                    for _ in 0..np.max(0) {
                        primitive(s, k)?;
                    }
                }
                _ => return None,
            }
        }
    }
    let stubs = int(s, k, 4)?;
    for _ in 0..stubs.max(0) {
        time(s, k)?;
        time(s, k)?;
        copy(s, k, 2 + 4 + 8 + 4)?;
        for _ in 0..2 {
            let n = int(s, k, 4)?;
            for _ in 0..n.max(0) {
                shadow(s, k)?;
            }
        }
    }
    Some(())
}

/// Reading the plain node: both kinds of field from one cursor.
struct Plain<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Plain<'a> {
    /// The next `n` bytes (`None` past the end).
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let r = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(r)
    }
}

impl Source for Plain<'_> {
    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        self.take(n)
    }
    fn time(&mut self) -> Option<[u8; 8]> {
        Some(self.bytes(8)?.try_into().expect("8 bytes"))
    }
}

/// Writing the split form: the other bytes straight into the form (after
/// its 4-byte length), the times aside.
struct Split<'a> {
    other: &'a mut Vec<u8>,
    times: &'a mut Vec<u64>,
}

impl Sink for Split<'_> {
    fn bytes(&mut self, b: &[u8]) {
        self.other.extend_from_slice(b);
    }
    fn time(&mut self, t: [u8; 8]) {
        self.times.push(u64::from_be_bytes(t));
    }
}

/// Transforms the bytes of a node after its header. `None` when they do not follow
/// the node grammar (the caller then uses plain deflate).
#[cfg(test)]
pub fn split(rest: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    split_into(rest, &mut out, &mut Vec::new())?;
    Some(out)
}

/// [`split`] into `out` (cleared first), with `times` as scratch: both are
/// reused from node to node. `None` (and `out` unspecified) as for `split`.
pub(crate) fn split_into(rest: &[u8], out: &mut Vec<u8>, times: &mut Vec<u64>) -> Option<()> {
    out.clear();
    times.clear();
    out.reserve(rest.len() + 4);
    out.extend_from_slice(&[0; 4]);
    let mut src = Plain { b: rest, at: 0 };
    walk(
        &mut src,
        &mut Split {
            other: &mut *out,
            times: &mut *times,
        },
    )?;
    out.extend_from_slice(&rest[src.at..]);
    let other_len = u32::try_from(out.len() - 4).ok()?;
    out[..4].copy_from_slice(&other_len.to_be_bytes());
    // The times XORed with the previous one, as 8 byte planes.
    let n = times.len();
    let base = out.len();
    out.resize(base + 8 * n, 0);
    let planes = &mut out[base..];
    let mut prev = 0u64;
    for (i, &t) in times.iter().enumerate() {
        let d = (t ^ prev).to_be_bytes();
        prev = t;
        for (p, &byte) in d.iter().enumerate() {
            planes[p * n + i] = byte;
        }
    }
    Some(())
}

/// Reading the split form.
struct Joined<'a> {
    /// The other bytes.
    other: Plain<'a>,
    times: Vec<u64>,
    next: usize,
}

impl Source for Joined<'_> {
    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        self.other.take(n)
    }
    fn time(&mut self) -> Option<[u8; 8]> {
        let t = *self.times.get(self.next)?;
        self.next += 1;
        Some(t.to_be_bytes())
    }
}

/// Writing the plain node.
struct Out<'a>(&'a mut Vec<u8>);

impl Sink for Out<'_> {
    fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    fn time(&mut self, t: [u8; 8]) {
        self.0.extend_from_slice(&t);
    }
}

/// Undoes [`split`], appending the plain bytes to `out`. Errors say what does not fit.
pub fn join(form: &[u8], out: &mut Vec<u8>) -> Result<(), ColumnProblem> {
    let Some(len) = form.get(..4) else {
        return Err(ColumnProblem::Short);
    };
    let other_len = u32::from_be_bytes(len.try_into().expect("4 bytes")) as usize;
    let body = &form[4..];
    if other_len > body.len() || (body.len() - other_len) % 8 != 0 {
        return Err(ColumnProblem::Length {
            len: other_len as u32,
            body: body.len() as u64,
        });
    }
    let (other, planes) = body.split_at(other_len);
    let n = planes.len() / 8;
    let mut prev = 0u64;
    let times = (0..n)
        .map(|i| {
            let mut b = [0u8; 8];
            for (p, byte) in b.iter_mut().enumerate() {
                *byte = planes[p * n + i];
            }
            prev ^= u64::from_be_bytes(b);
            prev
        })
        .collect();
    let mut src = Joined {
        other: Plain { b: other, at: 0 },
        times,
        next: 0,
    };
    walk(&mut src, &mut Out(out)).ok_or(ColumnProblem::EndsInsideNode)?;
    if src.next != n {
        return Err(ColumnProblem::LeftOver {
            left: (n - src.next) as u64,
            times: n as u64,
        });
    }
    out.extend_from_slice(&other[src.other.at..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_free_bytes_are_refused_and_trailing_bytes_kept() {
        assert!(split(&[0, 0]).is_none());
        // Empty lists and no stubs, then 3 trailing bytes.
        let rest = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 8, 9];
        let form = split(&rest).unwrap();
        let mut back = Vec::new();
        join(&form, &mut back).unwrap();
        assert_eq!(back, rest);
    }

    #[test]
    fn reused_buffers_give_the_same_form() {
        // One primitive (tag 0, category 7, no info, 2 vertices), no shadows or stubs.
        let mut rest = vec![0, 0, 0, 1, 0, 0, 0, 0, 7, 0, 0, 0, 2];
        for (t, line) in [(1.5f64, 3i32), (2.25, 4)] {
            rest.extend_from_slice(&t.to_be_bytes());
            rest.extend_from_slice(&line.to_be_bytes());
        }
        rest.extend_from_slice(&[0; 8]);
        let fresh = split(&rest).unwrap();
        assert_eq!(fresh.len(), rest.len() + 4);
        let (mut out, mut times) = (vec![9u8; 100], vec![5u64; 3]);
        split_into(&rest, &mut out, &mut times).unwrap();
        assert_eq!(out, fresh);
        let mut back = Vec::new();
        join(&out, &mut back).unwrap();
        assert_eq!(back, rest);
    }

    #[test]
    fn bad_forms_are_errors() {
        let mut out = Vec::new();
        assert_eq!(join(&[], &mut out), Err(ColumnProblem::Short));
        let long = ColumnProblem::Length { len: 9, body: 1 };
        assert_eq!(join(&[0, 0, 0, 9, 1], &mut out), Err(long));
        // One list count claiming a primitive that is not there.
        let inside = ColumnProblem::EndsInsideNode;
        assert_eq!(join(&[0, 0, 0, 4, 0, 0, 0, 1], &mut out), Err(inside));
    }
}
