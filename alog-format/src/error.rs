//! Typed errors. Every error that comes from bad input names the 1-based line
//! number, and the 1-based column (byte within the line) where the problem is.

/// Which of the six numeric fields of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// Field 1, the event or record type.
    Type,
    /// Field 2, the process.
    Process,
    /// Field 3, the task.
    Task,
    /// Field 4, the integer datum.
    Data,
    /// Field 5, the timer cycle.
    Cycle,
    /// Field 6, the timestamp in microseconds.
    Timestamp,
}

impl Field {
    /// The field's name as the dump and the spec write it.
    ///
    /// ```
    /// assert_eq!(alog_format::Field::Timestamp.name(), "timestamp");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Field::Type => "type",
            Field::Process => "process",
            Field::Task => "task",
            Field::Data => "data",
            Field::Cycle => "cycle",
            Field::Timestamp => "timestamp",
        }
    }

    /// The field's 1-based position in the line.
    ///
    /// ```
    /// use alog_format::Field;
    /// assert_eq!((Field::Type.position(), Field::Timestamp.position()), (1, 6));
    /// ```
    pub fn position(self) -> usize {
        self as usize + 1
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What is wrong with one token of a line (the problem of [`Error::BadField`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenProblem {
    /// The line ends before this field.
    Missing,
    /// The token is not a decimal integer (`[+-]?[0-9]+`).
    NotAnInteger,
    /// The token is a decimal integer outside the range of a C `int` (i32).
    OutOfRange,
    /// The token is not a finite decimal number (digits, an optional fraction and
    /// exponent; no hex, infinity or NaN forms), or is too large for a double.
    NotANumber,
}

impl std::fmt::Display for TokenProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TokenProblem::Missing => {
                "missing: the line ends before it (a record has six numeric fields)"
            }
            TokenProblem::NotAnInteger => "not a decimal integer",
            TokenProblem::OutOfRange => "out of range (a C int holds -2147483648 to 2147483647)",
            TokenProblem::NotANumber => "not a finite decimal number",
        })
    }
}

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong reading or writing an ALOG file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The underlying reader or writer failed.
    #[error("byte {offset}: I/O error: {source}")]
    Io {
        /// How many bytes had been read or written before the failure.
        offset: u64,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The input holds no record: it is empty, or has only blank and `#` lines.
    #[error("no record in the input ({lines} lines, all blank or `#` comments; an ALOG file has at least one line of six numbers)")]
    Empty {
        /// Number of lines seen (0 for an empty input).
        lines: u64,
        /// The input's length: where a record was looked for last.
        offset: u64,
    },
    /// One of the six numeric fields is missing or malformed.
    #[error("line {line}, column {column}: field {position} ({field}) {problem}{}", token_text(.token))]
    BadField {
        /// 1-based line number.
        line: u64,
        /// 1-based column (byte in the line) of the token, or of the end of the
        /// line when the field is missing.
        column: u64,
        /// Which field.
        field: Field,
        /// 1-based position of the field (1 = type … 6 = timestamp).
        position: usize,
        /// Byte offset in the input of the token, or of the end of the line when
        /// the field is missing (the byte that `line` and `column` name).
        offset: u64,
        /// The token as found (lossily decoded, at most 32 characters); empty when
        /// missing.
        token: String,
        /// What is wrong.
        problem: TokenProblem,
    },
}

fn token_text(token: &str) -> String {
    if token.is_empty() {
        String::new()
    } else {
        format!(": {token:?}")
    }
}

impl Error {
    /// The byte offset in the input where the problem was found: the offending
    /// token (or the line's end), the end of an input without records, or how
    /// far an I/O error got.
    ///
    /// ```
    /// let e = alog_format::AlogFile::parse(b"-1 0 0 0 0 0 Me\n1 2 x 4 5 6\n").unwrap_err();
    /// assert_eq!(e.offset(), Some(20)); // the `x`: line 2, column 5
    /// assert_eq!((e.line(), e.column()), (Some(2), Some(5)));
    /// ```
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Io { offset, .. }
            | Error::Empty { offset, .. }
            | Error::BadField { offset, .. } => Some(*offset),
        }
    }

    /// The message without its position (line and column, [`Self::offset`]):
    /// what a report that shows the position beside it prints.
    ///
    /// ```
    /// let e = alog_format::AlogFile::parse(b"1 2 x 4 5 6\n").unwrap_err();
    /// assert_eq!(e.detail(), "field 3 (task) not a decimal integer: \"x\"");
    /// assert_eq!(e.to_string(), format!("line 1, column 5: {}", e.detail()));
    /// ```
    pub fn detail(&self) -> String {
        match self {
            Error::Io { source, .. } => format!("I/O error: {source}"),
            Error::Empty { .. } => self.to_string(),
            Error::BadField {
                field,
                position,
                token,
                problem,
                ..
            } => format!("field {position} ({field}) {problem}{}", token_text(token)),
        }
    }

    /// The 1-based line number the error concerns, if it comes from input text.
    ///
    /// ```
    /// let e = alog_format::AlogFile::parse(b"1 0 0 0 0 10 \n1 2 x\n").unwrap_err();
    /// assert_eq!(e.line(), Some(2));
    /// ```
    pub fn line(&self) -> Option<u64> {
        match self {
            Error::BadField { line, .. } => Some(*line),
            Error::Empty { .. } | Error::Io { .. } => None,
        }
    }

    /// The 1-based column the error concerns, if known.
    ///
    /// ```
    /// let e = alog_format::AlogFile::parse(b"1 2 x\n").unwrap_err();
    /// assert_eq!(e.column(), Some(5)); // the `x`
    /// ```
    pub fn column(&self) -> Option<u64> {
        match self {
            Error::BadField { column, .. } => Some(*column),
            _ => None,
        }
    }

    /// The row of spec/alog.md §3 ("What a reader must reject") the input
    /// breaks: 1 a missing field, 2 a field that is not an integer, 3 an
    /// integer outside i32, 4 a timestamp that is not a finite number, 5 no
    /// record. `None` for errors that are not about the input (SLOG-2 output).
    ///
    /// ```
    /// let not_int = alog_format::AlogFile::parse(b"1 2 x 0 0 0\n").unwrap_err();
    /// assert_eq!(not_int.spec_row(), Some(2));
    /// let missing = alog_format::AlogFile::parse(b"1 2 3\n").unwrap_err();
    /// assert_eq!(missing.spec_row(), Some(1));
    /// ```
    pub fn spec_row(&self) -> Option<u8> {
        match self {
            Error::BadField { problem, .. } => Some(match problem {
                TokenProblem::Missing => 1,
                TokenProblem::NotAnInteger => 2,
                TokenProblem::OutOfRange => 3,
                TokenProblem::NotANumber => 4,
            }),
            Error::Empty { .. } => Some(5),
            Error::Io { .. } => None,
        }
    }
}
