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
    pub fn info(&self) -> &[u8] {
        &self.info[..self.info_len as usize]
    }

    /// Whether every vertex time is finite (neither NaN nor infinite);
    /// [`Prim::earliest`] and [`Prim::latest`] skip a NaN.
    pub fn times_finite(&self) -> bool {
        self.times[..(self.nv as usize).min(2)]
            .iter()
            .all(|t| t.is_finite())
    }

    /// Earliest vertex time (the start of the time box).
    pub fn earliest(&self) -> f64 {
        if self.nv == 2 {
            self.times[0].min(self.times[1])
        } else {
            self.times[0]
        }
    }

    /// Latest vertex time (the end of the time box).
    pub fn latest(&self) -> f64 {
        if self.nv == 2 {
            self.times[0].max(self.times[1])
        } else {
            self.times[0]
        }
    }

    /// Start and final line IDs (equal for a one-vertex primitive).
    pub fn end_lines(&self) -> (i32, i32) {
        (self.lines[0], self.lines[self.nv as usize - 1])
    }

    /// The key of Java's `INCRE_STARTTIME_ORDER` (see [`crate::size::start_order`]).
    pub fn order_key(&self) -> (f64, f64, i32, (i32, i32)) {
        (
            self.earliest(),
            self.latest(),
            self.category,
            self.end_lines(),
        )
    }

    /// Bytes on disk without the tag byte: `4 + 2 + infolen + 2 + 12·nv`.
    pub fn disk_len(&self) -> usize {
        8 + self.info_len as usize + 12 * self.nv as usize
    }

    /// Appends the primitive (without tag) in SLOG-2 byte order.
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
