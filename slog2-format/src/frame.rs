//! Compressed tree-node frames, our SLOG-2 extension `SLOG 2.0.6Z`
//! (spec/slog2-compressed.md).
//!
//! A frame is a 16-byte frame header, the node's 34-byte header as plain bytes
//! (so a node's box, ID and own pointer read without inflating), then the rest of
//! the node block compressed:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 1 | codec: 0 stored, 1 deflate (raw RFC 1951), 2 columns (deflate of the column form), 3–255 reserved |
//! | 1 | 3 | reserved, zero |
//! | 4 | 4 | u32 payload length (bytes after the node header) |
//! | 8 | 4 | u32 uncompressed length of the whole node block (header included) |
//! | 12 | 4 | u32 CRC-32 (ISO-HDLC) of the uncompressed node block |
//! | 16 | 34 | node header, its own pointer = this frame's (offset, size) |
//! | 50 | payload | the node block after its header, compressed by the codec |

use crate::error::{Error, FrameProblem, Oversized, Result, WriteProblem};
use crate::types::{FileBlockPtr, NodeId};
use flate2::Crc;
use std::io::Read;

/// The version string of files whose tree nodes are framed.
pub const VERSION: &str = crate::version::Version::V206Z.as_str();
pub use crate::types::{FRAME_HEADER_LEN, NODE_HEADER_LEN, PREFIX_LEN};

/// Codec IDs.
pub mod codec {
    /// The payload is the node's bytes as they are.
    pub const STORED: u8 = 0;
    /// The payload is a raw deflate stream (RFC 1951).
    pub const DEFLATE: u8 = 1;
    /// The payload is a raw deflate stream of the node's column form: times
    /// apart, XOR-delta'd, in byte planes (spec/slog2-compressed.md §4).
    pub const COLUMNS: u8 = 2;

    /// A codec's name, or `None` for a reserved ID.
    ///
    /// ```
    /// use slog2_format::frame::codec;
    /// assert_eq!(codec::name(codec::DEFLATE), Some("deflate"));
    /// assert_eq!(codec::name(200), None); // reserved
    /// ```
    pub fn name(id: u8) -> Option<&'static str> {
        match id {
            STORED => Some("stored"),
            DEFLATE => Some("deflate"),
            COLUMNS => Some("columns"),
            _ => None,
        }
    }
}

/// How a writer stores tree nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Plain `SLOG 2.0.6` nodes (what Jumpshot-4 opens).
    #[default]
    None,
    /// Framed nodes, payload stored.
    Stored,
    /// Framed nodes, payload deflated at this level (0–9).
    Deflate(u32),
    /// Framed nodes, the column form deflated at this level (0–9); nodes that
    /// do not follow the node grammar fall back to plain deflate.
    Columns(u32),
}

/// The compression's name as [`Compression::parse`] takes it back: `none`,
/// `stored`, `deflate:LEVEL` (the column form) or `raw-deflate:LEVEL`.
///
/// ```
/// use slog2_format::frame::Compression;
/// for c in [Compression::None, Compression::Stored, Compression::Deflate(9), Compression::Columns(2)] {
///     assert_eq!(Compression::parse(&c.to_string()), Ok(c));
/// }
/// assert_eq!(Compression::parse("deflate").unwrap().to_string(), "deflate:2");
/// ```
impl std::fmt::Display for Compression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Compression::None => f.write_str("none"),
            Compression::Stored => f.write_str("stored"),
            Compression::Deflate(l) => write!(f, "raw-deflate:{l}"),
            Compression::Columns(l) => write!(f, "deflate:{l}"),
        }
    }
}

impl Compression {
    /// Parses `none`, `stored`, `deflate[:LEVEL]` (the column form where the node
    /// follows the grammar, else plain deflate; level 2 by default: on generated
    /// traces about twice as fast as level 4 for files 4% larger) or
    /// `raw-deflate[:LEVEL]` (plain deflate only; level 1 by default). LEVEL is 0–9.
    ///
    /// # Errors
    ///
    /// The text of `s` in a message, when it is none of these forms or its level is
    /// not 0–9.
    ///
    /// ```
    /// use slog2_format::frame::Compression;
    /// assert_eq!(Compression::parse("deflate"), Ok(Compression::Columns(2)));
    /// assert_eq!(Compression::parse("raw-deflate:9"), Ok(Compression::Deflate(9)));
    /// assert_eq!(Compression::parse("stored"), Ok(Compression::Stored));
    /// assert!(Compression::parse("deflate:10").is_err());
    /// ```
    pub fn parse(s: &str) -> std::result::Result<Compression, String> {
        let level = |l: &str| match l.parse::<u32>() {
            Ok(l) if l <= 9 => Some(l),
            _ => None,
        };
        let parsed = match s.split_once(':') {
            None => match s {
                "none" => Some(Compression::None),
                "stored" => Some(Compression::Stored),
                "deflate" => Some(Compression::Columns(2)),
                "raw-deflate" => Some(Compression::Deflate(1)),
                _ => None,
            },
            Some(("deflate", l)) => level(l).map(Compression::Columns),
            Some(("raw-deflate", l)) => level(l).map(Compression::Deflate),
            Some(_) => None,
        };
        parsed.ok_or_else(|| {
            format!(
                "unknown compression {s:?}: use none, stored, deflate[:0..9] or raw-deflate[:0..9]"
            )
        })
    }

    /// Whether nodes are framed.
    ///
    /// ```
    /// use slog2_format::frame::Compression;
    /// assert!(!Compression::None.is_framed());
    /// assert!(Compression::Deflate(6).is_framed() && Compression::Stored.is_framed());
    /// ```
    pub fn is_framed(self) -> bool {
        self != Compression::None
    }
}

/// The CRC-32 of some bytes.
fn crc32(parts: &[&[u8]]) -> u32 {
    let mut c = Crc::new();
    for p in parts {
        c.update(p);
    }
    c.sum()
}

/// A deflate compressor kept across nodes (its state is reset, not allocated
/// anew, for each one). The stream of a node is the same as a fresh
/// compressor's.
#[derive(Debug, Default)]
pub(crate) struct Deflater {
    state: Option<(u32, flate2::Compress)>,
    /// The column form of the node being compressed, and its times.
    form: Vec<u8>,
    times: Vec<u64>,
}

impl Deflater {
    /// Appends the raw deflate stream of `data` at `level` (0–9) to `out`.
    fn deflate_into(&mut self, out: &mut Vec<u8>, data: &[u8], level: u32) -> Result<()> {
        let level = level.min(9);
        let c = match &mut self.state {
            Some((l, c)) if *l == level => {
                c.reset();
                c
            }
            slot => {
                let c = flate2::Compress::new(flate2::Compression::new(level), false);
                &mut slot.insert((level, c)).1
            }
        };
        let err = |e: flate2::CompressError| Error::Write(WriteProblem::Deflate(e));
        let start = c.total_in();
        loop {
            let done = (c.total_in() - start) as usize;
            // Deflate output is at most a little longer than its input.
            out.reserve((data.len() - done) + (data.len() - done) / 64 + 64);
            let status = c
                .compress_vec(&data[done..], out, flate2::FlushCompress::Finish)
                .map_err(err)?;
            if status == flate2::Status::StreamEnd {
                return Ok(());
            }
        }
    }
}

/// A node's payload compressed before the node has a file position: the frame
/// without its header (see [`seal`]).
#[derive(Debug)]
pub(crate) struct Compressed {
    /// Codec ID.
    codec: u8,
    /// The CRC-32 of the node after its header.
    rest_crc: Crc,
    /// The uncompressed node's length, header included.
    uncompressed: u32,
}

/// Compresses the node block `node` (34-byte header first) after its header,
/// appending [`PREFIX_LEN`] bytes (the frame and node headers, filled in by
/// [`seal`]) and then the payload to `out`. Nothing here depends on where the
/// node will be placed.
pub(crate) fn compress(
    node: &[u8],
    compression: Compression,
    deflater: &mut Deflater,
    out: &mut Vec<u8>,
) -> Result<Compressed> {
    if node.len() < NODE_HEADER_LEN {
        return Err(Error::Write(WriteProblem::NodeShorterThanHeader));
    }
    let uncompressed = u32::try_from(node.len())
        .map_err(|_| Error::Write(WriteProblem::TooLarge(Oversized::NodeBlockForFrame)))?;
    let rest = &node[NODE_HEADER_LEN..];
    out.resize(out.len() + PREFIX_LEN, 0);
    let codec = match compression {
        Compression::None | Compression::Stored => {
            out.extend_from_slice(rest);
            codec::STORED
        }
        Compression::Deflate(level) => {
            deflater.deflate_into(out, rest, level)?;
            codec::DEFLATE
        }
        Compression::Columns(level) => {
            let mut form = std::mem::take(&mut deflater.form);
            let mut times = std::mem::take(&mut deflater.times);
            let id = if crate::columns::split_into(rest, &mut form, &mut times).is_some() {
                deflater.deflate_into(out, &form, level)?;
                codec::COLUMNS
            } else {
                deflater.deflate_into(out, rest, level)?;
                codec::DEFLATE
            };
            deflater.form = form;
            deflater.times = times;
            id
        }
    };
    let mut rest_crc = Crc::new();
    rest_crc.update(rest);
    Ok(Compressed {
        codec,
        rest_crc,
        uncompressed,
    })
}

/// Finishes a frame made by [`compress`] at `frame` (its prefix first) for the
/// file position `offset`: sets the node's own pointer in `header` (the node's
/// 34-byte header) to the frame's `(offset, size)` and fills in the frame and
/// node headers. Returns the frame's pointer.
pub(crate) fn seal(
    c: &Compressed,
    header: &mut [u8],
    offset: u64,
    frame: &mut [u8],
) -> Result<FileBlockPtr> {
    if header.len() != NODE_HEADER_LEN || frame.len() < PREFIX_LEN {
        return Err(Error::Write(WriteProblem::FrameShorterThanHeaders));
    }
    let size = i32::try_from(frame.len())
        .map_err(|_| Error::Write(WriteProblem::TooLarge(Oversized::Frame)))?;
    let ptr = FileBlockPtr {
        offset: offset as i64,
        size,
    };
    header[22..30].copy_from_slice(&ptr.offset.to_be_bytes());
    header[30..34].copy_from_slice(&ptr.size.to_be_bytes());
    let payload_len = (frame.len() - PREFIX_LEN) as u32;
    let mut crc = Crc::new();
    crc.update(header);
    crc.combine(&c.rest_crc);
    let f = &mut frame[..PREFIX_LEN];
    f[0] = c.codec;
    f[4..8].copy_from_slice(&payload_len.to_be_bytes());
    f[8..12].copy_from_slice(&c.uncompressed.to_be_bytes());
    f[12..16].copy_from_slice(&crc.sum().to_be_bytes());
    f[FRAME_HEADER_LEN..].copy_from_slice(header);
    Ok(ptr)
}

/// Frames a plain node block. `node` starts with its 34-byte header; its own
/// pointer (bytes 22..34) is set here to the frame's `(offset, size)`. The frame is
/// appended to `out`; returns its pointer.
///
/// # Errors
///
/// [`Error::Write`] with [`WriteProblem::NodeShorterThanHeader`] when `node` is
/// shorter than its 34-byte header, or [`WriteProblem::TooLarge`] when the frame is
/// too large for its pointer's size field.
///
/// ```
/// use slog2_format::frame::{encode, Compression, FRAME_HEADER_LEN};
/// let mut node = vec![7u8; 100];
/// let mut framed = Vec::new();
/// let ptr = encode(&mut node, 4096, Compression::Deflate(6), &mut framed)?;
/// assert_eq!((ptr.offset, ptr.size as usize), (4096, framed.len()));
/// assert!(framed.len() < FRAME_HEADER_LEN + node.len()); // deflated
/// assert_eq!(node[22..30], 4096i64.to_be_bytes()); // the node's own pointer
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn encode(
    node: &mut [u8],
    offset: u64,
    compression: Compression,
    out: &mut Vec<u8>,
) -> Result<FileBlockPtr> {
    let start = out.len();
    let c = compress(node, compression, &mut Deflater::default(), out)?;
    seal(&c, &mut node[..NODE_HEADER_LEN], offset, &mut out[start..])
}

/// The fields of a frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    /// Codec ID.
    pub codec: u8,
    /// Reserved bytes.
    pub reserved: [u8; 3],
    /// Payload length.
    pub payload_len: u32,
    /// Uncompressed node length.
    pub uncompressed_len: u32,
    /// CRC-32 of the uncompressed node.
    pub crc32: u32,
}

impl FrameHeader {
    /// Reads the first 16 bytes of a frame.
    ///
    /// ```
    /// use slog2_format::frame::{codec, FrameHeader};
    /// let mut b = [0u8; 16];
    /// b[0] = codec::DEFLATE;
    /// b[4..8].copy_from_slice(&10u32.to_be_bytes());
    /// b[8..12].copy_from_slice(&100u32.to_be_bytes());
    /// let h = FrameHeader::parse(&b);
    /// assert_eq!((h.codec, h.payload_len, h.uncompressed_len, h.crc32), (codec::DEFLATE, 10, 100, 0));
    /// ```
    pub fn parse(b: &[u8; FRAME_HEADER_LEN]) -> FrameHeader {
        let u = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        FrameHeader {
            codec: b[0],
            reserved: [b[1], b[2], b[3]],
            payload_len: u(4),
            uncompressed_len: u(8),
            crc32: u(12),
        }
    }
}

/// Inflates `payload`, which must give exactly `want` bytes, appending them to
/// `out`; never inflates more than `want + 1` bytes. Errors are the frame
/// problem and the offset of the field it concerns.
fn inflate(payload: &[u8], want: usize, out: &mut Vec<u8>) -> Result<(), (u64, FrameProblem)> {
    let before = out.len();
    // Deflate expands at most 1032:1, so a short payload cannot need `want` bytes:
    // reserve no more than it can give (the rest grows only if it really inflates).
    out.reserve(want.min(payload.len().saturating_mul(1032).saturating_add(64)) + 1);
    let mut dec = flate2::read::DeflateDecoder::new(payload).take(want as u64 + 1);
    dec.read_to_end(out).map_err(|e| {
        let message = e.to_string();
        (PREFIX_LEN as u64, FrameProblem::CorruptDeflate { message })
    })?;
    let got = out.len() - before;
    if got != want {
        let (got, want) = (got as u64, want as u64);
        return Err((8, FrameProblem::InflatedLength { got, want }));
    }
    Ok(())
}

/// The node a frame's node header names, if the frame is long enough to hold one.
fn node_id(frame: &[u8]) -> Option<NodeId> {
    let h = frame.get(FRAME_HEADER_LEN..PREFIX_LEN)?;
    let depth = i16::from_be_bytes([h[16], h[17]]);
    let xpos = i32::from_be_bytes([h[18], h[19], h[20], h[21]]);
    Some(NodeId { depth, xpos })
}

/// Checks a frame read from `ptr` and writes the uncompressed node block into
/// `out` (cleared first). `limit` bounds the uncompressed length (the header's
/// `max_buffer_bytesize`); nothing larger is allocated or inflated.
///
/// # Errors
///
/// [`Error::BadFrame`] with the step of spec/slog2-compressed.md §5 that fails (1–6),
/// at the offending field of the frame at `ptr`: a frame too short, an unknown method,
/// lengths that disagree with `ptr` or are over `limit`, a stream that does not
/// inflate, or an inflated length that is not the one declared.
///
/// ```
/// use slog2_format::frame::{decode, encode, Compression};
/// use slog2_format::Error;
/// let mut node = vec![7u8; 100];
/// let mut framed = Vec::new();
/// let ptr = encode(&mut node, 4096, Compression::Deflate(6), &mut framed)?;
/// let mut back = Vec::new();
/// decode(&framed, ptr, 1 << 20, &mut back)?;
/// assert_eq!(back, node);
/// // A limit under the node's 100 bytes: refused before inflating (check 3).
/// let bomb = decode(&framed, ptr, 99, &mut back).unwrap_err();
/// assert!(matches!(&bomb, Error::BadFrame { problem, .. } if problem.step() == 3));
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn decode(frame: &[u8], ptr: FileBlockPtr, limit: u64, out: &mut Vec<u8>) -> Result<()> {
    let at = ptr.offset.max(0) as u64;
    checked(frame, ptr, limit, out).map_err(|(field, problem)| Error::BadFrame {
        offset: at + field,
        frame: at,
        node: node_id(frame),
        problem,
    })
}

/// [`decode`]'s checks; an error is the problem and the offset, within the
/// frame, of the field it concerns.
fn checked(
    frame: &[u8],
    ptr: FileBlockPtr,
    limit: u64,
    out: &mut Vec<u8>,
) -> Result<(), (u64, FrameProblem)> {
    if frame.len() < PREFIX_LEN {
        let len = frame.len() as u64;
        return Err((0, FrameProblem::TooShort { len }));
    }
    let h = FrameHeader::parse(frame[..FRAME_HEADER_LEN].try_into().expect("16 bytes"));
    if codec::name(h.codec).is_none() {
        return Err((0, FrameProblem::UnknownCodec { codec: h.codec }));
    }
    if h.reserved != [0; 3] {
        return Err((1, FrameProblem::Reserved { bytes: h.reserved }));
    }
    let payload = &frame[PREFIX_LEN..];
    if h.payload_len as usize != payload.len() {
        let (declared, block) = (h.payload_len, frame.len() as u64);
        return Err((4, FrameProblem::PayloadLength { declared, block }));
    }
    let n = h.uncompressed_len as u64;
    if n < NODE_HEADER_LEN as u64 || n > limit {
        let declared = h.uncompressed_len;
        return Err((8, FrameProblem::UncompressedLength { declared, limit }));
    }
    let rest = n as usize - NODE_HEADER_LEN;
    out.clear();
    out.reserve((n as usize).min(frame.len().saturating_mul(1032).saturating_add(PREFIX_LEN)));
    out.extend_from_slice(&frame[FRAME_HEADER_LEN..PREFIX_LEN]);
    match h.codec {
        codec::STORED => {
            if payload.len() != rest {
                let payload = payload.len() as u64;
                return Err((8, FrameProblem::StoredLength { payload, node: n }));
            }
            out.extend_from_slice(payload);
        }
        codec::DEFLATE => inflate(payload, rest, out)?,
        _ => {
            // The column form is 4 bytes longer than the node's rest.
            let mut form = Vec::new();
            inflate(payload, rest + 4, &mut form)?;
            crate::columns::join(&form, out)
                .map_err(|p| (PREFIX_LEN as u64, FrameProblem::Columns(p)))?;
            if out.len() != n as usize {
                let got = out.len() as u64;
                return Err((8, FrameProblem::ColumnLength { got, declared: n }));
            }
        }
    }
    let crc = crc32(&[out]);
    if crc != h.crc32 {
        let (computed, declared) = (crc, h.crc32);
        return Err((12, FrameProblem::Checksum { computed, declared }));
    }
    let own = FileBlockPtr {
        offset: i64::from_be_bytes(out[22..30].try_into().expect("8 bytes")),
        size: i32::from_be_bytes(out[30..34].try_into().expect("4 bytes")),
    };
    if own != ptr {
        let field = FRAME_HEADER_LEN as u64 + 22;
        return Err((field, FrameProblem::OwnPointer { own, frame: ptr }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(rest: usize) -> Vec<u8> {
        let mut n = vec![0u8; NODE_HEADER_LEN];
        n[16..18].copy_from_slice(&3i16.to_be_bytes());
        n.extend((0..rest).map(|i| (i % 7) as u8));
        n
    }

    #[test]
    fn every_codec_round_trips() {
        for c in [
            Compression::Stored,
            Compression::Deflate(0),
            Compression::Deflate(1),
            Compression::Deflate(9),
            Compression::Columns(4),
        ] {
            let mut n = node(5000);
            let mut out = vec![9u8; 100]; // frames are appended
            let ptr = encode(&mut n, 100, c, &mut out).unwrap();
            assert_eq!(ptr.size as usize, out.len() - 100);
            let mut back = Vec::new();
            decode(&out[100..], ptr, 1 << 20, &mut back).unwrap();
            assert_eq!(back, n, "{c:?}");
        }
    }

    #[test]
    fn a_reused_deflater_gives_a_fresh_ones_stream() {
        let a = node(70_000);
        let mut b = node(9000);
        b.iter_mut().skip(40).step_by(3).for_each(|x| *x ^= 0x5a);
        for level in [0, 1, 2, 4, 6, 9] {
            let mut d = Deflater::default();
            let mut first = Vec::new();
            d.deflate_into(&mut first, &a, level).unwrap();
            // b after a: as a fresh compressor gives it.
            let mut reused = Vec::new();
            d.deflate_into(&mut reused, &b, level).unwrap();
            let mut fresh = Vec::new();
            Deflater::default()
                .deflate_into(&mut fresh, &b, level)
                .unwrap();
            assert!(reused == fresh, "level {level}");
            let mut back = Vec::new();
            flate2::read::DeflateDecoder::new(&fresh[..])
                .read_to_end(&mut back)
                .unwrap();
            assert!(back == b, "level {level}");
        }
    }

    #[test]
    fn compression_names_parse() {
        assert_eq!(Compression::parse("none"), Ok(Compression::None));
        assert_eq!(Compression::parse("deflate"), Ok(Compression::Columns(2)));
        assert_eq!(Compression::parse("deflate:4"), Ok(Compression::Columns(4)));
        assert_eq!(Compression::parse("deflate:6"), Ok(Compression::Columns(6)));
        assert_eq!(
            Compression::parse("raw-deflate"),
            Ok(Compression::Deflate(1))
        );
        assert_eq!(
            Compression::parse("raw-deflate:9"),
            Ok(Compression::Deflate(9))
        );
        assert!(Compression::parse("deflate:10").is_err());
        assert!(Compression::parse("zstd").is_err());
    }
}
