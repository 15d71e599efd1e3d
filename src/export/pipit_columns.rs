//! pipit's event layout as columns ([`PipitColumns`]): the rows
//! [`super::pipit::PipitCsv`] writes, with the values a reader gets back
//! from that CSV (its fields unescaped, spec/export.md section 6, and the
//! attributes' JSON read): the Python package's `t.events()` builds its
//! DataFrame from them, with no text in between.

use super::pipit::{message, nanos, process};
use super::{ArgRef, Cat, Flow, Sink, Track};
use rustc_hash::FxHashMap;
use std::io;

/// The `Event Type` texts, by the codes of [`PipitColumns::event_type`].
///
/// ```
/// assert_eq!(mpelog::export::pipit_columns::EVENT_TYPES[1], "Leave");
/// ```
pub const EVENT_TYPES: [&str; 3] = ["Enter", "Leave", "Instant"];

/// An attribute's value, as `json.loads` reads it from the CSV's
/// `Attributes`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum AttrValue {
    /// An integer.
    Int(i64),
    /// A finite float (one that is not is text: `NaN`, `inf`).
    Float(f64),
    /// Text: its bytes in [`PipitColumns::text`], `(start, len)`.
    Text(u32, u32),
    /// JSON's `null` (a message's size or tag it does not have).
    Null,
}

/// A [`Sink`] collecting pipit's event rows as columns: one entry per row
/// in each of `timestamp` (ns from the start of the export), `event_type`
/// (an index of [`EVENT_TYPES`]), `name` (an index of `names`), `thread`, `process` and `attributes_of` (the row's
/// range of `attributes`, `None` for a row without: the CSV's empty field).
/// Nothing is allocated per row: names and keys are kept once, text values
/// one after the other in `text`.
///
/// ```
/// use mpelog::export::pipit_columns::{PipitColumns, EVENT_TYPES};
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("demo.clog2");
/// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
/// let mut cols = PipitColumns::default();
/// mpelog::Trace::open(&path)?.drawables(&Default::default(), &mut cols)?;
/// let mut csv = mpelog::export::pipit::PipitCsv::new(Vec::new());
/// mpelog::Trace::open(&path)?.drawables(&Default::default(), &mut csv)?;
/// let text = String::from_utf8(csv.into_inner())?;
/// let first = text.lines().nth(1).unwrap();
/// let kind = EVENT_TYPES[cols.event_type[0] as usize];
/// let name = &cols.names[cols.name[0] as usize];
/// assert!(first.starts_with(&format!("{},{kind},{name},", cols.timestamp[0])));
/// assert_eq!(cols.len(), text.lines().count() - 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct PipitColumns {
    from: f64,
    /// `Timestamp (ns)`: whole nanoseconds from the start of the export.
    pub timestamp: Vec<i64>,
    /// `Event Type`: an index of [`EVENT_TYPES`].
    pub event_type: Vec<u8>,
    /// `Name`: an index of [`names`](Self::names).
    pub name: Vec<u32>,
    /// The names, as they are (the CSV escapes them).
    pub names: Vec<String>,
    /// `Thread`: the track.
    pub thread: Vec<i64>,
    /// `Process`: the timeline's first row value (the rank in the process
    /// view).
    pub process: Vec<i64>,
    /// Per row, where its attributes are in [`attributes`](Self::attributes)
    /// (`(start, len)`; `None`: the row has none, not even an empty object).
    pub attributes_of: Vec<Option<(u32, u32)>>,
    /// The attributes of every row, one after the other: an index of
    /// [`keys`](Self::keys) and the value.
    pub attributes: Vec<(u32, AttrValue)>,
    /// The attributes' keys.
    pub keys: Vec<String>,
    /// The text values, one after the other.
    pub text: String,
    name_of_category: FxHashMap<i32, u32>,
    name_of_text: FxHashMap<String, u32>,
    key_at: FxHashMap<String, u32>,
    /// Set when a position passed `u32::MAX` (4 GiB of text, 4 G
    /// attributes): the sink refuses the row, rather than lose a value.
    full: bool,
}

impl PipitColumns {
    /// The number of rows.
    ///
    /// ```
    /// assert_eq!(mpelog::export::pipit_columns::PipitColumns::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.timestamp.len()
    }

    /// Whether there are no rows.
    ///
    /// ```
    /// assert!(mpelog::export::pipit_columns::PipitColumns::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.timestamp.is_empty()
    }

    /// The text of a [`AttrValue::Text`] value (empty for a range outside
    /// [`text`](Self::text)).
    ///
    /// ```
    /// use mpelog::export::pipit_columns::{AttrValue, PipitColumns};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("demo.clog2");
    /// std::fs::write(&path, clog2_format::synth::generate_vec(&Default::default())?)?;
    /// let mut cols = PipitColumns::default();
    /// mpelog::Trace::open(&path)?.drawables(&Default::default(), &mut cols)?;
    /// let texts: Vec<&str> = cols.attributes.iter().filter_map(|&(_, v)| match v {
    ///     AttrValue::Text(s, n) => Some(cols.text_of(s, n)),
    ///     _ => None,
    /// }).collect();
    /// assert!(!texts.is_empty() && texts.iter().all(|t| cols.text.contains(t)));
    /// assert_eq!(cols.text_of(u32::MAX, 1), "");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn text_of(&self, start: u32, len: u32) -> &str {
        let (a, b) = (start as usize, start as usize + len as usize);
        self.text.get(a..b).unwrap_or_default()
    }

    /// The index of the name `text`.
    fn name_id(&mut self, text: &str) -> u32 {
        intern(&mut self.names, &mut self.name_of_text, text)
    }

    fn category_name(&mut self, cat: &Cat) -> u32 {
        if let Some(&i) = self.name_of_category.get(&cat.index) {
            return i;
        }
        let i = self.name_id(&cat.name);
        self.name_of_category.insert(cat.index, i);
        i
    }

    fn key(&mut self, k: &str) -> u32 {
        intern(&mut self.keys, &mut self.key_at, k)
    }

    fn push_text(&mut self, t: &str) -> AttrValue {
        let start = self.text.len();
        self.text.push_str(t);
        match (u32::try_from(start), u32::try_from(t.len())) {
            (Ok(s), Ok(n)) => AttrValue::Text(s, n),
            _ => {
                self.full = true;
                AttrValue::Null
            }
        }
    }

    /// An error once a position passed `u32::MAX` (`full`).
    fn fits(&self) -> io::Result<()> {
        match self.full {
            false => Ok(()),
            true => Err(io::Error::other(
                "pipit columns: more than 4 GiB of attribute text or 4 G attributes",
            )),
        }
    }

    fn row(&mut self, time: f64, kind: u8, name: u32, t: &Track, attrs: Option<(u32, u32)>) {
        self.timestamp.push(nanos(self.from, time));
        self.event_type.push(kind);
        self.name.push(name);
        self.thread.push(i64::from(t.id));
        self.process.push(process(t));
        self.attributes_of.push(attrs);
    }

    /// The attributes pushed since `start`, as a row's range.
    fn since(&mut self, start: usize) -> Option<(u32, u32)> {
        let n = self.attributes.len() - start;
        match (u32::try_from(start), u32::try_from(n)) {
            (Ok(s), Ok(n)) => Some((s, n)),
            _ => {
                self.full = true;
                None
            }
        }
    }

    /// A row whose attributes are the info values (none for no info).
    fn with_info(
        &mut self,
        time: f64,
        kind: u8,
        t: &Track,
        cat: &Cat,
        info: &[u8],
    ) -> io::Result<()> {
        let name = self.category_name(cat);
        let attrs = if info.is_empty() {
            None
        } else {
            let start = self.attributes.len();
            cat.each_arg(info, |k, v| {
                let key = self.key(k);
                let value = match v {
                    ArgRef::Int(i) => AttrValue::Int(i),
                    ArgRef::Float(f) if f.is_finite() => AttrValue::Float(f),
                    ArgRef::Float(f) => self.push_text(&f.to_string()),
                    ArgRef::Text(s) => self.push_text(&s),
                };
                self.attributes.push((key, value));
            });
            self.since(start)
        };
        self.fits()?;
        self.row(time, kind, name, t, attrs);
        Ok(())
    }

    /// An `MpiSend` (`partner` = `receiver`) or `MpiRecv` (`sender`) row.
    fn message(&mut self, f: &Flow<'_>, name: &str, partner: &str) -> io::Result<()> {
        let (size, tag) = message(f.cat, f.info);
        let start = self.attributes.len();
        let or_null = |v: Option<i64>| v.map_or(AttrValue::Null, AttrValue::Int);
        for (k, v) in [
            (partner, AttrValue::Int(process(f.other))),
            ("msg_length", or_null(size)),
            ("msg_tag", or_null(tag)),
        ] {
            let key = self.key(k);
            self.attributes.push((key, v));
        }
        let attrs = self.since(start);
        self.fits()?;
        let name = self.name_id(name);
        self.row(f.time, 2, name, f.track, attrs);
        Ok(())
    }
}

/// The index of `text` in `table` (added at its end the first time), `at`
/// finding it.
fn intern(table: &mut Vec<String>, at: &mut FxHashMap<String, u32>, text: &str) -> u32 {
    if let Some(&i) = at.get(text) {
        return i;
    }
    let i = table.len() as u32;
    table.push(text.to_string());
    at.insert(text.to_string(), i);
    i
}

impl Sink for PipitColumns {
    fn start(&mut self, from: f64, _to: f64, _first: f64) -> io::Result<()> {
        self.from = from;
        Ok(())
    }

    fn track(&mut self, _t: &Track) -> io::Result<()> {
        Ok(())
    }

    fn enter(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.with_info(time, 0, t, cat, info)
    }

    fn leave(&mut self, time: f64, t: &Track, cat: &Cat) -> io::Result<()> {
        let name = self.category_name(cat);
        self.row(time, 1, name, t, None);
        Ok(())
    }

    fn instant(&mut self, time: f64, t: &Track, cat: &Cat, info: &[u8]) -> io::Result<()> {
        self.with_info(time, 2, t, cat, info)
    }

    fn send(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.message(f, "MpiSend", "receiver")
    }

    fn receive(&mut self, f: &Flow<'_>) -> io::Result<()> {
        self.message(f, "MpiRecv", "sender")
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{compute, rank_track};
    use super::*;

    /// The values a reader gets back from the CSV: a name with a comma,
    /// quotes, a tab and a backslash as it is; a text value with them too,
    /// a float; a row without info none, one with info bytes an object.
    #[test]
    fn the_values_are_those_of_the_csv_read_back() {
        let t = rank_track(3, 7, 0);
        let mut cat = compute(&["s=", ", x="], b"sE");
        cat.name = "a,\"b\"\tc\\".into();
        let text = "q\"r\\s\tt";
        let mut info = (text.len() as i16).to_be_bytes().to_vec();
        info.extend_from_slice(text.as_bytes());
        info.extend_from_slice(&1.5f64.to_be_bytes());
        let mut c = PipitColumns::default();
        c.start(10.0, 20.0, 10.0).unwrap();
        c.enter(10.000_001_5, &t, &cat, &info).unwrap();
        c.leave(9.999_999_5, &t, &cat).unwrap();
        let empty = compute(&[], b"");
        c.instant(11.0, &t, &empty, &[0]).unwrap();
        c.finish().unwrap();
        assert_eq!(c.timestamp, [1500, -500, 1_000_000_000]);
        assert_eq!(c.event_type, [0, 1, 2]);
        assert_eq!((c.thread[0], c.process[0]), (3, 7));
        assert_eq!(c.names[c.name[0] as usize], "a,\"b\"\tc\\");
        assert_eq!(c.name[0], c.name[1]);
        let (start, len) = c.attributes_of[0].unwrap();
        let got: Vec<(&str, AttrValue)> = c.attributes[start as usize..(start + len) as usize]
            .iter()
            .map(|&(k, v)| (c.keys[k as usize].as_str(), v))
            .collect();
        assert_eq!(got[1], ("x", AttrValue::Float(1.5)));
        let AttrValue::Text(s, n) = got[0].1 else {
            panic!("{got:?}")
        };
        assert_eq!((got[0].0, c.text_of(s, n)), ("s", text));
        assert_eq!(c.attributes_of[1], None, "a leave has no attributes");
        assert!(
            c.attributes_of[2].is_some(),
            "info bytes: an object, as the CSV's"
        );
    }

    /// Past 4 GiB of text (or 4 G attributes) a row is refused with an
    /// error, not written with a value lost.
    #[test]
    fn a_full_sink_refuses_rows() {
        let t = rank_track(0, 0, 0);
        let cat = compute(&["x="], b"E");
        let mut c = PipitColumns::default();
        c.start(0.0, 1.0, 0.0).unwrap();
        c.enter(0.5, &t, &cat, &1.5f64.to_be_bytes()).unwrap();
        c.full = true;
        assert!(c.enter(0.6, &t, &cat, &1.5f64.to_be_bytes()).is_err());
        assert_eq!(c.len(), 1, "the refused row is not there");
    }

    /// A message's partner, size and tag; `null` for what it lacks.
    #[test]
    fn a_message_row_has_its_partner_size_and_tag() {
        let (a, b) = (rank_track(0, 2, 0), rank_track(1, 5, 0));
        let cat = compute(&["msg_tag="], b"d");
        let info = 9i32.to_be_bytes();
        let mut c = PipitColumns::default();
        c.start(0.0, 1.0, 0.0).unwrap();
        let f = Flow {
            time: 0.5,
            track: &a,
            other: &b,
            flow: 1,
            cat: &cat,
            info: &info,
        };
        c.send(&f).unwrap();
        assert_eq!(c.names[c.name[0] as usize], "MpiSend");
        let got: Vec<(&str, AttrValue)> = c
            .attributes
            .iter()
            .map(|&(k, v)| (c.keys[k as usize].as_str(), v))
            .collect();
        assert_eq!(
            got,
            [
                ("receiver", AttrValue::Int(5)),
                ("msg_length", AttrValue::Null),
                ("msg_tag", AttrValue::Int(9))
            ]
        );
    }
}
