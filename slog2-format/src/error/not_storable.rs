//! What a window buffer cannot hold.

/// What a [`WindowBuf`](crate::WindowBuf) cannot hold: more than `u32::MAX`
/// vertices, info bytes, parts or weights in all (it indexes them with 32
/// bits), an item with more vertices or parts than a SLOG-2 file can store
/// (`i16::MAX`), or an info [`JStr`](crate::types::JStr) whose byte count is
/// not `max(len, 0)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotStorable;

impl std::fmt::Display for NotStorable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the window answer does not fit a WindowBuf")
    }
}

impl std::error::Error for NotStorable {}
