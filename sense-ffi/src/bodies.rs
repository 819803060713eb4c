//! The bodies of exported functions that share a shape: check the
//! runtime (and a name) or the value, run something on it, store one
//! result.
//!
//! Signatures stay written out in each module (cbindgen reads them, in
//! source order, to write the header); what they have in common lives
//! here, so every check runs in one order and fails with one message.
//! The argument names of these helpers are those of the exported
//! functions (`runtime`, `name`, `name_len`, `out`, `status_out`), so the
//! errors of `try_ref!`, `str_arg!` and `try_out!` name the caller's
//! arguments.

use crate::agent::sense_agent_status;
use crate::error::sense_error;
use crate::guard::{Body, Failure, set_opt};
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use crate::value::sense_value;
use sense_agents::HostValue;
use std::os::raw::c_char;

/// Checks `runtime`, then runs `body` with it: the first step of every
/// call on a runtime.
#[inline]
pub(crate) fn with_runtime(
    runtime: *const sense_runtime,
    error: *mut *mut sense_error,
    body: impl FnOnce(&sense_runtime) -> Body,
) -> sense_status {
    ffi_guard!(error, {
        let rt = try_ref!(runtime);
        body(rt)
    })
}

/// Checks the out-parameter `out`, then stores what `make` gives in it
/// (untouched when `make` fails): the last step of every read.
#[inline]
fn store<T>(out: *mut T, make: impl FnOnce() -> Result<T, Failure>) -> Body {
    let out = try_out!(out);
    out.set(make()?);
    Ok(())
}

/// Checks `runtime` and `out`, then stores what `read` gives in `*out`
/// (untouched when `read` fails).
#[inline]
pub(crate) fn read_into<T>(
    runtime: *const sense_runtime,
    out: *mut T,
    error: *mut *mut sense_error,
    read: impl FnOnce(&sense_runtime) -> Result<T, Failure>,
) -> sense_status {
    with_runtime(runtime, error, |rt| store(out, || read(rt)))
}

/// [`read_into`] for a lookup by name: checks `runtime`, the UTF-8 of
/// `name[0..name_len]`, then `out`, in that order.
pub(crate) fn read_named_into<T>(
    runtime: *const sense_runtime,
    name: *const c_char,
    name_len: usize,
    out: *mut T,
    error: *mut *mut sense_error,
    read: impl FnOnce(&sense_runtime, &str) -> Result<T, Failure>,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        let name = str_arg!(name, name_len);
        store(out, || read(rt, name))
    })
}

/// The body of the reads of one value: checks `value`, then `out`, then
/// stores what `read` gives in `*out` (untouched when `read` fails).
pub(crate) fn value_into<T>(
    value: *const sense_value,
    out: *mut T,
    error: *mut *mut sense_error,
    read: impl FnOnce(&HostValue) -> Result<T, Failure>,
) -> sense_status {
    ffi_guard!(error, {
        let v = try_value!(value);
        store(out, || read(v))
    })
}

/// Stores a new object made by `make` in `*out`: the body of the
/// constructors that take no handle.
pub(crate) fn new_into<T>(
    out: *mut *mut T,
    error: *mut *mut sense_error,
    make: impl FnOnce() -> Box<T>,
) -> sense_status {
    ffi_guard!(error, { store(out, || Ok(Box::into_raw(make()))) })
}

/// Checks `runtime`, starts or resumes an agent with `drive`, and stores
/// the settled status in the optional `*status_out`.
#[inline]
pub(crate) fn settle(
    runtime: *const sense_runtime,
    status_out: *mut sense_agent_status,
    error: *mut *mut sense_error,
    drive: impl FnOnce(&sense_runtime) -> Result<sense_agent_status, Failure>,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        set_opt(status_out, drive(rt)?);
        Ok(())
    })
}
