//! Snapshots: [`sense_bytes`] (an owned byte buffer), saving a runtime to
//! bytes, restoring one, and the subject agent recorded with them.

use crate::agent::sense_agent;
use crate::bodies::{read_into, with_runtime};
use crate::error::{self, sense_error};
use crate::guard::{Failure, drop_boxed};
use crate::runtime::sense_runtime;
use crate::status::sense_status;

/// An owned, immutable byte buffer made by libsense (a snapshot): read it
/// with `sense_bytes_data` and `sense_bytes_len`.
///
/// Ownership: received through a `sense_bytes **out` parameter, freed with
/// `sense_bytes_free`. The pointer from `sense_bytes_data` is valid until
/// then; copy the bytes (to a file, a database, another buffer) to keep
/// them longer.
///
/// Threads: immutable; may be read from several threads at once and freed
/// from any thread.
pub struct sense_bytes {
    bytes: Box<[u8]>,
}

/// Saves the whole runtime into `*out` (free it with `sense_bytes_free`):
/// every agent in any status (paused ones exactly where they stopped, with
/// their locals, call stacks and mailboxes), globals, closures, shared and
/// cyclic lists, action instances, memory handles, the audit log, and the
/// subject agent (`sense_runtime_set_subject`). Snapshots are
/// deterministic: the same state gives the same bytes. The code of earlier
/// programs that nothing refers to any more is released first (see
/// `sense_runtime_run_source`), so it is not saved.
///
/// Not saved: the host's side of the runtime — output and input
/// callbacks, host functions, model providers, the configuration and pause
/// handles. The restoring host sets those up again (see
/// `sense_runtime_restore`).
///
/// Errors: `SENSE_STATUS_RUNTIME_ERROR` when the state cannot be written,
/// `SENSE_STATUS_WRONG_STATE` from inside one of the runtime's callbacks.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_snapshot(
    runtime: *const sense_runtime,
    out: *mut *mut sense_bytes,
    error: *mut *mut sense_error,
) -> sense_status {
    read_into(runtime, out, error, |rt| {
        let bytes = rt.enter(|r| {
            // Code of earlier programs nothing refers to is not worth saving.
            r.release_unused_code();
            r.snapshot()
                .map_err(|e| error::from_sense(&e, sense_status::RuntimeError))
        })?;
        Ok(Box::into_raw(Box::new(sense_bytes {
            bytes: bytes.into_boxed_slice(),
        })))
    })
}

/// Restores the snapshot in `len` bytes at `data` (copied; `data` may be
/// NULL when `len` is 0) into `runtime`, which must be new: created with
/// `sense_runtime_new` or `sense_runtime_new_with_config` and not yet used
/// to run or restore code. Before restoring, set it up as the snapshotted
/// one was: register every host function and model provider the snapshot's
/// code uses, and set the output and input callbacks. The runtime keeps its
/// own configuration, and the globals set on it with
/// `sense_runtime_set_global` before this call (they replace the
/// snapshot's values of the same names).
///
/// Afterwards the runtime is the snapshotted one: look agents up by name
/// (`sense_agent_lookup`), or read the subject
/// (`sense_runtime_get_subject`), and resume paused agents with
/// `sense_agent_resume`. A `sense_agent` id taken from the snapshotted
/// runtime names the same agent in the restored one.
///
/// Errors:
/// - `SENSE_STATUS_RUNTIME_ERROR`: the bytes are not a snapshot, are
///   truncated or damaged, come from another format version or from code
///   that no longer compiles to the same program, or the snapshot uses a
///   host function or model provider that is not registered (the message
///   names it, e.g. `cannot restore snapshot: it uses the host function
///   'approve', which is not registered (register it before restoring)`).
///   Damage is always reported, never a crash.
/// - `SENSE_STATUS_WRONG_STATE`: the runtime has already run or restored
///   code, or the call comes from inside one of its callbacks.
/// - `SENSE_STATUS_INVALID_ARGUMENT`: `runtime` NULL, or `data` NULL with
///   `len` > 0.
///
/// A failure found before anything was restored (damaged bytes, a missing
/// host function) leaves the runtime new: fix the cause (e.g. register the
/// function) and call this again. A missing model provider is found only
/// afterwards; then further restores report `SENSE_STATUS_WRONG_STATE`, and
/// the runtime should be freed.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_restore(
    runtime: *mut sense_runtime,
    data: *const u8,
    len: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        // Header, "bytes in" and sense_runtime_restore: `len` readable
        // bytes at `data` for the call.
        let bytes: &[u8] = slice_arg!(data, len);
        rt.enter(|r| {
            if r.has_run_code() {
                return Err(fail!(
                    WrongState,
                    "cannot restore snapshot: this runtime has already run or restored code \
                     (restore into a new runtime)"
                ));
            }
            r.restore_snapshot(bytes)
                .map_err(|e| error::from_sense(&e, sense_status::RuntimeError))
        })
    })
}

/// The first byte of `bytes`, valid until `bytes` is freed; NULL when
/// `bytes` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sense_bytes_data(bytes: *const sense_bytes) -> *const u8 {
    ffi_guard!(std::ptr::null() => {
        // SAFETY: the caller passes NULL or a live buffer (ownership table).
        unsafe { bytes.as_ref() }.map_or(std::ptr::null(), |b| b.bytes.as_ptr())
    })
}

/// The number of bytes in `bytes`; 0 when `bytes` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sense_bytes_len(bytes: *const sense_bytes) -> usize {
    ffi_guard!(0 => {
        // SAFETY: the caller passes NULL or a live buffer (ownership table).
        unsafe { bytes.as_ref() }.map_or(0, |b| b.bytes.len())
    })
}

/// Frees a buffer. NULL is allowed and does nothing; freeing twice is
/// undefined.
#[unsafe(no_mangle)]
pub extern "C" fn sense_bytes_free(bytes: *mut sense_bytes) {
    ffi_guard!(() => {
        // SAFETY: NULL, or made by `Box::into_raw` in `sense_runtime_snapshot`;
        // the caller gives it back exactly once.
        unsafe { drop_boxed(bytes) }
    })
}

/// Records `*agent` as the agent the host is driving; NULL clears it. The
/// subject is saved in snapshots, so a restoring host can find the agent
/// without knowing its name (the `sense start` / `sense resume` CLI
/// commands use it too). `SENSE_STATUS_NOT_FOUND` for a stale id.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_set_subject(
    runtime: *mut sense_runtime,
    agent: *const sense_agent,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        // SAFETY: the caller passes NULL or a readable `sense_agent`
        // (plain data) for the call.
        let agent = unsafe { agent.as_ref() }.copied();
        rt.enter(|r| {
            if let Some(a) = agent {
                r.status(a.id())
                    .map_err(|e| error::with_status(&e, sense_status::NotFound))?;
            }
            r.set_subject(agent.map(sense_agent::id));
            Ok(())
        })
    })
}

/// The subject agent (`sense_runtime_set_subject`, or restored from a
/// snapshot) into `*out`. `SENSE_STATUS_NOT_FOUND` when there is none
/// (`*out` untouched).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_get_subject(
    runtime: *const sense_runtime,
    out: *mut sense_agent,
    error: *mut *mut sense_error,
) -> sense_status {
    read_into(runtime, out, error, |rt| {
        match rt.enter(|r| -> Result<_, Failure> { Ok(r.subject()) })? {
            Some(id) => Ok(sense_agent::of(id)),
            None => Err(fail!(NotFound, "the runtime has no subject agent")),
        }
    })
}
