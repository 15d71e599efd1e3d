//! The `mpelog` package: the `mpelog` command-line tool (its source is the `mpelog`
//! binary of this package). This library target holds the README, so that every
//! code example in it is compiled and run by `cargo test --doc`.
#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod export;
pub mod filter;
pub mod items;
pub mod remote;
pub mod render;
pub mod serve;
pub mod slices;
pub mod stats;
