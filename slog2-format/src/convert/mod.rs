//! Converting to SLOG-2: one module per input format, named after it
//! ([`clog2`], [`clog`], [`alog`], [`slog1`], [`otf2`]), each turning its format's events
//! into drawables as MPE's Java converters make them and placing them with the
//! one-pass tree writer of [`crate::write`]. See spec/conversion.md §2–§7.
//!
//! Every converter has two entry points with one signature: `X_to_slog2`
//! writes a SLOG-2 file and gives back the writer and a [`ConvertStats`];
//! `X_into` feeds the same primitives to any
//! [`PrimSink`](crate::write::PrimSink) and gives back its output and a
//! [`PairStats`].
//!
//! ```
//! use slog2_format::convert::clog2_to_slog2;
//! use slog2_format::write::TreeOptions;
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
mod category;
pub mod clog;
pub mod clog2;
pub mod colors;
pub mod names;
pub mod otf2;
pub mod pairing;
pub mod slog1;
pub mod stats;

pub use alog::{alog_into, alog_to_slog2};
pub use clog::events::ClogDrawables;
pub use clog::{clog_into, clog_to_slog2};
pub use clog2::events::{
    arrow_category, Clog2Drawables, Partial, Unmatched, WaitingMessage, ARROW_CATEGORY,
};
pub use clog2::{clog2_into, clog2_survey, clog2_to_slog2, Clog2Survey};
pub use otf2::{otf2_into, otf2_to_slog2};
pub use slog1::{slog1_into, slog1_to_slog2};
pub use stats::{ConvertStats, PairStats};
