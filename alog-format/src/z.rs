//! A reader for Unix `compress` (`.Z`) files, in which MPICH-1 shipped its
//! largest ALOG sample (`gmmlog_profile.log.Z`).
//!
//! Format: magic `1f 9d`, a flags byte (bits 0–4: largest code width, 9 to 16;
//! bit 7: block mode, in which code 256 clears the table), then LZW codes packed
//! least significant bit first, starting 9 bits wide. Codes come in groups of
//! eight (a group is `width` bytes); when the width grows or the table is
//! cleared, the rest of the current group is skipped, as `compress` does.

/// Why a `.Z` stream cannot be unpacked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ZError {
    /// The input does not start with `1f 9d`.
    #[error("not a Unix compress (.Z) stream: no 1f 9d magic")]
    NotCompress,
    /// The stream ends after the magic, before its flags byte.
    #[error("byte 2: the stream ends before its flags byte")]
    NoFlags,
    /// The flags byte asks for a code width outside 9..16.
    #[error("byte 2: largest code width {0} is not 9 to 16")]
    BadWidth(u8),
    /// A code refers to a table entry not yet made.
    #[error("byte {offset}: code {code} is beyond the next free table entry {next}")]
    BadCode {
        /// Byte offset of the code.
        offset: u64,
        /// The code.
        code: u32,
        /// The next free entry.
        next: u32,
    },
    /// The output would exceed the caller's limit.
    #[error(
        "the unpacked data exceeds the limit of {limit} bytes (at byte {offset} of the .Z stream)"
    )]
    TooLarge {
        /// The caller's limit.
        limit: usize,
        /// Byte offset (in the `.Z` stream) of the code whose output passes the
        /// limit.
        offset: u64,
    },
}

impl ZError {
    /// The byte offset in the `.Z` stream the error concerns: 0 for a missing
    /// magic, 2 (the flags byte, or where it is missing) for a missing flags
    /// byte or a bad width, the first byte of the offending code otherwise.
    ///
    /// ```
    /// use alog_format::z::{decompress, ZError};
    /// assert_eq!(decompress(b"plain text", 1 << 20).unwrap_err().offset(), 0); // no magic
    /// assert_eq!(decompress(&[0x1f, 0x9d], 1 << 20).unwrap_err(), ZError::NoFlags);
    /// assert_eq!(ZError::NoFlags.offset(), 2);
    /// ```
    pub fn offset(&self) -> u64 {
        match self {
            ZError::NotCompress => 0,
            ZError::NoFlags | ZError::BadWidth(_) => 2,
            ZError::BadCode { offset, .. } | ZError::TooLarge { offset, .. } => *offset,
        }
    }
}

/// Whether `data` starts with the `.Z` magic.
///
/// ```
/// use alog_format::z::is_compress;
/// assert!(is_compress(&[0x1f, 0x9d, 0x90]));
/// assert!(!is_compress(b"-1 0 0 0 0 0\n"));
/// ```
pub fn is_compress(data: &[u8]) -> bool {
    data.starts_with(&[0x1f, 0x9d])
}

/// The text of an ALOG file that may be packed: `data` unpacked ([`decompress`],
/// at most `limit` bytes) when it starts with the `.Z` magic, else `data` itself.
///
/// # Errors
///
/// As [`decompress`], for data with the magic.
///
/// ```
/// use alog_format::z::unpack;
/// // `compress` of "a" (see `decompress`), and a plain line.
/// assert_eq!(&*unpack(&[0x1f, 0x9d, 0x90, 0x61, 0x00], 1024)?, b"a");
/// assert_eq!(&*unpack(b"-3 0 0 2 0 0", 0)?, b"-3 0 0 2 0 0");
/// # Ok::<(), alog_format::z::ZError>(())
/// ```
pub fn unpack(data: &[u8], limit: usize) -> Result<std::borrow::Cow<'_, [u8]>, ZError> {
    Ok(if is_compress(data) {
        std::borrow::Cow::Owned(decompress(data, limit)?)
    } else {
        std::borrow::Cow::Borrowed(data)
    })
}

/// Unpacks a `.Z` stream, giving up when the output would exceed `limit` bytes.
///
/// # Errors
///
/// [`ZError::NotCompress`] without the magic, [`ZError::NoFlags`] without the flags
/// byte, [`ZError::BadWidth`] for a width outside 9..16, [`ZError::BadCode`] at the
/// offset of a code that names no entry yet, [`ZError::TooLarge`] at the offset of
/// the code whose output would pass `limit`.
///
/// ```
/// use alog_format::z::{decompress, ZError};
/// // `compress` of "a": the magic, block mode with 16-bit codes at most, one
/// // 9-bit code.
/// let z = [0x1f, 0x9d, 0x90, 0x61, 0x00];
/// assert_eq!(decompress(&z, 1024)?, b"a");
/// assert!(matches!(decompress(&z, 0), Err(ZError::TooLarge { .. })));
/// assert!(matches!(decompress(b"-3 0 0 2 0 0", 1024), Err(ZError::NotCompress)));
/// # Ok::<(), ZError>(())
/// ```
pub fn decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, ZError> {
    if !is_compress(data) {
        return Err(ZError::NotCompress);
    }
    if data.len() < 3 {
        return Err(ZError::NoFlags);
    }
    let flags = data[2];
    let max_bits = (flags & 0x1f) as u32;
    if !(9..=16).contains(&max_bits) {
        return Err(ZError::BadWidth(flags & 0x1f));
    }
    let block_mode = flags & 0x80 != 0;
    let max_max_code = 1u32 << max_bits;
    let first = if block_mode { 257 } else { 256 };

    let mut prefix = vec![0u16; 1 << 16];

    let mut suffix = vec![0u8; 1 << 16];
    for (i, s) in suffix.iter_mut().enumerate().take(256) {
        *s = i as u8;
    }
    let total_bits = (data.len() as u64 - 3) * 8;
    let bits = &data[3..];
    let mut pos: u64 = 0; // bit position in `bits`
    let mut group_start: u64 = 0;
    let mut n_bits = 9u32;
    let mut max_code = (1u32 << n_bits) - 1;
    let mut free = first;
    let mut old: Option<u32> = None;
    let mut fin = 0u8;
    let mut out = Vec::new();
    let mut stack = Vec::new();

    let align = |pos: u64, group_start: u64, n_bits: u32| -> u64 {
        let g = u64::from(n_bits) * 8;
        let used = pos - group_start;
        group_start + used.div_ceil(g) * g
    };

    loop {
        if free > max_code && n_bits < max_bits {
            pos = align(pos, group_start, n_bits);
            group_start = pos;
            n_bits += 1;
            max_code = if n_bits == max_bits {
                max_max_code
            } else {
                (1 << n_bits) - 1
            };
        }
        if pos + u64::from(n_bits) > total_bits {
            break;
        }
        // Read n_bits bits LSB first.
        let byte = (pos / 8) as usize;
        let shift = (pos % 8) as u32;
        let mut word = 0u32;
        for k in 0..3 {
            if let Some(&b) = bits.get(byte + k) {
                word |= u32::from(b) << (8 * k);
            }
        }
        let code = (word >> shift) & ((1 << n_bits) - 1);
        let offset = 3 + byte as u64;
        pos += u64::from(n_bits);

        let Some(prev) = old else {
            if code > 255 {
                return Err(ZError::BadCode {
                    offset,
                    code,
                    next: free,
                });
            }
            if limit == 0 {
                return Err(ZError::TooLarge { limit, offset });
            }
            fin = code as u8;
            old = Some(code);
            out.push(fin);
            continue;
        };
        if code == 256 && block_mode {
            // Entries from 257 on are rewritten before any code can refer to
            // them, so the table needs no clearing.
            free = first - 1;
            pos = align(pos, group_start, n_bits);
            group_start = pos;
            n_bits = 9;
            max_code = (1 << n_bits) - 1;
            continue;
        }
        let incode = code;
        let mut c = code;
        stack.clear();
        if c >= free {
            if c > free {
                return Err(ZError::BadCode {
                    offset,
                    code,
                    next: free,
                });
            }
            stack.push(fin);
            c = prev;
        }
        while c >= 256 {
            stack.push(suffix[c as usize]);
            c = u32::from(prefix[c as usize]);
        }
        fin = suffix[c as usize];
        stack.push(fin);
        if out.len() + stack.len() > limit {
            return Err(ZError::TooLarge { limit, offset });
        }
        out.extend(stack.iter().rev());
        if free < max_max_code {
            prefix[free as usize] = prev as u16;
            suffix[free as usize] = fin;
            free += 1;
        }
        old = Some(incode);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_what_is_not_compress() {
        assert_eq!(decompress(b"", 10), Err(ZError::NotCompress));
        assert_eq!(decompress(b"\x1f\x8b\x08", 10), Err(ZError::NotCompress));
        assert_eq!(decompress(b"\x1f\x9d\x88", 10), Err(ZError::BadWidth(8)));
        assert_eq!(decompress(b"\x1f\x9d", 10), Err(ZError::NoFlags));
        assert_eq!(decompress(b"\x1f\x9d\x90", 10), Ok(Vec::new()));
    }

    #[test]
    fn unpacks_a_small_stream() {
        // "abababab\n" in block mode, 16 bits: codes 97 98 257 259 98 10 (259 is
        // the entry being made: the KwKwK case).
        let z = [0x1f, 0x9d, 0x90, 0x61, 0xc4, 0x04, 0x1c, 0x28, 0x46, 0x01];
        let out = decompress(&z, 100).unwrap();
        assert_eq!(out, b"abababab\n");
        let e = decompress(&z, 5).unwrap_err();
        assert_eq!(
            e,
            ZError::TooLarge {
                limit: 5,
                offset: 6
            }
        );
        assert_eq!(e.offset(), 6);
        assert_eq!(decompress(&z, 0).unwrap_err().offset(), 3);
    }
}
