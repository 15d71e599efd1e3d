//! The parts of a file that the file-level rules read: the header and the three
//! blocks a reader parses on opening. The rules take these, not the reader.

use crate::read::{Parsed, Slog2Reader, Version};
use crate::types::*;
use std::io::{Read, Seek};

/// The header, version and opening blocks of a SLOG-2 file, borrowed: all that
/// `check`'s file-level rules (and a window query's refusal of a file that
/// breaks one) look at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileParts<'a> {
    /// The header.
    pub(crate) header: &'a Header,
    /// Its length in bytes (the version string is of variable length).
    pub(crate) header_len: u64,
    /// The version.
    pub(crate) version: Version,
    /// The CategoryMap, if it could be read.
    pub(crate) categories: Option<&'a Parsed<CategoryMap>>,
    /// The line-ID map list, if it could be read.
    pub(crate) line_id_maps: Option<&'a Parsed<LineIdMapList>>,
    /// The TreeDir, if it could be read.
    pub(crate) tree_dir: Option<&'a Parsed<TreeDir>>,
}

impl<'a> FileParts<'a> {
    /// The parts that `r` read on opening.
    pub(crate) fn of<R: Read + Seek>(r: &'a Slog2Reader<R>) -> FileParts<'a> {
        FileParts {
            header: r.header(),
            header_len: r.header_len(),
            version: r.version(),
            categories: r.categories(),
            line_id_maps: r.line_id_maps(),
            tree_dir: r.tree_dir(),
        }
    }

    /// The offset of a header field at `at_206` in a 2.0.6 header (see
    /// [`Slog2Reader::pointer_at`]).
    pub(crate) fn pointer_at(&self, at_206: u64) -> u64 {
        at_206 + self.header_len - 108
    }
}
