//! The `mpelog` package: the `mpelog` command-line tool (its source is the `mpelog`
//! binary of this package, a thin shell over the format crates and over this
//! library). The library holds what the commands do beyond one format (export,
//! filter, stats, render, serve, remote windows, CUBE4 reports) and how they treat files
//! (`output`: atomic, never over an input; `input`: standard input; `signals`:
//! no temporary file left behind), and the README, so that every code example
//! in it is compiled and run by `cargo test --doc`.
#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
pub mod compare;
pub mod convert;
pub mod cube;
pub mod export;
pub mod filter;
pub mod input;
pub mod items;
pub mod json_text;
pub mod names;
pub mod output;
pub mod remote;
pub mod render;
pub mod search;
#[cfg(feature = "serve")]
pub mod serve;
pub mod signals;
pub mod slices;
pub mod stats;
pub mod summary;
pub mod trace;
pub mod waits;

pub use trace::Trace;
