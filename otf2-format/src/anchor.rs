//! The anchor file (`traces.otf2`): version, chunk sizes, substrate,
//! compression, counts, creator and properties (spec/otf2.md §4).

use crate::decode::{Cur, Endian};
use crate::error::{Error, Feature, Problem, Result};
use std::path::Path;

/// Largest anchor file read (bytes).
pub const MAX_ANCHOR_BYTES: u64 = 16 << 20;

/// What an anchor file says.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Anchor {
    /// Byte order of the anchor's chunk.
    pub endian: Endian,
    /// Anchor format (1 to 3 known; later ones only append fields).
    pub anchor_format: u8,
    /// Trace format version.
    pub trace_format: u8,
    /// libotf2 version that wrote the archive (major, minor, bugfix).
    pub version: (u8, u8, u8),
    /// Chunk size of event files (bytes).
    pub chunk_size_events: u64,
    /// Chunk size of definition files (bytes).
    pub chunk_size_defs: u64,
    /// File substrate: 1 POSIX, 2 SION, 3 NONE.
    pub substrate: u8,
    /// Compression: 1 none, 2 zlib.
    pub compression: u8,
    /// Number of locations.
    pub locations: u64,
    /// Number of global definition records.
    pub global_defs: u64,
    /// Machine name.
    pub machine: String,
    /// Creator (for example `Score-P 7.1`).
    pub creator: String,
    /// Description.
    pub description: String,
    /// Properties (name, value), anchor format 2 on.
    pub properties: Vec<(String, String)>,
    /// Trace identifier, anchor format 2 on.
    pub trace_id: u64,
    /// Number of snapshots, anchor format 3 on.
    pub snapshots: u32,
    /// Number of thumbnails, anchor format 3 on.
    pub thumbnails: u32,
}

/// Whether `data` starts like an OTF2 anchor file (chunk header, then `OTF2\0`).
///
/// ```
/// assert!(otf2_format::looks_like(b"\x03\x42OTF2\0\x03"));
/// assert!(!otf2_format::looks_like(b"CLOG-02.44"));
/// ```
pub fn looks_like(data: &[u8]) -> bool {
    data.len() >= 7 && data[0] == 3 && matches!(data[1], 0x23 | 0x42) && &data[2..7] == b"OTF2\0"
}

impl Anchor {
    /// Parses an anchor file's bytes; `file` names it in errors.
    ///
    /// # Errors
    /// [`Error::Invalid`] or [`Error::Truncated`] for bytes that are not an
    /// anchor file; [`Error::Unsupported`] for zlib compression or the SION
    /// substrate.
    ///
    /// ```
    /// let a = otf2_format::Anchor::parse(&std::fs::read(
    ///     concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny/traces.otf2"))?,
    ///     std::path::Path::new("traces.otf2"))?;
    /// assert_eq!(a.version.0, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(data: &[u8], file: &Path) -> Result<Anchor> {
        if data.len() < 2 {
            return Err(Error::truncated(file, 0, "chunk header"));
        }
        if data[0] != 3 {
            return Err(Error::invalid(file, 0, Problem::NotAnchor));
        }
        let endian = Endian::from_byte(data[1])
            .ok_or_else(|| Error::invalid(file, 1, Problem::Endianness(data[1])))?;
        let mut c = Cur::new(&data[2..], 2, endian, file);
        let at = c.offset();
        if c.string("magic")? != "OTF2" {
            return Err(Error::invalid(file, at, Problem::Magic));
        }
        let at = c.offset();
        let anchor_format = c.u8("anchor format")?;
        if anchor_format == 0 {
            return Err(Error::invalid(file, at, Problem::AnchorFormat));
        }
        let trace_format = c.u8("trace format")?;
        let version = (c.u8("version")?, c.u8("version")?, c.u8("version")?);
        let chunk_size_events = c.u64_full("event chunk size")?;
        let chunk_size_defs = c.u64_full("definition chunk size")?;
        let at = c.offset();
        let substrate = c.u8("file substrate")?;
        match substrate {
            1 | 3 => {}
            2 => return Err(unsupported(file, at, Feature::Sion)),
            s => return Err(Error::invalid(file, at, Problem::Substrate(s))),
        }
        let at = c.offset();
        let compression = c.u8("compression")?;
        match compression {
            1 => {}
            2 => return Err(unsupported(file, at, Feature::Zlib)),
            s => return Err(Error::invalid(file, at, Problem::Compression(s))),
        }
        let locations = c.u64_full("number of locations")?;
        let global_defs = c.u64_full("number of global definitions")?;
        let machine = c.string("machine name")?;
        let creator = c.string("creator")?;
        let description = c.string("description")?;
        let mut a = Anchor {
            endian,
            anchor_format,
            trace_format,
            version,
            chunk_size_events,
            chunk_size_defs,
            substrate,
            compression,
            locations,
            global_defs,
            machine,
            creator,
            description,
            properties: Vec::new(),
            trace_id: 0,
            snapshots: 0,
            thumbnails: 0,
        };
        if anchor_format > 1 {
            let n = c.u32_full("number of properties")?;
            for _ in 0..n {
                let name = c.string("property name")?;
                let value = c.string("property value")?;
                a.properties.push((name, value));
            }
            a.trace_id = c.u64_full("trace identifier")?;
        }
        if anchor_format > 2 {
            a.snapshots = c.u32_full("number of snapshots")?;
            a.thumbnails = c.u32_full("number of thumbnails")?;
        }
        Ok(a)
    }
}

fn unsupported(file: &Path, offset: u64, what: Feature) -> Error {
    Error::Unsupported {
        file: file.to_path_buf(),
        offset,
        what,
    }
}
