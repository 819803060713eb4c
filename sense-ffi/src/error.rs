//! [`sense_error`]: details of a failure, read through borrowed views.

use crate::guard::Failure;
use crate::status::sense_status;
use crate::strings::sense_str;
use sense_agents::{Error, ErrorClass};
use std::borrow::Cow;

/// Details of a failed call: its status, the Sense error class, the
/// message, the line and column, the rendered diagnostic and the Sense
/// stack traceback.
///
/// Ownership: a `sense_error *` stored through a `sense_error **error`
/// parameter belongs to the caller, who frees it with `sense_error_free`.
/// Every `sense_str` it hands out is NUL-terminated (`len` excludes the
/// NUL) and valid until the error is freed.
///
/// Threads: immutable; may be read from several threads at once and freed
/// from any thread.
pub struct sense_error {
    status: sense_status,
    /// Each string ends in a NUL that its view excludes.
    class: Cow<'static, str>,
    message: Cow<'static, str>,
    rendered: Cow<'static, str>,
    traceback: Cow<'static, str>,
    line: u32,
    column: u32,
    /// False for the `static` errors of argument checks and panics.
    owned: bool,
}

impl sense_error {
    /// A fixed error of class `SenseError` (argument checks, panics);
    /// `message` and `rendered` end in `\0`.
    pub(crate) const fn fixed(
        status: sense_status,
        message: &'static str,
        rendered: &'static str,
    ) -> sense_error {
        sense_error {
            status,
            class: Cow::Borrowed("SenseError\0"),
            message: Cow::Borrowed(message),
            rendered: Cow::Borrowed(rendered),
            traceback: Cow::Borrowed("\0"),
            line: 0,
            column: 0,
            owned: false,
        }
    }

    /// Its status.
    pub(crate) fn status(&self) -> sense_status {
        self.status
    }

    /// Its message without the NUL.
    #[cfg(test)]
    pub(crate) fn message(&self) -> &str {
        strip(&self.message)
    }
}

#[cfg(test)]
fn strip(s: &str) -> &str {
    s.strip_suffix('\0').unwrap_or(s)
}

fn with_nul(s: &str) -> Cow<'static, str> {
    let mut owned = String::with_capacity(s.len() + 1);
    owned.push_str(s);
    owned.push('\0');
    Cow::Owned(owned)
}

/// A failure built from a runtime error. Syntax errors report
/// `SENSE_STATUS_SYNTAX_ERROR`, other Sense errors
/// `SENSE_STATUS_RUNTIME_ERROR`, and host-side errors (no Sense class:
/// missing agent, unreadable file, …) `host_status`.
pub(crate) fn from_sense(e: &Error, host_status: sense_status) -> Failure {
    let status = match e.class() {
        Some(ErrorClass::Syntax) => sense_status::SyntaxError,
        Some(_) => sense_status::RuntimeError,
        None => host_status,
    };
    with_status(e, status)
}

/// A failure carrying `e`'s details with an explicit status.
pub(crate) fn with_status(e: &Error, status: sense_status) -> Failure {
    Failure::Owned(Box::new(sense_error {
        status,
        class: with_nul(e.class_name()),
        message: with_nul(e.display_text()),
        rendered: with_nul(e.rendered()),
        traceback: with_nul(&e.traceback_text()),
        line: e.line().unwrap_or(0),
        column: e.column().unwrap_or(0),
        owned: true,
    }))
}

/// A host-side failure (class `SenseError`) with a message built at run time.
pub(crate) fn host(status: sense_status, message: &str) -> Failure {
    Failure::Owned(Box::new(sense_error {
        status,
        class: with_nul("SenseError"),
        message: with_nul(message),
        rendered: with_nul(&format!("SenseError: {message}")),
        traceback: Cow::Borrowed("\0"),
        line: 0,
        column: 0,
        owned: true,
    }))
}

fn view(s: &str) -> sense_str {
    sense_str {
        ptr: s.as_ptr().cast(),
        len: s.len() - 1,
    }
}

/// Reads a part of `*error`: `none` when `error` is NULL (and, should
/// libsense panic, then too).
fn field<T: Copy>(error: *const sense_error, none: T, read: impl FnOnce(&sense_error) -> T) -> T {
    ffi_guard!(none => {
        // SAFETY: the caller passes NULL or a live error (ownership table).
        unsafe { error.as_ref() }.map_or(none, read)
    })
}

/// The status of the failed call; `SENSE_STATUS_INVALID_ARGUMENT` when
/// `error` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sense_error_status(error: *const sense_error) -> sense_status {
    ffi_guard!(sense_status::Panic => {
        // SAFETY: the caller passes NULL or a live error (ownership table).
        match unsafe { error.as_ref() } {
            Some(e) => e.status,
            None => sense_status::InvalidArgument,
        }
    })
}

/// The Sense error class, e.g. `SenseSyntaxError`, `SenseRuntimeError`,
/// `SenseNameError`; `SenseError` for failures outside Sense code (bad
/// arguments, missing agents or files). Empty when `error` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sense_error_class(error: *const sense_error) -> sense_str {
    field(error, sense_str::EMPTY, |e| view(&e.class))
}

/// The message as Sense shows it, e.g. `[line 3] division by zero` (the
/// reference implementation's display text: a line prefix when known).
/// Empty when `error` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sense_error_message(error: *const sense_error) -> sense_str {
    field(error, sense_str::EMPTY, |e| view(&e.message))
}

/// The full diagnostic as the `sense` CLI prints it: a first line
/// `<Class>: <message>`, then, when known, the location and the source line
/// with a caret. Empty when `error` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sense_error_rendered(error: *const sense_error) -> sense_str {
    field(error, sense_str::EMPTY, |e| view(&e.rendered))
}

/// The Sense stack traceback, like Lua's `luaL_traceback` but innermost
/// frame last: a first line `stack traceback (most recent call last):`,
/// then one line per frame, `  FILE:LINE: in FUNCTION` (`<main>` for a
/// program's top level, the agent's name for an agent body), each ending
/// in `\n`. Empty when the error ran no Sense code (syntax errors, bad
/// arguments, missing agents), was raised by a restore, or `error` is
/// NULL. Borrowed and NUL-terminated (`len` excludes the NUL): valid until
/// the error is freed. Threads: like every `sense_error` string, readable
/// from any thread.
#[unsafe(no_mangle)]
pub extern "C" fn sense_error_traceback(error: *const sense_error) -> sense_str {
    field(error, sense_str::EMPTY, |e| view(&e.traceback))
}

/// The 1-based line the error points at; 0 when unknown or `error` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sense_error_line(error: *const sense_error) -> u32 {
    field(error, 0, |e| e.line)
}

/// The 1-based column (in characters) the error points at; 0 when unknown
/// or `error` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sense_error_column(error: *const sense_error) -> u32 {
    field(error, 0, |e| e.column)
}

/// Frees an error. NULL is allowed and does nothing; freeing twice is
/// undefined.
#[unsafe(no_mangle)]
pub extern "C" fn sense_error_free(error: *mut sense_error) {
    ffi_guard!(() => {
        // SAFETY: the caller passes NULL or an error it owns, freed once.
        if let Some(e) = unsafe { error.as_ref() }
            && e.owned
        {
            // SAFETY: owned errors come from `Box::into_raw` in
            // `Failure::report`; ownership returns here exactly once.
            drop(unsafe { Box::from_raw(error) });
        }
    })
}
