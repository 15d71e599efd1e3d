//! The SLOG-2 versions this crate reads (the header's version string).

/// The SLOG-2 versions this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// `SLOG 2.0.5`: no category summaries, 12-byte category weights.
    V205,
    /// `SLOG 2.0.6`: the version Jumpshot-4 reads.
    V206,
    /// `SLOG 2.0.6Z`: 2.0.6 with each tree node in a compression frame (our
    /// extension, spec/slog2-compressed.md; Jumpshot-4 refuses it).
    V206Z,
}

impl Version {
    /// The version string.
    ///
    /// ```
    /// use slog2_format::Version;
    /// assert_eq!(Version::V206.as_str(), "SLOG 2.0.6");
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Version::V205 => "SLOG 2.0.5",
            Version::V206 => "SLOG 2.0.6",
            Version::V206Z => "SLOG 2.0.6Z",
        }
    }

    /// Whether the 2.0.6 layouts apply (summaries and weight counts present).
    ///
    /// ```
    /// use slog2_format::Version;
    /// assert!(Version::V206.is_v206() && !Version::V206.is_compressed());
    /// # Ok::<(), slog2_format::Error>(())
    /// ```
    pub fn is_v206(self) -> bool {
        self != Version::V205
    }

    /// Whether tree nodes are in compression frames.
    pub fn is_compressed(self) -> bool {
        self == Version::V206Z
    }
}
