//! The embedding calls of issue 16: writing globals, calling Sense
//! functions, reading an agent's members, finding agents held in arrays,
//! holding agents alive, and reading pause reasons without allocating.

use crate::agent::sense_agent;
use crate::bodies::{read_into, read_named_into, with_runtime};
use crate::error::{self, sense_error};
use crate::guard::Failure;
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use crate::strings::sense_str;
use crate::value::{host_or_nil, into_raw, sense_value};
use sense_agents::{HostValue, ValueRef};
use std::os::raw::c_char;

/// A host-side failure (no Sense class) reported as `status`; Sense
/// errors keep their own status.
fn failed(e: &sense_agents::Error, status: sense_status) -> Failure {
    error::from_sense(e, status)
}

/// The array indexes `path[0..path_len]` of an agent lookup; `path` may be
/// NULL when `path_len` is 0.
fn index_path<'a>(path: *const usize, path_len: usize) -> Result<&'a [usize], Failure> {
    // The caller promises `path_len` readable indexes at `path` for the
    // call, which is the lifetime the slice is used for.
    Ok(slice_arg!(path, path_len))
}

/// Binds the main program's variable `name` (UTF-8, `name_len` bytes) to a
/// copy of `value` (NULL means nil; the caller keeps it), as a top-level
/// assignment would: programs run afterwards see it. On a new runtime, a
/// global set before `sense_runtime_restore` is kept: it is bound again
/// after the restore, replacing the snapshot's value of that name (so a
/// host can hand a restored program its settings, keys, …).
///
/// Errors: `SENSE_STATUS_INVALID_ARGUMENT` (`name` is not an identifier:
/// empty, starting with a digit, or a keyword such as `if`, `true`, `nil`),
/// `SENSE_STATUS_RUNTIME_ERROR` (`value` is opaque, or too large for the
/// runtime's limits).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_set_global(
    runtime: *mut sense_runtime,
    name: *const c_char,
    name_len: usize,
    value: *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        let name = str_arg!(name, name_len);
        let value = host_or_nil(value);
        rt.enter(|r| {
            r.set_global(name, value)
                .map_err(|e| failed(&e, sense_status::InvalidArgument))
        })
    })
}

/// Calls the Sense function (or tool, or builtin) bound to `name` in the
/// main program with copies of `args[0..arg_count]` (each NULL means nil;
/// `args` may be NULL when `arg_count` is 0) and stores its result in
/// `*out` (free it with `sense_value_free`). It runs on this thread, like
/// `sense_runtime_run_source`; host functions it reaches are called.
///
/// Errors: `SENSE_STATUS_NOT_FOUND` (nothing is bound to `name`),
/// `SENSE_STATUS_RUNTIME_ERROR` (the call raised — wrong argument count,
/// not callable, an error inside: the error has its location — or an
/// argument is opaque), `SENSE_STATUS_WRONG_STATE` (from a callback).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_call(
    runtime: *mut sense_runtime,
    name: *const c_char,
    name_len: usize,
    args: *const *const sense_value,
    arg_count: usize,
    out: *mut *mut sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    read_named_into(runtime, name, name_len, out, error, |rt, name| {
        let values = call_args(args, arg_count)?;
        let result = rt.enter(|r| {
            r.call(name, &values)
                .map_err(|e| failed(&e, sense_status::NotFound))
        })?;
        Ok(into_raw(result))
    })
}

/// Looks up the agent at `path[0..path_len]` (array indexes, outermost
/// first; `path` may be NULL when `path_len` is 0) inside the main
/// program's variable `name` into `*out`: name `team` with path `{1, 0}`
/// is `team[1][0]`. This is how a host reaches agents kept in arrays.
///
/// Errors: `SENSE_STATUS_NOT_FOUND` (no such variable or element, or it
/// is not an agent).
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_lookup_path(
    runtime: *const sense_runtime,
    name: *const c_char,
    name_len: usize,
    path: *const usize,
    path_len: usize,
    out: *mut sense_agent,
    error: *mut *mut sense_error,
) -> sense_status {
    read_named_into(runtime, name, name_len, out, error, |rt, name| {
        let path = index_path(path, path_len)?;
        rt.find(|r| r.agent_at(name, path)).map(sense_agent::of)
    })
}

/// Looks up the agent at `path[0..path_len]` (array indexes; `path` may be
/// NULL when `path_len` is 0) inside the member `name` of `agent` into
/// `*out`: a coordinator's `workers[2]` is name `workers`, path `{2}`.
/// Agents that other agents keep are reached this way.
///
/// Errors: `SENSE_STATUS_NOT_FOUND` (stale id, no such member or element,
/// or it is not an agent).
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_member_agent(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    name: *const c_char,
    name_len: usize,
    path: *const usize,
    path_len: usize,
    out: *mut sense_agent,
    error: *mut *mut sense_error,
) -> sense_status {
    read_named_into(runtime, name, name_len, out, error, |rt, name| {
        let path = index_path(path, path_len)?;
        rt.find(|r| r.agent_in_member(agent.id(), name, path))
            .map(sense_agent::of)
    })
}

/// A copy of `agent.name` as Sense reads it — `status`, `name`,
/// `pause_reason`, `doc`, or one of the agent's variables (e.g. `total`
/// for `acc.total`) — into `*out` (free it with `sense_value_free`).
///
/// Errors: `SENSE_STATUS_NOT_FOUND` (stale id, or the agent has no such
/// member).
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_member(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    name: *const c_char,
    name_len: usize,
    out: *mut *mut sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    read_named_into(runtime, name, name_len, out, error, |rt, name| {
        rt.find(|r| r.member(agent.id(), name)).map(into_raw)
    })
}

/// Keeps the agent alive while the host holds it, even once no Sense
/// variable refers to it (without a hold, such an agent is collected and
/// its id reads `SENSE_STATUS_NOT_FOUND`). Holds are counted: each needs a
/// `sense_agent_release`. Freeing the runtime drops them all; snapshots
/// do not save them. `SENSE_STATUS_NOT_FOUND` for a stale id.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_retain(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| rt.find(|r| r.hold(agent.id())))
}

/// Drops one `sense_agent_retain`. `SENSE_STATUS_WRONG_STATE` when the
/// agent is not held, `SENSE_STATUS_NOT_FOUND` for a stale id.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_release(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        rt.enter(|r| {
            r.status(agent.id())
                .map_err(|e| error::with_status(&e, sense_status::NotFound))?;
            r.release(agent.id())
                .map_err(|e| error::with_status(&e, sense_status::WrongState))
        })
    })
}

/// The body of the typed pause-reason reads: `pick` takes what is asked
/// for out of a view of the reason (no copy); any other kind is
/// `SENSE_STATUS_INVALID_ARGUMENT` naming `kind`, and leaves `*out`
/// untouched. A stale id is `SENSE_STATUS_NOT_FOUND`.
#[inline]
fn reason_as<T>(
    runtime: *const sense_runtime,
    agent: sense_agent,
    out: *mut T,
    error: *mut *mut sense_error,
    kind: &'static str,
    pick: impl FnOnce(ValueRef<'_>) -> Option<T>,
) -> sense_status {
    read_into(runtime, out, error, |rt| {
        rt.enter(|r| {
            let reason = r
                .pause_reason_ref(agent.id())
                .map_err(|e| error::with_status(&e, sense_status::NotFound))?;
            pick(reason).ok_or_else(|| not_a(kind))
        })
    })
}

fn not_a(kind: &'static str) -> Failure {
    match kind {
        "Int" => fail!(InvalidArgument, "the pause reason is not an Int"),
        "Float" => fail!(InvalidArgument, "the pause reason is not a Float"),
        "Bool" => fail!(InvalidArgument, "the pause reason is not a Bool"),
        _ => fail!(InvalidArgument, "the pause reason is not a String"),
    }
}

/// The agent's last pause reason, when it is an Int, into `*out` without
/// allocating. `SENSE_STATUS_INVALID_ARGUMENT` if it is not one (`*out`
/// untouched; read other kinds with `sense_agent_pause_reason`),
/// `SENSE_STATUS_NOT_FOUND` for a stale id.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_pause_reason_int(
    runtime: *const sense_runtime,
    agent: sense_agent,
    out: *mut i64,
    error: *mut *mut sense_error,
) -> sense_status {
    reason_as(runtime, agent, out, error, "Int", |v| match v {
        ValueRef::Int(i) => Some(i),
        _ => None,
    })
}

/// The agent's last pause reason, when it is a Float, into `*out` without
/// allocating (an Int is not converted). Errors as for
/// `sense_agent_pause_reason_int`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_pause_reason_float(
    runtime: *const sense_runtime,
    agent: sense_agent,
    out: *mut f64,
    error: *mut *mut sense_error,
) -> sense_status {
    reason_as(runtime, agent, out, error, "Float", |v| match v {
        ValueRef::Float(f) => Some(f),
        _ => None,
    })
}

/// The agent's last pause reason, when it is a Bool, into `*out` without
/// allocating. Errors as for `sense_agent_pause_reason_int`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_pause_reason_bool(
    runtime: *const sense_runtime,
    agent: sense_agent,
    out: *mut bool,
    error: *mut *mut sense_error,
) -> sense_status {
    reason_as(runtime, agent, out, error, "Bool", |v| match v {
        ValueRef::Bool(b) => Some(b),
        _ => None,
    })
}

/// The agent's last pause reason, when it is a String, as a view into the
/// runtime (UTF-8, not NUL-terminated) without allocating. The view is
/// valid until the next call that runs code on the runtime or frees it
/// (copy it to keep it). Errors as for `sense_agent_pause_reason_int`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_pause_reason_string(
    runtime: *const sense_runtime,
    agent: sense_agent,
    out: *mut sense_str,
    error: *mut *mut sense_error,
) -> sense_status {
    reason_as(runtime, agent, out, error, "String", |v| match v {
        ValueRef::Str(s) => Some(sense_str::of(s)),
        _ => None,
    })
}

/// The arguments of a call from C: `arg_count` values at `args` (NULL
/// only when the count is 0; a NULL element is nil), copied to host
/// values. Shared by `sense_runtime_call` and `sense_runtime_call_held`.
pub(crate) fn call_args(
    args: *const *const sense_value,
    arg_count: usize,
) -> Result<Vec<HostValue>, Failure> {
    // The caller of `sense_runtime_call` or `sense_runtime_call_held`
    // promises `arg_count` readable pointers at `args` for the call.
    let ptrs: &[*const sense_value] = slice_arg!(args, arg_count);
    Ok(ptrs.iter().map(|&p| host_or_nil(p)).collect())
}
