//! Writing SLOG-2 files, the mirror of [`crate::read`]: the one-pass tree writer
//! ([`TreeWriter`], spec/conversion.md §3) with its nodes, shadows and sinks;
//! the primitives it takes ([`Prim`]) and where a conversion's primitives go
//! ([`PrimSink`]); rewriting a file's node storage ([`reframe()`]); and changing a
//! file's version in place ([`update`], 2.0.5 ↔ 2.0.6).
//!
//! ```
//! use slog2_format::types::{topology, Category, JStr};
//! use slog2_format::write::{identity_map, Prim, TreeOptions, TreeWriter};
//! use slog2_format::Slog2Reader;
//! use std::io::Cursor;
//!
//! // One state of category 1 on timeline 0, from 0 s to 1 s.
//! let mut w = TreeWriter::new(Cursor::new(Vec::new()), TreeOptions::default())?;
//! w.add(Prim::two(1, topology::STATE, (0.0, 0), (1.0, 0), &[]))?;
//! let compute = Category {
//!     index: 1,
//!     name: JStr::new("Compute"),
//!     topology: topology::STATE,
//!     argb: [255, 0, 0, 255],
//!     modifiable: 1,
//!     width: 1,
//!     keys: Vec::new(),
//!     types: Vec::new(),
//!     methods: Vec::new(),
//!     summary: None,
//! };
//! let (out, stats) = w.finish(&[compute], vec![identity_map([0])])?;
//! assert_eq!(stats.drawables, 1);
//! let mut r = Slog2Reader::new(Cursor::new(out.into_inner()))?;
//! assert_eq!(r.window(0.0, 1.0)?.drawables.len(), 1);
//! # Ok::<(), slog2_format::Error>(())
//! ```

mod node;
pub mod prim;
pub mod prim_sink;
pub mod reframe;
mod shadow;
mod sink;
pub mod tree;
pub mod update;

pub use prim::Prim;
pub use prim_sink::PrimSink;
pub use reframe::{reframe, ReframeStats};
pub use tree::{identity_map, one_column_map, TreeOptions, TreeStats, TreeWriter};
