//! `sense._sense`: the Sense agent runtime as a Python extension module,
//! built with PyO3 over `sense-agents` (not over the C ABI). The public
//! face is the `sense` package (`python/sense/__init__.py`), which adds the
//! asyncio helpers and re-exports these classes; the stubs that type-check
//! it are `python/sense/_sense.pyi`.
//!
//! - `runtime.rs`: `Runtime` (runs, agents, globals, host functions,
//!   snapshots), one `sense_agents::Runtime` behind a mutex.
//! - `agent.rs`: `Agent`, `PauseHandle`, `Opaque`, `Suspend`.
//! - `convert.rs`: values both ways (dict ↔ Map, list ↔ Array, …).
//! - `error.rs`: `SenseError`, carrying the class, line and traceback.

mod agent;
mod convert;
mod error;
mod host_fn;
mod runtime;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _sense(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<runtime::PyRuntime>()?;
    m.add_class::<agent::Agent>()?;
    m.add_class::<agent::PyPauseHandle>()?;
    m.add_class::<agent::Opaque>()?;
    m.add_class::<agent::Suspend>()?;
    m.add("SenseError", m.py().get_type::<error::SenseError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
