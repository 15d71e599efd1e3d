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
    pub fn from_str_truncated(s: &str) -> Self {
        let mut out = [0u8; N];
        let n = s.len().min(N.saturating_sub(1));
        out[..n].copy_from_slice(&s.as_bytes()[..n]);
        FixedBytes(out)
    }

    /// The bytes before the first NUL (the whole field if there is none).
    pub fn c_bytes(&self) -> &[u8] {
        c_bytes(&self.0)
    }

    /// The C string, decoded lossily as UTF-8.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(self.c_bytes()).into_owned()
    }

    /// Whether every byte is zero.
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&b| b == 0)
    }
}

/// The bytes of `b` before its first NUL (all of `b` if it holds none).
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
