//! Random-access reading: opening a file reads the header, the TreeDir, the
//! CategoryMap and the LineIDMapList; each tree node is then read on demand with one
//! read of exactly its block, and parsed from memory. The reader counts the nodes and
//! bytes it reads.

pub use crate::counters::Counters;
use crate::error::{Error, Part, PointerProblem, Result, Within};
use crate::types::*;
use crate::validate::Legend;
pub use crate::validate::{Dropped, Validation};
pub use crate::version::Version;
use crate::window::WindowCache;
use binrw::{BinRead, Endian};
use std::io::{Cursor, Read, Seek, SeekFrom};

/// Longest version string accepted before giving up (Java reads at most 10 bytes).
pub const MAX_VERSION_LEN: usize = 64;
/// Header bytes after the version string.
pub const HEADER_FIXED_LEN: usize = 2 + 4 + 2 + 4 + 7 * 12;

/// A parsed block: the value, where it was, and any bytes after the parsed content
/// up to the block's size (Java ignores them; we keep them).
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<T> {
    /// The parsed structure.
    pub value: T,
    /// The block's pointer.
    pub ptr: FileBlockPtr,
    /// Bytes left in the block after the structure.
    pub trailing: Vec<u8>,
}

/// The default of [`ReadOptions::max_block_bytes`]: 256 MiB.
pub const DEFAULT_MAX_BLOCK_BYTES: u64 = 256 << 20;

/// How a [`Slog2Reader`] reads: how strictly it checks the nodes it decodes,
/// and the largest block it allocates for (image-png's `Limits`).
///
/// ```
/// use slog2_format::{ReadOptions, Validation};
/// let opts = ReadOptions::default()
///     .validation(Validation::Lenient)
///     .max_block_bytes(16 << 20);
/// assert_eq!(opts.max_block_bytes, 16 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// How the nodes decoded are checked (default [`Validation::Strict`]).
    pub validation: Validation,
    /// The largest block (or inflated node of a compressed file) the reader
    /// allocates for, whatever the header's `max_buffer_bytesize` says; a
    /// larger one is an [`Error::LimitExceeded`]. Default
    /// [`DEFAULT_MAX_BLOCK_BYTES`].
    pub max_block_bytes: u64,
    /// The bytes of breadth a picture query
    /// ([`window_picture_into`](Slog2Reader::window_picture_into)) may read
    /// below its path (spec/queries.md §2.2 step 6). Default
    /// [`PICTURE_BUDGET`](crate::window::PICTURE_BUDGET).
    pub picture_budget: u64,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            validation: Validation::Strict,
            max_block_bytes: DEFAULT_MAX_BLOCK_BYTES,
            picture_budget: crate::window::PICTURE_BUDGET,
        }
    }
}

impl ReadOptions {
    /// Sets [`validation`](Self::validation).
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::{ReadOptions, Validation};
    /// let opts = ReadOptions::default().validation(Validation::Lenient);
    /// assert_eq!(opts.validation, Validation::Lenient);
    /// let r = Slog2Reader::with_options(Cursor::new(&bytes), opts)?;
    /// assert_eq!(r.validation(), Validation::Lenient);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn validation(mut self, validation: Validation) -> Self {
        self.validation = validation;
        self
    }

    /// Sets [`max_block_bytes`](Self::max_block_bytes).
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::ReadOptions;
    /// // No block may be larger than 64 bytes: the first block met is refused.
    /// let opts = ReadOptions::default().max_block_bytes(64);
    /// assert_eq!(opts.max_block_bytes, 64);
    /// assert!(Slog2Reader::with_options(Cursor::new(&bytes), opts).is_err());
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn max_block_bytes(mut self, max_block_bytes: u64) -> Self {
        self.max_block_bytes = max_block_bytes;
        self
    }

    /// Sets [`picture_budget`](Self::picture_budget).
    ///
    /// ```
    /// let opts = slog2_format::ReadOptions::default().picture_budget(1 << 20);
    /// assert_eq!(opts.picture_budget, 1 << 20);
    /// ```
    pub fn picture_budget(mut self, picture_budget: u64) -> Self {
        self.picture_budget = picture_budget;
        self
    }
}

/// A SLOG-2 reader over any `Read + Seek`.
///
/// ```
/// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
/// # let (out, _) = slog2_format::convert::clog2_to_slog2(&mut trace, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use slog2_format::Slog2Reader;
/// let mut r = Slog2Reader::new(std::io::Cursor::new(&bytes))?;
/// let all = r.window(f64::NEG_INFINITY, f64::INFINITY)?;
/// let half = r.window(0.0, all.drawables.iter().map(|d| d.value.latest()).fold(0.0, f64::max) / 2.0)?;
/// assert!(!half.drawables.is_empty() && half.drawables.len() < all.drawables.len());
/// assert_eq!(r.header().version.to_string(), "SLOG 2.0.6");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Slog2Reader<R> {
    inner: R,
    file_len: u64,
    header: Header,
    header_len: u64,
    version: Version,
    tree_dir: Option<Parsed<TreeDir>>,
    categories: Option<Parsed<CategoryMap>>,
    line_id_maps: Option<Parsed<LineIdMapList>>,
    counters: Counters,
    buf: Vec<u8>,
    plain: Vec<u8>,
    legend: Legend,
    validation: Validation,
    max_block_bytes: u64,
    picture_budget: u64,
    dropped: Dropped,
    /// What window queries keep between queries.
    window: WindowCache,
    /// Decompressed nodes shared with other readers of the file, if set.
    node_cache: Option<std::sync::Arc<crate::NodeCache>>,
}

/// Parses the header from the start of `bytes` (which may be longer).
///
/// # Errors
///
/// [`Error::NotSlog2`], [`Error::UnsupportedVersion`], or a header cut
/// short ([`Error::Truncated`]).
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// let (header, version, len) = slog2_format::read::parse_header(&bytes)?;
/// assert_eq!((version.as_str(), len), ("SLOG 2.0.6", 108));
/// assert_eq!(header.num_children_per_node, 2);
/// assert!(slog2_format::read::parse_header(b"CLOG-02.44").is_err());
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn parse_header(bytes: &[u8]) -> Result<(Header, Version, u64)> {
    if bytes.len() < 2 {
        return Err(Error::Truncated {
            offset: 0,
            what: Part::Header { len: None },
            within: Within::File {
                len: Some(bytes.len() as u64),
            },
        });
    }
    let n = i16::from_be_bytes([bytes[0], bytes[1]]);
    let shown = |b: &[u8]| b[..b.len().min(16)].to_vec();
    if n <= 0 || n as usize > MAX_VERSION_LEN {
        return Err(Error::NotSlog2 {
            found: shown(bytes),
        });
    }
    let len = 2 + n as usize + HEADER_FIXED_LEN;
    let vbytes = &bytes[2..(2 + n as usize).min(bytes.len())];
    if !vbytes.starts_with(b"SLOG 2") && !b"SLOG 2".starts_with(vbytes) {
        return Err(Error::NotSlog2 {
            found: shown(bytes),
        });
    }
    if bytes.len() < len {
        return Err(Error::Truncated {
            offset: bytes.len() as u64,
            what: Part::Header {
                len: Some(len as u64),
            },
            within: Within::File {
                len: Some(bytes.len() as u64),
            },
        });
    }
    let version = match vbytes {
        b"SLOG 2.0.6" => Version::V206,
        b"SLOG 2.0.5" => Version::V205,
        b"SLOG 2.0.6Z" => Version::V206Z,
        other => {
            return Err(Error::UnsupportedVersion {
                found: other.to_vec(),
            })
        }
    };
    let header =
        Header::read_options(&mut Cursor::new(&bytes[..len]), Endian::Big, ()).map_err(|e| {
            Error::from_binrw(e, 0, Part::Header { len: None }, Within::File { len: None })
        })?;
    Ok((header, version, len as u64))
}

/// Parses `bytes` (one whole block at `ptr`) as a `T`, keeping trailing bytes.
///
/// # Errors
///
/// The parser's error at the offset where it failed: [`Error::Truncated`] within
/// the block when `bytes` end early, [`Error::BadTag`] or [`Error::BadValue`] for a
/// value the format forbids.
///
/// ```
/// # use slog2_format::convert::clog2_to_slog2;
/// # use slog2_format::Slog2Reader;
/// # use std::io::Cursor;
/// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
/// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
/// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
/// # let bytes = out.into_inner();
/// use slog2_format::{error::Part, read::parse_block, CategoryMap};
/// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
/// let ptr = r.header().categories;
/// let raw = r.read_raw(ptr, Part::CategoryMap)?.to_vec();
/// let legend = parse_block::<CategoryMap>(&raw, ptr, Part::CategoryMap, (true,))?; // a 2.0.6 file
/// let names = |m: &CategoryMap| m.categories.iter().map(|c| c.name.text()).collect::<Vec<_>>();
/// assert_eq!(names(&legend.value), names(&r.categories().unwrap().value));
/// assert_eq!(legend.ptr, ptr);
/// assert!(parse_block::<CategoryMap>(&raw[..2], ptr, Part::CategoryMap, (true,)).is_err());
/// # Ok::<(), slog2_format::Error>(())
/// ```
pub fn parse_block<T>(
    bytes: &[u8],
    ptr: FileBlockPtr,
    what: Part,
    args: T::Args<'_>,
) -> Result<Parsed<T>>
where
    T: BinRead,
{
    let mut cur = Cursor::new(bytes);
    let value = T::read_options(&mut cur, Endian::Big, args).map_err(|e| {
        Error::from_binrw(e, ptr.offset as u64, what, Within::Block { size: ptr.size })
    })?;
    let used = cur.position() as usize;
    Ok(Parsed {
        value,
        ptr,
        trailing: bytes[used..].to_vec(),
    })
}

impl<R: Read + Seek> Slog2Reader<R> {
    /// Opens a file: reads the header, TreeDir, CategoryMap and LineIDMapList.
    ///
    /// Checks, in this order (spec/slog2.md §14): the header (#1, #2); the
    /// non-NULL header pointers categories, lineIDmaps, treeroot and treedir, in
    /// offset order (#3, reported at 24, 48, 60, 72); then the TreeDir block and
    /// every TreeDir entry pointer (#3: not NULL, inside the file, not larger than
    /// `max_buffer_bytesize`; reported at the entry + 22), the CategoryMap and the
    /// LineIDMapList (#4, #5). The reader validates the nodes it decodes
    /// ([`Validation::Strict`]); see [`with_options`](Self::with_options).
    ///
    /// # Errors
    ///
    /// As [`with_options`](Self::with_options).
    ///
    /// ```
    /// use slog2_format::convert::clog2_to_slog2;
    /// use slog2_format::write::TreeOptions;
    /// use slog2_format::{ReadOptions, Slog2Reader, Validation};
    /// use std::io::Cursor;
    /// let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
    /// let bytes = out.into_inner();
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes[..]))?;
    /// assert!(!r.window(0.0, 10.0)?.drawables.is_empty());
    /// // The same, lenient, allocating at most 1 MiB per block.
    /// let opts = ReadOptions::default().validation(Validation::Lenient).max_block_bytes(1 << 20);
    /// let mut r = Slog2Reader::with_options(Cursor::new(&bytes[..]), opts)?;
    /// assert!(!r.window(0.0, 10.0)?.drawables.is_empty());
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn new(inner: R) -> Result<Self> {
        Self::with_options(inner, ReadOptions::default())
    }

    /// Opens a file as [`new`](Self::new) does, reading as `opts` says.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new); see there for an example.
    ///
    /// ```
    /// # let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default().events(500))?;
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2)?;
    /// # let (out, _) = slog2_format::convert::clog2_to_slog2(&mut trace, std::io::Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::{Error, ReadOptions, Slog2Reader};
    /// let tiny = ReadOptions::default().max_block_bytes(64);
    /// let refused = Slog2Reader::with_options(std::io::Cursor::new(&bytes), tiny).unwrap_err();
    /// assert!(matches!(refused, Error::LimitExceeded { limit: 64, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_options(mut inner: R, opts: ReadOptions) -> Result<Self> {
        let file_len = inner
            .seek(SeekFrom::End(0))
            .map_err(|source| Error::Io { offset: 0, source })?;
        inner
            .seek(SeekFrom::Start(0))
            .map_err(|source| Error::Io { offset: 0, source })?;
        let want = (2 + MAX_VERSION_LEN + HEADER_FIXED_LEN).min(file_len as usize);
        let mut head = vec![0u8; want];
        inner
            .read_exact(&mut head)
            .map_err(|source| Error::Io { offset: 0, source })?;
        let (header, version, header_len) = parse_header(&head)?;
        let mut r = Slog2Reader {
            inner,
            file_len,
            header,
            header_len,
            version,
            tree_dir: None,
            categories: None,
            line_id_maps: None,
            counters: Counters {
                nodes_read: 0,
                bytes_read: header_len,
            },
            buf: Vec::new(),
            plain: Vec::new(),
            node_cache: None,
            legend: Legend::default(),
            validation: opts.validation,
            max_block_bytes: opts.max_block_bytes,
            picture_budget: opts.picture_budget,
            dropped: Dropped::default(),
            window: WindowCache::default(),
        };
        let h = r.header.clone();
        let v = version.is_v206();
        let (cats_at, maps_at, root_at, dir_at) = (
            r.pointer_at(CATEGORIES_AT),
            r.pointer_at(LINEIDMAPS_AT),
            r.pointer_at(TREEROOT_AT),
            r.pointer_at(TREEDIR_AT),
        );
        let fields = [
            (h.categories, Part::CategoryMap, cats_at),
            (h.lineidmaps, Part::LineIdMaps, maps_at),
            (h.treeroot, Part::TreeRoot, root_at),
            (h.treedir, Part::TreeDir, dir_at),
        ];
        for (p, what, at) in fields {
            if !p.is_null() {
                r.check_ptr(p, what, at)?;
            }
        }
        if !h.treedir.is_null() {
            let dir: Parsed<TreeDir> = r.read_parsed(h.treedir, Part::TreeDir, dir_at, ())?;
            let first = h.treedir.offset as u64 + 4;
            for (i, e) in dir.value.entries.iter().enumerate() {
                let at = first + 34 * i as u64 + 22;
                let what = Part::TreeDirEntry(e.id);
                if e.ptr.is_null() {
                    return Err(Error::BadPointer {
                        offset: at,
                        kind: PointerProblem::Null,
                        what,
                        target: e.ptr.offset,
                        size: e.ptr.size,
                        limit: 0,
                    });
                }
                r.check_ptr(e.ptr, what, at)?;
            }
            r.tree_dir = Some(dir);
        }
        if !h.categories.is_null() {
            r.categories = Some(r.read_parsed(h.categories, Part::CategoryMap, cats_at, (v,))?);
        }
        if !h.lineidmaps.is_null() {
            r.line_id_maps = Some(r.read_parsed(h.lineidmaps, Part::LineIdMaps, maps_at, ())?);
        }
        let no_maps_at = if h.lineidmaps.is_null() {
            maps_at
        } else {
            h.lineidmaps.offset as u64
        };
        r.legend = Legend::new(
            r.categories.as_ref().map(|c| &c.value),
            r.line_id_maps.as_ref().map(|m| &m.value),
            no_maps_at,
        );
        Ok(r)
    }

    /// How the nodes this reader decodes are checked (default
    /// [`Validation::Strict`]): every drawable's categories and line IDs must be
    /// in the file's CategoryMap and line-ID maps, its times inside its node's box,
    /// ... (spec/slog2.md §14 #9–#12). [`Validation::Lenient`] drops the
    /// drawables and shadows that fail instead, and counts them in
    /// [`dropped`](Self::dropped); [`Validation::Off`] returns nodes as decoded.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::Validation;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// r.set_validation(Validation::Off);
    /// assert_eq!(r.validation(), Validation::Off);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn set_validation(&mut self, v: Validation) {
        self.validation = v;
    }

    /// Shorthand: [`Validation::Lenient`] if `lenient`, else [`Validation::Strict`].
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::Validation;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// r.set_lenient(true);
    /// assert_eq!(r.validation(), Validation::Lenient);
    /// r.set_lenient(false);
    /// assert_eq!(r.validation(), Validation::Strict);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn set_lenient(&mut self, lenient: bool) {
        self.validation = if lenient {
            Validation::Lenient
        } else {
            Validation::Strict
        };
    }

    /// Where the header pointer that sits at byte `at_206` of a `SLOG 2.0.6`
    /// header (e.g. [`TREEROOT_AT`]) sits in this file (one byte later in a
    /// `SLOG 2.0.6Z` header, whose version string is one byte longer).
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::read::TREEROOT_AT;
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// assert_eq!(r.pointer_at(TREEROOT_AT), TREEROOT_AT); // a 2.0.6 file
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn pointer_at(&self, at_206: u64) -> u64 {
        at_206 + self.header_len - 108
    }

    /// The validation in force.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::{ReadOptions, Validation};
    /// assert_eq!(Slog2Reader::new(Cursor::new(&bytes))?.validation(), Validation::Strict);
    /// let opts = ReadOptions::default().validation(Validation::Off);
    /// assert_eq!(Slog2Reader::with_options(Cursor::new(&bytes), opts)?.validation(), Validation::Off);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn validation(&self) -> Validation {
        self.validation
    }

    /// What a lenient reader has dropped so far, over every node it decoded (a
    /// query's share is the difference before and after it).
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// r.set_lenient(true);
    /// r.window(f64::NEG_INFINITY, f64::INFINITY)?;
    /// assert_eq!(r.dropped(), Default::default()); // an intact file drops nothing
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn dropped(&self) -> Dropped {
        self.dropped
    }

    /// The header.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// assert_eq!(r.header().num_children_per_node, 2);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The header's size on disk.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// assert_eq!(r.header_len(), 108);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn header_len(&self) -> u64 {
        self.header_len
    }

    /// The version.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// assert!(r.version().is_v206() && !r.version().is_compressed());
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn version(&self) -> Version {
        self.version
    }

    /// The file's size.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// assert_eq!(r.file_len(), bytes.len() as u64);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// The TreeDir, if the header points at one.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let dir = &r.tree_dir().unwrap().value;
    /// assert_eq!(dir.root().unwrap().ptr, r.header().treeroot);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn tree_dir(&self) -> Option<&Parsed<TreeDir>> {
        self.tree_dir.as_ref()
    }

    /// The CategoryMap, if the header points at one.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let names: Vec<String> = r.categories().unwrap().value.categories.iter().map(|c| c.name.to_string()).collect();
    /// assert!(names.iter().any(|n| n == "MPI_Send"));
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn categories(&self) -> Option<&Parsed<CategoryMap>> {
        self.categories.as_ref()
    }

    /// The categories of the CategoryMap in file order (what a legend lists;
    /// empty when the header points at no CategoryMap).
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let legend = r.category_list();
    /// assert_eq!(legend.len(), r.categories().unwrap().value.categories.len());
    /// assert!(legend.iter().any(|c| c.name.to_string() == "MPI_Send"));
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn category_list(&self) -> &[Category] {
        self.categories
            .as_ref()
            .map_or(&[], |c| &c.value.categories[..])
    }

    /// The LineIDMapList, if the header points at one.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// assert!(!r.line_id_maps().unwrap().value.maps.is_empty());
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn line_id_maps(&self) -> Option<&Parsed<LineIdMapList>> {
        self.line_id_maps.as_ref()
    }

    /// What has been read so far.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let before = r.counters();
    /// r.window(0.0, 0.001)?;
    /// assert!(r.counters().nodes_read > before.nodes_read);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Checks that `ptr`, stored at byte `at`, can be followed: not NULL, inside
    /// the file, not larger than the header's `max_buffer_bytesize`.
    ///
    /// # Errors
    ///
    /// [`Error::BadPointer`] at `at`, naming `what` and the broken condition.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::{error::{Part, PointerProblem}, Error, FileBlockPtr};
    /// let r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// r.check_ptr(r.header().treedir, Part::TreeDir, 0)?;
    /// let past_end = FileBlockPtr { offset: bytes.len() as i64, size: 16 };
    /// assert!(matches!(
    ///     r.check_ptr(past_end, Part::TreeDir, 60),
    ///     Err(Error::BadPointer { offset: 60, kind: PointerProblem::OutsideFile, .. })
    /// ));
    /// assert!(matches!(
    ///     r.check_ptr(FileBlockPtr::NULL, Part::TreeRoot, 60),
    ///     Err(Error::BadPointer { kind: PointerProblem::Null, .. })
    /// ));
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn check_ptr(&self, ptr: FileBlockPtr, what: Part, at: u64) -> Result<()> {
        let bad = |kind: PointerProblem, limit: i64| Error::BadPointer {
            offset: at,
            kind,
            what,
            target: ptr.offset,
            size: ptr.size,
            limit,
        };
        if ptr.is_null() {
            return Err(bad(PointerProblem::Null, 0));
        }
        if ptr.offset < 0 || (ptr.offset as u64).saturating_add(ptr.size as u64) > self.file_len {
            return Err(bad(
                PointerProblem::OutsideFile,
                i64::try_from(self.file_len).unwrap_or(i64::MAX),
            ));
        }
        if ptr.size.max(0) as u64 > self.max_block_bytes {
            return Err(Error::LimitExceeded {
                offset: at,
                what,
                size: ptr.size.max(0) as u64,
                limit: self.max_block_bytes,
            });
        }
        if ptr.size > self.header.max_buffer_bytesize {
            return Err(bad(
                PointerProblem::TooLarge,
                i64::from(self.header.max_buffer_bytesize),
            ));
        }
        Ok(())
    }

    /// Reads the raw bytes of a block (one read) into the reader's buffer. A
    /// pointer that cannot be followed is reported at the block's own offset (the
    /// pointer's field is not known here).
    ///
    /// # Errors
    ///
    /// [`Error::BadPointer`] at the block's offset when `ptr` cannot be followed (see
    /// [`check_ptr`](Self::check_ptr)), and [`Error::Io`] at the block's offset when
    /// the seek or read fails.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::error::Part;
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let ptr = r.header().treedir;
    /// let raw = r.read_raw(ptr, Part::TreeDir)?;
    /// let at = ptr.offset as usize;
    /// assert_eq!(raw, &bytes[at..at + ptr.size as usize]); // the block's bytes, as stored
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn read_raw(&mut self, ptr: FileBlockPtr, what: Part) -> Result<&[u8]> {
        self.read_raw_at(ptr, what, ptr.offset.max(0) as u64)
    }

    fn read_raw_at(&mut self, ptr: FileBlockPtr, what: Part, ptr_at: u64) -> Result<&[u8]> {
        self.check_ptr(ptr, what, ptr_at)?;
        let at = ptr.offset as u64;
        self.inner
            .seek(SeekFrom::Start(at))
            .map_err(|source| Error::Io { offset: at, source })?;
        self.buf.resize(ptr.size as usize, 0);
        self.inner
            .read_exact(&mut self.buf)
            .map_err(|source| Error::Io { offset: at, source })?;
        self.counters.bytes_read += ptr.size as u64;
        Ok(&self.buf)
    }

    /// Reads bytes that no pointer covers (for lossless copies); bounded by the file.
    ///
    /// # Errors
    ///
    /// I/O errors. A range past the file's end gives the bytes up to it.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// assert_eq!(r.read_gap(0, 10)?, &bytes[..10]);
    /// assert_eq!(r.read_gap(bytes.len() as u64 - 2, 10)?.len(), 2);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn read_gap(&mut self, at: u64, len: u64) -> Result<Vec<u8>> {
        let len = len.min(self.file_len.saturating_sub(at));
        self.inner
            .seek(SeekFrom::Start(at))
            .map_err(|source| Error::Io { offset: at, source })?;
        let mut v = Vec::new();
        (&mut self.inner)
            .take(len)
            .read_to_end(&mut v)
            .map_err(|source| Error::Io { offset: at, source })?;
        Ok(v)
    }

    fn read_parsed<T: BinRead>(
        &mut self,
        ptr: FileBlockPtr,
        what: Part,
        ptr_at: u64,
        args: T::Args<'_>,
    ) -> Result<Parsed<T>> {
        self.read_raw_at(ptr, what, ptr_at)?;
        parse_block(&self.buf, ptr, what, args)
    }

    /// Reads and parses the tree node at `ptr`, then checks its drawables and
    /// shadows as [`set_validation`](Self::set_validation) says (by default an
    /// [`Error::BadDrawable`] for a category or line ID the file cannot resolve, a
    /// time outside the node's box, ...). In a compressed file (`SLOG 2.0.6Z`)
    /// the block is a frame: it is checked, inflated (never past
    /// `max_buffer_bytesize`) and its checksum verified; `bytes_read` counts the
    /// frame's (compressed) bytes, and the node is returned as in a plain file.
    ///
    /// # Errors
    ///
    /// A pointer that cannot be followed, a block that does not parse, and
    /// (unless validation is off) a drawable the file cannot resolve.
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let root = r.read_root()?.value;
    /// for stub in &root.stubs {
    ///     let child = r.read_node(stub.header.ptr)?.value;
    ///     assert_eq!(child.header.id, stub.header.id);
    /// }
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn read_node(&mut self, ptr: FileBlockPtr) -> Result<Parsed<TreeNodeBody>> {
        let mut n = self.read_node_unchecked(ptr, ptr.offset.max(0) as u64)?;
        self.validate_node(&mut n)?;
        Ok(n)
    }

    /// [`read_node`](Self::read_node) without the drawable checks; a pointer
    /// that cannot be followed is reported at `ptr_at`.
    pub(crate) fn read_node_unchecked(
        &mut self,
        ptr: FileBlockPtr,
        ptr_at: u64,
    ) -> Result<Parsed<TreeNodeBody>> {
        let v = self.version.is_v206();
        let n = if self.version.is_compressed() {
            self.read_raw_at(ptr, Part::NodeFrame, ptr_at)?;
            let limit = (self.header.max_buffer_bytesize.max(0) as u64).min(self.max_block_bytes);
            crate::frame::decode(&self.buf, ptr, limit, &mut self.plain)?;
            parse_block(&self.plain, ptr, Part::Node, (v,))?
        } else {
            self.read_parsed(ptr, Part::Node, ptr_at, (v,))?
        };
        self.counters.nodes_read += 1;
        Ok(n)
    }

    /// Reads the tree node block at `ptr` (stored at `ptr_at`) as
    /// [`read_node_unchecked`](Self::read_node_unchecked) does, but only its bytes
    /// (inflated, in a compressed file): into `arena` from byte `used` on (the arena
    /// grows as needed; bytes after `used` are overwritten). Returns their count.
    /// Counts the bytes read but not the node: see [`count_node`](Self::count_node).
    pub(crate) fn read_node_bytes(
        &mut self,
        ptr: FileBlockPtr,
        ptr_at: u64,
        arena: &mut Vec<u8>,
        used: usize,
    ) -> Result<usize> {
        if self.version.is_compressed() {
            if let Some(bytes) = self.node_cache.as_ref().and_then(|c| c.get(ptr.offset)) {
                arena.truncate(used);
                arena.extend_from_slice(&bytes);
                return Ok(bytes.len());
            }
            self.read_raw_at(ptr, Part::NodeFrame, ptr_at)?;
            let limit = (self.header.max_buffer_bytesize.max(0) as u64).min(self.max_block_bytes);
            crate::frame::decode(&self.buf, ptr, limit, &mut self.plain)?;
            if let Some(cache) = &self.node_cache {
                cache.put(ptr.offset, &self.plain);
            }
            arena.truncate(used);
            arena.extend_from_slice(&self.plain);
            return Ok(self.plain.len());
        }
        self.check_ptr(ptr, Part::Node, ptr_at)?;
        let at = ptr.offset as u64;
        let size = ptr.size as usize;
        self.inner
            .seek(SeekFrom::Start(at))
            .map_err(|source| Error::Io { offset: at, source })?;
        let end = used + size;
        if arena.len() < end {
            arena.resize(end, 0);
        }
        self.inner
            .read_exact(&mut arena[used..end])
            .map_err(|source| Error::Io { offset: at, source })?;
        self.counters.bytes_read += ptr.size as u64;
        Ok(size)
    }

    /// Reads bytes `from..to` of the tree node block at `ptr` (stored at
    /// `ptr_at`) into `out`, whose first byte is then byte `shift` of the
    /// node, where `shift` (`from`, or less where the node is shorter) is
    /// returned. A compressed file's node is inflated whole (or found in the
    /// node cache). Counts the bytes read, not the node.
    pub(crate) fn read_node_part(
        &mut self,
        ptr: FileBlockPtr,
        ptr_at: u64,
        (from, to): (usize, usize),
        out: &mut Vec<u8>,
    ) -> Result<usize> {
        if self.version.is_compressed() {
            // Inflated whole (or found so in the node cache); only the part
            // is kept.
            if let Some(bytes) = self.node_cache.as_ref().and_then(|c| c.get(ptr.offset)) {
                let to = to.min(bytes.len());
                let from = from.min(to);
                out.clear();
                out.extend_from_slice(&bytes[from..to]);
                return Ok(from);
            }
            let len = self.read_node_bytes(ptr, ptr_at, out, 0)?;
            let to = to.min(len);
            let from = from.min(to);
            out.copy_within(from..to, 0);
            out.truncate(to - from);
            return Ok(from);
        }
        self.check_ptr(ptr, Part::Node, ptr_at)?;
        let to = to.min(ptr.size.max(0) as usize);
        let from = from.min(to);
        let at = ptr.offset as u64 + from as u64;
        self.inner
            .seek(SeekFrom::Start(at))
            .map_err(|source| Error::Io { offset: at, source })?;
        out.resize(to - from, 0);
        self.inner
            .read_exact(out)
            .map_err(|source| Error::Io { offset: at, source })?;
        self.counters.bytes_read += (to - from) as u64;
        Ok(from)
    }

    /// The cache of nodes this reader shares, if any.
    pub(crate) fn node_cache(&self) -> Option<&std::sync::Arc<crate::NodeCache>> {
        self.node_cache.as_ref()
    }

    /// Keeps the nodes this reader decompresses in `cache`, and takes the ones
    /// it holds from there, so that readers of one compressed file (a
    /// server's) inflate each node once while it stays cached (see
    /// [`NodeCache`](crate::NodeCache)); a compressed node found there counts
    /// as read ([`Counters::nodes_read`]) but reads no bytes
    /// ([`Counters::bytes_read`]). Any reader, plain or compressed, also keeps
    /// there what its window queries found in upper nodes (their drawables'
    /// and stubs' places, spec/queries.md §2.2 step 7): a later query that
    /// reaches such a node counts it as read and reads only the byte ranges
    /// of the drawables and stub shadows it shows.
    ///
    /// The cache must hold nodes of this file only (the key is the node's
    /// offset).
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// use slog2_format::NodeCache;
    /// use std::sync::Arc;
    /// let cache = Arc::new(NodeCache::new(1 << 20));
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// r.set_node_cache(cache.clone());
    /// let first = r.window(f64::NEG_INFINITY, f64::INFINITY)?;
    /// // A second reader of the same file shares what the first one found.
    /// let mut again = Slog2Reader::new(Cursor::new(&bytes))?;
    /// again.set_node_cache(cache.clone());
    /// assert_eq!(again.window(f64::NEG_INFINITY, f64::INFINITY)?.drawables, first.drawables);
    /// assert!(!cache.is_empty());
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn set_node_cache(&mut self, cache: std::sync::Arc<crate::NodeCache>) {
        self.node_cache = Some(cache);
    }

    /// The bytes of breadth a picture query may read
    /// ([`ReadOptions::picture_budget`]).
    pub(crate) fn picture_budget(&self) -> u64 {
        self.picture_budget
    }

    /// What window queries keep between queries (the TreeDir index and their
    /// buffers); [`crate::window`] owns what it holds.
    pub(crate) fn window_cache(&mut self) -> &mut WindowCache {
        &mut self.window
    }

    /// Counts a node read with [`read_node_bytes`](Self::read_node_bytes) and
    /// decoded.
    pub(crate) fn count_node(&mut self) {
        self.counters.nodes_read += 1;
    }

    /// What the drawables of the nodes read are checked against.
    pub(crate) fn legend(&self) -> &Legend {
        &self.legend
    }

    /// The drawable checks of [`read_node`](Self::read_node), on a node read
    /// with `read_node_unchecked`.
    pub(crate) fn validate_node(&mut self, n: &mut Parsed<TreeNodeBody>) -> Result<()> {
        crate::validate::node(
            &mut n.value,
            n.ptr.offset as u64,
            self.version.is_v206(),
            &self.legend,
            self.validation,
            &mut self.dropped,
        )
    }

    /// Reads the root node.
    ///
    /// # Errors
    ///
    /// As [`read_node`](Self::read_node).
    ///
    /// ```
    /// # use slog2_format::convert::clog2_to_slog2;
    /// # use slog2_format::Slog2Reader;
    /// # use std::io::Cursor;
    /// # let clog2 = clog2_format::synth::generate_vec(&Default::default()).unwrap();
    /// # let mut trace = clog2_format::Clog2Reader::from_slice(&clog2).unwrap();
    /// # let (out, _) = clog2_to_slog2(&mut trace, Cursor::new(Vec::new()), Default::default(), |_| {})?;
    /// # let bytes = out.into_inner();
    /// let mut r = Slog2Reader::new(Cursor::new(&bytes))?;
    /// let root = r.read_root()?;
    /// assert_eq!(root.value.header.id.depth, r.header().max_treedepth);
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn read_root(&mut self) -> Result<Parsed<TreeNodeBody>> {
        let p = self.header.treeroot;
        let mut n = self.read_node_unchecked(p, self.pointer_at(TREEROOT_AT))?;
        self.validate_node(&mut n)?;
        Ok(n)
    }
}

/// Offset of the categories pointer in a `SLOG 2.0.6` header (see
/// [`Slog2Reader::pointer_at`] for other versions).
pub const CATEGORIES_AT: u64 = 24;
/// Offset of the lineIDmaps pointer in a `SLOG 2.0.6` header.
pub const LINEIDMAPS_AT: u64 = 48;
/// Offset of the treeroot pointer in a `SLOG 2.0.6` header.
pub const TREEROOT_AT: u64 = 60;
/// Offset of the treedir pointer in a `SLOG 2.0.6` header.
pub const TREEDIR_AT: u64 = 72;
