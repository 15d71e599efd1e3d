//! Rewrites a SLOG-2 file with its tree nodes stored another way: plain 2.0.6 to
//! compressed 2.0.6Z and back, or with another codec or level. Streaming: nodes
//! are read one at a time in file order (children come before their parents, as
//! every one-pass writer puts them), so memory holds one node and a pointer map.

use crate::error::{Error, Oversized, Result, ValueProblem, WriteProblem};
use crate::frame::{self, Compression};
use crate::read::{Slog2Reader, Version};
use crate::types::*;
use binrw::BinWrite;
use rustc_hash::FxHashMap;
use std::io::{Cursor, Read, Seek, SeekFrom, Write};

/// What a rewrite did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReframeStats {
    /// Tree nodes rewritten.
    pub nodes: u64,
    /// Bytes of the input file.
    pub input_bytes: u64,
    /// Bytes of the output file.
    pub output_bytes: u64,
}

fn to_vec<T: for<'a> BinWrite<Args<'a> = ()>>(v: &T) -> Result<Vec<u8>> {
    let mut c = Cursor::new(Vec::new());
    v.write_be(&mut c).map_err(|e| Error::Write(e.into()))?;
    Ok(c.into_inner())
}

/// Copies the SLOG-2 (2.0.6 or 2.0.6Z) file `input` to `out` (at its start) with
/// every tree node stored as `compression` says. Drawables, stubs, categories,
/// line-ID maps and the TreeDir are the same; pointers are laid out anew; bytes no
/// pointer covers are dropped. `progress` gets the number of nodes done.
///
/// # Errors
///
/// As [`Slog2Reader::new`](crate::Slog2Reader::new) and
/// [`Slog2Reader::read_node`](crate::Slog2Reader::read_node) for the input;
/// [`Error::Write`] with [`WriteProblem::NeedsUpdate`] for a 2.0.5 file and
/// [`WriteProblem::NoTreeDir`] for a file without a TreeDir;
/// [`Error::BadValue`] with [`ValueProblem::ChildAfterParent`] at a node whose stub
/// points to a node not yet copied; [`Error::Io`] at the offset written when `out`
/// fails.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use slog2_format::{frame::Compression, write::reframe};
/// let (z, stats) = reframe(Cursor::new(&bytes), Cursor::new(Vec::new()), Compression::Deflate(6), |_| {})?;
/// let z = z.into_inner();
/// assert!(z.len() < bytes.len());
/// assert_eq!((stats.input_bytes, stats.output_bytes), (bytes.len() as u64, z.len() as u64));
/// // The same drawables come back out of the compressed file.
/// let all = |b: &[u8]| Slog2Reader::new(Cursor::new(b.to_vec()))?.window(f64::NEG_INFINITY, f64::INFINITY);
/// assert_eq!(all(&z)?.drawables.len(), all(&bytes)?.drawables.len());
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn reframe<R: Read + Seek, W: Write + Seek>(
    input: R,
    mut out: W,
    compression: Compression,
    mut progress: impl FnMut(u64),
) -> Result<(W, ReframeStats)> {
    let mut r = Slog2Reader::new(input)?;
    if r.version() == Version::V205 {
        return Err(Error::Write(WriteProblem::NeedsUpdate));
    }
    let dir = r
        .tree_dir()
        .ok_or_else(|| Error::Write(WriteProblem::NoTreeDir))?
        .value
        .clone();
    let categories = r.categories().map(|c| c.value.clone());
    let maps = r.line_id_maps().map(|m| m.value.clone());
    let mut header = r.header().clone();
    header.version = JStr::new(if compression.is_framed() {
        frame::VERSION
    } else {
        Version::V206.as_str()
    });
    let io = |offset: u64| move |source| Error::Io { offset, source };

    let head = to_vec(&header)?;
    out.write_all(&head).map_err(io(0))?;
    let mut pos = head.len() as u64;
    let mut max_block = 0u64;
    let mut order: Vec<usize> = (0..dir.entries.len()).collect();
    order.sort_by_key(|&i| dir.entries[i].ptr.offset);
    let mut moved: FxHashMap<i64, FileBlockPtr> = FxHashMap::default();
    let mut framed = Vec::new();
    for (done, &i) in order.iter().enumerate() {
        let e = dir.entries[i];
        let mut node = r.read_node(e.ptr)?.value;
        for s in &mut node.stubs {
            s.header.ptr = *moved
                .get(&s.header.ptr.offset)
                .ok_or_else(|| Error::BadValue {
                    offset: e.ptr.offset as u64,
                    problem: ValueProblem::ChildAfterParent(e.id),
                })?;
        }
        let mut bytes = to_vec(&node)?;
        let ptr = if compression.is_framed() {
            framed.clear();
            let ptr = frame::encode(&mut bytes, pos, compression, &mut framed)?;
            out.write_all(&framed).map_err(io(pos))?;
            ptr
        } else {
            let ptr = FileBlockPtr {
                offset: pos as i64,
                size: i32::try_from(bytes.len())
                    .map_err(|_| Error::Write(WriteProblem::TooLarge(Oversized::Node)))?,
            };
            bytes[22..30].copy_from_slice(&ptr.offset.to_be_bytes());
            bytes[30..34].copy_from_slice(&ptr.size.to_be_bytes());
            out.write_all(&bytes).map_err(io(pos))?;
            ptr
        };
        max_block = max_block.max(bytes.len() as u64).max(ptr.size as u64);
        moved.insert(e.ptr.offset, ptr);
        pos += ptr.size as u64;
        progress(done as u64 + 1);
    }
    let mut block = |bytes: Vec<u8>, out: &mut W, pos: &mut u64| -> Result<FileBlockPtr> {
        out.write_all(&bytes).map_err(io(*pos))?;
        let ptr = FileBlockPtr {
            offset: *pos as i64,
            size: i32::try_from(bytes.len())
                .map_err(|_| Error::Write(WriteProblem::TooLarge(Oversized::CopiedBlock)))?,
        };
        *pos += bytes.len() as u64;
        max_block = max_block.max(bytes.len() as u64);
        Ok(ptr)
    };
    header.categories = match &categories {
        Some(c) => block(to_vec(c)?, &mut out, &mut pos)?,
        None => FileBlockPtr::NULL,
    };
    header.lineidmaps = match &maps {
        Some(m) => block(to_vec(m)?, &mut out, &mut pos)?,
        None => FileBlockPtr::NULL,
    };
    let mut new_dir = dir.clone();
    for e in &mut new_dir.entries {
        e.ptr = moved[&e.ptr.offset];
    }
    header.treedir = block(to_vec(&new_dir)?, &mut out, &mut pos)?;
    header.treeroot = *moved
        .get(&header.treeroot.offset)
        .ok_or_else(|| Error::BadValue {
            offset: 60,
            problem: ValueProblem::RootNotInTreeDir,
        })?;
    header.max_buffer_bytesize = i32::try_from(max_block).unwrap_or(i32::MAX);
    header.methoddefs = FileBlockPtr::NULL;
    header.annotations = FileBlockPtr::NULL;
    header.postamble = FileBlockPtr::NULL;
    out.flush().map_err(io(pos))?;
    out.seek(SeekFrom::Start(0)).map_err(io(0))?;
    out.write_all(&to_vec(&header)?).map_err(io(0))?;
    out.seek(SeekFrom::Start(pos)).map_err(io(pos))?;
    out.flush().map_err(io(pos))?;
    Ok((
        out,
        ReframeStats {
            nodes: order.len() as u64,
            input_bytes: r.file_len(),
            output_bytes: pos,
        },
    ))
}
