//! `mpelog._mpelog`: the extension module under the Python package `mpelog`
//! (python/mpelog/__init__.py wraps it). Reads go through [`mpelog::Trace`]
//! with the GIL released; drawables reach pyarrow through the Arrow C data
//! interface (PyCapsules `arrow_schema` and `arrow_array`, `__arrow_c_array__`),
//! their buffers handed over, not copied.

use arrow_array::ffi::FFI_ArrowSchema;
use arrow_array::types::{Float64Type, Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_array::{PrimitiveArray, StringArray};
use arrow_schema::ArrowError;
use arrow_schema::SchemaRef;
use mpelog::export::info_columns::InfoColumn;
use mpelog::trace::{Columns, Select, TextColumn, TypedColumn, Validity};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};

mod events;
mod interrupt;
mod rows;
use interrupt::interruptible;
use rows::{schema, Chunk, Rows, TooLong};

create_exception!(
    mpelog,
    MpelogError,
    PyException,
    "Any error of mpelog; `kind`, `path` and `offset` (byte offset or None) say more."
);
create_exception!(
    mpelog,
    TraceIOError,
    MpelogError,
    "A file could not be opened, read or written."
);
create_exception!(
    mpelog,
    UnrecognizedError,
    MpelogError,
    "The input is no trace format mpelog knows."
);
create_exception!(mpelog, RemoteError, MpelogError, "A URL could not be read.");
create_exception!(
    mpelog,
    Clog2Error,
    MpelogError,
    "A bad CLOG2 or old CLOG trace."
);
create_exception!(mpelog, Slog2Error, MpelogError, "A bad SLOG-2 file.");
create_exception!(mpelog, Slog1Error, MpelogError, "A bad SLOG-1 file.");
create_exception!(mpelog, AlogError, MpelogError, "A bad ALOG file.");
create_exception!(mpelog, Otf2Error, MpelogError, "A bad OTF2 archive.");
create_exception!(
    mpelog,
    AnnotationError,
    MpelogError,
    "A bad or stale annotation."
);
create_exception!(
    mpelog,
    NoTraceError,
    MpelogError,
    "An annotation whose trace is missing."
);
create_exception!(
    mpelog,
    BadWindowError,
    MpelogError,
    "A window that is not FROM < TO, both finite."
);
create_exception!(
    mpelog,
    NoViewError,
    MpelogError,
    "A view the trace does not have."
);

create_exception!(
    mpelog,
    OutputError,
    MpelogError,
    "An output that cannot be written: one of the inputs, a directory, or refused by the file system."
);
create_exception!(
    mpelog,
    UnsupportedError,
    MpelogError,
    "Something this input cannot do (say, a conversion between two formats that does not exist)."
);

/// The Python exception of a library error, with `kind`, `path` and `offset`.
fn py_err(e: mpelog::trace::Error) -> PyErr {
    use mpelog::trace::Error as E;
    let msg = e.to_string();
    let err = match &e {
        E::Io { .. } => TraceIOError::new_err(msg),
        E::Unrecognized { .. } => UnrecognizedError::new_err(msg),
        E::Remote(_) => RemoteError::new_err(msg),
        E::Clog2 { .. } => Clog2Error::new_err(msg),
        E::Slog2 { .. } => Slog2Error::new_err(msg),
        E::Slog1 { .. } => Slog1Error::new_err(msg),
        E::Alog { .. } => AlogError::new_err(msg),
        E::Otf2 { .. } => Otf2Error::new_err(msg),
        E::Annotation { .. } => AnnotationError::new_err(msg),
        E::NoTrace { .. } => NoTraceError::new_err(msg),
        E::BadWindow { .. } => BadWindowError::new_err(msg),
        E::NoView { .. } => NoViewError::new_err(msg),
        E::Output(_) => OutputError::new_err(msg),
        E::Unsupported { .. } => UnsupportedError::new_err(msg),
        _ => MpelogError::new_err(msg),
    };
    let path = match &e {
        E::Io { path, .. }
        | E::Unrecognized { path, .. }
        | E::Clog2 { path, .. }
        | E::Slog2 { path, .. }
        | E::Slog1 { path, .. }
        | E::Alog { path, .. }
        | E::Otf2 { path, .. }
        | E::Annotation { path, .. } => Some(path.display().to_string()),
        E::NoTrace { annotation, .. } => Some(annotation.display().to_string()),
        _ => None,
    };
    Python::attach(|py| {
        let v = err.value(py);
        let _ = v.setattr("kind", e.kind());
        let _ = v.setattr("offset", e.offset());
        let _ = v.setattr("path", path);
    });
    err
}

/// Arrow's null buffer of `valid` over `len` rows (none without nulls); the
/// bitmap is handed over, not copied.
fn nulls(valid: Validity, len: usize) -> Option<arrow_buffer::NullBuffer> {
    (valid.nulls > 0).then(|| {
        let bits =
            arrow_buffer::BooleanBuffer::new(arrow_buffer::Buffer::from_vec(valid.bits), 0, len);
        // SAFETY-free: the count is checked against the bitmap by Arrow.
        arrow_buffer::NullBuffer::new(bits)
    })
}

/// A UTF-8 array over the column's own buffers (no copy; the text is
/// checked to be UTF-8 once, by Arrow).
fn text_array(c: TextColumn) -> Result<ArrayRef, ArrowError> {
    let len = c.offsets.len().saturating_sub(1);
    let offsets = arrow_buffer::OffsetBuffer::new(arrow_buffer::ScalarBuffer::from(c.offsets));
    let values = arrow_buffer::Buffer::from_vec(c.bytes);
    Ok(Arc::new(StringArray::try_new(
        offsets,
        values,
        nulls(c.valid, len),
    )?))
}

/// The error of a row whose text passes 2 GiB in one column.
fn too_long(path: &std::path::Path) -> mpelog::trace::Error {
    mpelog::trace::Error::Unsupported {
        path: path.to_path_buf(),
        what: "a drawable with more than 2 GiB of text in one column".into(),
    }
}

/// The record batch of a window's columns: every column's memory moved into
/// Arrow's buffers as it is, none copied.
pub(crate) fn columns_batch(c: Columns) -> Result<RecordBatch, ArrowError> {
    let len = c.len();
    let infos: Vec<InfoColumn> = c.typed.iter().map(|(col, _)| col.clone()).collect();
    let mut arrays: Vec<ArrayRef> = vec![
        text_array(c.kind)?,
        Arc::new(PrimitiveArray::<Int32Type>::new(c.category.into(), None)),
        text_array(c.name)?,
        Arc::new(PrimitiveArray::<Float64Type>::new(c.start.into(), None)),
        Arc::new(PrimitiveArray::<Float64Type>::new(c.end.into(), None)),
        Arc::new(PrimitiveArray::<Float64Type>::new(c.duration.into(), None)),
        Arc::new(PrimitiveArray::<Int32Type>::new(c.start_line.into(), None)),
        Arc::new(PrimitiveArray::<Int32Type>::new(c.end_line.into(), None)),
        text_array(c.info)?,
    ];
    for (_, t) in c.typed {
        arrays.push(match t {
            TypedColumn::Int(v, ok) => {
                Arc::new(PrimitiveArray::<Int64Type>::new(v.into(), nulls(ok, len)))
            }
            TypedColumn::Float(v, ok) => {
                Arc::new(PrimitiveArray::<Float64Type>::new(v.into(), nulls(ok, len)))
            }
            TypedColumn::Text(t) => text_array(t)?,
            _ => return Err(ArrowError::NotYetImplemented("a new typed column".into())),
        });
    }
    RecordBatch::try_new(schema(&infos), arrays)
}

/// The info columns to make: the `info` text if `info`, the typed columns
/// named in `typed` (`None`: every one).
fn select(info: bool, typed: Option<Vec<String>>) -> Select {
    let s = Select::default().info(info);
    match typed {
        Some(names) => s.typed(names),
        None => s,
    }
}

/// What the reading thread of [`Trace::stream`] sends: the legend's table
/// layout first, then batches, or the error that stopped it.
enum Message {
    Schema(SchemaRef),
    Batch(RecordBatch),
    Failed(mpelog::trace::Error),
}

/// What the reading thread of [`Trace::stream`] hands the building thread:
/// the legend first, then the pieces in chunks, or the error that stopped it.
enum Feed {
    Legend(Vec<slog2_format::Category>),
    Chunk(Chunk),
    Failed(mpelog::trace::Error),
}

/// Pieces to a chunk handed from the reading to the building thread.
const CHUNK: usize = 4096;

/// Chunks the reading thread may be ahead of the building thread.
const CHUNKS_AHEAD: usize = 4;

/// The schema of a table, for pyarrow (`pyarrow.schema(x)`: the Arrow
/// PyCapsule interface).
#[pyclass(module = "mpelog._mpelog")]
struct ArrowSchema {
    schema: SchemaRef,
}

#[pymethods]
impl ArrowSchema {
    /// The Arrow PyCapsule interface: the schema.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let ffi = FFI_ArrowSchema::try_from(self.schema.as_ref())
            .map_err(|e| MpelogError::new_err(e.to_string()))?;
        PyCapsule::new(py, ffi, Some(CString::new("arrow_schema").expect("no NUL")))
    }
}

/// One record batch, for pyarrow (`pyarrow.record_batch(x)`: the Arrow
/// PyCapsule interface; the columns are handed over, not copied).
#[pyclass(module = "mpelog._mpelog")]
struct ArrowBatch {
    batch: Mutex<Option<RecordBatch>>,
}

#[pymethods]
impl ArrowBatch {
    /// The Arrow PyCapsule interface: the batch as a struct array, once.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let batch = self
            .batch
            .lock()
            .map_err(|_| MpelogError::new_err("batch poisoned"))?
            .take()
            .ok_or_else(|| MpelogError::new_err("this batch was already taken"))?;
        let data = arrow_array::StructArray::from(batch).into_data();
        let (array, schema) =
            arrow_array::ffi::to_ffi(&data).map_err(|e| MpelogError::new_err(e.to_string()))?;
        Ok((
            PyCapsule::new(
                py,
                schema,
                Some(CString::new("arrow_schema").expect("no NUL")),
            )?,
            PyCapsule::new(
                py,
                array,
                Some(CString::new("arrow_array").expect("no NUL")),
            )?,
        ))
    }
}

/// The batches of a window read on a thread of their own while they are
/// taken (at most one ahead): the schema first, then the batches; an error
/// of the input is raised typed, where it is met.
#[pyclass(module = "mpelog._mpelog")]
struct BatchStream {
    rx: Mutex<Option<Receiver<Message>>>,
    schema: Mutex<Option<SchemaRef>>,
    /// Set when the stream ends: the reading thread stops.
    stop: Arc<AtomicBool>,
}

impl Drop for BatchStream {
    fn drop(&mut self) {
        self.close();
    }
}

impl BatchStream {
    /// The next message, waited for without the GIL (`None`: the end).
    fn next_message(&self, py: Python<'_>) -> PyResult<Option<Message>> {
        let slot = &self.rx;
        loop {
            // `None`: nothing yet; an interrupt is looked for, then again.
            let got = py.detach(|| {
                let rx = slot
                    .lock()
                    .map_err(|_| MpelogError::new_err("stream poisoned"))?;
                Ok::<_, PyErr>(
                    match rx.as_ref().map(|rx| rx.recv_timeout(interrupt::POLL)) {
                        None | Some(Err(RecvTimeoutError::Disconnected)) => Some(None),
                        Some(Ok(m)) => Some(Some(m)),
                        Some(Err(RecvTimeoutError::Timeout)) => None,
                    },
                )
            })?;
            match got {
                Some(m) => return Ok(m),
                None => interrupt::check(py)?,
            }
        }
    }

    /// Ends the stream: the reading thread stops at its next piece (or, while
    /// it reads and sorts a format without a tree, its next primitive).
    fn close(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Ok(mut rx) = self.rx.lock() {
            rx.take();
        }
    }
}

#[pymethods]
impl BatchStream {
    /// The table's schema, once the input has been read far enough to know
    /// its legend (for a format without a tree: read and sorted); raises the
    /// input's error if it is met before.
    fn schema(&self, py: Python<'_>) -> PyResult<ArrowSchema> {
        if let Some(s) = self.schema.lock().ok().and_then(|s| s.clone()) {
            return Ok(ArrowSchema { schema: s });
        }
        match self.next_message(py)? {
            Some(Message::Schema(s)) => {
                if let Ok(mut slot) = self.schema.lock() {
                    *slot = Some(s.clone());
                }
                Ok(ArrowSchema { schema: s })
            }
            Some(Message::Failed(e)) => {
                self.close();
                Err(py_err(e))
            }
            Some(Message::Batch(_)) | None => {
                Err(MpelogError::new_err("the stream ended before its schema"))
            }
        }
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch; raises the input's error typed where it is met.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<ArrowBatch>> {
        if self.schema.lock().ok().and_then(|s| s.clone()).is_none() {
            self.schema(py)?;
        }
        match self.next_message(py)? {
            Some(Message::Batch(b)) => Ok(Some(ArrowBatch {
                batch: Mutex::new(Some(b)),
            })),
            Some(Message::Failed(e)) => {
                self.close();
                Err(py_err(e))
            }
            Some(Message::Schema(_)) | None => {
                self.close();
                Ok(None)
            }
        }
    }
}

/// An opened trace (see the Python class `mpelog.Trace`).
#[pyclass(module = "mpelog._mpelog")]
struct Trace {
    /// `None` once closed.
    inner: Arc<Mutex<Option<mpelog::Trace>>>,
    /// Set by `close` before it waits for the trace (which an interrupted
    /// read may still hold), so that `closed` never waits.
    closed: AtomicBool,
    /// The format's name (kept for `repr` after `close`).
    format: &'static str,
}

/// `f` of the trace in `t`, or `ValueError` when it was closed (as Python's
/// own files answer once closed). The trace's reads stop once `stop` is set
/// (an interrupt, [`interruptible`]); one set before the trace was free
/// stops the call before it begins.
fn with<R>(
    t: &Mutex<Option<mpelog::Trace>>,
    stop: &Arc<AtomicBool>,
    f: impl FnOnce(&mut mpelog::Trace) -> PyResult<R>,
) -> PyResult<R> {
    let mut g = t.lock().unwrap_or_else(|e| e.into_inner());
    let Some(t) = g.as_mut() else {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "this trace is closed (Trace.close)",
        ));
    };
    if stop.load(Ordering::Relaxed) {
        interrupt::count_stopped();
        return Err(MpelogError::new_err("interrupted before it began"));
    }
    t.set_stop(stop.clone());
    let r = f(t);
    if r.is_err() && stop.load(Ordering::Relaxed) {
        interrupt::count_stopped();
    }
    r
}

/// Whether a window query of `t` would first convert it to SLOG-2 (a format
/// without a tree, not converted yet).
fn converts(t: &mpelog::Trace) -> bool {
    use mpelog::trace::Format;
    let tree = matches!(
        t.format(),
        Format::Slog2 | Format::Slog2Compressed | Format::Annotation
    );
    !tree && !t.is_converted()
}

/// Export options for a window.
fn window(from: Option<f64>, to: Option<f64>) -> mpelog::export::Options {
    mpelog::export::Options::default().window(from, to)
}

#[pymethods]
impl Trace {
    /// The format's name.
    #[getter]
    fn format(&self) -> &'static str {
        self.format
    }

    /// Whether `close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// Lets go of the trace: its file, its caches and the temporary SLOG-2
    /// file of a converted input (removed now, not when the object is
    /// collected). Streams already begun read on, from their own handle.
    /// Closing twice is allowed.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.closed.store(true, Ordering::Relaxed);
        let t = self.inner.clone();
        interruptible(py, move |_stop| {
            let gone = t.lock().unwrap_or_else(|e| e.into_inner()).take();
            drop(gone);
            Ok(())
        })
    }

    /// `Trace.info()` as JSON text.
    fn info_json(&self, py: Python<'_>) -> PyResult<String> {
        let t = self.inner.clone();
        interruptible(py, move |stop| {
            let info = with(&t, stop, |t| t.info().map_err(py_err))?;
            Ok(serde_json::to_string(&info).expect("JSON"))
        })
    }

    /// The file's own facts as `mpelog info --json` gives them (read as the
    /// file is, never converted).
    fn file_info_json(&self, py: Python<'_>) -> PyResult<String> {
        let t = self.inner.clone();
        interruptible(py, move |stop| {
            let info = with(&t, stop, |t| t.file_info().map_err(py_err))?;
            Ok(mpelog::json_text::to_string(&info))
        })
    }

    /// The statistics as the CLI's JSON text; with `tables`, also the table
    /// per category and timeline (`category_timelines`) the CLI's JSON leaves
    /// out.
    #[pyo3(signature = (from_ = None, to = None, bins = 0, tables = false))]
    fn stats_json(
        &self,
        py: Python<'_>,
        from_: Option<f64>,
        to: Option<f64>,
        bins: usize,
        tables: bool,
    ) -> PyResult<String> {
        let t = self.inner.clone();
        interruptible(py, move |stop| {
            let opts = mpelog::stats::Options::default()
                .window(from_, to)
                .bins(bins);
            let s = with(&t, stop, |t| t.stats(&opts).map_err(py_err))?;
            if !tables {
                return Ok(mpelog::json_text::to_string(&s));
            }
            let mut v = serde_json::to_value(&s).expect("JSON");
            v["category_timelines"] = serde_json::to_value(&s.category_timelines).expect("JSON");
            Ok(v.to_string())
        })
    }

    /// The analysis (wait states, critical path, imbalance) as the CLI's JSON text.
    #[pyo3(signature = (from_ = None, to = None, root = 0, instances = 10))]
    fn analyze_json(
        &self,
        py: Python<'_>,
        from_: Option<f64>,
        to: Option<f64>,
        root: i32,
        instances: usize,
    ) -> PyResult<String> {
        let t = self.inner.clone();
        interruptible(py, move |stop| {
            let opts = mpelog::analysis::Options::default()
                .window(from_, to)
                .root(root)
                .instances(instances);
            let r = with(&t, stop, |t| t.analyze(&opts).map_err(py_err))?;
            Ok(mpelog::json_text::to_string(&r))
        })
    }

    /// The events in pipit's layout as columns (see [`events::frame_columns`]):
    /// read with the GIL released, made into Python objects with it.
    #[pyo3(signature = (from_ = None, to = None, view = None))]
    fn events_columns<'py>(
        &self,
        py: Python<'py>,
        from_: Option<f64>,
        to: Option<f64>,
        view: Option<String>,
    ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let t = self.inner.clone();
        let cols = interruptible(py, move |stop| {
            let mut cols = mpelog::export::pipit_columns::PipitColumns::default();
            with(&t, stop, |t| {
                t.drawables(&window(from_, to).view(view), &mut cols)
                    .map_err(py_err)
            })?;
            Ok::<_, PyErr>(cols)
        })?;
        events::frame_columns(py, &cols)
    }

    /// The drawables of `[from_, to)` in batches of `rows`, read while the
    /// consumer takes them, on two threads of their own: one reads (its own
    /// [`mpelog::Trace::reopen`] of the input, so that the trace stays free
    /// for other calls) and hands the pieces over in chunks, the other builds
    /// the batches (at most one ahead of the consumer). When the consumer
    /// goes away (the stream closed or dropped) both end, reading no further.
    /// `info` and `typed`: the info columns made (see [`select`]).
    #[pyo3(signature = (from_ = None, to = None, rows = 65536, info = true, typed = None))]
    fn stream(
        &self,
        py: Python<'_>,
        from_: Option<f64>,
        to: Option<f64>,
        rows: usize,
        info: bool,
        typed: Option<Vec<String>>,
    ) -> PyResult<BatchStream> {
        let select = select(info, typed);
        mpelog::trace::check_window(from_, to).map_err(py_err)?;
        if rows == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "rows: a batch holds at least 1 row",
            ));
        }
        let (tx, rx) = sync_channel::<Message>(1);
        let (feed_tx, feed_rx) = sync_channel::<Feed>(CHUNKS_AHEAD);
        let stop = Arc::new(AtomicBool::new(false));
        let t = self.inner.clone();
        let mut own = interruptible(py, move |stop| {
            with(&t, stop, |t| t.reopen().map_err(py_err))
        })?;
        let path = own.path().to_path_buf();
        let reader_stop = stop.clone();
        std::thread::spawn(move || {
            let stop = reader_stop;
            let mut chunk = Chunk::with_capacity(CHUNK);
            // A failed send: the builder is gone, so is the consumer.
            let gone = || stop.store(true, Ordering::Relaxed);
            let res = own.scan_until(
                &window(from_, to),
                &stop,
                &mut |legend| {
                    if feed_tx.send(Feed::Legend(legend.to_vec())).is_err() {
                        gone();
                    }
                },
                &mut |p| {
                    chunk.push(p);
                    if chunk.len() >= CHUNK {
                        let full = std::mem::replace(&mut chunk, Chunk::with_capacity(CHUNK));
                        if feed_tx.send(Feed::Chunk(full)).is_err() {
                            gone();
                        }
                    }
                },
            );
            let _ = feed_tx.send(match res {
                Ok(_) => Feed::Chunk(chunk),
                Err(e) => Feed::Failed(e),
            });
        });
        let builder_stop = stop.clone();
        std::thread::spawn(move || {
            let mut b: Option<Rows> = None;
            let send = |m: Message| {
                let sent = tx.send(m).is_ok();
                if !sent {
                    builder_stop.store(true, Ordering::Relaxed);
                }
                sent
            };
            for feed in feed_rx {
                match feed {
                    Feed::Legend(legend) => {
                        let r = Rows::with_rows(&legend, rows, &select);
                        if !send(Message::Schema(r.schema.clone())) {
                            return;
                        }
                        b = Some(r);
                    }
                    Feed::Chunk(chunk) => {
                        let Some(b) = b.as_mut() else { continue };
                        match b.push_chunk(chunk, &mut |batch| send(Message::Batch(batch))) {
                            Ok(true) => {}
                            Ok(false) => return,
                            Err(TooLong) => {
                                send(Message::Failed(too_long(&path)));
                                return;
                            }
                        }
                    }
                    Feed::Failed(e) => {
                        send(Message::Failed(e));
                        return;
                    }
                }
            }
            if let Some(b) = b.as_mut().filter(|b| b.len() > 0) {
                if let Err(TooLong) = b.finish(&mut |batch| send(Message::Batch(batch))) {
                    send(Message::Failed(too_long(&path)));
                }
            }
        });
        Ok(BatchStream {
            rx: Mutex::new(Some(rx)),
            schema: Mutex::new(None),
            stop,
        })
    }

    /// The drawables of `[from_, to)` as one record batch, decoded from the
    /// tree straight into column buffers that Arrow takes over without a
    /// copy (`mpelog::Trace::window_columns`).
    /// `info` and `typed`: the info columns made (see [`select`]).
    #[pyo3(signature = (from_ = None, to = None, info = true, typed = None))]
    fn window_batch(
        &self,
        py: Python<'_>,
        from_: Option<f64>,
        to: Option<f64>,
        info: bool,
        typed: Option<Vec<String>>,
    ) -> PyResult<ArrowBatch> {
        let t = self.inner.clone();
        let select = select(info, typed);
        let query = move |stop: &Arc<AtomicBool>| {
            let cols = with(&t, stop, |t| {
                t.window_columns_with(from_, to, &select).map_err(py_err)
            })?;
            columns_batch(cols).map_err(|e| MpelogError::new_err(e.to_string()))
        };
        // The first window of a format without a tree converts it (long),
        // and a trace busy with another call may keep this one waiting: then
        // the query runs interruptibly. The others cost what they show, too
        // little for a thread of their own.
        let quick = match self.inner.try_lock() {
            Ok(g) => g.as_ref().is_some_and(|t| !converts(t)),
            Err(_) => false,
        };
        let batch = match quick {
            true => py.detach(|| query(&Arc::new(AtomicBool::new(false))))?,
            false => interruptible(py, query)?,
        };
        Ok(ArrowBatch {
            batch: Mutex::new(Some(batch)),
        })
    }
    /// The schema of every table of the trace (`window`, `batches`): the
    /// Parquet export's columns, a typed one per info label of the legend.
    fn schema(&self, py: Python<'_>) -> PyResult<ArrowSchema> {
        let t = self.inner.clone();
        interruptible(py, move |stop| {
            let legend = with(&t, stop, |t| t.scan_legend().map_err(py_err))?;
            let columns = mpelog::export::info_columns::info_columns(&legend);
            Ok(ArrowSchema {
                schema: rows::schema(&columns),
            })
        })
    }

    /// `check()`'s report as JSON text.
    fn check_json(&self, py: Python<'_>) -> PyResult<String> {
        let t = self.inner.clone();
        interruptible(py, move |stop| {
            let r = with(&t, stop, |t| t.check(&Default::default()).map_err(py_err))?;
            let findings: Vec<serde_json::Value> = r
                .findings
                .iter()
                .map(|f| {
                    serde_json::json!({
                        "rule": f.rule,
                        "severity": format!("{:?}", f.severity).to_lowercase(),
                        "offset": f.offset,
                        "place": f.place,
                        "message": f.message,
                    })
                })
                .collect();
            Ok(serde_json::json!({
                "format": r.format.map(|f| f.name()),
                "passes": r.passes(),
                "findings": findings,
            })
            .to_string())
        })
    }
}

/// Converts or rewrites a trace (see `mpelog.convert`); returns the
/// summary as JSON text.
#[pyfunction]
#[pyo3(signature = (input, output, format=None))]
fn convert(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    format: Option<String>,
) -> PyResult<String> {
    let name = format
        .clone()
        .or_else(|| {
            output
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_owned)
        })
        .unwrap_or_default();
    let target = mpelog::convert::format_named(&name).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(match format {
            Some(f) => format!("format {f:?}: unknown output format (known: clog2, clog, slog2, alog, slog)"),
            None => format!(
                "cannot tell the output format from {}: give format= clog2, clog, slog2, alog or slog, or use that extension",
                output.display()
            ),
        })
    })?;
    interruptible(py, move |stop| {
        let run = || -> mpelog::trace::Result<mpelog::convert::Summary> {
            let out = mpelog::output::Output::create(&output, &[&input], false)?;
            let opts = mpelog::convert::Options::default().stop(stop.clone());
            // Stopped (interrupted): `out` is dropped, not committed.
            let done = mpelog::convert::convert(&input, target, &out, &opts, &mut |_| {})?;
            out.commit()?;
            Ok(done)
        };
        let d = run()
            .inspect_err(|_| {
                if stop.load(Ordering::Relaxed) {
                    interrupt::count_stopped();
                }
            })
            .map_err(py_err)?;
        Ok(serde_json::json!({
            "verb": d.verb,
            "input": d.input.display().to_string(),
            "source": d.source.name(),
            "input_bytes": d.input_bytes,
            "records": d.records,
            "output_format": d.output_format,
            "output_bytes": d.output_bytes,
            "details": d.details,
        })
        .to_string())
    })
}

/// Opens a trace of any format, or a URL (see `mpelog.open`); an
/// annotation with the trace `trace` when given.
#[pyfunction]
#[pyo3(signature = (path, trace = None))]
fn open(py: Python<'_>, path: PathBuf, trace: Option<PathBuf>) -> PyResult<Trace> {
    let t = interruptible(py, move |_stop| {
        mpelog::Trace::open_with_trace(&path, trace.as_deref()).map_err(py_err)
    })?;
    Ok(Trace {
        format: t.format().name(),
        inner: Arc::new(Mutex::new(Some(t))),
        closed: AtomicBool::new(false),
    })
}

#[pymodule]
fn _mpelog(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(interrupt::_abandoned, m)?)?;
    m.add_function(wrap_pyfunction!(interrupt::_stopped, m)?)?;
    m.add_class::<Trace>()?;
    m.add_class::<ArrowSchema>()?;
    m.add_class::<ArrowBatch>()?;
    m.add_class::<BatchStream>()?;
    for (name, e) in [
        ("MpelogError", py.get_type::<MpelogError>()),
        ("TraceIOError", py.get_type::<TraceIOError>()),
        ("UnrecognizedError", py.get_type::<UnrecognizedError>()),
        ("RemoteError", py.get_type::<RemoteError>()),
        ("Clog2Error", py.get_type::<Clog2Error>()),
        ("Slog2Error", py.get_type::<Slog2Error>()),
        ("Slog1Error", py.get_type::<Slog1Error>()),
        ("AlogError", py.get_type::<AlogError>()),
        ("Otf2Error", py.get_type::<Otf2Error>()),
        ("AnnotationError", py.get_type::<AnnotationError>()),
        ("NoTraceError", py.get_type::<NoTraceError>()),
        ("BadWindowError", py.get_type::<BadWindowError>()),
        ("NoViewError", py.get_type::<NoViewError>()),
        ("OutputError", py.get_type::<OutputError>()),
        ("UnsupportedError", py.get_type::<UnsupportedError>()),
    ] {
        m.add(name, e)?;
    }
    Ok(())
}
