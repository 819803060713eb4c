//! Python callables as Sense host functions and output sinks. Each call
//! takes the GIL (runs are made with it released): the arguments are
//! converted, the callable runs, and an exception it raises becomes a
//! `SenseRuntimeError` carrying the Python message (`ValueError: ...`).

use crate::agent::Suspend;
use crate::convert::{from_py, to_py};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use sense_agents::{HostReturn, HostValue};

/// Calls `f` with `args` under the GIL; its result, or its exception as
/// the error text.
pub(crate) fn call_python(f: &Py<PyAny>, args: &[HostValue]) -> Result<HostReturn, String> {
    Python::attach(|py| {
        let result = (|| -> PyResult<HostReturn> {
            let py_args = args
                .iter()
                .map(|a| to_py(py, a))
                .collect::<PyResult<Vec<_>>>()?;
            let out = f.call1(py, PyTuple::new(py, py_args)?)?;
            let out = out.bind(py);
            if let Ok(s) = out.cast::<Suspend>() {
                return Ok(HostReturn::Suspend(from_py(s.get().reason.bind(py))?));
            }
            Ok(HostReturn::Value(from_py(out)?))
        })();
        result.map_err(|e| e.to_string())
    })
}

/// Hands printed text to `sink` (a callable taking one str), or to
/// Python's `sys.stdout` when there is none, under the GIL. A failing sink
/// is reported through `sys.unraisablehook`: printing never fails a run.
pub(crate) fn write_output(sink: Option<&Py<PyAny>>, text: &str) {
    Python::attach(|py| {
        let r = match sink {
            Some(f) => f.call1(py, (text,)).map(|_| ()),
            None => py
                .import("sys")
                .and_then(|sys| sys.getattr("stdout"))
                .and_then(|out| out.call_method1("write", (text,)))
                .map(|_| ()),
        };
        if let Err(e) = r {
            e.write_unraisable(py, None);
        }
    });
}
