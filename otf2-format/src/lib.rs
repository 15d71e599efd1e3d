//! A reader for OTF2 trace archives (Score-P's format, also read by Vampir,
//! Scalasca and TAU) as libotf2 2.x and 3.x write them, without the C
//! library. The normative description is `spec/otf2.md` in the mpelog
//! repository.
//!
//! An archive is an anchor file (`traces.otf2`, [`Anchor`]), global
//! definitions (`traces.def`, [`Definitions`]) and, per location, a
//! definition file (`traces/N.def`, [`LocalDefs`]: mapping tables, clock
//! offsets) and an event file (`traces/N.evt`, [`LocationEvents`]). Every
//! file but the anchor is a sequence of fixed-size chunks of records in
//! either byte order; integers are mostly compressed (a length byte, then
//! the significant bytes).
//!
//! Entry points, the same as in every mpelog format crate:
//!
//! | job | entry point |
//! |---|---|
//! | detect | [`looks_like`] (an anchor file's first bytes), [`archive::find_anchor`] |
//! | open an archive | [`Archive::open`], [`Archive::with_limits`] ([`Limits`]) |
//! | stream one location | [`Archive::location_events`] ([`LocationEvents`]: bounded memory) |
//! | stream all, in time order | [`Archive::events`] ([`Merged`]) |
//! | dump as `otf2-print` does | [`dump::Dumper`] |
//! | parse bytes in memory | [`Anchor::parse`], [`Definitions::read`], [`LocalDefs::read`], [`LocationEvents::new`] with a [`MemSource`] |
//!
//! Every parser is total: any bytes give a value or an [`Error`] naming the
//! file and byte offset, never a panic, and no allocation is sized by an
//! unchecked field.
//!
//! ```
//! use otf2_format::{Archive, EventKind};
//! let archive = Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny/traces.otf2"))?;
//! let mut enters = 0;
//! for e in archive.events()? {
//!     if let EventKind::Enter { region } = e?.kind {
//!         assert_eq!(archive.defs.string(archive.defs.regions[&region].name), "foo");
//!         enters += 1;
//!     }
//! }
//! assert_eq!(enters, 1);
//! # Ok::<(), otf2_format::Error>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod anchor;
pub mod archive;
mod decode;
pub mod defs;
pub mod dump;
pub mod error;
pub mod event;
pub mod events;
pub mod limits;
pub mod local;
pub mod merge;
pub mod source;
pub mod stream;

pub use anchor::{looks_like, Anchor};
pub use archive::Archive;
pub use decode::Endian;
pub use defs::Definitions;
pub use error::{Error, Result};
pub use event::{Attribute, Event, EventKind, Value};
pub use events::LocationEvents;
pub use limits::Limits;
pub use local::LocalDefs;
pub use merge::Merged;
pub use source::{FileSource, MemSource, Source};
