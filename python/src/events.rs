//! `t.events()`'s columns: pipit's event layout
//! ([`mpelog::export::pipit_columns::PipitColumns`]) made into Python
//! objects, each name, key and event type one `str` shared by its rows, the
//! attributes one `dict` per row that has them.

use mpelog::export::pipit_columns::{AttrValue, PipitColumns, EVENT_TYPES};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

/// The bytes of `v` (native-endian `int64`s, for `numpy.frombuffer`).
fn int64_bytes<'py>(py: Python<'py>, v: &[i64]) -> Bound<'py, PyBytes> {
    let mut b = Vec::with_capacity(v.len() * 8);
    for x in v {
        b.extend_from_slice(&x.to_ne_bytes());
    }
    PyBytes::new(py, &b)
}

/// `(timestamps, event types, names, threads, processes, attributes)`:
/// `bytes` of `int64` for the numbers, lists for the rest.
pub(crate) fn frame_columns<'py>(
    py: Python<'py>,
    c: &PipitColumns,
) -> PyResult<Bound<'py, PyTuple>> {
    let kinds: Vec<Bound<'py, PyString>> =
        EVENT_TYPES.iter().map(|k| PyString::new(py, k)).collect();
    let names: Vec<Bound<'py, PyString>> = c.names.iter().map(|n| PyString::new(py, n)).collect();
    let keys: Vec<Bound<'py, PyString>> = c.keys.iter().map(|k| PyString::new(py, k)).collect();
    let pick = |v: &[Bound<'py, PyString>], i: usize| v.get(i).cloned();
    let kind = PyList::new(py, c.event_type.iter().map(|&k| pick(&kinds, k as usize)))?;
    let name = PyList::new(py, c.name.iter().map(|&n| pick(&names, n as usize)))?;
    let attrs = PyList::empty(py);
    for of in &c.attributes_of {
        let Some((start, len)) = *of else {
            attrs.append(py.None())?;
            continue;
        };
        let d = PyDict::new(py);
        let (a, b) = (start as usize, start as usize + len as usize);
        for &(k, v) in c.attributes.get(a..b).unwrap_or_default() {
            let key = pick(&keys, k as usize);
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
            int64_bytes(py, &c.timestamp).into_any(),
            kind.into_any(),
            name.into_any(),
            int64_bytes(py, &c.thread).into_any(),
            int64_bytes(py, &c.process).into_any(),
            attrs.into_any(),
        ],
    )
}
