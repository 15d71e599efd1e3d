//! `mpelog._mpelog`: the extension module under the Python package `mpelog`
//! (python/mpelog/__init__.py wraps it). Reads go through [`mpelog::Trace`]
//! with the GIL released; drawables reach pyarrow through the Arrow C stream
//! interface (a PyCapsule `arrow_array_stream`, `__arrow_c_stream__`).

use arrow_array::builder::{Float64Builder, Int32Builder, StringBuilder};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use mpelog::export::{ArgRef, Cat};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::collections::HashMap;
use std::ffi::CString;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};

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

/// The columns of `mpelog export --to parquet` but the typed info columns.
fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("kind", DataType::Utf8, false),
        Field::new("category", DataType::Int32, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("start", DataType::Float64, false),
        Field::new("end", DataType::Float64, false),
        Field::new("duration", DataType::Float64, false),
        Field::new("start_line", DataType::Int32, false),
        Field::new("end_line", DataType::Int32, false),
        Field::new("info", DataType::Utf8, true),
    ]))
}

/// Rows being gathered into one record batch.
struct Rows {
    kind: StringBuilder,
    category: Int32Builder,
    name: StringBuilder,
    start: Float64Builder,
    end: Float64Builder,
    duration: Float64Builder,
    start_line: Int32Builder,
    end_line: Int32Builder,
    info: StringBuilder,
    len: usize,
    /// The legend as the Parquet writer uses it: category, `kind` cell.
    cats: HashMap<i32, (Cat, &'static str)>,
    text: String,
}

impl Rows {
    fn new() -> Rows {
        Rows {
            kind: StringBuilder::new(),
            category: Int32Builder::new(),
            name: StringBuilder::new(),
            start: Float64Builder::new(),
            end: Float64Builder::new(),
            duration: Float64Builder::new(),
            start_line: Int32Builder::new(),
            end_line: Int32Builder::new(),
            info: StringBuilder::new(),
            len: 0,
            cats: HashMap::new(),
            text: String::new(),
        }
    }

    /// Adds the row of `p` (as src/export/parquet.rs writes it).
    fn push(&mut self, legend: &[slog2_format::Category], p: mpelog::slices::Piece<'_>) {
        if self.cats.is_empty() {
            for c in legend {
                let kind = match c.topology {
                    0 => "event",
                    2 => "arrow",
                    _ => "state",
                };
                self.cats.insert(c.index, (Cat::of(c), kind));
            }
        }
        let (cat, kind) = self
            .cats
            .entry(p.category)
            .or_insert_with(|| (Cat::unknown(p.category), "state"));
        self.kind.append_value(*kind);
        self.category.append_value(p.category);
        self.name.append_value(&cat.name);
        self.start.append_value(p.start);
        self.end.append_value(p.end);
        self.duration.append_value(p.end - p.start);
        self.start_line.append_value(p.first.1);
        self.end_line.append_value(p.last.1);
        let text = &mut self.text;
        text.clear();
        let mut n = 0;
        cat.each_arg(p.info, |k, v| {
            if n > 0 {
                text.push_str(", ");
            }
            let _ = match &v {
                ArgRef::Int(x) => write!(text, "{k}={x}"),
                ArgRef::Float(x) => write!(text, "{k}={x}"),
                ArgRef::Text(x) => write!(text, "{k}={x}"),
            };
            n += 1;
        });
        if n == 0 {
            self.info.append_null();
        } else {
            self.info.append_value(&self.text);
        }
        self.len += 1;
    }

    /// The rows gathered as a record batch; the builders start again.
    fn batch(&mut self) -> RecordBatch {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.kind.finish()),
            Arc::new(self.category.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.start.finish()),
            Arc::new(self.end.finish()),
            Arc::new(self.duration.finish()),
            Arc::new(self.start_line.finish()),
            Arc::new(self.end_line.finish()),
            Arc::new(self.info.finish()),
        ];
        self.len = 0;
        RecordBatch::try_new(schema(), columns).expect("columns of the schema")
    }
}

/// Record batches coming from a reading thread (bounded: the thread waits
/// while the consumer has not taken the last one).
struct Batches {
    rx: Receiver<Result<RecordBatch, String>>,
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.rx
            .recv()
            .ok()
            .map(|r| r.map_err(|m| ArrowError::ExternalError(m.into())))
    }
}

impl RecordBatchReader for Batches {
    fn schema(&self) -> SchemaRef {
        schema()
    }
}

/// A stream of record batches pyarrow takes (`pyarrow.RecordBatchReader.from_stream`).
#[pyclass(module = "mpelog._mpelog")]
struct ArrowStream {
    stream: Mutex<Option<FFI_ArrowArrayStream>>,
}

#[pymethods]
impl ArrowStream {
    /// The Arrow PyCapsule interface: the stream, once.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let stream = self
            .stream
            .lock()
            .map_err(|_| MpelogError::new_err("stream poisoned"))?
            .take()
            .ok_or_else(|| MpelogError::new_err("this stream was already read"))?;
        let name = CString::new("arrow_array_stream").expect("no NUL");
        PyCapsule::new(py, stream, Some(name))
    }
}

/// An opened trace (see the Python class `mpelog.Trace`).
#[pyclass(module = "mpelog._mpelog")]
struct Trace {
    inner: Arc<Mutex<mpelog::Trace>>,
}

fn lock(t: &Mutex<mpelog::Trace>) -> std::sync::MutexGuard<'_, mpelog::Trace> {
    t.lock().unwrap_or_else(|e| e.into_inner())
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
        lock(&self.inner).format().name()
    }

    /// `Trace.info()` as JSON text.
    fn info_json(&self, py: Python<'_>) -> PyResult<String> {
        let t = self.inner.clone();
        py.detach(move || {
            let info = lock(&t).info().map_err(py_err)?;
            Ok(serde_json::to_string(&info).expect("JSON"))
        })
    }

    /// The statistics as the CLI's JSON text.
    #[pyo3(signature = (from_ = None, to = None, bins = 0))]
    fn stats_json(
        &self,
        py: Python<'_>,
        from_: Option<f64>,
        to: Option<f64>,
        bins: usize,
    ) -> PyResult<String> {
        let t = self.inner.clone();
        py.detach(move || {
            let opts = mpelog::stats::Options::default()
                .window(from_, to)
                .bins(bins);
            let s = lock(&t).stats(&opts).map_err(py_err)?;
            Ok(mpelog::json_text::to_string(&s))
        })
    }

    /// The events in pipit's CSV layout, as `mpelog export --to csv` writes them.
    #[pyo3(signature = (from_ = None, to = None))]
    fn pipit_csv(&self, py: Python<'_>, from_: Option<f64>, to: Option<f64>) -> PyResult<Vec<u8>> {
        let t = self.inner.clone();
        py.detach(move || {
            let mut csv = mpelog::export::pipit::PipitCsv::new(Vec::new());
            lock(&t)
                .drawables(&window(from_, to), &mut csv)
                .map_err(py_err)?;
            Ok(csv.into_inner())
        })
    }

    /// The drawables of `[from_, to)` in batches of `rows`, read on a thread
    /// of their own while the consumer takes them (at most one batch ahead).
    #[pyo3(signature = (from_ = None, to = None, rows = 65536))]
    fn stream(&self, from_: Option<f64>, to: Option<f64>, rows: usize) -> PyResult<ArrowStream> {
        mpelog::trace::check_window(from_, to).map_err(py_err)?;
        let rows = rows.max(1);
        let (tx, rx) = sync_channel::<Result<RecordBatch, String>>(1);
        let t = self.inner.clone();
        std::thread::spawn(move || {
            let mut b = Rows::new();
            let mut open = true;
            let res = lock(&t).pieces(&window(from_, to), &mut |legend, p| {
                if !open {
                    return;
                }
                b.push(legend, p);
                if b.len >= rows {
                    open = tx.send(Ok(b.batch())).is_ok();
                }
            });
            let last = match res {
                Ok(_) if b.len > 0 => Some(Ok(b.batch())),
                Ok(_) => None,
                Err(e) => Some(Err(format!("{}: {e}", e.kind()))),
            };
            if let (true, Some(last)) = (open, last) {
                let _ = tx.send(last);
            }
        });
        let reader: Box<dyn RecordBatchReader + Send> = Box::new(Batches { rx });
        Ok(ArrowStream {
            stream: Mutex::new(Some(FFI_ArrowArrayStream::new(reader))),
        })
    }

    /// The drawables of `[from_, to)` in batches of `rows`, all read before
    /// this returns (errors are raised here, typed).
    #[pyo3(signature = (from_ = None, to = None, rows = 65536))]
    fn window_stream(
        &self,
        py: Python<'_>,
        from_: Option<f64>,
        to: Option<f64>,
        rows: usize,
    ) -> PyResult<ArrowStream> {
        let rows = rows.max(1);
        let t = self.inner.clone();
        let batches = py.detach(move || {
            let mut b = Rows::new();
            let mut out = Vec::new();
            lock(&t)
                .pieces(&window(from_, to), &mut |legend, p| {
                    b.push(legend, p);
                    if b.len >= rows {
                        out.push(Ok(b.batch()));
                    }
                })
                .map_err(py_err)?;
            if b.len > 0 || out.is_empty() {
                out.push(Ok(b.batch()));
            }
            Ok::<_, PyErr>(out)
        })?;
        let reader = arrow_array::RecordBatchIterator::new(batches, schema());
        let reader: Box<dyn RecordBatchReader + Send> = Box::new(reader);
        Ok(ArrowStream {
            stream: Mutex::new(Some(FFI_ArrowArrayStream::new(reader))),
        })
    }

    /// Converts the trace to a SLOG-2 file at `output` (mpelog convert's default tree).
    fn convert_to_slog2(&self, py: Python<'_>, output: PathBuf) -> PyResult<()> {
        let t = self.inner.clone();
        py.detach(move || lock(&t).write_slog2(&output).map_err(py_err))
    }

    /// `check()`'s report as JSON text.
    fn check_json(&self, py: Python<'_>) -> PyResult<String> {
        let t = self.inner.clone();
        py.detach(move || {
            let r = lock(&t).check(&Default::default()).map_err(py_err)?;
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

/// Opens a trace of any format, or a URL (see `mpelog.open`).
#[pyfunction]
fn open(py: Python<'_>, path: PathBuf) -> PyResult<Trace> {
    let t = py.detach(move || mpelog::Trace::open(&path).map_err(py_err))?;
    Ok(Trace {
        inner: Arc::new(Mutex::new(t)),
    })
}

#[pymodule]
fn _mpelog(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_class::<Trace>()?;
    m.add_class::<ArrowStream>()?;
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
    ] {
        m.add(name, e)?;
    }
    Ok(())
}
