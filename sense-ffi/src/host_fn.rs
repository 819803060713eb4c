//! Host functions: C callbacks callable from Sense, and [`sense_call`],
//! through which a callback reads its arguments and answers.

use crate::agent::sense_agent;
use crate::callback::{register_on, sense_free_fn};
use crate::error::{self, sense_error};
use crate::runtime::sense_runtime;
use crate::status::sense_status;
use crate::strings::sense_str;
use crate::value::{as_raw, host_or_nil, sense_value};
use sense_agents::{AgentId, HostReturn, HostValue};
use std::os::raw::{c_char, c_void};

/// One call of a host function, valid only during the callback (and only
/// on its thread): read the arguments with `sense_call_arg_count` /
/// `sense_call_arg`, then answer with `sense_call_return`,
/// `sense_call_suspend` or `sense_call_fail` (the last answer wins; no
/// answer returns nil). Never stored or freed by the host.
pub struct sense_call {
    name: *const str,
    args: *const [HostValue],
    caller: Option<AgentId>,
    outcome: Option<HostReturn>,
    failure: Option<String>,
}

impl sense_call {
    fn args(&self) -> &[HostValue] {
        // SAFETY: `args` borrows the VM's argument slice, alive for the whole
        // callback, which is the only time C holds a `sense_call *`.
        unsafe { &*self.args }
    }

    fn name(&self) -> &str {
        // SAFETY: `name` points into the registration's closure, alive for
        // the whole callback.
        unsafe { &*self.name }
    }
}

/// A host function's body. Called on the thread driving the runtime with
/// the registration's `user_data` and the call's context; see
/// `sense_call`. It must not call functions that take the runtime.
pub type sense_host_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, call: *mut sense_call)>;

/// Registers `callback` as a Sense function `name(…)` taking `arity`
/// arguments (-1: any number; otherwise 0..=255, and a call with another
/// count is a `SenseRuntimeError`). Registering a name again replaces the
/// old function (its `free_user_data` runs then). `free_user_data` (may be
/// NULL) is called with `user_data` when the function is replaced, the
/// runtime is freed, or — at once — when this call fails.
///
/// Inside an agent, a callback that answers with `sense_call_suspend`
/// pauses that agent (`SENSE_PAUSE_KIND_HOST_FUNCTION`); the value it is
/// resumed with becomes the call's result. Outside agents that is a
/// `SenseRuntimeError`.
///
/// Errors: `SENSE_STATUS_INVALID_ARGUMENT` (`name` is not an identifier —
/// empty, starting with a digit, or a keyword such as `if` —, NULL
/// `callback`, `arity` out of range).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_register_fn(
    runtime: *mut sense_runtime,
    name: *const c_char,
    name_len: usize,
    arity: i32,
    callback: sense_host_fn,
    user_data: *mut c_void,
    free_user_data: sense_free_fn,
    error: *mut *mut sense_error,
) -> sense_status {
    register_on(runtime, user_data, free_user_data, error, |rt, data| {
        let name = str_arg!(name, name_len).to_string();
        if !sense_agents::is_bindable_name(&name) {
            return Err(error::host(
                sense_status::InvalidArgument,
                &format!("'{name}' is not a function name (an identifier that is not a keyword)"),
            ));
        }
        let Some(cb) = callback else {
            return Err(null_arg!(callback));
        };
        let arity = match arity {
            -1 => None,
            0..=255 => Some(arity as u8),
            _ => {
                return Err(fail!(
                    InvalidArgument,
                    "argument `arity` must be -1 (any) or 0..=255"
                ));
            }
        };
        rt.enter(|r| {
            let fn_name = name.clone();
            r.register_fn_with_caller(&name, arity, move |args, caller| {
                let mut call = sense_call {
                    name: std::ptr::from_ref(fn_name.as_str()),
                    args: std::ptr::from_ref(args),
                    caller,
                    outcome: None,
                    failure: None,
                };
                // SAFETY: the host registered `cb` with this user data; `call`
                // lives across the callback.
                unsafe { cb(data.get(), &mut call) };
                match call.failure {
                    Some(message) => Err(message),
                    None => Ok(call.outcome.unwrap_or(HostReturn::Value(HostValue::Nil))),
                }
            });
            Ok(())
        })
    })
}

/// The name the function was called by, borrowed for the callback.
#[unsafe(no_mangle)]
pub extern "C" fn sense_call_name(
    call: *const sense_call,
    out: *mut sense_str,
    error: *mut *mut sense_error,
) -> sense_status {
    read_out!(error, call, out, |c| sense_str::of(c.name()))
}

/// The agent whose code made this call into `*out` (use it with the
/// runtime's functions after the callback returns, e.g. to look up its
/// members). `SENSE_STATUS_NOT_FOUND` when the call did not come from
/// inside an agent (the main program, a function it called).
#[unsafe(no_mangle)]
pub extern "C" fn sense_call_agent(
    call: *const sense_call,
    out: *mut sense_agent,
    error: *mut *mut sense_error,
) -> sense_status {
    read_out!(error, call, out, |c| match c.caller {
        Some(id) => sense_agent::of(id),
        None => return Err(fail!(NotFound, "the call did not come from an agent")),
    })
}

/// The number of arguments into `*out`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_call_arg_count(
    call: *const sense_call,
    out: *mut usize,
    error: *mut *mut sense_error,
) -> sense_status {
    read_out!(error, call, out, |c| c.args().len())
}

/// Argument `index` (0-based), *borrowed* for the callback: never free it
/// (copy it with `sense_value_clone` to keep it). `SENSE_STATUS_NOT_FOUND`
/// if `index` is out of range.
#[unsafe(no_mangle)]
pub extern "C" fn sense_call_arg(
    call: *const sense_call,
    index: usize,
    out: *mut *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    read_out!(error, call, out, |c| match c.args().get(index) {
        Some(v) => as_raw(v),
        None => return Err(fail!(NotFound, "argument index out of range")),
    })
}

/// Answers the call with a copy of `value` (NULL: nil; the caller keeps
/// `value`). An opaque value cannot enter Sense: the call then raises a
/// `SenseRuntimeError`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_call_return(
    call: *mut sense_call,
    value: *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    on_handle!(error, mut call => c, {
        c.outcome = Some(HostReturn::Value(host_or_nil(value)));
        c.failure = None;
        Ok(())
    })
}

/// Answers by suspending the calling agent with `reason` (copied; NULL:
/// nil) as its pause reason; the value the host resumes it with becomes
/// this call's result. Outside an agent the call raises a
/// `SenseRuntimeError`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_call_suspend(
    call: *mut sense_call,
    reason: *const sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    on_handle!(error, mut call => c, {
        c.outcome = Some(HostReturn::Suspend(host_or_nil(reason)));
        c.failure = None;
        Ok(())
    })
}

/// Answers by raising a `SenseRuntimeError` with `message` (copied) in
/// the calling Sense code; it reaches the host as the failure of the
/// `sense_runtime_run_source` / `sense_agent_start` / `sense_agent_resume`
/// call that was running (an agent's body then reads `failed`). Bytes of
/// `message` that are not UTF-8 are replaced with U+FFFD: the failure is
/// never dropped for its text.
#[unsafe(no_mangle)]
pub extern "C" fn sense_call_fail(
    call: *mut sense_call,
    message: *const c_char,
    message_len: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    on_handle!(error, mut call => c, {
        // Header, "strings in": `message_len` readable bytes at `message`.
        let bytes: &[u8] = slice_arg!(message, message_len);
        c.failure = Some(String::from_utf8_lossy(bytes).into_owned());
        c.outcome = None;
        Ok(())
    })
}
