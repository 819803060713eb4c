//! Resuming an agent with an Int, Float, Bool or String passed directly
//! (no `sense_value` to make and free): the allocation-free half of the
//! hand-off. The other half, reading the pause value without copying it,
//! is `sense_agent_pause_reason_int` and its siblings (`embed.rs`).

use crate::agent::{resume_ref, sense_agent, sense_agent_status};
use crate::bodies::settle;
use crate::error::sense_error;
use crate::guard::Failure;
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use sense_agents::ValueRef;
use std::os::raw::c_char;

/// Resumes a paused agent with the Int `value`, as `sense_agent_resume`
/// does with an Int `sense_value`, but with nothing to allocate or free:
/// `value` becomes the result of the `pause()` (or `ask_human()`, or
/// host-function call) the agent is paused in. `*status_out` (may be
/// NULL) receives `SENSE_AGENT_STATUS_PAUSED` or
/// `SENSE_AGENT_STATUS_COMPLETED`; read the new pause value with
/// `sense_agent_pause_reason_int` (or its siblings) without copying it.
/// Errors as for `sense_agent_resume`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_resume_int(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    value: i64,
    status_out: *mut sense_agent_status,
    error: *mut *mut sense_error,
) -> sense_status {
    resume_with(runtime, agent, status_out, error, || {
        Ok(ValueRef::Int(value))
    })
}

/// Resumes a paused agent with the Float `value`, as
/// `sense_agent_resume_int` does with an Int.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_resume_float(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    value: f64,
    status_out: *mut sense_agent_status,
    error: *mut *mut sense_error,
) -> sense_status {
    resume_with(runtime, agent, status_out, error, || {
        Ok(ValueRef::Float(value))
    })
}

/// Resumes a paused agent with the Bool `value`, as
/// `sense_agent_resume_int` does with an Int.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_resume_bool(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    value: bool,
    status_out: *mut sense_agent_status,
    error: *mut *mut sense_error,
) -> sense_status {
    resume_with(runtime, agent, status_out, error, || {
        Ok(ValueRef::Bool(value))
    })
}

/// Resumes a paused agent with the String of `len` bytes at `ptr` (UTF-8,
/// not NUL-terminated; borrowed for the call: the runtime copies it into
/// its own string, as Sense code's strings are kept), as
/// `sense_agent_resume_int` does with an Int. The answer to an
/// `ask_human()` is typically sent this way. Errors as for
/// `sense_agent_resume`, plus `SENSE_STATUS_INVALID_ARGUMENT` (NULL `ptr`
/// with a non-zero `len`) and `SENSE_STATUS_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_agent_resume_string(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    ptr: *const c_char,
    len: usize,
    status_out: *mut sense_agent_status,
    error: *mut *mut sense_error,
) -> sense_status {
    resume_with(runtime, agent, status_out, error, || {
        Ok(ValueRef::Str(str_arg!(ptr, len)))
    })
}

/// The one body of the `sense_agent_resume_*` calls: checks `runtime`,
/// then makes the value (a string argument is checked here, after
/// `runtime`) and resumes the agent with it.
#[inline]
fn resume_with<'a>(
    runtime: *mut sense_runtime,
    agent: sense_agent,
    status_out: *mut sense_agent_status,
    error: *mut *mut sense_error,
    value: impl FnOnce() -> Result<ValueRef<'a>, Failure>,
) -> sense_status {
    settle(runtime, status_out, error, |rt| {
        let value = value()?;
        rt.enter(|r| resume_ref(r, agent, value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{sense_agent_lookup, sense_agent_pause_reason, sense_agent_start};
    use crate::alloc_count::allocations_in;
    use crate::embed::{sense_agent_pause_reason_int, sense_agent_pause_reason_string};
    use crate::error::{sense_error_free, sense_error_status};
    use crate::runtime::{sense_runtime_free, sense_runtime_new, sense_runtime_run_source};
    use crate::value::{sense_value_as_string, sense_value_free};
    use std::ptr::{null, null_mut};

    /// A runtime that ran `src`, and its agent `worker`, started.
    fn started(src: &str) -> (*mut sense_runtime, sense_agent) {
        let mut rt = null_mut();
        assert_eq!(sense_runtime_new(&mut rt, null_mut()), sense_status::Ok);
        let file = "t.sns";
        let st = sense_runtime_run_source(
            rt,
            file.as_ptr().cast(),
            file.len(),
            src.as_ptr().cast(),
            src.len(),
            null_mut(),
        );
        assert_eq!(st, sense_status::Ok);
        let mut agent = sense_agent {
            serial: 0,
            index: 0,
        };
        let name = "worker";
        let st = sense_agent_lookup(rt, name.as_ptr().cast(), name.len(), &mut agent, null_mut());
        assert_eq!(st, sense_status::Ok);
        let mut status = sense_agent_status::Created;
        assert_eq!(
            sense_agent_start(rt, agent, &mut status, null_mut()),
            sense_status::Ok
        );
        assert_eq!(status, sense_agent_status::Paused);
        (rt, agent)
    }

    const ECHO: &str = "agent worker:\n    x = 0\n    while true:\n        x = pause(x + 1)\n";

    #[test]
    fn an_int_round_trip_through_the_c_abi_allocates_nothing() {
        let (rt, agent) = started(ECHO);
        let mut status = sense_agent_status::Created;
        let mut got = 0i64;
        for i in 0..100 {
            // Warm-up: the fiber's stacks reach their working size.
            sense_agent_resume_int(rt, agent, i, &mut status, null_mut());
        }
        let mut sum = 0;
        let n = allocations_in(|| {
            for i in 0..1000 {
                let st = sense_agent_resume_int(rt, agent, i, &mut status, null_mut());
                assert_eq!((st, status), (sense_status::Ok, sense_agent_status::Paused));
                let st = sense_agent_pause_reason_int(rt, agent, &mut got, null_mut());
                assert_eq!(st, sense_status::Ok);
                sum += got - i;
            }
        });
        assert_eq!(sum, 1000, "each pause value is the resume value plus one");
        assert_eq!(n, 0, "1,000 C-ABI round trips allocated {n} times");
        // The counter does count: copying the value out allocates.
        let mut copy = null_mut();
        let n = allocations_in(|| {
            sense_agent_pause_reason(rt, agent, &mut copy, null_mut());
        });
        assert!(n >= 1, "a copied-out sense_value was not counted");
        sense_value_free(copy);
        sense_runtime_free(rt);
    }

    #[test]
    fn a_string_pause_value_is_read_without_allocating() {
        let (rt, agent) = started("agent worker:\n    while true:\n        n = pause(\"more?\")\n");
        let mut status = sense_agent_status::Created;
        let mut view = crate::strings::sense_str::EMPTY;
        sense_agent_resume_bool(rt, agent, true, &mut status, null_mut());
        let n = allocations_in(|| {
            for _ in 0..1000 {
                let st = sense_agent_resume_float(rt, agent, 0.5, &mut status, null_mut());
                assert_eq!((st, status), (sense_status::Ok, sense_agent_status::Paused));
                let st = sense_agent_pause_reason_string(rt, agent, &mut view, null_mut());
                assert_eq!(st, sense_status::Ok);
            }
        });
        assert_eq!(view.to_string_lossy(), "more?");
        assert_eq!(n, 0, "1,000 round trips allocated {n} times");
        sense_runtime_free(rt);
    }

    #[test]
    fn a_string_resume_value_arrives_and_bad_arguments_are_refused() {
        let (rt, agent) =
            started("agent worker:\n    x = nil\n    while true:\n        x = pause(x)\n");
        let mut status = sense_agent_status::Created;
        let text = "héllo";
        let st = sense_agent_resume_string(
            rt,
            agent,
            text.as_ptr().cast(),
            text.len(),
            &mut status,
            null_mut(),
        );
        assert_eq!((st, status), (sense_status::Ok, sense_agent_status::Paused));
        let mut reason = null_mut();
        sense_agent_pause_reason(rt, agent, &mut reason, null_mut());
        let mut got = crate::strings::sense_str::EMPTY;
        assert_eq!(
            sense_value_as_string(reason, &mut got, null_mut()),
            sense_status::Ok
        );
        assert_eq!(got.to_string_lossy(), "héllo");
        sense_value_free(reason);

        let bad = [0xffu8, 0xfe];
        let mut err = null_mut();
        let st = sense_agent_resume_string(rt, agent, bad.as_ptr().cast(), 2, null_mut(), &mut err);
        assert_eq!(st, sense_status::InvalidUtf8);
        assert_eq!(sense_error_status(err), sense_status::InvalidUtf8);
        sense_error_free(err);
        let st = sense_agent_resume_string(rt, agent, null(), 3, null_mut(), null_mut());
        assert_eq!(st, sense_status::InvalidArgument);
        let st = sense_agent_resume_int(null_mut(), agent, 1, null_mut(), null_mut());
        assert_eq!(st, sense_status::InvalidArgument);
        let stale = sense_agent {
            serial: agent.serial + 1000,
            index: agent.index,
        };
        let st = sense_agent_resume_int(rt, stale, 1, null_mut(), null_mut());
        assert_eq!(st, sense_status::NotFound);
        sense_runtime_free(rt);
    }

    #[test]
    fn resuming_an_agent_that_is_not_paused_is_wrong_state_and_a_body_error_is_runtime_error() {
        let (rt, agent) = started("agent worker:\n    x = pause()\n    y = 1 / x\n");
        let mut status = sense_agent_status::Created;
        let mut err = null_mut();
        let st = sense_agent_resume_int(rt, agent, 0, &mut status, &mut err);
        assert_eq!(st, sense_status::RuntimeError);
        sense_error_free(err);
        let st = sense_agent_resume_int(rt, agent, 1, &mut status, null_mut());
        assert_eq!(st, sense_status::WrongState);
        sense_runtime_free(rt);
    }
}
