//! `Runtime`: one `sense_agents::Runtime` behind a mutex. Runs, starts and
//! resumes release the GIL, so other Python threads run meanwhile (and may
//! ask an agent to pause through its `PauseHandle`). One call at a time:
//! a call made while another holds the runtime (from another thread, or
//! from a host function called back by it) raises `SenseError` at once
//! instead of blocking.

use crate::agent::{Agent, PyPauseHandle};
use crate::convert::{from_py, to_py};
use crate::error::{host_err, to_py_err};
use crate::host_fn::{call_python, write_output};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sense_agents::{AgentId, Error, HostValue, Runtime, State};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, TryLockError};

/// Why a call could not get at the runtime, or how it failed.
enum Failure {
    Busy,
    Sense(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Sense(e)
    }
}

/// The Sense agent runtime (see the `sense` package's documentation).
#[pyclass(module = "sense._sense", name = "Runtime", subclass)]
pub struct PyRuntime {
    inner: Mutex<Runtime>,
}

impl PyRuntime {
    fn lock(&self) -> Result<MutexGuard<'_, Runtime>, Failure> {
        match self.inner.try_lock() {
            Ok(g) => Ok(g),
            // A panic inside libsense code poisons the lock; the runtime
            // may be half-updated, so it is refused as busy for good.
            Err(TryLockError::WouldBlock) | Err(TryLockError::Poisoned(_)) => Err(Failure::Busy),
        }
    }

    /// Runs `f` on the runtime; with `release` the GIL is released
    /// meanwhile (long runs).
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        release: bool,
        f: impl FnOnce(&mut Runtime) -> Result<T, Failure> + Send,
    ) -> PyResult<T> {
        let run = || {
            let mut rt = self.lock()?;
            f(&mut rt)
        };
        let r = if release { py.detach(run) } else { run() };
        r.map_err(|failure| match failure {
            Failure::Busy => host_err(
                py,
                "the runtime is busy: another thread, or a host function it is calling, is using it",
            ),
            Failure::Sense(e) => to_py_err(py, &e),
        })
    }

    fn status_after(state: State) -> &'static str {
        match state {
            State::Paused { .. } => "paused",
            State::Completed => "completed",
        }
    }
}

#[pymethods]
impl PyRuntime {
    /// A new runtime. `output` receives every printed text (default:
    /// `sys.stdout`); `default_providers` registers the network model
    /// providers and `connect_mcp`, as the `sense` command has them.
    #[new]
    #[pyo3(signature = (*, output=None, default_providers=false))]
    fn new(output: Option<Py<PyAny>>, default_providers: bool) -> Self {
        let mut rt = Runtime::new();
        rt.set_output(move |text| write_output(output.as_ref(), text));
        if default_providers {
            sense_providers::register_defaults(&mut rt);
        }
        PyRuntime {
            inner: Mutex::new(rt),
        }
    }

    /// Runs `source` as a main program named `name`; programs run on one
    /// runtime share one top-level scope. Raises `SenseError`.
    #[pyo3(signature = (source, name="<string>"))]
    fn run(&self, py: Python<'_>, source: &str, name: &str) -> PyResult<()> {
        self.with(py, true, |rt| Ok(rt.run_source(name, source)?))
    }

    /// Reads and runs a file as the main program (imports resolve against
    /// its directory).
    fn run_file(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        self.with(py, true, |rt| Ok(rt.run_file(&path)?))
    }

    /// Registers the network model providers (`inference("openai")`,
    /// `inference("anthropic")`) and `connect_mcp`.
    fn register_default_providers(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, false, |rt| {
            sense_providers::register_defaults(rt);
            Ok(())
        })
    }

    /// Makes the callable `fn` a Sense function `name`, taking `arity`
    /// arguments (None: any number). Its arguments and result convert as
    /// values do; an exception it raises becomes a `SenseRuntimeError`
    /// with the Python message; returning `Suspend(reason)` pauses the
    /// calling agent.
    #[pyo3(signature = (name, function, arity=None))]
    fn register(
        &self,
        py: Python<'_>,
        name: &str,
        function: Py<PyAny>,
        arity: Option<u8>,
    ) -> PyResult<()> {
        if !function.bind(py).is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "the host function must be callable",
            ));
        }
        if !sense_agents::is_bindable_name(name) {
            return Err(host_err(
                py,
                &format!("'{name}' is not a name a Sense program can call"),
            ));
        }
        self.with(py, false, |rt| {
            rt.register_fn(name, arity, move |args| call_python(&function, args));
            Ok(())
        })
    }

    /// The agent bound to `name` in the main program.
    fn agent(&self, py: Python<'_>, name: &str) -> PyResult<Agent> {
        self.with(py, false, |rt| {
            Ok(Agent {
                id: rt.agent(name)?,
            })
        })
    }

    /// Every live agent, oldest first.
    fn agents(&self, py: Python<'_>) -> PyResult<Vec<Agent>> {
        self.with(py, false, |rt| {
            Ok(rt.agent_ids().into_iter().map(|id| Agent { id }).collect())
        })
    }

    /// Starts an agent and runs it until it pauses or completes; returns
    /// `"paused"` or `"completed"`. Raises `SenseError` when it fails.
    fn start(&self, py: Python<'_>, agent: &Agent) -> PyResult<&'static str> {
        let id = agent.id;
        self.with(py, true, |rt| Ok(Self::status_after(rt.start(id)?)))
    }

    /// Resumes a paused agent with `value` (the result of its `pause` or
    /// `ask_human`); returns `"paused"` or `"completed"`.
    #[pyo3(signature = (agent, value=None))]
    fn resume(
        &self,
        py: Python<'_>,
        agent: &Agent,
        value: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<&'static str> {
        let value = match value {
            Some(v) => from_py(v)?,
            None => HostValue::Nil,
        };
        let id = agent.id;
        self.with(py, true, move |rt| {
            Ok(Self::status_after(rt.resume(id, value)?))
        })
    }

    /// The agent's status: `created`, `running`, `paused`, `completed`
    /// or `failed`.
    fn status(&self, py: Python<'_>, agent: &Agent) -> PyResult<&'static str> {
        self.with(py, false, |rt| Ok(rt.status(agent.id)?.as_str()))
    }

    /// The agent's name.
    fn agent_name(&self, py: Python<'_>, agent: &Agent) -> PyResult<String> {
        self.with(py, false, |rt| Ok(rt.agent_name(agent.id)?))
    }

    /// The reason of the agent's last pause (None when there was none).
    fn pause_reason<'py>(&self, py: Python<'py>, agent: &Agent) -> PyResult<Bound<'py, PyAny>> {
        let reason = self.with(py, false, |rt| Ok(rt.pause_reason(agent.id)?))?;
        to_py(py, &reason)
    }

    /// The kind of the agent's pause while it is paused: `self` (its own
    /// `pause`), `ask_human`, `message`, `host` (a pause handle), `budget`,
    /// `host_function` or `timer`; else None.
    fn pause_kind(&self, py: Python<'_>, agent: &Agent) -> PyResult<Option<&'static str>> {
        self.with(py, false, |rt| {
            Ok(rt.pause_kind(agent.id)?.map(|k| k.as_str()))
        })
    }

    /// A handle that asks the agent to pause, from any thread.
    fn pause_handle(&self, py: Python<'_>, agent: &Agent) -> PyResult<PyPauseHandle> {
        self.with(py, false, |rt| {
            Ok(PyPauseHandle {
                handle: rt.pause_handle(agent.id)?,
            })
        })
    }

    /// Puts `message` in the agent's mailbox (its `receive()` gets it).
    fn send(&self, py: Python<'_>, agent: &Agent, message: &Bound<'_, PyAny>) -> PyResult<()> {
        let message = from_py(message)?;
        let id = agent.id;
        self.with(py, false, move |rt| Ok(rt.send(id, message)?))
    }

    /// The value of a top-level name, or None when it is unbound.
    fn get_global<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let v = self.with(py, false, |rt| Ok(rt.global(name)))?;
        to_py(py, &v.unwrap_or(HostValue::Nil))
    }

    /// Binds a top-level name to a value.
    fn set_global(&self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = from_py(value)?;
        self.with(py, false, move |rt| Ok(rt.set_global(name, value)?))
    }

    /// The names bound at the top level, sorted.
    fn global_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.with(py, false, |rt| Ok(rt.global_names()))
    }

    /// Calls the Sense function bound to `name` with `args`; returns its
    /// result.
    #[pyo3(signature = (name, *args))]
    fn call<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        args: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let args = args
            .iter()
            .map(from_py)
            .collect::<PyResult<Vec<HostValue>>>()?;
        let out = self.with(py, true, move |rt| Ok(rt.call(name, &args)?))?;
        to_py(py, &out)
    }

    /// The whole runtime (every agent, paused ones included) as bytes.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.with(py, true, |rt| Ok(rt.snapshot()?))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Loads a snapshot into this runtime, which must not have run code;
    /// register the snapshot's host functions first.
    fn restore(&self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        self.with(py, true, |rt| Ok(rt.restore_snapshot(data)?))
    }
}

// `AgentId` is plain data (no pointer into the runtime): agents may be
// used from any thread.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<AgentId>();
};
