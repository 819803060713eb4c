//! Listing a runtime's globals and live agents from C.

use crate::error::sense_error;
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use crate::value::{into_raw, sense_value};
use sense_agents::HostValue;

/// The names bound in the main program's scope (its variables, functions,
/// agents, imported modules, the globals the host set; not the builtins),
/// sorted, as a new List of Strings in `*out` (free it with
/// `sense_value_free`). Empty before anything ran.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_global_names(
    runtime: *const sense_runtime,
    out: *mut *mut sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    ffi_guard!(error, {
        let rt = try_ref!(runtime);
        let out = try_out!(out);
        let names = rt.enter(|r| Ok(r.global_names()))?;
        out.set(into_raw(HostValue::List(
            names.into_iter().map(HostValue::Str).collect(),
        )));
        Ok(())
    })
}

/// Every live agent of the runtime, oldest first, as a new List of agent
/// values (`SENSE_VALUE_KIND_AGENT`: `sense_value_as_agent` gives each
/// id) in `*out` (free it with `sense_value_free`). An agent nothing
/// refers to any more may be collected; from then on it is not listed.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_agents(
    runtime: *const sense_runtime,
    out: *mut *mut sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    ffi_guard!(error, {
        let rt = try_ref!(runtime);
        let out = try_out!(out);
        let ids = rt.enter(|r| Ok(r.agent_ids()))?;
        out.set(into_raw(HostValue::List(
            ids.into_iter().map(HostValue::from).collect(),
        )));
        Ok(())
    })
}
