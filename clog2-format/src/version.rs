//! The CLOG2 version strings MPE wrote, and what each one changes in the layout.

use std::fmt;

/// A CLOG2 format version, from the first preamble token.
///
/// `CLOG-02.42` was never used by MPE; the unversioned early "CLOG 2.0" of 2004 has no
/// preamble and is not supported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// `CLOG-02.10` (2004-09): 16-byte record header, old message/collective/comm bodies.
    V2_10,
    /// `CLOG-02.20` (2005-01): same bytes as 02.10.
    V2_20,
    /// `CLOG-02.30` (2005-09): 24-byte header with communicator, rank and thread; UUIDs.
    V2_30,
    /// `CLOG-02.40` (2005-10): event-ID ranges in the preamble.
    V2_40,
    /// `CLOG-02.41` (2005-12): known solo event IDs in the preamble.
    V2_41,
    /// `CLOG-02.43` (2006-04): `is_finalzed`, `max_comm_world_size`, comm table.
    V2_43,
    /// `CLOG-02.44` (2006-10): `max_thread_count`. The final version.
    V2_44,
}

impl Version {
    /// Every supported version, oldest first.
    pub const ALL: [Version; 7] = [
        Version::V2_10,
        Version::V2_20,
        Version::V2_30,
        Version::V2_40,
        Version::V2_41,
        Version::V2_43,
        Version::V2_44,
    ];

    /// The version token as written in the preamble.
    ///
    /// ```
    /// assert_eq!(clog2_format::Version::V2_44.as_str(), "CLOG-02.44");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V2_10 => "CLOG-02.10",
            Version::V2_20 => "CLOG-02.20",
            Version::V2_30 => "CLOG-02.30",
            Version::V2_40 => "CLOG-02.40",
            Version::V2_41 => "CLOG-02.41",
            Version::V2_43 => "CLOG-02.43",
            Version::V2_44 => "CLOG-02.44",
        }
    }

    /// Parses a version token; it must match exactly.
    ///
    /// ```
    /// use clog2_format::Version;
    /// assert_eq!(Version::from_token(b"CLOG-02.30"), Some(Version::V2_30));
    /// assert_eq!(Version::from_token(b"CLOG-02.42"), None); // never used by MPE
    /// ```
    pub fn from_token(token: &[u8]) -> Option<Version> {
        Version::ALL
            .into_iter()
            .find(|v| v.as_str().as_bytes() == token)
    }

    /// Size of the record header: 16 bytes before 02.30, 24 from 02.30 on.
    ///
    /// ```
    /// use clog2_format::Version;
    /// assert_eq!((Version::V2_20.header_len(), Version::V2_30.header_len()), (16, 24));
    /// ```
    pub fn header_len(self) -> usize {
        if self.has_legacy_header() {
            16
        } else {
            24
        }
    }

    /// Whether records use the 16-byte `time, rectype, procID` header and the old
    /// message, collective and communicator bodies (02.10 and 02.20).
    ///
    /// ```
    /// use clog2_format::Version;
    /// assert!(Version::V2_10.has_legacy_header() && !Version::V2_44.has_legacy_header());
    /// ```
    pub fn has_legacy_header(self) -> bool {
        self <= Version::V2_20
    }

    /// Whether the file ends with a comm table located by `commtable_fptr` (02.43 on).
    ///
    /// ```
    /// use clog2_format::Version;
    /// assert!(Version::V2_43.has_comm_table() && !Version::V2_41.has_comm_table());
    /// ```
    pub fn has_comm_table(self) -> bool {
        self >= Version::V2_43
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
