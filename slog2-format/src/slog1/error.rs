//! SLOG-1's own errors; every error about input bytes names the byte offset.

mod read_problem;
mod write_problem;

pub use read_problem::ReadProblem;
pub use write_problem::{RecordProblem, WriteProblem};

use super::read::Part;

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong reading or writing SLOG-1. The row of spec/slog1.md §13
/// that a rejected file breaks comes with
/// [`Slog1File::parse_or_reject`](super::Slog1File::parse_or_reject)
/// ([`Rejection`](super::Rejection)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The underlying reader or writer failed.
    #[error("byte {offset}: I/O error: {source}")]
    Io {
        /// Offset of the operation.
        offset: u64,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A structure ends before its fields do.
    #[error("byte {offset}: {}", self.detail())]
    Truncated {
        /// Offset where the structure starts (for a file shorter than its
        /// header, the file's length).
        offset: u64,
        /// What was being read.
        part: Part,
        /// The length of the bytes it lies in: the file's, or for a frame, the
        /// end of the frame the directory names.
        end: u64,
    },
    /// A value the format forbids (a bad version, count, pointer, record, ...).
    #[error("byte {offset}: {}", self.detail())]
    BadValue {
        /// Offset of the value.
        offset: u64,
        /// The section or frame it was found in, when it was found reading one.
        part: Option<Part>,
        /// What is wrong.
        problem: ReadProblem,
    },
    /// The file cannot be written as asked (frames and directory entries that do
    /// not pair up, overlapping sections, a result that would not read back, ...).
    #[error("{}", self.detail())]
    Write(WriteProblem),
}

impl Error {
    /// The message without its position (the byte offset, [`Self::offset`]):
    /// what a report that shows the offset beside it prints.
    ///
    /// ```
    /// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
    /// #     use slog2_format::slog1::*;
    /// #     let state = |s: f64, node: u16| IntervalRecord {
    /// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
    /// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
    /// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
    /// #     };
    /// #     let input = BuildInput {
    /// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
    /// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
    /// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
    /// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
    /// #         ..Default::default()
    /// #     };
    /// #     build(&input, BuildOptions::default().frame_bytesize(256))
    /// # }
    /// let bytes = file()?.to_bytes()?;
    /// let e = slog2_format::slog1::Slog1File::parse(&bytes[..40]).unwrap_err();
    /// assert!(e.detail().contains("the 74-byte SLOG-1 header"));
    /// assert!(e.to_string().ends_with(&e.detail()));
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn detail(&self) -> String {
        match self {
            Error::Io { source, .. } => format!("I/O error: {source}"),
            Error::Truncated { part, end, .. } => {
                let what = match part {
                    Part::Header => "the 74-byte SLOG-1 header".to_string(),
                    p => p.name(),
                };
                format!("{what} runs past the end of the file ({end} bytes)")
            }
            Error::BadValue {
                part: Some(part),
                problem,
                ..
            } => format!("{}: {problem}", part.name()),
            Error::BadValue { problem, .. } => problem.to_string(),
            Error::Write(v) => format!("cannot write: {v}"),
        }
    }

    /// The byte offset the error concerns, if it concerns input bytes.
    ///
    /// ```
    /// # fn file() -> Result<slog2_format::slog1::Slog1File, slog2_format::slog1::Error> {
    /// #     use slog2_format::slog1::*;
    /// #     let state = |s: f64, node: u16| IntervalRecord {
    /// #         rectype: 64, intvltype: 1, bebits: 3, starttime: s, duration: 1.5,
    /// #         origin: TaskLabel { node, cpu: 0, thread: 0 }, destination: None,
    /// #         instr_addr: 0, assocs: vec![], args: RecordArgs::Fixed(vec![]),
    /// #     };
    /// #     let input = BuildInput {
    /// #         threads: (0..2).map(|n| ThreadInfo { node_id: n, thread_id: 0, os_process_id: 0, os_thread_id: 0, app_id: n as u32 }).collect(),
    /// #         profile: vec![ProfileEntry::new(1, 3, "state", "Compute", "green", &[])],
    /// #         recdefs: vec![RecDef { intvltype: 1, bebits: 3, nassocs: 0, nargs: 0 }],
    /// #         records: (0..40).map(|i| state(f64::from(i), (i % 2) as u16)).collect(),
    /// #         ..Default::default()
    /// #     };
    /// #     build(&input, BuildOptions::default().frame_bytesize(256))
    /// # }
    /// let bytes = file()?.to_bytes()?;
    /// let e = slog2_format::slog1::Slog1File::parse(&bytes[..40]).unwrap_err();
    /// assert_eq!(e.offset(), Some(40)); // where the bytes end, inside the header
    /// # Ok::<(), slog2_format::slog1::Error>(())
    /// ```
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Io { offset, .. }
            | Error::Truncated { offset, .. }
            | Error::BadValue { offset, .. } => Some(*offset),
            Error::Write(_) => None,
        }
    }

    /// The row of spec/slog1.md §13 ("What a reader must reject") a file that
    /// gives this error breaks: 1 for a file shorter than its header, 6 for any
    /// other structure running past the end of the data, the problem's row for a
    /// bad value; `None` for an error of writing.
    ///
    /// ```
    /// use slog2_format::slog1::{Error, Slog1File};
    /// let e = Slog1File::parse(&[0; 20]).unwrap_err();
    /// assert!(matches!(e, Error::Truncated { offset: 20, .. }));
    /// assert_eq!(e.spec_row(), Some(1));
    /// let e = Slog1File::parse(&[0, 0, 0, 0, 0, 0, 0, 8].repeat(10)).unwrap_err();
    /// assert_eq!(e.spec_row(), Some(2)); // version 0.8
    /// ```
    pub fn spec_row(&self) -> Option<u8> {
        match self {
            Error::Truncated {
                part: Part::Header, ..
            } => Some(1),
            Error::Io { .. } | Error::Truncated { .. } => Some(super::types::row::TRUNCATED),
            Error::BadValue { problem, .. } => Some(problem.spec_row()),
            Error::Write(_) => None,
        }
    }
}
