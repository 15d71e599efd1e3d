//! OTF2's elementary encodings over a byte slice: fixed-width integers in the
//! chunk's byte order, the compressed integers (a length byte, then that many
//! low-order bytes), NUL-terminated strings. See spec/otf2.md §2.

use crate::error::{Error, Problem, Result};
use std::path::Path;

/// Byte order of a chunk (its header's second byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    /// `0x42`.
    Little,
    /// `0x23`.
    Big,
}

impl Endian {
    /// The endianness byte's meaning, or `None` for any other byte.
    pub fn from_byte(b: u8) -> Option<Endian> {
        match b {
            0x42 => Some(Endian::Little),
            0x23 => Some(Endian::Big),
            _ => None,
        }
    }

    fn uint(self, bytes: &[u8]) -> u64 {
        match self {
            Endian::Little => bytes
                .iter()
                .rev()
                .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)),
            Endian::Big => bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)),
        }
    }
}

/// A reading position in `buf`, whose first byte is at `base` in `file`.
pub(crate) struct Cur<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
    pub base: u64,
    pub endian: Endian,
    pub file: &'a Path,
}

impl<'a> Cur<'a> {
    pub fn new(buf: &'a [u8], base: u64, endian: Endian, file: &'a Path) -> Cur<'a> {
        Cur {
            buf,
            pos: 0,
            base,
            endian,
            file,
        }
    }

    /// File offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(Error::truncated(self.file, self.offset(), what));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        let b = self.take(2, what)?;
        Ok(self.endian.uint(b) as u16)
    }

    pub fn u32_full(&mut self, what: &'static str) -> Result<u32> {
        let b = self.take(4, what)?;
        Ok(self.endian.uint(b) as u32)
    }

    pub fn u64_full(&mut self, what: &'static str) -> Result<u64> {
        let b = self.take(8, what)?;
        Ok(self.endian.uint(b))
    }

    /// A compressed unsigned integer of at most `max` payload bytes (4 or 8):
    /// `0x00` is 0, `0xFF` the all-ones value, 1..=max the number of bytes.
    fn compressed(&mut self, max: u8, what: &'static str) -> Result<u64> {
        let at = self.offset();
        let n = self.u8(what)?;
        match n {
            0 => Ok(0),
            0xff => Ok(if max == 4 {
                u64::from(u32::MAX)
            } else {
                u64::MAX
            }),
            n if n <= max => {
                let b = self.take(usize::from(n), what)?;
                Ok(self.endian.uint(b))
            }
            byte => Err(Error::invalid(
                self.file,
                at,
                Problem::CompressedLength { what, byte, max },
            )),
        }
    }

    pub fn u32c(&mut self, what: &'static str) -> Result<u32> {
        Ok(self.compressed(4, what)? as u32)
    }

    pub fn u64c(&mut self, what: &'static str) -> Result<u64> {
        self.compressed(8, what)
    }

    pub fn i32c(&mut self, what: &'static str) -> Result<i32> {
        Ok(self.u32c(what)? as i32)
    }

    pub fn i64c(&mut self, what: &'static str) -> Result<i64> {
        Ok(self.u64c(what)? as i64)
    }

    /// A NUL-terminated string (decoded lossily as UTF-8).
    pub fn string(&mut self, what: &'static str) -> Result<String> {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                let s = String::from_utf8_lossy(&rest[..n]).into_owned();
                self.pos += n + 1;
                Ok(s)
            }
            None => Err(Error::truncated(self.file, self.offset(), what)),
        }
    }

    /// Optional trailing fields: a record written by an older libotf2 ends
    /// before them, and readers take the default.
    pub fn opt_u32c(&mut self, default: u32, what: &'static str) -> Result<u32> {
        if self.at_end() {
            Ok(default)
        } else {
            self.u32c(what)
        }
    }

    pub fn opt_u8(&mut self, default: u8, what: &'static str) -> Result<u8> {
        if self.at_end() {
            Ok(default)
        } else {
            self.u8(what)
        }
    }

    pub fn opt_u64c(&mut self, default: u64, what: &'static str) -> Result<u64> {
        if self.at_end() {
            Ok(default)
        } else {
            self.u64c(what)
        }
    }
}

/// The payload length of a compressed value whose length byte is `n`
/// (`0x00` and `0xFF` stand alone).
pub(crate) fn compressed_payload(n: u8) -> usize {
    if n == 0 || n == 0xff {
        0
    } else {
        usize::from(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cur(b: &[u8], e: Endian) -> Cur<'_> {
        Cur::new(b, 100, e, Path::new("x"))
    }

    #[test]
    fn compressed_integers_both_orders() {
        assert_eq!(cur(&[0], Endian::Little).u32c("v").unwrap(), 0);
        assert_eq!(cur(&[0xff], Endian::Little).u32c("v").unwrap(), u32::MAX);
        assert_eq!(cur(&[0xff], Endian::Little).u64c("v").unwrap(), u64::MAX);
        assert_eq!(cur(&[2, 0xe8, 3], Endian::Little).u64c("v").unwrap(), 1000);
        assert_eq!(cur(&[2, 3, 0xe8], Endian::Big).u64c("v").unwrap(), 1000);
        assert_eq!(
            cur(
                &[8, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
                Endian::Little
            )
            .i64c("v")
            .unwrap(),
            -5
        );
        let e = cur(&[5, 1, 2, 3, 4, 5], Endian::Little)
            .u32c("v")
            .unwrap_err();
        assert_eq!(e.offset(), 100);
        let e = cur(&[3, 1], Endian::Little).u32c("v").unwrap_err();
        assert!(matches!(e, Error::Truncated { offset: 101, .. }));
    }

    #[test]
    fn strings() {
        let mut c = cur(b"ab\0c", Endian::Little);
        assert_eq!(c.string("s").unwrap(), "ab");
        assert!(c.string("s").is_err());
    }
}
