//! `SenseError`: a Sense error (or a host-side failure) as a Python
//! exception, with the details a host needs as attributes.

use pyo3::prelude::*;

pyo3::create_exception!(
    sense,
    SenseError,
    pyo3::exceptions::PyException,
    "A Sense error: `class_name` (e.g. `SenseRuntimeError`), `message` \
     (`[line N] ...`), `line`/`column` (or None), `rendered` (the CLI's \
     diagnostic) and `traceback` (the Sense stack, innermost frame last)."
);

/// `err` as a `SenseError` whose text is `Class: message` followed by the
/// Sense traceback.
pub(crate) fn to_py_err(py: Python<'_>, err: &sense_agents::Error) -> PyErr {
    let traceback = err.traceback_text();
    let text = if traceback.is_empty() {
        err.to_string()
    } else {
        format!("{err}\n{}", traceback.trim_end())
    };
    let e = SenseError::new_err(text);
    let value = e.value(py);
    let set = || -> PyResult<()> {
        value.setattr("class_name", err.class_name())?;
        value.setattr("message", err.display_text())?;
        value.setattr("line", err.line())?;
        value.setattr("column", err.column())?;
        value.setattr("rendered", err.rendered())?;
        value.setattr("traceback", traceback.as_str())?;
        Ok(())
    };
    match set() {
        Ok(()) => e,
        Err(other) => other,
    }
}

/// A refusal of the binding itself (a busy runtime, a value that does not
/// convert), as a `SenseError` of class `SenseError`.
pub(crate) fn host_err(py: Python<'_>, message: &str) -> PyErr {
    let e = SenseError::new_err(format!("SenseError: {message}"));
    let value = e.value(py);
    let set = || -> PyResult<()> {
        value.setattr("class_name", "SenseError")?;
        value.setattr("message", message)?;
        value.setattr("line", py.None())?;
        value.setattr("column", py.None())?;
        value.setattr("rendered", format!("SenseError: {message}"))?;
        value.setattr("traceback", "")?;
        Ok(())
    };
    match set() {
        Ok(()) => e,
        Err(other) => other,
    }
}
