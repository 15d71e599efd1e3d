//! Streaming one location's event file (spec/otf2.md §7): timestamps,
//! attribute lists, events, mapped to global references and clock-corrected
//! the way libotf2's reader does.

use crate::decode::Cur;
use crate::error::Result;
use crate::event::{event_type as et, value_type as vt, Attribute, Event, EventKind, Value};
use crate::local::{mapping, ClockCorrector, LocalDefs};
use crate::source::Source;
use crate::stream::{marker, Raw, RecordStream};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The events of one location, in file order. Memory: one window of the
/// event file (see [`Limits::window_bytes`](crate::Limits)), the current
/// record and its attribute list.
pub struct LocationEvents<S: Source> {
    stream: Option<RecordStream<S>>,
    location: u64,
    local: Arc<LocalDefs>,
    clock: ClockCorrector,
    time: u64,
    pending: Vec<Attribute>,
    done: bool,
    /// Events of other record types read so far, by type.
    pub skipped: BTreeMap<u8, u64>,
    /// Events read so far.
    pub events: u64,
    /// Byte offset of the fields of the last event returned.
    offset: u64,
}

impl<S: Source> LocationEvents<S> {
    /// Events of `location` from `src` (`None`: the location has no event
    /// file), read in `chunk_size`-byte chunks through windows of `window`
    /// bytes, mapped and corrected with the location's `local` definitions.
    ///
    /// ```
    /// use otf2_format::{FileSource, LocationEvents};
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny");
    /// let a = otf2_format::Archive::open(dir)?;
    /// let path = a.location_file(1, "evt");
    /// let src = FileSource::new(&path).unwrap();
    /// let local = std::sync::Arc::new(a.local_defs(1)?);
    /// let mut ev = LocationEvents::new(Some(src), path, 1, a.anchor.chunk_size_events, 1 << 16, local);
    /// assert_eq!(ev.location(), 1);
    /// let mut n = 0;
    /// while ev.next_event()?.is_some() {
    ///     n += 1;
    /// }
    /// assert_eq!(n, a.location_events(1)?.count());
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn new(
        src: Option<S>,
        file: PathBuf,
        location: u64,
        chunk_size: u64,
        window: usize,
        local: Arc<LocalDefs>,
    ) -> Self {
        LocationEvents {
            stream: src.map(|s| RecordStream::new(s, file, chunk_size, true, window)),
            location,
            local,
            clock: ClockCorrector::default(),
            time: 0,
            pending: Vec::new(),
            done: false,
            skipped: BTreeMap::new(),
            events: 0,
            offset: 0,
        }
    }

    /// The location read.
    ///
    /// ```
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let ev = a.location_events(1)?;
    /// assert_eq!(ev.location(), 1);
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn location(&self) -> u64 {
        self.location
    }

    /// The byte offset in the event file of the fields of the last event
    /// returned (just after its record type and length bytes); 0 before the
    /// first. What a check names when an event breaks a rule.
    ///
    /// ```
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let mut ev = a.location_events(0)?;
    /// assert_eq!(ev.offset(), 0); // before the first event
    /// ev.next_event()?;
    /// let first = ev.offset();
    /// assert!(first > 0);
    /// ev.next_event()?;
    /// assert!(ev.offset() > first);
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Chunks entered so far.
    ///
    /// ```
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let mut ev = a.location_events(0)?;
    /// assert_eq!(ev.chunks(), 0);
    /// while ev.next_event()?.is_some() {}
    /// assert_eq!(ev.chunks(), 1); // a small file: one chunk
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn chunks(&self) -> u64 {
        self.stream.as_ref().map_or(0, |s| s.chunks)
    }

    /// The next event, `None` at the end.
    ///
    /// # Errors
    /// Bytes that are not an event file (error with file and offset); after
    /// an error the reader is done.
    ///
    /// ```
    /// use otf2_format::EventKind;
    /// let a = otf2_format::Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny"))?;
    /// let mut ev = a.location_events(0)?;
    /// let first = ev.next_event()?.unwrap();
    /// assert!(matches!(first.kind, EventKind::Enter { .. }));
    /// assert_eq!((first.location, first.time), (0, 10));
    /// let mut last = first.time;
    /// while let Some(e) = ev.next_event()? {
    ///     assert!(e.time >= last); // one location's events are in time order
    ///     last = e.time;
    /// }
    /// assert!(ev.next_event()?.is_none()); // and stay done
    /// # Ok::<(), otf2_format::Error>(())
    /// ```
    pub fn next_event(&mut self) -> Result<Option<Event>> {
        if self.done {
            return Ok(None);
        }
        let r = self.step();
        if !matches!(r, Ok(Some(_))) {
            self.done = true;
        }
        r
    }

    fn step(&mut self) -> Result<Option<Event>> {
        let Some(s) = self.stream.as_mut() else {
            return Ok(None);
        };
        loop {
            match s.next()? {
                Raw::End => return Ok(None),
                Raw::Time(t) => self.time = t,
                Raw::Record {
                    rtype: marker::ATTRIBUTE_LIST,
                    offset,
                } => {
                    let mut c = s.cursor(offset);
                    self.pending.clear();
                    let n = c.u32c("attribute count")?;
                    for _ in 0..n {
                        let attribute = self
                            .local
                            .map(mapping::ATTRIBUTE, u64::from(c.u32c("attribute")?))
                            as u32;
                        let type_id = c.u8("attribute type")?;
                        let value = read_value(&mut c, type_id, &self.local)?;
                        self.pending.push(Attribute {
                            attribute,
                            type_id,
                            value,
                        });
                    }
                }
                Raw::Record { rtype, offset } => {
                    let mut c = s.cursor(offset);
                    let kind = decode(rtype, &mut c, &self.local)?;
                    self.offset = offset;
                    if let EventKind::Other { record_type } = kind {
                        *self.skipped.entry(record_type).or_insert(0) += 1;
                    }
                    self.events += 1;
                    let time = self.clock.apply(&self.local.intervals, self.time);
                    return Ok(Some(Event {
                        location: self.location,
                        time,
                        kind,
                        attributes: std::mem::take(&mut self.pending),
                    }));
                }
            }
        }
    }
}

impl<S: Source> Iterator for LocationEvents<S> {
    type Item = Result<Event>;
    fn next(&mut self) -> Option<Result<Event>> {
        self.next_event().transpose()
    }
}

/// Mapping type of a reference-typed value (`None`: not a reference).
fn ref_mapping(type_id: u8) -> Option<u8> {
    match type_id {
        11..=25 => Some(type_id - 11),
        _ => None,
    }
}

fn read_value(c: &mut Cur<'_>, type_id: u8, local: &LocalDefs) -> Result<Value> {
    Ok(match type_id {
        vt::UINT8 => Value::Unsigned(u64::from(c.u8("uint8 value")?)),
        vt::UINT16 => Value::Unsigned(u64::from(c.u16("uint16 value")?)),
        vt::UINT32 => Value::Unsigned(u64::from(c.u32c("uint32 value")?)),
        vt::UINT64 => Value::Unsigned(c.u64c("uint64 value")?),
        vt::INT8 => Value::Signed(i64::from(c.u8("int8 value")? as i8)),
        vt::INT16 => Value::Signed(i64::from(c.u16("int16 value")? as i16)),
        vt::INT32 => Value::Signed(i64::from(c.i32c("int32 value")?)),
        vt::INT64 => Value::Signed(c.i64c("int64 value")?),
        vt::FLOAT => Value::Float(f64::from(f32::from_bits(c.u32_full("float value")?))),
        vt::DOUBLE => Value::Float(f64::from_bits(c.u64_full("double value")?)),
        vt::LOCATION => Value::Ref(local.map(mapping::LOCATION, c.u64c("location value")?)),
        t => match ref_mapping(t) {
            Some(m) => Value::Ref(local.map(m, u64::from(c.u32c("reference value")?))),
            None => Value::Unsigned(c.u64c("value of unknown type")?),
        },
    })
}

fn metric_value(type_id: u8, raw: u64) -> Value {
    match type_id {
        vt::INT64 => Value::Signed(raw as i64),
        vt::DOUBLE => Value::Float(f64::from_bits(raw)),
        _ => Value::Unsigned(raw),
    }
}

fn decode(rtype: u8, c: &mut Cur<'_>, local: &LocalDefs) -> Result<EventKind> {
    let comm = |c: &mut Cur<'_>| -> Result<u32> {
        Ok(local.map(mapping::COMM, u64::from(c.u32c("communicator")?)) as u32)
    };
    Ok(match rtype {
        et::ENTER => EventKind::Enter {
            region: local.map(mapping::REGION, u64::from(c.u32c("region")?)) as u32,
        },
        et::LEAVE => EventKind::Leave {
            region: local.map(mapping::REGION, u64::from(c.u32c("region")?)) as u32,
        },
        et::MPI_SEND => EventKind::MpiSend {
            receiver: c.u32c("receiver")?,
            comm: comm(c)?,
            tag: c.u32c("tag")?,
            length: c.u64c("message length")?,
        },
        et::MPI_ISEND => EventKind::MpiIsend {
            receiver: c.u32c("receiver")?,
            comm: comm(c)?,
            tag: c.u32c("tag")?,
            length: c.u64c("message length")?,
            request: c.u64c("request")?,
        },
        et::MPI_ISEND_COMPLETE => EventKind::MpiIsendComplete {
            request: c.u64c("request")?,
        },
        et::MPI_IRECV_REQUEST => EventKind::MpiIrecvRequest {
            request: c.u64c("request")?,
        },
        et::MPI_RECV => EventKind::MpiRecv {
            sender: c.u32c("sender")?,
            comm: comm(c)?,
            tag: c.u32c("tag")?,
            length: c.u64c("message length")?,
        },
        et::MPI_IRECV => EventKind::MpiIrecv {
            sender: c.u32c("sender")?,
            comm: comm(c)?,
            tag: c.u32c("tag")?,
            length: c.u64c("message length")?,
            request: c.u64c("request")?,
        },
        et::MPI_REQUEST_TEST => EventKind::MpiRequestTest {
            request: c.u64c("request")?,
        },
        et::MPI_REQUEST_CANCELLED => EventKind::MpiRequestCancelled {
            request: c.u64c("request")?,
        },
        et::MPI_COLLECTIVE_BEGIN => EventKind::MpiCollectiveBegin,
        et::MPI_COLLECTIVE_END => EventKind::MpiCollectiveEnd {
            op: c.u8("collective operation")?,
            comm: comm(c)?,
            root: c.u32c("root")?,
            sent: c.u64c("bytes sent")?,
            received: c.u64c("bytes received")?,
        },
        et::METRIC => {
            let metric = local.map(mapping::METRIC, u64::from(c.u32c("metric")?)) as u32;
            let n = c.u8("number of metrics")?;
            let mut values = Vec::with_capacity(usize::from(n));
            for _ in 0..n {
                let t = c.u8("metric value type")?;
                let raw = c.u64c("metric value")?;
                values.push((t, metric_value(t, raw)));
            }
            EventKind::Metric { metric, values }
        }
        et::PROGRAM_BEGIN => {
            let name = local.map(mapping::STRING, u64::from(c.u32c("program name")?)) as u32;
            let n = c.u32c("number of arguments")?;
            let mut arguments = Vec::with_capacity((n as usize).min(c.remaining()));
            for _ in 0..n {
                arguments.push(local.map(mapping::STRING, u64::from(c.u32c("argument")?)) as u32);
            }
            EventKind::ProgramBegin { name, arguments }
        }
        et::PROGRAM_END => EventKind::ProgramEnd {
            exit_status: c.i64c("exit status")?,
        },
        other => EventKind::Other { record_type: other },
    })
}
