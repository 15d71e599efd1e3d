//! A whole ALOG file in memory.
//!
//! Reading splits the input at LF bytes; each line loses its trailing CRs, blank
//! lines and lines whose first non-blank byte is `#` are skipped (as nupshot does),
//! and every other line must be a [`Record`]. Writing gives the canonical form:
//! each record's canonical line followed by LF. A file already in canonical form
//! (every file MPE 1.0 and `clog2alog` wrote) therefore reads and writes back byte
//! for byte; any other file gives the same records when its canonical bytes are
//! read again.

use crate::error::{Error, Result};
use crate::record::{rtype, Record};
use crate::text::is_space;

/// Every record of an ALOG file, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AlogFile {
    /// The records, in file order.
    pub records: Vec<Record>,
}

/// Whether a line is skipped: blank, or a `#` comment line.
fn skipped(line: &[u8]) -> bool {
    match line.iter().find(|&&b| !is_space(b)) {
        None => true,
        Some(&b) => b == b'#',
    }
}

impl AlogFile {
    /// Parses a whole file. Fails on the first line that is not a record (naming
    /// its line and column), or when there is no record at all.
    ///
    /// # Errors
    ///
    /// [`crate::Error::BadField`] for the first line that is not a record (line,
    /// column and byte offset), [`crate::Error::Empty`] when no line is.
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-3 0 0 2 0 0\n1 0 0 0 0 10 \n")?;
    /// assert_eq!(f.records.len(), 2);
    /// assert_eq!(alog_format::AlogFile::parse(b"1 2 x\n").unwrap_err().line(), Some(1));
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn parse(data: &[u8]) -> Result<AlogFile> {
        let mut records = Vec::new();
        let mut line_no = 0u64;
        let mut rest = data;
        while !rest.is_empty() {
            let line_start = (data.len() - rest.len()) as u64;
            let (line, next) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, &rest[rest.len()..]),
            };
            rest = next;
            line_no += 1;
            if skipped(line) {
                continue;
            }
            let rec = Record::parse_line(line).map_err(|(pos, e)| Error::BadField {
                line: line_no,
                column: pos + 1,
                field: e.field,
                position: e.field.position(),
                offset: line_start + pos,
                token: e.token,
                problem: e.problem,
            })?;
            records.push(rec);
        }
        if records.is_empty() {
            return Err(Error::Empty {
                lines: line_no,
                offset: data.len() as u64,
            });
        }
        Ok(AlogFile { records })
    }

    /// Parses a whole file from a reader (read to its end, then [`parse`](Self::parse)d).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when `inner` fails, at the number of bytes read
    /// before it; then as [`parse`](Self::parse).
    ///
    /// ```
    /// let f = alog_format::AlogFile::read(&b"-1 0 0 0 0 0 Me\n"[..]).unwrap();
    /// assert_eq!(f.records.len(), 1);
    /// ```
    pub fn read<R: std::io::Read>(mut inner: R) -> Result<AlogFile> {
        let mut data = Vec::new();
        inner.read_to_end(&mut data).map_err(|source| Error::Io {
            offset: data.len() as u64,
            source,
        })?;
        Self::parse(&data)
    }

    /// Writes the canonical form (each record's canonical line and a LF) and
    /// gives the writer back.
    ///
    /// # Errors
    ///
    /// As [`to_bytes`](Self::to_bytes) (none today), and [`Error::Io`]
    /// when `out` fails (its offset is 0: the bytes are written at once).
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-1 0 0 0 0 0 Me\n").unwrap();
    /// let out = f.write_to(Vec::new()).unwrap();
    /// assert_eq!(out, b"-1 0 0 0 0 0 Me\n");
    /// ```
    pub fn write_to<W: std::io::Write>(&self, mut out: W) -> Result<W> {
        let bytes = self.to_bytes()?;
        out.write_all(&bytes)
            .map_err(|source| Error::Io { offset: 0, source })?;
        Ok(out)
    }

    /// The canonical bytes.
    ///
    /// # Errors
    ///
    /// None today (writing to memory cannot fail); a `Result` like every other
    /// format's `to_bytes`, so that callers treat the formats alike.
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-1 0 0 0 0 0 Me\n")?;
    /// assert_eq!(f.to_bytes()?, b"-1 0 0 0 0 0 Me\n");
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.records.len() * 24);
        for r in &self.records {
            r.write_line(&mut out);
            out.push(b'\n');
        }
        Ok(out)
    }

    /// Whether `data` is in canonical form, i.e. reads and writes back byte for
    /// byte.
    ///
    /// ```
    /// use alog_format::AlogFile;
    /// assert!(AlogFile::is_canonical(b"1 0 0 0 0 10\n"));
    /// assert!(!AlogFile::is_canonical(b"1  0 0 0 0 10\n")); // two spaces
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn is_canonical(data: &[u8]) -> bool {
        AlogFile::parse(data).is_ok_and(|f| f.to_bytes().is_ok_and(|b| b == data))
    }

    /// The header records (types -100 … -1), in file order.
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-11 0 0 0 0 1000\n-3 0 0 2 0 0\n1 0 0 0 0 10\n2 1 0 0 1 5\n")?;
    /// assert_eq!(f.headers().map(|r| r.etype).collect::<Vec<_>>(), [-11, -3]);
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn headers(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(|r| r.is_header())
    }

    /// The event records (types ≥ 0 and ≤ -101), in file order.
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-11 0 0 0 0 1000\n-3 0 0 2 0 0\n1 0 0 0 0 10\n2 1 0 0 1 5\n")?;
    /// assert_eq!(f.events().map(|r| r.etype).collect::<Vec<_>>(), [1, 2]);
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn events(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(|r| r.is_event())
    }

    /// The first header record of a type.
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-11 0 0 0 0 1000\n-3 0 0 2 0 0\n1 0 0 0 0 10\n2 1 0 0 1 5\n")?;
    /// assert_eq!(f.header(-3).map(|r| r.data), Some(2));
    /// assert!(f.header(-4).is_none());
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn header(&self, etype: i32) -> Option<&Record> {
        self.records.iter().find(|r| r.etype == etype)
    }

    /// The clock roll-over point in µs: the first `-11` record's timestamp, 0 when
    /// there is none (upshot's default).
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-11 0 0 0 0 1000\n-3 0 0 2 0 0\n1 0 0 0 0 10\n2 1 0 0 1 5\n")?;
    /// assert_eq!(f.rollover(), 1000.0);
    /// // The second event is in cycle 1: 1 × 1000 + 5 µs.
    /// assert_eq!(f.records[3].time_us(f.rollover()), 1005.0);
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn rollover(&self) -> f64 {
        self.header(rtype::ROLLOVER).map_or(0.0, |r| r.timestamp)
    }

    /// Whether every header record comes before the first event (nupshot stops
    /// reading the header at the first event).
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-11 0 0 0 0 1000\n-3 0 0 2 0 0\n1 0 0 0 0 10\n2 1 0 0 1 5\n")?;
    /// assert!(f.header_first());
    /// assert!(!alog_format::AlogFile::parse(b"1 0 0 0 0 10\n-3 0 0 2 0 0\n")?.header_first());
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn header_first(&self) -> bool {
        let first_event = self.records.iter().position(|r| r.is_event());
        match first_event {
            None => true,
            Some(i) => self.records[i..].iter().all(|r| r.is_event()),
        }
    }

    /// Whether the events are in non-decreasing real time (`cycle × rollover +
    /// timestamp`), as every known writer sorts them.
    ///
    /// ```
    /// let f = alog_format::AlogFile::parse(b"-11 0 0 0 0 1000\n-3 0 0 2 0 0\n1 0 0 0 0 10\n2 1 0 0 1 5\n")?;
    /// assert!(f.time_sorted());
    /// assert!(!alog_format::AlogFile::parse(b"1 0 0 0 0 10\n1 0 0 0 0 9\n")?.time_sorted());
    /// # Ok::<(), alog_format::Error>(())
    /// ```
    pub fn time_sorted(&self) -> bool {
        let roll = self.rollover();
        let mut last = f64::NEG_INFINITY;
        for r in self.events() {
            let t = r.time_us(roll);
            if t < last {
                return false;
            }
            last = t;
        }
        true
    }
}

/// Whether `data` looks like an ALOG file: its first line that is not blank or a
/// `#` line (within the first 4 KiB) is a record. ALOG has no magic number, so
/// this is a guess; it is false for CLOG2, SLOG-2 and old CLOG files, whose first
/// bytes are not six decimal numbers.
///
/// ```
/// assert!(alog_format::looks_like(b"# a comment\n-3 0 0 2 0 0\n"));
/// assert!(!alog_format::looks_like(b"CLOG-02.44\0"));
/// # Ok::<(), alog_format::Error>(())
/// ```
pub fn looks_like(data: &[u8]) -> bool {
    let head = &data[..data.len().min(4096)];
    for line in head.split(|&b| b == b'\n') {
        if skipped(line) {
            continue;
        }
        return Record::parse_line(line).is_ok();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_and_hash_lines_are_skipped() {
        let f = AlogFile::parse(b"\n# hi\n  \n-3 0 0 2 0 0\n\r\n1 0 0 0 0 5").unwrap();
        assert_eq!(f.records.len(), 2);
        assert_eq!(f.to_bytes().unwrap(), b"-3 0 0 2 0 0\n1 0 0 0 0 5\n");
    }

    #[test]
    fn empty_inputs() {
        for input in [&b""[..], b"\n\n", b"# only\n", b"   "] {
            assert!(
                matches!(AlogFile::parse(input), Err(Error::Empty { .. })),
                "{input:?}"
            );
        }
    }

    #[test]
    fn detection() {
        assert!(looks_like(b"-1 0 0 0 0 0 Me\n"));
        assert!(!looks_like(b"CLOG-02.44\0"));
        assert!(!looks_like(b""));
        assert!(!looks_like(b"\x00\x0aSLOG 2.0.6"));
    }
}
