//! The display profile: 35-byte text fields and the entries that name, colour and
//! label each interval type.

use super::*;

/// Whether a 35-byte profile field is well formed: bytes 0–33 hold no TAB, LF or
/// CR (Jumpshot-3 splits the line on them) and byte 34 is a TAB.
pub fn field_is_well_formed(b: &[u8; FIELD_LEN]) -> bool {
    b[FIELD_LEN - 1] == b'\t'
        && !b[..FIELD_LEN - 1]
            .iter()
            .any(|&c| matches!(c, b'\t' | b'\n' | b'\r'))
}

/// One fixed 35-byte text field of a display-profile entry, kept as written.
#[binrw]
#[brw(big)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextField {
    /// The raw bytes: text (or a decimal number), a NUL, padding, a TAB.
    #[br(assert(field_is_well_formed(&bytes), ReadProblem::ProfileField { text: String::from_utf8_lossy(&bytes).into_owned() }))]
    pub bytes: [u8; FIELD_LEN],
}

impl std::fmt::Debug for TextField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TextField({:?})", String::from_utf8_lossy(&self.bytes))
    }
}

impl TextField {
    /// A text field as `SLOG_str_ncopy_set` writes one: at most 33 bytes of `s`
    /// (TAB, LF and CR replaced by spaces), NUL padding, a TAB.
    pub fn text(s: &str) -> TextField {
        let mut bytes = [0u8; FIELD_LEN];
        for (d, &c) in bytes
            .iter_mut()
            .zip(s.as_bytes().iter().take(FIELD_LEN - 2))
        {
            *d = if matches!(c, b'\t' | b'\n' | b'\r') {
                b' '
            } else {
                c
            };
        }
        bytes[FIELD_LEN - 1] = b'\t';
        TextField { bytes }
    }

    /// A numeric field as the C writer makes one: decimal digits, a NUL, spaces,
    /// a TAB.
    pub fn number(n: u32) -> TextField {
        let mut bytes = [b' '; FIELD_LEN];
        let s = n.to_string();
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        bytes[s.len()] = 0;
        bytes[FIELD_LEN - 1] = b'\t';
        TextField { bytes }
    }

    /// The text: the bytes before the first NUL (and before the TAB), without
    /// leading or trailing bytes ≤ 0x20 (what both readers show).
    pub fn as_text(&self) -> String {
        let b = &self.bytes[..FIELD_LEN - 1];
        let b = &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())];
        let start = b.iter().position(|&c| c > b' ').unwrap_or(b.len());
        let end = b.iter().rposition(|&c| c > b' ').map_or(start, |e| e + 1);
        String::from_utf8_lossy(&b[start..end]).into_owned()
    }

    /// The decimal number the field holds: optional spaces, digits, then only NULs
    /// and spaces (what `atoi` and Java's `parseShort` of the trimmed token both
    /// read the same way). `None` otherwise or above `u32::MAX`.
    pub fn as_number(&self) -> Option<u32> {
        let b = &self.bytes[..FIELD_LEN - 1];
        let start = b.iter().position(|&c| c != b' ')?;
        let digits = b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || b[start + digits..].iter().any(|&c| c != 0 && c != b' ') {
            return None;
        }
        std::str::from_utf8(&b[start..start + digits])
            .ok()?
            .parse()
            .ok()
    }
}

/// Reads the argument labels of a profile entry: `nargs` fields (none when the
/// entry has no label count), after checking that they fit.
#[binrw::parser(reader, endian)]
pub(super) fn arg_labels(nargs: Option<&TextField>) -> BinResult<Vec<TextField>> {
    let Some(field) = nargs else {
        return Ok(Vec::new());
    };
    let pos = reader.stream_position()?;
    let Some(n) = field.as_number() else {
        // The entry's assertion on `nargs` reports this first, at the entry.
        let text = field.as_text();
        return Err(reject(
            pos - FIELD_LEN as u64,
            ReadProblem::ProfileLabelCount { text },
        ));
    };
    let bytes = n as u64 * FIELD_LEN as u64 + 1;
    need(reader, pos - FIELD_LEN as u64, bytes, |need, have| {
        ReadProblem::ArgLabelsTooMany {
            count: n,
            need,
            have,
        }
    })?;
    (0..n)
        .map(|_| TextField::read_options(reader, endian, ()))
        .collect()
}

/// One display-profile entry: a line of 35-byte fields and an LF.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileEntry {
    /// Interval type, decimal (0–65535).
    #[br(assert(intvltype.as_number().is_some_and(|n| n <= u16::MAX as u32), ReadProblem::ProfileIntervalType { text: intvltype.as_text() }))]
    pub intvltype: TextField,
    /// Bebits code, decimal (0–3).
    #[br(assert(bebits.as_number().is_some_and(|n| n <= 3), ReadProblem::ProfileBebits { text: bebits.as_text() }))]
    pub bebits: TextField,
    /// Class (`state`, `message`, ...): an arrow type's class contains `message`.
    pub classtype: TextField,
    /// Label (the legend name).
    pub label: TextField,
    /// Colour name (X11 / Jumpshot colour table).
    pub color: TextField,
    /// `0` (no argument labels) or `1` (a count and the labels follow).
    #[br(assert(matches!(has_labels.as_number(), Some(0 | 1)), ReadProblem::ProfileLabelFlag { text: has_labels.as_text() }))]
    pub has_labels: TextField,
    /// Number of argument labels, present when `has_labels` is 1.
    #[br(if(has_labels.as_number() == Some(1)))]
    #[br(assert(nargs.as_ref().is_none_or(|f| f.as_number().is_some()), ReadProblem::ProfileLabelCount { text: nargs.as_ref().map(TextField::as_text).unwrap_or_default() }))]
    pub nargs: Option<TextField>,
    /// The argument labels (as many as `nargs` says).
    #[br(parse_with = arg_labels, args(nargs.as_ref()))]
    pub arg_labels: Vec<TextField>,
    #[br(temp, assert(newline == b'\n', ReadProblem::ProfileEntryEnd { byte: newline }))]
    #[bw(calc = b'\n')]
    newline: u8,
}

impl ProfileEntry {
    /// An entry as the C writer makes it (with a label count only when there are
    /// labels).
    pub fn new(
        intvltype: u16,
        bebits: u8,
        classtype: &str,
        label: &str,
        color: &str,
        arg_labels: &[&str],
    ) -> ProfileEntry {
        let has = !arg_labels.is_empty();
        ProfileEntry {
            intvltype: TextField::number(intvltype as u32),
            bebits: TextField::number(bebits as u32),
            classtype: TextField::text(classtype),
            label: TextField::text(label),
            color: TextField::text(color),
            has_labels: TextField::number(has as u32),
            nargs: has.then(|| TextField::number(arg_labels.len() as u32)),
            arg_labels: arg_labels.iter().map(|s| TextField::text(s)).collect(),
        }
    }

    /// The interval type.
    pub fn itype(&self) -> u16 {
        self.intvltype.as_number().unwrap_or(0).min(u16::MAX as u32) as u16
    }

    /// The bebits code.
    pub fn bebits_code(&self) -> u8 {
        self.bebits.as_number().unwrap_or(0).min(255) as u8
    }

    /// Whether the class marks an arrow type (contains `message`, any case), as
    /// Jumpshot-3 decides.
    pub fn is_message(&self) -> bool {
        self.classtype
            .as_text()
            .to_ascii_lowercase()
            .contains("message")
    }

    /// The argument labels as text.
    pub fn label_texts(&self) -> Vec<String> {
        self.arg_labels.iter().map(TextField::as_text).collect()
    }

    /// Bytes on disk.
    pub fn disk_len(&self) -> u64 {
        (6 + self.nargs.is_some() as u64 + self.arg_labels.len() as u64) * FIELD_LEN as u64 + 1
    }
}

/// The display profile ("interval infos"): one entry per (interval type, bebits).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Profile {
    #[br(temp, parse_with = fitting_count, args(MIN_PROFILE_ENTRY_LEN, "profile entries"))]
    #[bw(try_calc = u32::try_from(entries.len()))]
    n: u32,
    /// The valid entries (the writer may leave reserved or stale bytes after them).
    #[br(count = n)]
    pub entries: Vec<ProfileEntry>,
}
