//! Bounds on what a reader allocates from fields it has not yet checked.

/// Upper bounds the readers enforce; a field above one gives
/// [`Error::Limit`](crate::Error::Limit) instead of an allocation.
///
/// ```
/// let l = otf2_format::Limits::default().max_chunk_bytes(1 << 20);
/// assert_eq!(l.chunk_bytes, 1 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest chunk size an anchor file may declare (libotf2 allows 256 KiB
    /// to 16 MiB; default 64 MiB). A reader holds at most one window of a
    /// chunk per location, and a window grows past
    /// [`window_bytes`](Limits::window_bytes) only for a record that long.
    pub chunk_bytes: u64,
    /// Bytes a per-location reader fetches at a time (default 64 KiB).
    pub window_bytes: usize,
    /// Most definition records kept from the global definitions (default
    /// 50 million).
    pub definitions: u64,
    /// Most locations an archive may define (default 1 million).
    pub locations: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            chunk_bytes: 64 << 20,
            window_bytes: 64 << 10,
            definitions: 50_000_000,
            locations: 1_000_000,
        }
    }
}

impl Limits {
    /// Sets [`chunk_bytes`](Limits::chunk_bytes).
    ///
    /// ```
    /// let l = otf2_format::Limits::default().max_chunk_bytes(1 << 20);
    /// assert_eq!(l.chunk_bytes, 1 << 20);
    /// ```
    pub fn max_chunk_bytes(mut self, bytes: u64) -> Self {
        self.chunk_bytes = bytes;
        self
    }

    /// Sets [`window_bytes`](Limits::window_bytes) (at least 64).
    ///
    /// ```
    /// let l = otf2_format::Limits::default();
    /// assert_eq!(l.window(4096).window_bytes, 4096);
    /// assert_eq!(l.window(10).window_bytes, 64);
    /// ```
    pub fn window(mut self, bytes: usize) -> Self {
        self.window_bytes = bytes.max(64);
        self
    }
}
