//! `t.events()`'s columns: pipit's event layout
//! ([`mpelog::export::pipit_columns::PipitColumns`]) made into Python
//! objects: the numbers, and the event types' and names' codes, as bytes for
//! numpy (the two text columns become pandas categoricals, as pipit's own
//! readers make them), the attributes one `dict` per row that has them, each
//! key one `str` shared by its rows.

use mpelog::export::pipit_columns::{AttrValue, PipitColumns, EVENT_TYPES};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

/// The native-endian bytes of `v`, for `numpy.frombuffer`.
fn ne_bytes<'py, const N: usize, T: Copy>(
    py: Python<'py>,
    v: &[T],
    bytes: impl Fn(T) -> [u8; N],
) -> Bound<'py, PyBytes> {
    let mut b = Vec::with_capacity(v.len() * N);
    for &x in v {
        b.extend_from_slice(&bytes(x));
    }
    PyBytes::new(py, &b)
}

/// `(timestamps, event type codes, event types, name codes, names, threads,
/// processes, attributes)`: `bytes` of native-endian `int64` for the
/// numbers, of `int8` and `int32` for the codes (indexes of the lists after
/// them), a list of `dict` or `None` for the attributes.
pub(crate) fn frame_columns<'py>(
    py: Python<'py>,
    c: &PipitColumns,
) -> PyResult<Bound<'py, PyTuple>> {
    let keys: Vec<Bound<'py, PyString>> = c.keys.iter().map(|k| PyString::new(py, k)).collect();
    let attrs = PyList::empty(py);
    for of in &c.attributes_of {
        let Some((start, len)) = *of else {
            attrs.append(py.None())?;
            continue;
        };
        let d = PyDict::new(py);
        let (a, b) = (start as usize, start as usize + len as usize);
        for &(k, v) in c.attributes.get(a..b).unwrap_or_default() {
            let key = keys.get(k as usize);
            match v {
                AttrValue::Int(i) => d.set_item(key, i)?,
                AttrValue::Float(f) => d.set_item(key, f)?,
                AttrValue::Text(s, n) => d.set_item(key, c.text_of(s, n))?,
                _ => d.set_item(key, py.None())?,
            }
        }
        attrs.append(d)?;
    }
    PyTuple::new(
        py,
        [
            ne_bytes(py, &c.timestamp, i64::to_ne_bytes).into_any(),
            ne_bytes(py, &c.event_type, u8::to_ne_bytes).into_any(),
            PyList::new(py, EVENT_TYPES)?.into_any(),
            ne_bytes(py, &c.name, u32::to_ne_bytes).into_any(),
            PyList::new(py, &c.names)?.into_any(),
            ne_bytes(py, &c.thread, i64::to_ne_bytes).into_any(),
            ne_bytes(py, &c.process, i64::to_ne_bytes).into_any(),
            attrs.into_any(),
        ],
    )
}
