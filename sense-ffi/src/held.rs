//! Held values: retained references to any Sense value (as Lua's
//! `luaL_ref`), read back and called from C — function values included.

use crate::bodies::{read_into, read_named_into, with_runtime};
use crate::error::{self, sense_error};
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use crate::value::{host_or_nil, into_raw, sense_value};
use sense_agents::HeldId;
use std::os::raw::c_char;

/// The failure for an id that holds nothing.
fn not_held(e: &sense_agents::Error) -> crate::guard::Failure {
    error::with_status(e, sense_status::NotFound)
}

/// Holds the current value of the main program's variable (or builtin)
/// `name` — a function, a closure with its state, a list, anything — and
/// stores its id (never 0) in `*out`. The value stays alive, whatever
/// the program does with the name, until `sense_runtime_release_held`.
/// Ids are never reused. Held values are not saved in snapshots, and
/// `sense_runtime_restore` releases them.
///
/// Threads and ownership: as for the runtime. An id is plain data; it is
/// valid only with this runtime.
///
/// Errors: `SENSE_STATUS_NOT_FOUND` (nothing is bound to `name`).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_hold_global(
    runtime: *mut sense_runtime,
    name: *const c_char,
    name_len: usize,
    out: *mut u64,
    error: *mut *mut sense_error,
) -> sense_status {
    read_named_into(runtime, name, name_len, out, error, |rt, name| {
        rt.enter(|r| r.hold_global(name).map_err(|e| not_held(&e)))
            .map(|id| id.0)
    })
}

/// Holds a copy of `value` made into a Sense value (NULL: nil; an agent
/// value is the agent itself) and stores its id in `*out`; see
/// `sense_runtime_hold_global`.
///
/// Errors: `SENSE_STATUS_RUNTIME_ERROR` (`value` is opaque, or too large
/// for the runtime's limits).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_hold_value(
    runtime: *mut sense_runtime,
    value: *const sense_value,
    out: *mut u64,
    error: *mut *mut sense_error,
) -> sense_status {
    read_into(runtime, out, error, |rt| {
        let value = host_or_nil(value);
        let id = rt.enter(|r| {
            r.hold_value(&value)
                .map_err(|e| error::from_sense(&e, sense_status::RuntimeError))
        })?;
        Ok(id.0)
    })
}

/// A copy of the value held under `id` into `*out` (free it with
/// `sense_value_free`; a function comes out as `SENSE_VALUE_KIND_OPAQUE`).
///
/// Errors: `SENSE_STATUS_NOT_FOUND` (nothing is held under `id`).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_held_value(
    runtime: *mut sense_runtime,
    id: u64,
    out: *mut *mut sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    read_into(runtime, out, error, |rt| {
        rt.enter(|r| r.held_value(HeldId(id)).map_err(|e| not_held(&e)))
            .map(into_raw)
    })
}

/// Calls the value held under `id` (a function, a closure, a tool, a
/// builtin) with copies of `args[0..arg_count]` (each NULL means nil;
/// `args` may be NULL when `arg_count` is 0), as `sense_runtime_call`
/// calls a named one. When `out` is not NULL it receives a copy of the
/// result (free it with `sense_value_free`); when `out_held` is not NULL
/// the result is also held and its id stored there — how a host keeps a
/// function that a call returns, to call it later.
///
/// Errors: `SENSE_STATUS_NOT_FOUND` (nothing is held under `id`),
/// `SENSE_STATUS_RUNTIME_ERROR` (the call raised — not callable, wrong
/// argument count, an error inside: the error has its location — or an
/// argument is opaque), `SENSE_STATUS_WRONG_STATE` (from a callback).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_call_held(
    runtime: *mut sense_runtime,
    id: u64,
    args: *const *const sense_value,
    arg_count: usize,
    out: *mut *mut sense_value,
    out_held: *mut u64,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        let values = crate::embed::call_args(args, arg_count)?;
        let keep = !out_held.is_null();
        let (result, held) = rt.enter(|r| {
            if !r.is_held(HeldId(id)) {
                return Err(fail!(NotFound, "no value is held under this id"));
            }
            let run = if keep {
                r.call_held_and_hold(HeldId(id), &values)
                    .map(|(v, h)| (v, Some(h)))
            } else {
                r.call_held(HeldId(id), &values).map(|v| (v, None))
            };
            run.map_err(|e| error::from_sense(&e, sense_status::RuntimeError))
        })?;
        if let Some(h) = held {
            // SAFETY: checked non-NULL above; the caller promises it is
            // writable for the call.
            unsafe { *out_held = h.0 };
        }
        if !out.is_null() {
            // SAFETY: non-NULL; the caller promises a writable
            // `sense_value *` slot for the call.
            unsafe { *out = into_raw(result) };
        }
        Ok(())
    })
}

/// Releases the value held under `id`; the id is invalid from then on.
///
/// Errors: `SENSE_STATUS_NOT_FOUND` (nothing is held under `id`, e.g.
/// released already).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_release_held(
    runtime: *mut sense_runtime,
    id: u64,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        rt.enter(|r| r.release_held(HeldId(id)).map_err(|e| not_held(&e)))
    })
}
