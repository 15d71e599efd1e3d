//! A compact, allocation-free primitive (state, arrow or event) as the converter
//! makes them: at most two vertices and at most 32 info bytes (a CLOG2 cargo).

use crate::types::{topology, Coord, JStr, Primitive};

/// Largest info buffer a converted primitive carries (the CLOG2 cargo size).
pub const MAX_INFO: usize = 32;

/// A primitive drawable: category, topology, one or two vertices, short info.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prim {
    /// Category index.
    pub category: i32,
    /// Topology of the category (`topology::EVENT`, `STATE` or `ARROW`).
    pub topology: i32,
    /// Number of vertices used (1 for events, 2 otherwise).
    pub nv: u8,
    /// Vertex times.
    pub times: [f64; 2],
    /// Vertex line IDs.
    pub lines: [i32; 2],
    /// Bytes of `info` in use.
    pub info_len: u8,
    /// Info bytes (big-endian values as the producer wrote them).
    pub info: [u8; MAX_INFO],
}

impl Prim {
    /// An event at `time` on `line`.
    ///
    /// ```
    /// use slog2_format::{types::topology, write::Prim};
    /// let e = Prim::event(3, 1.5, 2, b"x");
    /// assert_eq!((e.topology, e.nv, e.earliest(), e.end_lines()), (topology::EVENT, 1, 1.5, (2, 2)));
    /// ```
    pub fn event(category: i32, time: f64, line: i32, info: &[u8]) -> Prim {
        Prim::new(
            category,
            topology::EVENT,
            1,
            [time, time],
            [line, line],
            info,
        )
    }

    /// A two-vertex primitive (state or arrow).
    ///
    /// ```
    /// use slog2_format::{types::topology, write::Prim};
    /// let arrow = Prim::two(0, topology::ARROW, (1.0, 0), (1.5, 3), &[]);
    /// assert_eq!((arrow.nv, arrow.end_lines()), (2, (0, 3)));
    /// ```
    pub fn two(category: i32, topo: i32, from: (f64, i32), to: (f64, i32), info: &[u8]) -> Prim {
        Prim::new(category, topo, 2, [from.0, to.0], [from.1, to.1], info)
    }

    fn new(
        category: i32,
        topo: i32,
        nv: u8,
        times: [f64; 2],
        lines: [i32; 2],
        info: &[u8],
    ) -> Prim {
        let n = info.len().min(MAX_INFO);
        let mut buf = [0u8; MAX_INFO];
        buf[..n].copy_from_slice(&info[..n]);
        Prim {
            category,
            topology: topo,
            nv,
            times,
            lines,
            info_len: n as u8,
            info: buf,
        }
    }

    /// The info bytes.
    ///
    /// ```
    /// use slog2_format::write::{prim::MAX_INFO, Prim};
    /// assert_eq!(Prim::event(1, 0.0, 0, b"abc").info(), b"abc");
    /// assert_eq!(Prim::event(1, 0.0, 0, &[7; 40]).info().len(), MAX_INFO); // cut to 32 bytes
    /// ```
    pub fn info(&self) -> &[u8] {
        &self.info[..self.info_len as usize]
    }

    /// Whether every vertex time is finite (neither NaN nor infinite);
    /// [`Prim::earliest`] and [`Prim::latest`] skip a NaN.
    ///
    /// ```
    /// use slog2_format::write::Prim;
    /// assert!(Prim::event(1, 0.5, 0, &[]).times_finite());
    /// assert!(!Prim::event(1, f64::NAN, 0, &[]).times_finite());
    /// ```
    pub fn times_finite(&self) -> bool {
        self.times[..(self.nv as usize).min(2)]
            .iter()
            .all(|t| t.is_finite())
    }

    /// Earliest vertex time (the start of the time box).
    ///
    /// ```
    /// use slog2_format::{types::topology, write::Prim};
    /// // An arrow drawn backwards in time (clocks out of step) still has a box.
    /// let arrow = Prim::two(0, topology::ARROW, (2.0, 0), (1.0, 1), &[]);
    /// assert_eq!(arrow.earliest(), 1.0);
    /// ```
    pub fn earliest(&self) -> f64 {
        if self.nv == 2 {
            self.times[0].min(self.times[1])
        } else {
            self.times[0]
        }
    }

    /// Latest vertex time (the end of the time box).
    ///
    /// ```
    /// use slog2_format::{types::topology, write::Prim};
    /// let arrow = Prim::two(0, topology::ARROW, (2.0, 0), (1.0, 1), &[]);
    /// assert_eq!(arrow.latest(), 2.0);
    /// ```
    pub fn latest(&self) -> f64 {
        if self.nv == 2 {
            self.times[0].max(self.times[1])
        } else {
            self.times[0]
        }
    }

    /// Start and final line IDs (equal for a one-vertex primitive).
    ///
    /// ```
    /// use slog2_format::{types::topology, write::Prim};
    /// assert_eq!(Prim::two(0, topology::ARROW, (1.0, 4), (2.0, 1), &[]).end_lines(), (4, 1));
    /// ```
    pub fn end_lines(&self) -> (i32, i32) {
        (self.lines[0], self.lines[self.nv as usize - 1])
    }

    /// The key of Java's `INCRE_STARTTIME_ORDER` (see [`crate::size::start_order`]).
    ///
    /// ```
    /// use slog2_format::{types::topology, write::Prim};
    /// let s = Prim::two(5, topology::STATE, (1.0, 2), (3.0, 2), &[]);
    /// assert_eq!(s.order_key(), (1.0, 3.0, 5, (2, 2)));
    /// ```
    pub fn order_key(&self) -> (f64, f64, i32, (i32, i32)) {
        (
            self.earliest(),
            self.latest(),
            self.category,
            self.end_lines(),
        )
    }

    /// Bytes on disk without the tag byte: `4 + 2 + infolen + 2 + 12·nv`.
    ///
    /// ```
    /// use slog2_format::{types::topology, write::Prim};
    /// assert_eq!(Prim::event(1, 0.0, 0, b"ab").disk_len(), 8 + 2 + 12);
    /// assert_eq!(Prim::two(1, topology::STATE, (0.0, 0), (1.0, 0), &[]).disk_len(), 8 + 24);
    /// ```
    pub fn disk_len(&self) -> usize {
        8 + self.info_len as usize + 12 * self.nv as usize
    }

    /// Appends the primitive (without tag) in SLOG-2 byte order.
    ///
    /// ```
    /// use slog2_format::write::Prim;
    /// let mut out = Vec::new();
    /// Prim::event(1, 0.5, 2, &[]).write(&mut out);
    /// assert_eq!(out.len(), Prim::event(1, 0.5, 2, &[]).disk_len());
    /// assert_eq!(out[..4], 1i32.to_be_bytes()); // big-endian, the category first
    /// ```
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.category.to_be_bytes());
        out.extend_from_slice(&(self.info_len as i16).to_be_bytes());
        out.extend_from_slice(self.info());
        out.extend_from_slice(&(self.nv as i16).to_be_bytes());
        for i in 0..self.nv as usize {
            out.extend_from_slice(&self.times[i].to_be_bytes());
            out.extend_from_slice(&self.lines[i].to_be_bytes());
        }
    }

    /// Appends a zero tag byte and the primitive in SLOG-2 byte order (what a
    /// node's drawable list holds), with one copy.
    ///
    /// ```
    /// use slog2_format::write::Prim;
    /// let p = Prim::event(1, 0.5, 2, b"hi");
    /// let (mut plain, mut tagged) = (Vec::new(), Vec::new());
    /// p.write(&mut plain);
    /// p.write_tagged(&mut tagged);
    /// assert_eq!(tagged[0], 0); // a primitive's tag
    /// assert_eq!(tagged[1..], plain[..]);
    /// ```
    #[inline]
    pub fn write_tagged(&self, out: &mut Vec<u8>) {
        // Tag 1 + category 4 + info length 2 + info ≤ 32 + vertex count 2 + 2 × 12.
        let mut b = [0u8; 1 + 8 + MAX_INFO + 24];
        let n = self.info_len as usize;
        b[1..5].copy_from_slice(&self.category.to_be_bytes());
        b[5..7].copy_from_slice(&(n as i16).to_be_bytes());
        b[7..7 + n].copy_from_slice(&self.info[..n]);
        let mut at = 7 + n;
        b[at..at + 2].copy_from_slice(&(self.nv as i16).to_be_bytes());
        at += 2;
        for i in 0..(self.nv as usize).min(2) {
            b[at..at + 8].copy_from_slice(&self.times[i].to_be_bytes());
            b[at + 8..at + 12].copy_from_slice(&self.lines[i].to_be_bytes());
            at += 12;
        }
        out.extend_from_slice(&b[..at]);
    }

    /// The general form used by the file codec.
    ///
    /// ```
    /// use slog2_format::{types::topology, write::Prim};
    /// let p = Prim::two(4, topology::STATE, (1.0, 0), (2.0, 0), b"ab").to_primitive();
    /// assert_eq!((p.category, p.info.text(), p.vertices.len()), (4, "ab".to_string(), 2));
    /// assert_eq!((p.earliest(), p.latest()), (1.0, 2.0));
    /// ```
    pub fn to_primitive(&self) -> Primitive {
        let info = self.info().to_vec();
        Primitive {
            category: self.category,
            info: JStr {
                len: info.len() as i16,
                bytes: info,
            },
            vertices: (0..self.nv as usize)
                .map(|i| Coord {
                    time: self.times[i],
                    line_id: self.lines[i],
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use binrw::BinRead;

    #[test]
    fn bytes_equal_the_binrw_layout() {
        let p = Prim::two(
            0,
            topology::ARROW,
            (2.0, 3),
            (1.5, 1),
            &[0, 0, 0, 7, 0, 0, 0, 9],
        );
        let mut out = Vec::new();
        p.write(&mut out);
        assert_eq!(out.len(), p.disk_len());
        assert_eq!(out.len(), 41 - 1);
        let back = Primitive::read(&mut std::io::Cursor::new(&out)).unwrap();
        assert_eq!(back, p.to_primitive());
        assert_eq!(p.earliest(), 1.5);
        assert_eq!(p.latest(), 2.0);
        assert_eq!(p.end_lines(), (3, 1));
    }
}
