//! Building SLOG-2 files: CLOG2 events to drawables ([`events`]), old CLOG
//! events to drawables ([`clog_events`]), the one-pass tree writer ([`tree`])
//! with its shadows, and the converters that join them ([`convert`],
//! [`clog_convert`]). See spec/conversion.md §2–§5.
//!
//! ```
//! use slog2_format::build::{clog2_to_slog2, TreeOptions};
//! use slog2_format::Slog2Reader;
//! use std::io::Cursor;
//!
//! let clog2 = clog2_format::synth::generate_vec(&clog2_format::synth::Options::default()
//!     .ranks(2)
//!     .events(2000)
//!     .seed(1)
//!     .block_size(4096))?;
//! let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
//! let (out, stats) = clog2_to_slog2(&mut reader, Cursor::new(Vec::new()), TreeOptions::default(), |_| {})?;
//! assert_eq!(stats.unmatched.java_count, 0);
//!
//! let mut slog2 = Slog2Reader::new(Cursor::new(out.into_inner()))?;
//! let (t0, t1) = stats.tree.time_range;
//! let answer = slog2.window(t0, (t0 + t1) / 2.0)?; // reads only the nodes that meet it
//! assert!(!answer.drawables.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod alog;
pub mod clog_convert;
pub mod clog_events;
pub mod colors;
pub mod convert;
pub mod events;
pub mod names;
mod node;
pub mod otf2;
pub mod prim;
pub mod prim_sink;
pub mod reframe;
mod shadow;
mod sink;
pub mod slog1;
pub mod tree;

pub use alog::{alog_into, alog_to_slog2};
pub use clog_convert::{clog_into, clog_records_into, clog_records_to_slog2, clog_to_slog2};
pub use clog_events::ClogDrawables;
pub use convert::{clog2_into, clog2_to_slog2, ConvertStats};
pub use events::{Clog2Drawables, Partial, Unmatched};
pub use prim::Prim;
pub use prim_sink::{PairStats, PrimSink};
pub use reframe::{reframe, ReframeStats};
pub use slog1::{slog1_into, slog1_to_slog2};
pub use tree::{TreeOptions, TreeStats, TreeWriter};
