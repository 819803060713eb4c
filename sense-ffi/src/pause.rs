//! [`sense_pause_handle`]: asking a running agent to pause from another
//! thread.

use crate::agent::sense_agent;
use crate::bodies::read_into;
use crate::error::sense_error;
use crate::guard::{drop_boxed, set_opt};
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use sense_agents::PauseHandle;

/// Asks one agent to pause at its next safe point (a call or a loop
/// iteration), from any thread. The agent then reads `paused` with
/// `SENSE_PAUSE_KIND_HOST_REQUEST`, and `sense_agent_start` /
/// `sense_agent_resume` (whichever was running it) returns; resume it later
/// to continue exactly there. A request made while the agent is not running
/// takes effect the next time it runs.
///
/// Ownership: created by `sense_pause_handle_new`, freed by
/// `sense_pause_handle_free`. It does not keep the runtime alive and may
/// outlive it (requests then report `SENSE_STATUS_NOT_FOUND`).
///
/// Threads: thread-safe. `sense_pause_handle_request` and
/// `sense_pause_handle_is_requested` may be called from any thread, at the
/// same time as each other and as calls on the runtime. Free it once no
/// other thread is using it.
pub struct sense_pause_handle {
    handle: PauseHandle,
}

/// A pause handle for `agent` into `*out` (free it with
/// `sense_pause_handle_free`). Call this on the runtime's thread, then hand
/// the handle to the other thread. `SENSE_STATUS_NOT_FOUND` for a stale id.
#[unsafe(no_mangle)]
pub extern "C" fn sense_pause_handle_new(
    runtime: *const sense_runtime,
    agent: sense_agent,
    out: *mut *mut sense_pause_handle,
    error: *mut *mut sense_error,
) -> sense_status {
    read_into(runtime, out, error, |rt| {
        let handle = rt.find(|r| r.pause_handle(agent.id()))?;
        Ok(Box::into_raw(Box::new(sense_pause_handle { handle })))
    })
}

/// Requests a pause (from any thread). `*newly_requested` (may be NULL)
/// receives false if a request was already pending or the agent has
/// completed or failed (the request is then dropped), true otherwise.
/// `SENSE_STATUS_NOT_FOUND` (and false) once the agent's runtime has been
/// freed.
#[unsafe(no_mangle)]
pub extern "C" fn sense_pause_handle_request(
    handle: *const sense_pause_handle,
    newly_requested: *mut bool,
    error: *mut *mut sense_error,
) -> sense_status {
    on_handle!(error, handle => h, {
        let newly = h.handle.request();
        set_opt(newly_requested, newly);
        if !newly && !h.handle.runtime_alive() {
            return Err(fail!(NotFound, "the agent's runtime has been freed"));
        }
        Ok(())
    })
}

/// Whether a request is pending (made and not yet honoured) into `*out`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_pause_handle_is_requested(
    handle: *const sense_pause_handle,
    out: *mut bool,
    error: *mut *mut sense_error,
) -> sense_status {
    read_out!(error, handle, out, |h| h.handle.is_requested())
}

/// Frees a pause handle (from any thread). NULL is allowed and does
/// nothing.
#[unsafe(no_mangle)]
pub extern "C" fn sense_pause_handle_free(handle: *mut sense_pause_handle) {
    ffi_guard!(() => {
        // SAFETY: NULL, or made by `Box::into_raw` in `sense_pause_handle_new`;
        // the caller gives it back exactly once, when no other thread uses it.
        unsafe { drop_boxed(handle) }
    })
}
