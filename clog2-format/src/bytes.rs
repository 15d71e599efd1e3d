//! Fixed-width byte fields: C `char[N]` strings, opaque payloads and pad fields.
//!
//! They are read and written with a single copy (binrw's generic array support reads
//! element by element) and never byte-swapped.

use binrw::{BinRead, BinResult, BinWrite, Endian};
use std::fmt;
use std::io::{Read, Seek, Write};

/// `N` raw bytes stored exactly as they are on disk.
///
/// Used for C strings (NUL-terminated and NUL-padded by MPE, but possibly holding stale
/// bytes after the NUL), cargo payloads and pad fields, which hold stale bytes too.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FixedBytes<const N: usize>(pub [u8; N]);

impl<const N: usize> FixedBytes<N> {
    /// All zero bytes.
    pub const ZERO: Self = FixedBytes([0; N]);

    /// A C string field holding `s`: at most `N-1` bytes of it, then NUL padding.
    ///
    /// ```
    /// use clog2_format::FixedBytes;
    /// let f = FixedBytes::<4>::from_str_truncated("abcdef");
    /// assert_eq!(f.0, *b"abc\0"); // at most N-1 bytes, then NUL
    /// assert_eq!(FixedBytes::<6>::from_str_truncated("ab").0, *b"ab\0\0\0\0");
    /// ```
    pub fn from_str_truncated(s: &str) -> Self {
        let mut out = [0u8; N];
        let n = s.len().min(N.saturating_sub(1));
        out[..n].copy_from_slice(&s.as_bytes()[..n]);
        FixedBytes(out)
    }

    /// The bytes before the first NUL (the whole field if there is none).
    ///
    /// ```
    /// use clog2_format::FixedBytes;
    /// assert_eq!(FixedBytes(*b"ab\0cd").c_bytes(), b"ab"); // stale bytes after the NUL left out
    /// assert_eq!(FixedBytes(*b"abcd").c_bytes(), b"abcd");
    /// ```
    pub fn c_bytes(&self) -> &[u8] {
        c_bytes(&self.0)
    }

    /// The C string, decoded lossily as UTF-8.
    ///
    /// ```
    /// use clog2_format::FixedBytes;
    /// assert_eq!(FixedBytes(*b"MPI_Send\0\0").to_string_lossy(), "MPI_Send");
    /// assert_eq!(FixedBytes(*b"a\xffb\0").to_string_lossy(), "a\u{fffd}b");
    /// ```
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(self.c_bytes()).into_owned()
    }

    /// Whether every byte is zero.
    ///
    /// ```
    /// use clog2_format::FixedBytes;
    /// assert!(FixedBytes::<8>::ZERO.is_zero());
    /// assert!(!FixedBytes(*b"\0\0x").is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&b| b == 0)
    }
}

/// The bytes of `b` before its first NUL (all of `b` if it holds none).
///
/// ```
/// assert_eq!(clog2_format::bytes::c_bytes(b"red\0green"), b"red");
/// assert_eq!(clog2_format::bytes::c_bytes(b""), b"");
/// ```
pub fn c_bytes(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == 0) {
        Some(n) => &b[..n],
        None => b,
    }
}

impl<const N: usize> Default for FixedBytes<N> {
    fn default() -> Self {
        Self::ZERO
    }
}

impl<const N: usize> fmt::Debug for FixedBytes<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

impl<const N: usize> BinRead for FixedBytes<N> {
    type Args<'a> = ();

    fn read_options<R: Read + Seek>(reader: &mut R, _: Endian, _: ()) -> BinResult<Self> {
        let mut out = [0u8; N];
        reader.read_exact(&mut out)?;
        Ok(FixedBytes(out))
    }
}

impl<const N: usize> BinWrite for FixedBytes<N> {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(&self, writer: &mut W, _: Endian, _: ()) -> BinResult<()> {
        writer.write_all(&self.0)?;
        Ok(())
    }
}
