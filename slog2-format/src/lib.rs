//! SLOG-2, the trace format of Jumpshot-4: declarative layouts, a random-access
//! reader and a lossless writer. See `spec/slog2.md` in the mpelog repository.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod build;
pub mod check;
mod columns;
pub mod dump;
pub mod error;
pub mod file;
pub mod frame;
pub mod info;
pub mod read;
pub mod size;
pub mod slog1;
pub mod types;
pub mod update;
pub mod validate;
pub mod window;

pub use error::{Error, Result};
pub use file::{FileBlock, Slog2File};
pub use read::{Counters, Dropped, Parsed, Slog2Reader, Validation, Version};
pub use types::*;
pub use window::{
    node_read_bound, DrawableRef, NotStorable, PrimitiveRef, ShadowRef, TimeWindow, WindowAnswer,
    WindowBuf,
};
