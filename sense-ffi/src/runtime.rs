//! [`sense_runtime`]: one Sense program and its agents; running source and
//! files, globals, output and input callbacks.

use crate::bodies::{new_into, with_runtime};
use crate::callback::{register_on, sense_free_fn};
use crate::config::sense_config;
use crate::error::{self, sense_error};
use crate::guard::Failure;
use crate::status::sense_status;
use crate::strings::sense_str;
use crate::value::{into_raw, sense_value};
use sense_agents::Runtime;
use std::cell::{Cell, UnsafeCell};
use std::os::raw::{c_char, c_void};

/// A Sense runtime: one global scope shared by every program run on it,
/// its agents, host functions, model providers and I/O callbacks.
///
/// Ownership: created by `sense_runtime_new` or
/// `sense_runtime_new_with_config`, freed by `sense_runtime_free`, which
/// also frees every paused agent and calls the `free_user_data` of every
/// callback registered on it.
///
/// Threads: NOT thread-safe. Use a runtime from one thread at a time; it
/// may be moved to another thread between calls (callbacks then run on the
/// new thread, so their user data must allow that). The only cross-thread
/// operation is `sense_pause_handle_request`. Callbacks run on the thread
/// that called into the runtime; a callback must not call functions that
/// take this runtime (they return `SENSE_STATUS_WRONG_STATE`).
pub struct sense_runtime {
    inner: UnsafeCell<Runtime>,
    /// Whether a call is inside the runtime (callbacks see it busy) or a
    /// panic unwound out of it: one cell, so a call checks one byte.
    state: Cell<Use>,
}

/// Where a runtime stands for the next call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Use {
    /// Free to enter.
    Idle,
    /// A call is inside it.
    Busy,
    /// A panic unwound out of it: every later call is refused.
    Poisoned,
}

impl sense_runtime {
    fn boxed(rt: Runtime) -> Box<sense_runtime> {
        Box::new(sense_runtime {
            inner: UnsafeCell::new(rt),
            state: Cell::new(Use::Idle),
        })
    }

    /// [`enter`](Self::enter) for a lookup: an error from `f` (no such
    /// name, member or element; a stale id) is `SENSE_STATUS_NOT_FOUND`.
    pub(crate) fn find<R>(
        &self,
        f: impl FnOnce(&mut Runtime) -> Result<R, sense_agents::Error>,
    ) -> Result<R, Failure> {
        self.enter(|r| f(r).map_err(|e| crate::error::with_status(&e, sense_status::NotFound)))
    }

    /// Runs `f` with exclusive access to the runtime, refusing re-entry
    /// from callbacks and use after a panic.
    #[inline]
    pub(crate) fn enter<R>(
        &self,
        f: impl FnOnce(&mut Runtime) -> Result<R, Failure>,
    ) -> Result<R, Failure> {
        if self.state.get() != Use::Idle {
            return Err(self.refused());
        }
        self.state.set(Use::Busy);
        /// Dropped only while a panic unwinds out of `f` (the normal path
        /// forgets it, which spares every call a `thread::panicking()`
        /// check): the runtime is left poisoned.
        struct Unwinding<'a>(&'a sense_runtime);
        impl Drop for Unwinding<'_> {
            fn drop(&mut self) {
                self.0.state.set(Use::Poisoned);
            }
        }
        let unwinding = Unwinding(self);
        // SAFETY: the runtime was idle, so no other reference into the runtime
        // is live: re-entry from callbacks is refused above, and the header
        // forbids using one runtime from two threads at once.
        let rt = unsafe { &mut *self.inner.get() };
        let r = f(rt);
        std::mem::forget(unwinding);
        self.state.set(Use::Idle);
        r
    }

    /// Why [`enter`](Self::enter) refuses a runtime that is not idle.
    #[cold]
    fn refused(&self) -> Failure {
        if self.state.get() == Use::Poisoned {
            return fail!(
                Panic,
                "the runtime is poisoned: an earlier call panicked inside it"
            );
        }
        fail!(
            WrongState,
            "the runtime is busy: it cannot be called from inside one of its own callbacks"
        )
    }
}

/// Receives program output (`print`, the prompts of `ask_human` outside
/// agents): `text` is UTF-8, borrowed for the call only, not
/// NUL-terminated.
pub type sense_output_fn = Option<unsafe extern "C" fn(user_data: *mut c_void, text: sense_str)>;

/// Supplies one line of input for `ask_human` outside an agent. Return
/// true after storing the line (UTF-8, without or with its trailing
/// newline) in `*line`, or false at end of input (`ask_human` then fails
/// with a `SenseRuntimeError`). The bytes are copied as soon as the
/// callback returns; they only need to live until then. Invalid UTF-8 is
/// replaced with U+FFFD.
pub type sense_input_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, line: *mut sense_str) -> bool>;

/// A runtime with default limits in `*out`, printing to stdout and reading
/// `ask_human` input from stdin. Free it with `sense_runtime_free`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_new(
    out: *mut *mut sense_runtime,
    error: *mut *mut sense_error,
) -> sense_status {
    new_into(out, error, || sense_runtime::boxed(Runtime::new()))
}

/// A runtime with the limits of `config` (copied; `config` may be freed
/// afterwards) in `*out`. Free it with `sense_runtime_free`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_new_with_config(
    config: *const sense_config,
    out: *mut *mut sense_runtime,
    error: *mut *mut sense_error,
) -> sense_status {
    read_out!(error, config, out, |c| {
        let mut rt = Runtime::with_config(c.config.clone());
        rt.set_dry_run(c.dry_run);
        Box::into_raw(sense_runtime::boxed(rt))
    })
}

/// Frees a runtime, its agents (paused ones included) and the user data of
/// its callbacks. NULL is allowed and does nothing. Calling it from inside
/// one of the runtime's own callbacks is refused (nothing is freed).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_free(runtime: *mut sense_runtime) {
    ffi_guard!(() => {
        // SAFETY: the caller passes NULL or a runtime it owns.
        if let Some(rt) = unsafe { runtime.as_ref() }
            && rt.state.get() != Use::Busy
        {
            rt.state.set(Use::Busy);
            // SAFETY: made by `Box::into_raw` in `sense_runtime::boxed`; the
            // caller gives it back exactly once, and it is not in use.
            drop(unsafe { Box::from_raw(runtime) });
        }
    })
}

/// Runs `source` (UTF-8, `source_len` bytes) as a main program; `name`
/// labels it in diagnostics (empty: `<string>`). Every program run on one
/// runtime shares one top-level scope, so agents declared by one can be
/// looked up and driven afterwards. Imports resolve against the working
/// directory. Each program adds compiled code; every few runs (and before
/// a snapshot) the code and source of programs nothing refers to any more
/// are released, so running snippets for ever keeps memory bounded.
///
/// Errors: `SENSE_STATUS_SYNTAX_ERROR` (nothing ran),
/// `SENSE_STATUS_RUNTIME_ERROR`, `SENSE_STATUS_INVALID_UTF8`,
/// `SENSE_STATUS_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_run_source(
    runtime: *mut sense_runtime,
    name: *const c_char,
    name_len: usize,
    source: *const c_char,
    source_len: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        let name = str_arg!(name, name_len);
        let source = str_arg!(source, source_len);
        let name = if name.is_empty() { "<string>" } else { name };
        rt.enter(|r| {
            r.run_source(name, source)
                .map_err(|e| error::from_sense(&e, sense_status::RuntimeError))
        })
    })
}

/// Reads the file at `path` (UTF-8 path, `path_len` bytes) and runs it as a
/// main program (see `sense_runtime_run_source`); its imports resolve
/// against its directory.
///
/// Errors as for `sense_runtime_run_source`, plus `SENSE_STATUS_NOT_FOUND`
/// (no such file), `SENSE_STATUS_INVALID_UTF8` (the file is not UTF-8
/// text) and `SENSE_STATUS_RUNTIME_ERROR` (it cannot be read).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_run_file(
    runtime: *mut sense_runtime,
    path: *const c_char,
    path_len: usize,
    error: *mut *mut sense_error,
) -> sense_status {
    with_runtime(runtime, error, |rt| {
        let path = std::path::Path::new(str_arg!(path, path_len));
        rt.enter(|r| {
            // Read once first so a missing or non-UTF-8 file gets its own
            // status; the runtime's own message is kept.
            if let Err(e) = sense_agents::read_source(path) {
                let status = match std::fs::read(path) {
                    Err(io) if io.kind() == std::io::ErrorKind::NotFound => sense_status::NotFound,
                    Ok(_) => sense_status::InvalidUtf8,
                    Err(_) => sense_status::RuntimeError,
                };
                return Err(error::with_status(&e, status));
            }
            r.run_file(path)
                .map_err(|e| error::from_sense(&e, sense_status::RuntimeError))
        })
    })
}

/// Copies the value of a top-level variable of the main program (or a
/// builtin) into `*out` (free it with `sense_value_free`). Values other than
/// nil/bool/int/float/string/list/map/agent come out as
/// `SENSE_VALUE_KIND_OPAQUE` (hold one with `sense_runtime_hold_global` to
/// call it).
/// `SENSE_STATUS_NOT_FOUND` when the name is not defined.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_global(
    runtime: *const sense_runtime,
    name: *const c_char,
    name_len: usize,
    out: *mut *mut sense_value,
    error: *mut *mut sense_error,
) -> sense_status {
    crate::bodies::read_named_into(runtime, name, name_len, out, error, |rt, name| {
        match rt.enter(|r| Ok(r.global(name)))? {
            Some(v) => Ok(into_raw(v)),
            None => Err(error::host(
                sense_status::NotFound,
                &format!("no global named '{name}'"),
            )),
        }
    })
}

/// Sends program output to `callback` instead of stdout. `user_data` is
/// passed to every call; `free_user_data` (may be NULL) is called with it
/// when the output is redirected again or the runtime is freed. A NULL
/// `callback` restores stdout (and `free_user_data`, if given, is called on
/// `user_data` at once).
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_set_output(
    runtime: *mut sense_runtime,
    callback: sense_output_fn,
    user_data: *mut c_void,
    free_user_data: sense_free_fn,
    error: *mut *mut sense_error,
) -> sense_status {
    register_on(runtime, user_data, free_user_data, error, |rt, data| {
        rt.enter(|r| {
            match callback {
                Some(cb) => r.set_output(move |s| {
                    // SAFETY: the host registered `cb` with this user data
                    // and promises it may be called while the runtime lives.
                    unsafe { cb(data.get(), sense_str::of(s)) }
                }),
                None => {
                    drop(data);
                    r.set_output(|s| {
                        use std::io::Write;
                        let _ = std::io::stdout().write_all(s.as_bytes());
                    })
                }
            }
            Ok(())
        })
    })
}

/// Reads `ask_human` answers outside agents from `callback` instead of
/// stdin (see `sense_input_fn`). `user_data` and `free_user_data` as for
/// `sense_runtime_set_output`; a NULL `callback` restores stdin.
#[unsafe(no_mangle)]
pub extern "C" fn sense_runtime_set_input(
    runtime: *mut sense_runtime,
    callback: sense_input_fn,
    user_data: *mut c_void,
    free_user_data: sense_free_fn,
    error: *mut *mut sense_error,
) -> sense_status {
    register_on(runtime, user_data, free_user_data, error, |rt, data| {
        rt.enter(|r| {
            match callback {
                Some(cb) => r.set_input(move || {
                    let mut line = sense_str::EMPTY;
                    // SAFETY: as for the output callback; `line` is a valid
                    // place for the callback to store its answer.
                    let more = unsafe { cb(data.get(), &mut line) };
                    more.then(|| line.to_string_lossy())
                }),
                None => {
                    drop(data);
                    r.set_input(|| {
                        let mut line = String::new();
                        match std::io::stdin().read_line(&mut line) {
                            Ok(0) | Err(_) => None,
                            Ok(_) => Some(line),
                        }
                    })
                }
            }
            Ok(())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_poisons_the_runtime_and_a_normal_call_does_not() {
        let mut out = std::ptr::null_mut();
        assert_eq!(
            sense_runtime_new(&mut out, std::ptr::null_mut()),
            sense_status::Ok
        );
        // SAFETY: `out` was just made by `sense_runtime_new`.
        let rt = unsafe { &*out };
        assert!(rt.enter(|_| Ok(())).is_ok());
        assert!(
            rt.enter(|_| Ok(())).is_ok(),
            "a normal call leaves it usable"
        );
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = rt.enter(|_| -> Result<(), Failure> { panic!("boom") });
        }));
        assert!(unwound.is_err());
        assert_eq!(rt.state.get(), Use::Poisoned, "unwinding left it busy");
        match rt.enter(|_| Ok(())) {
            Err(f) => assert_eq!(f.status(), sense_status::Panic),
            Ok(()) => panic!("a poisoned runtime was entered"),
        }
        sense_runtime_free(out);
    }
}
