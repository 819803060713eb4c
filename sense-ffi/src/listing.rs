//! Listing a runtime's globals and live agents from C.

use crate::bodies::read_into;
use crate::error::sense_error;
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use crate::value::{into_raw, sense_value};
use sense_agents::{HostValue, Runtime};

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
    list_into(runtime, out, error, |r| {
        r.global_names().into_iter().map(HostValue::Str).collect()
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
    list_into(runtime, out, error, |r| {
        r.agent_ids().into_iter().map(HostValue::from).collect()
    })
}

/// A new List of what `items` reads from the runtime, in `*out`.
fn list_into(
    runtime: *const sense_runtime,
    out: *mut *mut sense_value,
    error: *mut *mut sense_error,
    items: impl FnOnce(&mut Runtime) -> Vec<HostValue>,
) -> sense_status {
    read_into(runtime, out, error, |rt| {
        rt.enter(|r| Ok(into_raw(HostValue::List(items(r)))))
    })
}
