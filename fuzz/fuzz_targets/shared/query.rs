//! The input form of the targets that query a file (slog2_window,
//! trace_columns): the file, then 17 bytes of query.

/// The file and its query: the window (two big-endian f64) and one byte
/// (a pixel count, a selection); `None` below 17 bytes.
pub fn file_and_query(data: &[u8]) -> Option<(&[u8], f64, f64, u8)> {
    let at = data.len().checked_sub(17)?;
    let (file, q) = data.split_at(at);
    let f = |i: usize| q.get(i..i + 8)?.try_into().ok().map(f64::from_be_bytes);
    Some((file, f(0)?, f(8)?, *q.get(16)?))
}
