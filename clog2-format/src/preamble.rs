//! The 1024-byte CLOG2 preamble.
//!
//! It is not a C struct but a run of NUL-terminated ASCII tokens (a title, then its
//! value) followed by padding up to byte 1024. Readers interpret the tokens by
//! position, according to the version token; the titles are not checked. To stay
//! lossless, [`RawPreamble`] keeps the tokens and the padding verbatim, and
//! [`PreambleInfo`] holds their typed meaning.

use crate::error::{Error, Expected, PreambleProblem, Result, WriteProblem};
use crate::version::Version;
use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
use std::io::Cursor;

/// Size of the preamble in bytes.
pub const PREAMBLE_LEN: usize = 1024;
/// Longest value token the C reader accepts (its buffers are 32 bytes with the NUL).
pub const MAX_VALUE_LEN: usize = 31;
/// The unit of the `commtable_fptr` triple (2^30).
pub const GIGA: i64 = 1 << 30;
/// Largest block size MPE accepts (`CLOG_BLOCK_SIZE` up to 2^30).
pub const MAX_BLOCK_SIZE: u32 = 1 << 30;
/// Smallest block size a reader accepts, in every version (spec/clog2.md §3.3:
/// one 24-byte record header).
pub const MIN_BLOCK_SIZE: u32 = 24;

/// The preamble exactly as stored: its tokens without their NUL terminators, then the
/// bytes after the last token's NUL up to byte 1024 (zeros in every file MPE wrote;
/// the first of them, if any, is the empty token that ends the list).
#[binrw]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPreamble {
    /// The tokens, in file order, without NULs.
    #[br(parse_with = read_tokens)]
    #[bw(write_with = write_tokens)]
    pub tokens: Vec<Vec<u8>>,
    /// Bytes from the end of the last token's NUL to byte 1024 (they start with the
    /// empty token's NUL, or with a run of bytes that has no NUL before byte 1024).
    #[br(parse_with = read_rest)]
    pub padding: Vec<u8>,
}

#[binrw::parser(reader)]
fn read_tokens() -> BinResult<Vec<Vec<u8>>> {
    let start = reader.stream_position()?;
    let mut tokens = Vec::new();
    let mut byte = [0u8; 1];
    let mut pos = start;
    loop {
        if pos - start >= PREAMBLE_LEN as u64 {
            return Ok(tokens);
        }
        reader.read_exact(&mut byte)?;
        if byte[0] == 0 {
            // The empty token: the list ends; the NUL belongs to the padding.
            reader.seek(std::io::SeekFrom::Start(pos))?;
            return Ok(tokens);
        }
        let mut tok = vec![byte[0]];
        loop {
            if pos + tok.len() as u64 - start >= PREAMBLE_LEN as u64 {
                // No NUL before byte 1024: the list ends and these bytes are
                // padding (spec/clog2.md §3.1 step 1).
                reader.seek(std::io::SeekFrom::Start(pos))?;
                return Ok(tokens);
            }
            reader.read_exact(&mut byte)?;
            if byte[0] == 0 {
                break;
            }
            tok.push(byte[0]);
        }
        pos += tok.len() as u64 + 1;
        tokens.push(tok);
    }
}

#[binrw::writer(writer)]
fn write_tokens(tokens: &Vec<Vec<u8>>) -> BinResult<()> {
    for t in tokens {
        writer.write_all(t)?;
        writer.write_all(&[0])?;
    }
    Ok(())
}

#[binrw::parser(reader)]
fn read_rest() -> BinResult<Vec<u8>> {
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest)?;
    Ok(rest)
}

impl RawPreamble {
    /// Parses the first 1024 bytes of a CLOG2 file.
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] at the end of `bytes` when they are shorter than 1024
    /// bytes, and [`Error::BadPreamble`] with [`PreambleProblem::TokenList`] at the
    /// offending token when the tokens are not NUL-separated text.
    ///
    /// ```
    /// use clog2_format::{Error, RawPreamble};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let raw = RawPreamble::parse(&bytes)?;
    /// assert_eq!(raw.tokens[0], b"CLOG-02.44");
    /// assert!(matches!(RawPreamble::parse(&bytes[..100]), Err(Error::Truncated { offset: 100, .. })));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<RawPreamble> {
        if bytes.len() < PREAMBLE_LEN {
            return Err(Error::Truncated {
                offset: bytes.len() as u64,
                expected: Expected::Preamble {
                    have: bytes.len() as u64,
                },
            });
        }
        let mut cur = Cursor::new(&bytes[..PREAMBLE_LEN]);
        RawPreamble::read_options(&mut cur, Endian::Big, ()).map_err(|e| match e {
            binrw::Error::AssertFail { pos, message } => Error::BadPreamble {
                offset: pos,
                field: "(token list)",
                problem: PreambleProblem::TokenList(message),
            },
            other => Error::from_binrw(other, 0, "a CLOG2 preamble"),
        })
    }

    /// Serializes the preamble; fails if it does not come to exactly 1024 bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Write`] with [`WriteProblem::Encode`] when the encoder fails, or
    /// [`WriteProblem::PreambleLength`] when tokens and padding are not 1024 bytes.
    ///
    /// ```
    /// use clog2_format::RawPreamble;
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let mut raw = RawPreamble::parse(&bytes)?;
    /// assert_eq!(raw.to_bytes()?, bytes[..1024]);
    /// raw.padding.push(0); // 1025 bytes
    /// assert!(raw.to_bytes().is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<[u8; PREAMBLE_LEN]> {
        let mut cur = Cursor::new(Vec::with_capacity(PREAMBLE_LEN));
        self.write_options(&mut cur, Endian::Big, ()).map_err(|e| {
            Error::Write(WriteProblem::Encode {
                what: "preamble",
                message: e.to_string(),
            })
        })?;
        let v = cur.into_inner();
        <[u8; PREAMBLE_LEN]>::try_from(v.as_slice())
            .map_err(|_| Error::Write(WriteProblem::PreambleLength(v.len())))
    }

    /// Offset of token `i` within the preamble (the offset after the last token if
    /// `i` is past the end).
    ///
    /// ```
    /// use clog2_format::RawPreamble;
    /// let raw = RawPreamble::from_tokens(vec![b"CLOG-02.44".to_vec(), b"is_big_endian=".to_vec()])?;
    /// assert_eq!(raw.token_offset(0), 0);
    /// assert_eq!(raw.token_offset(1), 11); // "CLOG-02.44" and its NUL
    /// assert_eq!(raw.token_offset(9), 11 + 15); // past the end: after the last token
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn token_offset(&self, i: usize) -> u64 {
        self.tokens.iter().take(i).map(|t| t.len() as u64 + 1).sum()
    }

    /// Builds a preamble from tokens, padding it with zeros to 1024 bytes.
    ///
    /// # Errors
    ///
    /// [`Error::Write`] with [`WriteProblem::PreambleTooLong`] when the tokens and
    /// their NULs need 1024 bytes or more.
    ///
    /// ```
    /// use clog2_format::RawPreamble;
    /// let raw = RawPreamble::from_tokens(vec![b"CLOG-02.44".to_vec()])?;
    /// assert_eq!(&raw.to_bytes()?[..11], b"CLOG-02.44\0");
    /// assert!(RawPreamble::from_tokens(vec![vec![b'x'; 1024]]).is_err()); // does not fit
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn from_tokens(tokens: Vec<Vec<u8>>) -> Result<RawPreamble> {
        let used: usize = tokens.iter().map(|t| t.len() + 1).sum();
        if used >= PREAMBLE_LEN {
            return Err(Error::Write(WriteProblem::PreambleTooLong(used)));
        }
        Ok(RawPreamble {
            tokens,
            padding: vec![0; PREAMBLE_LEN - used],
        })
    }
}

/// One interpreted preamble field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// `is_big_endian=`: `TRUE ` or `FALSE`.
    IsBigEndian,
    /// `is_finalzed=` (sic): `TRUE ` for merged files, `FALSE` for local ones.
    IsFinalized,
    /// `block_size=`.
    BlockSize,
    /// `num_buffered_blocks=` (information only).
    NumBufferedBlocks,
    /// `comm_world_size=` (02.30 .. 02.41) or `max_comm_world_size=` (02.43 on).
    CommWorldSize,
    /// `max_thread_count=`.
    MaxThreadCount,
    /// `known_eventID_start=`.
    KnownEventIdStart,
    /// `user_eventID_start=`.
    UserEventIdStart,
    /// `known_solo_eventID_start=`.
    KnownSoloEventIdStart,
    /// `user_solo_eventID_start=`.
    UserSoloEventIdStart,
    /// `known_stateID_count=`.
    KnownStateIdCount,
    /// `user_stateID_count=`.
    UserStateIdCount,
    /// `known_solo_eventID_count=`.
    KnownSoloEventIdCount,
    /// `user_solo_eventID_count=`.
    UserSoloEventIdCount,
    /// `commtable_fptr=` followed by three values: giga, 1073741824, remainder.
    CommtableFptr,
}

impl Field {
    /// Number of value tokens after the title.
    ///
    /// ```
    /// use clog2_format::preamble::Field;
    /// assert_eq!(Field::BlockSize.value_count(), 1);
    /// assert_eq!(Field::CommtableFptr.value_count(), 3);
    /// ```
    pub fn value_count(self) -> usize {
        if self == Field::CommtableFptr {
            3
        } else {
            1
        }
    }
}

/// Every field of any version's preamble, in file order: the field, the
/// first and the last version that has it under this title, and the title.
const FIELDS: [(Field, Version, Version, &str); 17] = {
    use Field::*;
    use Version::{V2_10, V2_30, V2_40, V2_41, V2_43, V2_44};
    [
        (IsBigEndian, V2_10, V2_44, "is_big_endian="),
        (IsFinalized, V2_43, V2_44, "is_finalzed="),
        (BlockSize, V2_10, V2_44, "block_size="),
        (NumBufferedBlocks, V2_10, V2_44, "num_buffered_blocks="),
        (CommWorldSize, V2_30, V2_41, "comm_world_size="),
        (CommWorldSize, V2_43, V2_44, "max_comm_world_size="),
        (MaxThreadCount, V2_44, V2_44, "max_thread_count="),
        (KnownEventIdStart, V2_40, V2_44, "known_eventID_start="),
        (UserEventIdStart, V2_40, V2_44, "user_eventID_start="),
        (
            KnownSoloEventIdStart,
            V2_41,
            V2_44,
            "known_solo_eventID_start=",
        ),
        // MPE 02.40 wrote this field under the wrong title.
        (UserSoloEventIdStart, V2_40, V2_40, "user_eventID_start="),
        (
            UserSoloEventIdStart,
            V2_41,
            V2_44,
            "user_solo_eventID_start=",
        ),
        (KnownStateIdCount, V2_40, V2_44, "known_stateID_count="),
        (UserStateIdCount, V2_40, V2_44, "user_stateID_count="),
        (
            KnownSoloEventIdCount,
            V2_41,
            V2_44,
            "known_solo_eventID_count=",
        ),
        (
            UserSoloEventIdCount,
            V2_40,
            V2_44,
            "user_solo_eventID_count=",
        ),
        (CommtableFptr, V2_43, V2_44, "commtable_fptr="),
    ]
};

/// The rows of [`FIELDS`] that `version` has, in file order (`N` of them:
/// checked when the tables are built).
const fn fields_of<const N: usize>(version: Version) -> [(Field, &'static str); N] {
    let mut out = [(Field::IsBigEndian, ""); N];
    let (mut i, mut n) = (0, 0);
    while i < FIELDS.len() {
        let (field, first, last, title) = FIELDS[i];
        if first as u8 <= version as u8 && version as u8 <= last as u8 {
            out[n] = (field, title);
            n += 1;
        }
        i += 1;
    }
    assert!(
        n == N,
        "a preamble table's length is not its version's field count"
    );
    out
}

/// The fields of each version's preamble, in file order, with the titles MPE wrote.
///
/// ```
/// use clog2_format::{preamble::{layout, Field}, Version};
/// assert_eq!(layout(Version::V2_10).len(), 3);
/// assert_eq!(layout(Version::V2_44).last().map(|(f, _)| *f), Some(Field::CommtableFptr));
/// ```
pub fn layout(version: Version) -> &'static [(Field, &'static str)] {
    static V10: [(Field, &str); 3] = fields_of(Version::V2_10);
    static V30: [(Field, &str); 4] = fields_of(Version::V2_30);
    static V40: [(Field, &str); 10] = fields_of(Version::V2_40);
    static V41: [(Field, &str); 12] = fields_of(Version::V2_41);
    static V43: [(Field, &str); 14] = fields_of(Version::V2_43);
    static V44: [(Field, &str); 15] = fields_of(Version::V2_44);
    match version {
        Version::V2_10 | Version::V2_20 => &V10,
        Version::V2_30 => &V30,
        Version::V2_40 => &V40,
        Version::V2_41 => &V41,
        Version::V2_43 => &V43,
        Version::V2_44 => &V44,
    }
}

/// The typed content of a preamble. Fields a version does not have are `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreambleInfo {
    /// The format version.
    pub version: Version,
    /// Byte order of every integer and double in the file.
    pub big_endian: bool,
    /// `is_finalzed`: merged files are finalized; local temporary files are not.
    pub finalized: Option<bool>,
    /// Size of every block in bytes.
    pub block_size: u32,
    /// Number of blocks MPE buffered in memory (information only).
    pub num_buffered_blocks: i32,
    /// Number of processes in MPI_COMM_WORLD.
    pub comm_world_size: Option<i32>,
    /// Largest number of threads of any process.
    pub max_thread_count: Option<i32>,
    /// First known (MPI) event ID.
    pub known_event_id_start: Option<i32>,
    /// First user event ID.
    pub user_event_id_start: Option<i32>,
    /// First known solo event ID.
    pub known_solo_event_id_start: Option<i32>,
    /// First user solo event ID.
    pub user_solo_event_id_start: Option<i32>,
    /// Number of known states.
    pub known_state_id_count: Option<i32>,
    /// Number of user states.
    pub user_state_id_count: Option<i32>,
    /// Number of known solo events.
    pub known_solo_event_id_count: Option<i32>,
    /// Number of user solo events.
    pub user_solo_event_id_count: Option<i32>,
    /// Offset of the comm table (0: none was written).
    pub commtable_fptr: Option<u64>,
}

impl PreambleInfo {
    /// The preamble MPE 02.44's merger writes, for `world_size` processes.
    ///
    /// ```
    /// use clog2_format::{PreambleInfo, Version};
    /// let info = PreambleInfo::mpe_default(8);
    /// assert_eq!((info.version, info.big_endian, info.comm_world_size), (Version::V2_44, true, Some(8)));
    /// ```
    pub fn mpe_default(world_size: i32) -> PreambleInfo {
        PreambleInfo {
            version: Version::V2_44,
            big_endian: true,
            finalized: Some(true),
            block_size: 65536,
            num_buffered_blocks: 128,
            comm_world_size: Some(world_size),
            max_thread_count: Some(1),
            known_event_id_start: Some(0),
            user_event_id_start: Some(600),
            known_solo_event_id_start: Some(-10),
            user_solo_event_id_start: Some(5000),
            known_state_id_count: Some(300),
            user_state_id_count: Some(0),
            known_solo_event_id_count: Some(0),
            user_solo_event_id_count: Some(0),
            commtable_fptr: Some(0),
        }
    }

    /// This preamble with its fields adapted to `version`: fields the version lacks
    /// become `None`, fields it adds get MPE's defaults.
    ///
    /// ```
    /// use clog2_format::{PreambleInfo, Version};
    /// let old = PreambleInfo::mpe_default(8).for_version(Version::V2_30);
    /// assert_eq!(old.version, Version::V2_30);
    /// assert_eq!(old.commtable_fptr, None); // 02.30 has no comm table
    /// assert_eq!(old.comm_world_size, Some(8));
    /// ```
    pub fn for_version(&self, version: Version) -> PreambleInfo {
        let mut out = PreambleInfo {
            version,
            ..self.clone()
        };
        let has = |f: Field| layout(version).iter().any(|(g, _)| *g == f);
        fn keep(present: bool, v: Option<i32>, default: i32) -> Option<i32> {
            present.then(|| v.unwrap_or(default))
        }
        out.finalized = has(Field::IsFinalized).then(|| self.finalized.unwrap_or(true));
        out.comm_world_size = keep(has(Field::CommWorldSize), self.comm_world_size, 1);
        out.max_thread_count = keep(has(Field::MaxThreadCount), self.max_thread_count, 1);
        out.known_event_id_start =
            keep(has(Field::KnownEventIdStart), self.known_event_id_start, 0);
        out.user_event_id_start = keep(has(Field::UserEventIdStart), self.user_event_id_start, 600);
        out.known_solo_event_id_start = keep(
            has(Field::KnownSoloEventIdStart),
            self.known_solo_event_id_start,
            -10,
        );
        out.user_solo_event_id_start = keep(
            has(Field::UserSoloEventIdStart),
            self.user_solo_event_id_start,
            5000,
        );
        out.known_state_id_count = keep(
            has(Field::KnownStateIdCount),
            self.known_state_id_count,
            300,
        );
        out.user_state_id_count = keep(has(Field::UserStateIdCount), self.user_state_id_count, 0);
        out.known_solo_event_id_count = keep(
            has(Field::KnownSoloEventIdCount),
            self.known_solo_event_id_count,
            0,
        );
        out.user_solo_event_id_count = keep(
            has(Field::UserSoloEventIdCount),
            self.user_solo_event_id_count,
            0,
        );
        out.commtable_fptr = has(Field::CommtableFptr).then(|| self.commtable_fptr.unwrap_or(0));
        out
    }

    fn int(&self, f: Field) -> Option<i32> {
        match f {
            Field::NumBufferedBlocks => Some(self.num_buffered_blocks),
            Field::BlockSize => Some(self.block_size as i32),
            Field::CommWorldSize => self.comm_world_size,
            Field::MaxThreadCount => self.max_thread_count,
            Field::KnownEventIdStart => self.known_event_id_start,
            Field::UserEventIdStart => self.user_event_id_start,
            Field::KnownSoloEventIdStart => self.known_solo_event_id_start,
            Field::UserSoloEventIdStart => self.user_solo_event_id_start,
            Field::KnownStateIdCount => self.known_state_id_count,
            Field::UserStateIdCount => self.user_state_id_count,
            Field::KnownSoloEventIdCount => self.known_solo_event_id_count,
            Field::UserSoloEventIdCount => self.user_solo_event_id_count,
            _ => None,
        }
    }

    fn set_int(&mut self, f: Field, v: i32) {
        match f {
            Field::NumBufferedBlocks => self.num_buffered_blocks = v,
            Field::BlockSize => self.block_size = v as u32,
            Field::CommWorldSize => self.comm_world_size = Some(v),
            Field::MaxThreadCount => self.max_thread_count = Some(v),
            Field::KnownEventIdStart => self.known_event_id_start = Some(v),
            Field::UserEventIdStart => self.user_event_id_start = Some(v),
            Field::KnownSoloEventIdStart => self.known_solo_event_id_start = Some(v),
            Field::UserSoloEventIdStart => self.user_solo_event_id_start = Some(v),
            Field::KnownStateIdCount => self.known_state_id_count = Some(v),
            Field::UserStateIdCount => self.user_state_id_count = Some(v),
            Field::KnownSoloEventIdCount => self.known_solo_event_id_count = Some(v),
            Field::UserSoloEventIdCount => self.user_solo_event_id_count = Some(v),
            _ => {}
        }
    }

    /// The canonical tokens MPE writes for these values.
    ///
    /// ```
    /// let tokens = clog2_format::PreambleInfo::mpe_default(2).to_tokens();
    /// assert_eq!(tokens[0], b"CLOG-02.44");
    /// assert_eq!(tokens[1], b"is_big_endian=");
    /// ```
    pub fn to_tokens(&self) -> Vec<Vec<u8>> {
        let mut t: Vec<Vec<u8>> = vec![self.version.as_str().into()];
        let flag = |b: bool| {
            if b {
                b"TRUE ".to_vec()
            } else {
                b"FALSE".to_vec()
            }
        };
        for &(field, title) in layout(self.version) {
            t.push(title.into());
            match field {
                Field::IsBigEndian => t.push(flag(self.big_endian)),
                Field::IsFinalized => t.push(flag(self.finalized.unwrap_or(true))),
                Field::CommtableFptr => {
                    let f = self.commtable_fptr.unwrap_or(0) as i64;
                    t.push((f / GIGA).to_string().into());
                    t.push(GIGA.to_string().into());
                    t.push((f % GIGA).to_string().into());
                }
                other => t.push(self.int(other).unwrap_or(0).to_string().into()),
            }
        }
        t
    }

    /// Interprets raw tokens.
    ///
    /// # Errors
    ///
    /// At offset 0, [`Error::UnsupportedVersion`] for a `CLOG-02.` version this crate
    /// does not know and [`Error::NotClog2`] for anything else in the first token;
    /// [`Error::BadPreamble`] at the offending token for a missing, misnamed or
    /// invalid field.
    ///
    /// ```
    /// use clog2_format::{PreambleInfo, RawPreamble};
    /// let info = PreambleInfo::mpe_default(2);
    /// let raw = RawPreamble::from_tokens(info.to_tokens())?;
    /// assert_eq!(PreambleInfo::from_raw(&raw)?, info);
    /// let bad = RawPreamble::from_tokens(vec![b"CLOG-09.99".to_vec()])?;
    /// assert!(PreambleInfo::from_raw(&bad).is_err());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn from_raw(raw: &RawPreamble) -> Result<PreambleInfo> {
        let first = raw.tokens.first().map(|t| t.as_slice()).unwrap_or(b"");
        let version = match Version::from_token(first) {
            Some(v) => v,
            None => {
                let found = String::from_utf8_lossy(&first[..first.len().min(16)]).into_owned();
                return Err(if first.starts_with(b"CLOG-02.") {
                    Error::UnsupportedVersion { offset: 0, found }
                } else {
                    Error::NotClog2 { offset: 0, found }
                });
            }
        };
        let mut info = PreambleInfo {
            version,
            big_endian: true,
            finalized: None,
            block_size: 0,
            num_buffered_blocks: 0,
            comm_world_size: None,
            max_thread_count: None,
            known_event_id_start: None,
            user_event_id_start: None,
            known_solo_event_id_start: None,
            user_solo_event_id_start: None,
            known_state_id_count: None,
            user_state_id_count: None,
            known_solo_event_id_count: None,
            user_solo_event_id_count: None,
            commtable_fptr: None,
        };
        let mut i = 1;
        for &(field, title) in layout(version) {
            i += 1; // the title token; its text is not checked, as in MPE's readers
            let n = field.value_count();
            if raw.tokens.len() < i + n {
                return Err(Error::BadPreamble {
                    offset: raw.token_offset(raw.tokens.len()),
                    field: title,
                    problem: PreambleProblem::Missing {
                        tokens: raw.tokens.len(),
                        version,
                        needs: i + n,
                    },
                });
            }
            let mut vals = [0i64; 3];
            for (k, val) in vals.iter_mut().enumerate().take(n) {
                let tok = &raw.tokens[i + k];
                let offset = raw.token_offset(i + k);
                if tok.len() > MAX_VALUE_LEN {
                    return Err(Error::BadPreamble {
                        offset,
                        field: title,
                        problem: PreambleProblem::TooLong(tok.len()),
                    });
                }
                let text = String::from_utf8_lossy(tok);
                let t = text.trim();
                if matches!(field, Field::IsBigEndian | Field::IsFinalized) {
                    *val = match t.to_ascii_lowercase().as_str() {
                        "true" | "yes" => 1,
                        "false" | "no" => 0,
                        _ => {
                            return Err(Error::BadPreamble {
                                offset,
                                field: title,
                                problem: PreambleProblem::NotBoolean(t.to_string()),
                            })
                        }
                    };
                } else {
                    *val = t.parse::<i32>().map_err(|_| Error::BadPreamble {
                        offset,
                        field: title,
                        problem: PreambleProblem::NotInteger(t.to_string()),
                    })? as i64;
                }
            }
            let offset = raw.token_offset(i);
            match field {
                Field::IsBigEndian => info.big_endian = vals[0] == 1,
                Field::IsFinalized => info.finalized = Some(vals[0] == 1),
                Field::BlockSize => {
                    let bs = vals[0];
                    let min = MIN_BLOCK_SIZE as i64;
                    if bs < min || bs > MAX_BLOCK_SIZE as i64 || bs % 8 != 0 {
                        return Err(Error::BadPreamble {
                            offset,
                            field: title,
                            problem: PreambleProblem::BlockSize {
                                value: bs,
                                min,
                                max: MAX_BLOCK_SIZE.into(),
                            },
                        });
                    }
                    info.block_size = bs as u32;
                }
                Field::CommtableFptr => {
                    let f = vals[0] * vals[1] + vals[2];
                    if f < 0 {
                        return Err(Error::BadPreamble {
                            offset,
                            field: title,
                            problem: PreambleProblem::NegativePointer(vals),
                        });
                    }
                    info.commtable_fptr = Some(f as u64);
                }
                other => info.set_int(other, vals[0] as i32),
            }
            i += n;
        }
        Ok(info)
    }
}

/// A parsed preamble: the verbatim tokens and their meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preamble {
    raw: RawPreamble,
    info: PreambleInfo,
}

impl Preamble {
    /// Parses and interprets the first 1024 bytes of `bytes`.
    ///
    /// # Errors
    ///
    /// [`Error::NotClog2`] at offset 0 when the bytes do not start with `CLOG-02.`,
    /// then as [`RawPreamble::parse`] and [`PreambleInfo::from_raw`].
    ///
    /// ```
    /// use clog2_format::{Error, Preamble, Version};
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let p = Preamble::parse(&bytes)?;
    /// assert_eq!((p.info().version, p.info().block_size), (Version::V2_44, 65536));
    /// assert!(matches!(Preamble::parse(b"SLOG 2.0.6 and more"), Err(Error::NotClog2 { offset: 0, .. })));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<Preamble> {
        if bytes.len() >= 8 && !bytes.starts_with(b"CLOG-02.") {
            return Err(Error::NotClog2 {
                offset: 0,
                found: String::from_utf8_lossy(&bytes[..16.min(bytes.len())])
                    .trim_end_matches('\0')
                    .to_string(),
            });
        }
        let raw = RawPreamble::parse(bytes)?;
        let info = PreambleInfo::from_raw(&raw)?;
        Ok(Preamble { raw, info })
    }

    /// The canonical preamble for `info`, zero-padded.
    ///
    /// # Errors
    ///
    /// As [`RawPreamble::from_tokens`] (the tokens do not fit) and
    /// [`PreambleInfo::from_raw`].
    ///
    /// ```
    /// use clog2_format::{Preamble, PreambleInfo};
    /// let p = Preamble::from_info(PreambleInfo::mpe_default(4))?;
    /// assert_eq!(Preamble::parse(&p.to_bytes()?)?, p);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn from_info(info: PreambleInfo) -> Result<Preamble> {
        let raw = RawPreamble::from_tokens(info.to_tokens())?;
        let info = PreambleInfo::from_raw(&raw)?;
        Ok(Preamble { raw, info })
    }

    /// The typed fields.
    ///
    /// ```
    /// let p = clog2_format::Preamble::from_info(clog2_format::PreambleInfo::mpe_default(4))?;
    /// assert_eq!(p.info().comm_world_size, Some(4));
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn info(&self) -> &PreambleInfo {
        &self.info
    }

    /// The verbatim tokens and padding.
    ///
    /// ```
    /// let p = clog2_format::Preamble::from_info(clog2_format::PreambleInfo::mpe_default(4))?;
    /// assert_eq!(p.raw().tokens[0], b"CLOG-02.44");
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn raw(&self) -> &RawPreamble {
        &self.raw
    }

    /// Offset of the first value token of `field` within the preamble (the offset
    /// after the last token if the version has no such field).
    ///
    /// ```
    /// use clog2_format::{preamble::Field, Preamble, PreambleInfo};
    /// let p = Preamble::from_info(PreambleInfo::mpe_default(4))?;
    /// let at = p.field_offset(Field::IsBigEndian) as usize;
    /// assert_eq!(&p.to_bytes()?[at..at + 4], b"TRUE");
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn field_offset(&self, field: Field) -> u64 {
        match layout(self.info.version)
            .iter()
            .position(|(f, _)| *f == field)
        {
            // The version token, then per earlier field a title and its values
            // (every field before commtable_fptr has one value).
            Some(pos) => self.raw.token_offset(1 + 2 * pos + 1),
            None => self.raw.token_offset(self.raw.tokens.len()),
        }
    }

    /// The 1024 bytes to write.
    ///
    /// # Errors
    ///
    /// As [`RawPreamble::to_bytes`].
    ///
    /// ```
    /// use clog2_format::Preamble;
    /// let bytes = clog2_format::synth::generate_vec(&Default::default())?;
    /// let p = Preamble::parse(&bytes)?;
    /// assert_eq!(p.to_bytes()?, bytes[..1024]);
    /// let fresh = Preamble::from_info(p.info().clone())?;
    /// assert_eq!(Preamble::parse(&fresh.to_bytes()?)?.info(), p.info());
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<[u8; PREAMBLE_LEN]> {
        self.raw.to_bytes()
    }

    /// Replaces the comm-table pointer, rewriting only its three value tokens (the
    /// padding is re-zeroed if the preamble's length changes).
    ///
    /// # Errors
    ///
    /// [`Error::Write`] with [`WriteProblem::NoCommTablePointer`] for a version whose
    /// preamble has no `commtable_fptr`, [`WriteProblem::NoCommTableValues`] when its
    /// values are missing, and as [`RawPreamble::from_tokens`] when the longer values
    /// no longer fit. The preamble is unchanged on error.
    ///
    /// ```
    /// use clog2_format::{Preamble, PreambleInfo, Version};
    /// let mut p = Preamble::from_info(PreambleInfo::mpe_default(4))?;
    /// p.set_commtable_fptr(5 * 1024 * 1024 * 1024)?;
    /// assert_eq!(p.info().commtable_fptr, Some(5 * 1024 * 1024 * 1024));
    /// let mut old = Preamble::from_info(PreambleInfo::mpe_default(4).for_version(Version::V2_30))?;
    /// assert!(old.set_commtable_fptr(1024).is_err()); // 02.30 has no such field
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn set_commtable_fptr(&mut self, fptr: u64) -> Result<()> {
        let Some(pos) = layout(self.info.version)
            .iter()
            .position(|(f, _)| *f == Field::CommtableFptr)
        else {
            return Err(Error::Write(WriteProblem::NoCommTablePointer(
                self.info.version,
            )));
        };
        // Token index of the first value: version, then 2 tokens per earlier field.
        let first = 1 + 2 * pos + 1;
        let f = fptr as i64;
        let vals = [
            (f / GIGA).to_string(),
            GIGA.to_string(),
            (f % GIGA).to_string(),
        ];
        let mut tokens = self.raw.tokens.clone();
        if tokens.len() < first + 3 {
            return Err(Error::Write(WriteProblem::NoCommTableValues));
        }
        for (k, v) in vals.iter().enumerate() {
            tokens[first + k] = v.as_bytes().to_vec();
        }
        let old_used: usize = self.raw.tokens.iter().map(|t| t.len() + 1).sum();
        let new_used: usize = tokens.iter().map(|t| t.len() + 1).sum();
        let raw = if old_used == new_used {
            RawPreamble {
                tokens,
                padding: self.raw.padding.clone(),
            }
        } else {
            RawPreamble::from_tokens(tokens)?
        };
        self.info = PreambleInfo::from_raw(&raw)?;
        self.raw = raw;
        Ok(())
    }

    /// The byte order of the file.
    ///
    /// ```
    /// let p = clog2_format::Preamble::from_info(clog2_format::PreambleInfo::mpe_default(4))?;
    /// assert_eq!(p.endian(), binrw::Endian::Big);
    /// # Ok::<(), clog2_format::Error>(())
    /// ```
    pub fn endian(&self) -> binrw::Endian {
        if self.info.big_endian {
            binrw::Endian::Big
        } else {
            binrw::Endian::Little
        }
    }
}
