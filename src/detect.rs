//! The formats' names on the command line: the one format enum of the
//! workspace ([`mpelog_conformance::Format`]; detection is
//! [`mpelog::trace::detect`]; the names `--format` and extensions give it are
//! [`mpelog::convert::format_named`]).

pub use mpelog_conformance::Format;
