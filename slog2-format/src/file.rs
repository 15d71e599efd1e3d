//! A whole SLOG-2 file in memory, for lossless round trips: every block the header,
//! the TreeDir and the child stubs point at, parsed, plus any bytes no pointer covers.

use crate::error::{Error, Result, ValueProblem, WriteProblem};
use crate::read::{Parsed, Slog2Reader, Validation, Version};
use crate::types::*;
use binrw::{BinWrite, Endian};
use std::collections::BTreeMap;
use std::io::{Cursor, Read, Seek};

/// One parsed block of a file.
#[derive(Debug, Clone, PartialEq)]
pub enum FileBlock {
    /// A tree node.
    Node(Parsed<TreeNodeBody>),
    /// The CategoryMap.
    Categories(Parsed<CategoryMap>),
    /// The LineIDMapList.
    LineIdMaps(Parsed<LineIdMapList>),
    /// The TreeDir.
    TreeDir(Parsed<TreeDir>),
}

/// Writes a block's structure to `out` and gives the bytes that follow it in
/// the block (written after it as they were read).
fn write_parsed<'p, T>(p: &'p Parsed<T>, out: &mut Cursor<Vec<u8>>) -> binrw::BinResult<&'p [u8]>
where
    T: for<'a> BinWrite<Args<'a> = ()>,
{
    p.value.write_options(out, Endian::Big, ())?;
    Ok(&p.trailing)
}

impl FileBlock {
    fn ptr(&self) -> FileBlockPtr {
        match self {
            FileBlock::Node(p) => p.ptr,
            FileBlock::Categories(p) => p.ptr,
            FileBlock::LineIdMaps(p) => p.ptr,
            FileBlock::TreeDir(p) => p.ptr,
        }
    }
}

/// Every structure of a SLOG-2 file.
#[derive(Debug, Clone, PartialEq)]
pub struct Slog2File {
    /// The header.
    pub header: Header,
    /// The version.
    pub version: Version,
    /// Blocks by file offset.
    pub blocks: BTreeMap<u64, FileBlock>,
    /// Bytes that no pointer covers, by offset (none in files the Java tools wrote).
    pub gaps: BTreeMap<u64, Vec<u8>>,
}

impl Slog2File {
    /// Parses a whole file held in memory.
    ///
    /// # Errors
    ///
    /// The first problem in the bytes, with its byte offset.
    ///
    /// ```
    /// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (out, _) = slog2_format::convert::clog2_to_slog2(&mut reader, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// let bytes = out.into_inner();
    /// let f = slog2_format::Slog2File::parse(&bytes)?;
    /// assert_eq!(f.to_bytes()?, bytes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(data: &[u8]) -> Result<Slog2File> {
        Self::read_with(Cursor::new(data), Validation::Off)
    }

    /// Parses a whole file from a reader, as it is: the structure is checked
    /// (spec/slog2.md §14 #1–#6) but not what the drawables refer to, so that a
    /// damaged file can still be copied byte for byte and inspected
    /// ([`Validation::Off`]). [`read_with`](Self::read_with) checks the nodes too.
    ///
    /// Like every whole-file `read` of these crates, it takes any [`Read`]: the
    /// file is read to its end, then parsed from memory.
    ///
    /// # Errors
    ///
    /// As [`Slog2File::parse`], and the reader's I/O errors.
    ///
    /// ```
    /// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (out, _) = slog2_format::convert::clog2_to_slog2(&mut reader, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// let bytes = out.into_inner();
    /// let f = slog2_format::Slog2File::read(std::io::Cursor::new(&bytes))?;
    /// assert_eq!(f.write_to(Vec::new())?, bytes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read<R: Read>(inner: R) -> Result<Slog2File> {
        let data =
            clog2_format::io::read_all(inner, |offset, source| Error::Io { offset, source })?;
        Self::read_with(Cursor::new(&data[..]), Validation::Off)
    }

    /// Parses a whole file from a reader, checking every node as `validation`
    /// says ([`Slog2Reader::set_validation`]): with [`Validation::Strict`], a
    /// drawable that the file cannot resolve is an error naming its offset; with
    /// [`Validation::Lenient`] it is dropped (the model is then no longer a
    /// byte-for-byte image of the file).
    ///
    /// # Errors
    ///
    /// As [`Slog2Reader::new`] and [`Slog2Reader::read_node`] for every block;
    /// [`Error::BadValue`] with [`ValueProblem::SizeDisagrees`] at a block that two
    /// pointers give different sizes.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = slog2_format::convert::clog2_to_slog2(&mut trace, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::{Slog2File, Validation};
    /// let f = Slog2File::read_with(std::io::Cursor::new(&bytes), Validation::Strict)?;
    /// assert_eq!(f.to_bytes()?, bytes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_with<R: Read + Seek>(inner: R, validation: Validation) -> Result<Slog2File> {
        let mut r = Slog2Reader::new(inner)?;
        r.set_validation(validation);
        let header = r.header().clone();
        let version = r.version();
        let mut blocks = BTreeMap::new();
        let mut add = |b: FileBlock| -> Result<()> {
            let p = b.ptr();
            if let Some(old) = blocks.get(&(p.offset as u64)) {
                let old: &FileBlock = old;
                if old.ptr().size != p.size {
                    return Err(Error::BadValue {
                        offset: p.offset as u64,
                        problem: ValueProblem::SizeDisagrees {
                            at: p.offset,
                            first: old.ptr().size,
                            other: p.size,
                        },
                    });
                }
                return Ok(());
            }
            blocks.insert(p.offset as u64, b);
            Ok(())
        };
        if let Some(t) = r.tree_dir() {
            add(FileBlock::TreeDir(t.clone()))?;
        }
        if let Some(c) = r.categories() {
            add(FileBlock::Categories(c.clone()))?;
        }
        if let Some(l) = r.line_id_maps() {
            add(FileBlock::LineIdMaps(l.clone()))?;
        }
        // Every node reachable from the TreeDir, the root pointer and the stubs.
        let mut todo: Vec<FileBlockPtr> = Vec::new();
        if !header.treeroot.is_null() {
            todo.push(header.treeroot);
        }
        if let Some(t) = r.tree_dir() {
            todo.extend(t.value.entries.iter().map(|e| e.ptr));
        }
        let mut seen = std::collections::HashSet::new();
        while let Some(p) = todo.pop() {
            if !seen.insert(p) {
                continue;
            }
            let node = r.read_node(p)?;
            todo.extend(
                node.value
                    .stubs
                    .iter()
                    .map(|s| s.header.ptr)
                    .filter(|p| !p.is_null()),
            );
            add(FileBlock::Node(node))?;
        }
        // Overlaps make a lossless layout impossible; gaps are kept verbatim.
        let data_len = r.file_len();
        let mut gaps = BTreeMap::new();
        let mut pos = r.header_len();
        let regions: Vec<(u64, u64)> = blocks
            .values()
            .map(|b| {
                (
                    b.ptr().offset as u64,
                    b.ptr().offset as u64 + b.ptr().size as u64,
                )
            })
            .collect();
        let mut inner = r;
        for (start, end) in regions {
            if start < pos {
                return Err(Error::BadValue {
                    offset: start,
                    problem: ValueProblem::Overlap {
                        start,
                        previous_end: pos,
                    },
                });
            }
            if start > pos {
                gaps.insert(pos, inner.read_gap(pos, start - pos)?);
            }
            pos = end;
        }
        if pos < data_len {
            gaps.insert(pos, inner.read_gap(pos, data_len - pos)?);
        }
        Ok(Slog2File {
            header,
            version,
            blocks,
            gaps,
        })
    }

    /// Writes the file (as [`to_bytes`](Self::to_bytes)) to `out` and gives it
    /// back.
    ///
    /// # Errors
    ///
    /// The writer's I/O errors; a compressed (2.0.6Z) model, which
    /// [`crate::write::reframe()`] rewrites instead.
    ///
    /// ```
    /// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (out, _) = slog2_format::convert::clog2_to_slog2(&mut reader, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// let bytes = out.into_inner();
    /// let f = slog2_format::Slog2File::parse(&bytes)?;
    /// assert_eq!(f.write_to(Vec::new())?, bytes); // byte for byte
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_to<W: std::io::Write>(&self, out: W) -> Result<W> {
        let bytes = self.to_bytes()?;
        clog2_format::io::write_all(out, &bytes, |source| Error::Io { offset: 0, source })
    }

    /// Writes the file: the header, then every block and gap at its offset.
    ///
    /// # Errors
    ///
    /// As [`Slog2File::write_to`].
    ///
    /// ```
    /// let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// let (out, _) = slog2_format::convert::clog2_to_slog2(&mut reader, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// let bytes = out.into_inner();
    /// assert_eq!(slog2_format::Slog2File::parse(&bytes)?.to_bytes()?, bytes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        if self.version.is_compressed() {
            return Err(Error::Write(WriteProblem::Compressed));
        }
        let mut out = Cursor::new(Vec::new());
        let w = |e: binrw::Error| Error::Write(e.into());
        self.header
            .write_options(&mut out, Endian::Big, ())
            .map_err(w)?;
        /// What sits at an offset: a block or uncovered bytes.
        enum Item<'a> {
            Block(&'a FileBlock),
            Gap(&'a Vec<u8>),
        }
        let mut items: Vec<(u64, Item)> = Vec::new();
        items.extend(self.blocks.iter().map(|(o, b)| (*o, Item::Block(b))));
        items.extend(self.gaps.iter().map(|(o, g)| (*o, Item::Gap(g))));
        items.sort_by_key(|i| i.0);
        for (offset, item) in items {
            if out.position() != offset {
                return Err(Error::Write(WriteProblem::Misplaced {
                    offset,
                    position: out.position(),
                }));
            }
            let b = match item {
                Item::Gap(g) => {
                    out.get_mut().extend_from_slice(g);
                    out.set_position(out.get_ref().len() as u64);
                    continue;
                }
                Item::Block(b) => b,
            };
            let start = out.position();
            let trailing = match b {
                FileBlock::Node(p) => write_parsed(p, &mut out),
                FileBlock::Categories(p) => write_parsed(p, &mut out),
                FileBlock::LineIdMaps(p) => write_parsed(p, &mut out),
                FileBlock::TreeDir(p) => write_parsed(p, &mut out),
            }
            .map_err(w)?;
            out.get_mut().extend_from_slice(trailing);
            out.set_position(out.get_ref().len() as u64);
            let size = out.position() - start;
            if size != b.ptr().size as u64 {
                return Err(Error::Write(WriteProblem::SizeMismatch {
                    offset,
                    size,
                    pointer: b.ptr().size,
                }));
            }
        }
        Ok(out.into_inner())
    }

    /// The tree nodes, by file offset.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let f = slog2_format::Slog2File::parse(&bytes)?;
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// assert_eq!(f.nodes().count(), r.tree_dir().unwrap().value.entries.len()); // one a TreeDir entry
    /// assert!(f.nodes().map(|n| n.ptr.offset).is_sorted()); // by offset
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn nodes(&self) -> impl Iterator<Item = &Parsed<TreeNodeBody>> {
        self.blocks.values().filter_map(|b| match b {
            FileBlock::Node(n) => Some(n),
            _ => None,
        })
    }
}
