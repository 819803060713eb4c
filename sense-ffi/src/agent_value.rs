//! Agents inside [`sense_value`]s: the id of an agent found in a call
//! result, a pause reason, a host function's argument or a list item, and
//! a value naming an agent to pass back into Sense.

use crate::agent::sense_agent;
use crate::bodies::value_into;
use crate::error::sense_error;
use crate::status::sense_status;
use crate::value::{into_raw, sense_value, wrong_kind};
use sense_agents::{AgentId, HostValue};

/// The id of the agent `value` holds (kind `SENSE_VALUE_KIND_AGENT`), to
/// drive with `sense_agent_start`, `sense_agent_resume`,
/// `sense_agent_member`, … on the runtime the value came from. The id is
/// checked when used: an agent collected since, or one of another
/// runtime, gives `SENSE_STATUS_NOT_FOUND`.
///
/// Errors: `SENSE_STATUS_INVALID_ARGUMENT` if `value` or `out` is NULL or
/// `value` is not an agent (`*out` untouched).
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_as_agent(
    value: *const sense_value,
    out: *mut sense_agent,
    error: *mut *mut sense_error,
) -> sense_status {
    value_into(value, out, error, |v| match AgentId::of_value(v) {
        Some(id) => Ok(sense_agent::of(id)),
        None => Err(wrong_kind("Agent")),
    })
}

/// A new value naming the agent `agent` (kind `SENSE_VALUE_KIND_AGENT`;
/// its printed form is a placeholder, `<agent #SERIAL>`). Passed into the
/// runtime the agent belongs to (as an argument of `sense_runtime_call`,
/// a global, a resume or return value, a message), Sense receives the
/// agent itself. If that runtime no longer has the agent, or the id is of
/// another runtime, that call fails with `SENSE_STATUS_RUNTIME_ERROR`
/// naming the agent's serial. Free it with `sense_value_free`. NULL only
/// if libsense panicked.
#[unsafe(no_mangle)]
pub extern "C" fn sense_value_new_agent(agent: sense_agent) -> *mut sense_value {
    ffi_guard!(std::ptr::null_mut() => { into_raw(HostValue::from(agent.id())) })
}
