//! Building SLOG-2 files: CLOG2 events to drawables ([`events`]), the one-pass
//! tree writer ([`tree`]) with its shadows, and the converter that joins them
//! ([`convert`]). See spec/slog2.md §16.

pub mod clog1_convert;
pub mod clog1_events;
pub mod colors;
pub mod convert;
pub mod events;
pub mod prim;
mod shadow;
pub mod tree;

pub use clog1_convert::{clog_records_to_slog2, clog_to_slog2};
pub use clog1_events::ClogDrawables;
pub use convert::{clog2_to_slog2, ConvertStats};
pub use events::{Clog2Drawables, Unmatched};
pub use prim::Prim;
pub use tree::{TreeOptions, TreeStats, TreeWriter};
