//! Proptest strategies that generate valid traces of every format, shared by the
//! property tests of every crate of the workspace (they depend on this crate as a
//! dev-dependency; integration tests link the same codec crates, so the types
//! match).
//!
//! One module per format. Each gives strategies for the format's values (records,
//! tables, options) and for whole files as bytes, plus the plain functions that
//! turn generated values into bytes:
//!
//! * [`clog2`]: CLOG2 records of every type for every version (legacy bodies for
//!   the versions with legacy headers), comm tables, whole files as
//!   [`clog2::Case`]s `(Version, is_big_endian, block_size, records, comm)` and
//!   as bytes ([`clog2::file`]); [`clog2::ordered_file`], files whose records are
//!   in time order and make at least one drawable, so they also convert to
//!   SLOG-2; options for MPE-like traces from `clog2_format::synth`
//!   ([`clog2::synth_options`]) and those traces as bytes ([`clog2::trace`]).
//! * [`clog`]: old (MPE1) CLOG records of every type, unknown types included,
//!   block sizes and fills, and whole files ([`clog::file`]) that read back with
//!   the block size inferred and convert to SLOG-2.
//! * [`alog`]: ALOG timestamps, comments and records, and whole canonical files
//!   ([`alog::file`]) that parse and convert to SLOG-2.
//! * [`slog2`]: tree options (leaf size, children, compression), SLOG-2 files
//!   made by converting generated CLOG2 traces under random tree options, plain
//!   ([`slog2::plain_file`]) or with compressed nodes
//!   ([`slog2::compressed_file`]), and query windows placed relative to a
//!   file's time range ([`slog2::RelWindow`]).
//! * [`slog1`]: build inputs for `slog2_format::slog1::build` (threads, display
//!   profile, record definitions, interval records of every record type) and
//!   the SLOG-1 files built from them ([`slog1::file`]).
//! * [`annotation`]: options for `mpelog_annotate::annotate`, and a generated
//!   CLOG2 trace with its annotation bytes ([`annotation::annotated_trace`]).
//!
//! Every "file" strategy gives bytes that `mpelog_conformance::detect` names as
//! their format and on which every entry point `mpelog_conformance::exercise`
//! runs gives a value (`conformance/tests/strategies.rs` checks this), except
//! [`clog2::file`], whose arbitrary records (non-finite times, any order) read
//! back losslessly but do not convert.
//!
//! Generating a SLOG-2 file or an annotation runs the generator and the
//! converter; property tests that need the inputs as well (the trace, the tree
//! options) should draw the options ([`clog2::synth_options`],
//! [`slog2::tree_options`], [`annotation::annotate_options`]) and build the
//! files in the test body with [`clog2::generate`], [`slog2::convert`] and
//! [`annotation::annotate`]: a failing case then prints its options, not
//! megabytes of bytes.

pub mod alog;
pub mod annotation;
pub mod clog;
pub mod clog2;
pub mod slog1;
pub mod slog2;
