//! Values across the boundary: None ↔ nil, bool ↔ Bool, int ↔ Int (64-bit),
//! float ↔ Float, str ↔ String, list (and tuple, inward) ↔ Array,
//! dict ↔ Map (keys str, int or bool), `Agent` ↔ an agent; any other Sense
//! value comes out as `Opaque`. Nesting deeper than [`MAX_DEPTH`] is
//! refused both ways (it also catches a list that contains itself).

use crate::agent::{Agent, Opaque};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use sense_agents::{AgentId, HostValue};

/// How deeply arrays and maps may nest on the way across.
pub(crate) const MAX_DEPTH: usize = 1000;

fn too_deep() -> PyErr {
    PyValueError::new_err(format!(
        "value nests deeper than {MAX_DEPTH} levels (or contains itself)"
    ))
}

/// A Sense value as a Python object.
pub(crate) fn to_py<'py>(py: Python<'py>, v: &HostValue) -> PyResult<Bound<'py, PyAny>> {
    to_py_at(py, v, 0)
}

fn to_py_at<'py>(py: Python<'py>, v: &HostValue, depth: usize) -> PyResult<Bound<'py, PyAny>> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    Ok(match v {
        HostValue::Nil => py.None().into_bound(py),
        HostValue::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        HostValue::Int(i) => i.into_pyobject(py)?.into_any(),
        HostValue::Float(f) => PyFloat::new(py, *f).into_any(),
        HostValue::Str(s) => PyString::new(py, s).into_any(),
        HostValue::List(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py_at(py, item, depth + 1)?)?;
            }
            list.into_any()
        }
        HostValue::Map(entries) => {
            let dict = PyDict::new(py);
            for (k, v) in entries {
                dict.set_item(to_py_at(py, k, depth + 1)?, to_py_at(py, v, depth + 1)?)?;
            }
            dict.into_any()
        }
        HostValue::Task(_) => match AgentId::of_value(v) {
            Some(id) => Bound::new(py, Agent { id })?.into_any(),
            None => opaque(py, v)?,
        },
        HostValue::Opaque { .. } => opaque(py, v)?,
    })
}

fn opaque<'py>(py: Python<'py>, v: &HostValue) -> PyResult<Bound<'py, PyAny>> {
    let (type_name, text) = match v {
        HostValue::Opaque { type_name, text } => (type_name.clone(), text.clone()),
        other => (other.type_name().to_string(), other.to_string()),
    };
    Ok(Bound::new(py, Opaque { type_name, text })?.into_any())
}

/// A Python object as a Sense value.
pub(crate) fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<HostValue> {
    from_py_at(obj, 0)
}

fn from_py_at(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<HostValue> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    if obj.is_none() {
        return Ok(HostValue::Nil);
    }
    // bool before int: Python's bool is an int.
    if obj.is_instance_of::<PyBool>() {
        return Ok(HostValue::Bool(obj.is_truthy()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(HostValue::Int(obj.extract::<i64>().map_err(|_| {
            PyValueError::new_err("int does not fit a Sense Int (64-bit signed)")
        })?));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(HostValue::Float(obj.extract::<f64>()?));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(HostValue::Str(obj.extract::<String>()?));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for item in obj.try_iter()? {
            items.push(from_py_at(&item?, depth + 1)?);
        }
        return Ok(HostValue::List(items));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut entries = Vec::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            let key = from_py_at(&k, depth + 1)?;
            if !matches!(
                key,
                HostValue::Str(_) | HostValue::Int(_) | HostValue::Bool(_)
            ) {
                return Err(PyTypeError::new_err(format!(
                    "a Sense Map key must be str, int or bool, not {}",
                    k.get_type().name()?
                )));
            }
            entries.push((key, from_py_at(&v, depth + 1)?));
        }
        return Ok(HostValue::Map(entries));
    }
    if let Ok(agent) = obj.cast::<Agent>() {
        return Ok(HostValue::from(agent.get().id));
    }
    Err(PyTypeError::new_err(format!(
        "cannot pass a {} to Sense (None, bool, int, float, str, list, tuple, dict or Agent)",
        obj.get_type().name()?
    )))
}
