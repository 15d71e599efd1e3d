//! What a reader has read: the counters of [`Slog2Reader::counters`](crate::Slog2Reader::counters)
//! and of each window answer.

/// How much a reader has read.
///
/// ```
/// let c = slog2_format::Counters::default();
/// assert_eq!((c.nodes_read, c.bytes_read), (0, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Tree nodes read.
    pub nodes_read: u64,
    /// Bytes read from the file (header and every block).
    pub bytes_read: u64,
}

impl Counters {
    /// What was read between `before` and `self` (both taken from one reader).
    ///
    /// ```
    /// use slog2_format::Counters;
    /// let before = Counters { nodes_read: 1, bytes_read: 100 };
    /// let after = Counters { nodes_read: 4, bytes_read: 700 };
    /// assert_eq!(after.since(before), Counters { nodes_read: 3, bytes_read: 600 });
    /// ```
    pub fn since(self, before: Counters) -> Counters {
        Counters {
            nodes_read: self.nodes_read.saturating_sub(before.nodes_read),
            bytes_read: self.bytes_read.saturating_sub(before.bytes_read),
        }
    }
}
