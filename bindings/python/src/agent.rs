//! The small value classes: `Agent` (names an agent of one runtime),
//! `PauseHandle` (asks an agent to pause, from any thread), `Opaque` (a
//! Sense value Python cannot hold as data) and `Suspend` (what a host
//! function returns to pause its calling agent).

use pyo3::prelude::*;
use sense_agents::{AgentId, PauseHandle};

/// An agent of a runtime. Compares equal to the same agent looked up
/// again; does not keep the agent alive.
#[pyclass(module = "sense._sense", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Agent {
    pub(crate) id: AgentId,
}

#[pymethods]
impl Agent {
    /// Its unique number within its runtime.
    #[getter]
    fn serial(&self) -> u64 {
        self.id.serial()
    }

    fn __repr__(&self) -> String {
        format!("<sense.Agent #{}>", self.id.serial())
    }
}

/// Asks one agent to pause at its next safe point. Thread-safe: call
/// `request()` from any Python thread while another runs the agent.
#[pyclass(module = "sense._sense", name = "PauseHandle", frozen)]
pub struct PyPauseHandle {
    pub(crate) handle: PauseHandle,
}

#[pymethods]
impl PyPauseHandle {
    /// Requests a pause; False when one is already pending, the agent has
    /// finished, or its runtime is gone.
    fn request(&self) -> bool {
        self.handle.request()
    }

    /// True while a request is pending (not yet honoured).
    fn is_requested(&self) -> bool {
        self.handle.is_requested()
    }

    /// False once the agent's runtime has been dropped.
    fn runtime_alive(&self) -> bool {
        self.handle.runtime_alive()
    }
}

/// A Sense value with no Python counterpart (a function, a model, …): its
/// type name and how `print` shows it. It cannot be passed back.
#[pyclass(module = "sense._sense", frozen, get_all)]
pub struct Opaque {
    /// `type_of` of the value.
    pub(crate) type_name: String,
    /// Its printed form.
    pub(crate) text: String,
}

#[pymethods]
impl Opaque {
    fn __repr__(&self) -> String {
        format!("<sense.Opaque {}: {}>", self.type_name, self.text)
    }

    fn __str__(&self) -> String {
        self.text.clone()
    }
}

/// Returned by a host function: pauses the calling agent with `reason`
/// (pause kind `host_function`); the value it is resumed with becomes the
/// call's result.
#[pyclass(module = "sense._sense", frozen, get_all)]
pub struct Suspend {
    /// The pause reason.
    pub(crate) reason: Py<PyAny>,
}

#[pymethods]
impl Suspend {
    #[new]
    #[pyo3(signature = (reason=None))]
    fn new(py: Python<'_>, reason: Option<Py<PyAny>>) -> Self {
        Suspend {
            reason: reason.unwrap_or_else(|| py.None()),
        }
    }
}
