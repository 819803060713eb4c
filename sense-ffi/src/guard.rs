//! The panic boundary and argument checks every exported function uses.
//!
//! A body is written as a closure returning `Result<(), Failure>`;
//! [`ffi_guard!`] runs it under `catch_unwind`, turns a `Failure` into its
//! status (storing the error in `*error` when the caller asked for one) and
//! a panic into `SENSE_STATUS_PANIC`. Signatures stay plain Rust so
//! cbindgen sees them (only bodies are wrapped).
//!
//! Argument errors and panics never allocate: their `sense_error` is a
//! `static` (one per call site, naming the argument), which
//! `sense_error_free` recognises and leaves alone.

use crate::error::sense_error;
use crate::status::sense_status;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Why a body failed: a fixed error (argument checks, panics) or one built
/// from a runtime error.
pub(crate) enum Failure {
    /// A `static` error; never freed.
    Static(&'static sense_error),
    /// An error built at run time.
    Owned(Box<sense_error>),
}

impl Failure {
    /// The status this failure reports.
    pub(crate) fn status(&self) -> sense_status {
        match self {
            Failure::Static(e) => e.status(),
            Failure::Owned(e) => e.status(),
        }
    }

    /// Stores the error in `*out` (when `out` is not NULL) and returns its
    /// status.
    pub(crate) fn report(self, out: *mut *mut sense_error) -> sense_status {
        let status = self.status();
        if !out.is_null() {
            let ptr: *mut sense_error = match self {
                // A static error is handed out as a mutable pointer for the
                // C signature's sake; nothing ever writes through it and
                // `sense_error_free` skips it.
                Failure::Static(e) => std::ptr::from_ref(e).cast_mut(),
                Failure::Owned(e) => Box::into_raw(e),
            };
            // SAFETY: `out` is not NULL and the caller promises it points to
            // a writable `sense_error *` (header: optional error parameter).
            unsafe { out.write(ptr) };
        }
        status
    }
}

/// The body of an exported function: `Ok(())` or why it failed.
pub(crate) type Body = Result<(), Failure>;

/// Builds a `Failure` from a `static` error with a literal message, e.g.
/// `fail!(InvalidArgument, "argument `rt` is NULL")`.
macro_rules! fail {
    ($status:ident, $msg:expr) => {{
        static ERROR: $crate::error::sense_error = $crate::error::sense_error::fixed(
            $crate::status::sense_status::$status,
            concat!($msg, "\0"),
            concat!("SenseError: ", $msg, "\0"),
        );
        $crate::guard::Failure::Static(&ERROR)
    }};
}

/// Runs an exported function's body under the panic boundary.
///
/// `ffi_guard!(error, { …; Ok(()) })` returns a `sense_status`, reporting
/// failures through the optional `sense_error **error`.
/// `ffi_guard!(default => expr)` is for functions that return something
/// else (a pointer, a view, `void`): a panic yields `default`.
macro_rules! ffi_guard {
    ($error:ident, $body:block) => {
        $crate::guard::run_status($error, || -> $crate::guard::Body { $body })
    };
    ($default:expr => $body:block) => {
        $crate::guard::run_value(|| $body, || $default)
    };
}

/// The status form of [`ffi_guard!`].
#[inline]
pub(crate) fn run_status(
    error: *mut *mut sense_error,
    body: impl FnOnce() -> Body,
) -> sense_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => sense_status::Ok,
        Ok(Err(failure)) => failure.report(error),
        Err(_) => panicked().report(error),
    }
}

/// The value form of [`ffi_guard!`].
pub(crate) fn run_value<T>(body: impl FnOnce() -> T, default: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| default())
}

/// The failure a caught panic reports.
pub(crate) fn panicked() -> Failure {
    fail!(
        Panic,
        "internal error: libsense panicked (the panic was caught at the C boundary)"
    )
}

/// The `SENSE_STATUS_INVALID_ARGUMENT` failure for the NULL pointer
/// argument `p`, naming it: "argument `p` is NULL".
macro_rules! null_arg {
    ($p:ident) => {
        fail!(
            InvalidArgument,
            concat!("argument `", stringify!($p), "` is NULL")
        )
    };
}

/// Borrows `*p` for the call, or fails with `SENSE_STATUS_INVALID_ARGUMENT`
/// naming the argument.
macro_rules! try_ref {
    ($p:ident) => {
        // SAFETY: the caller promises (header ownership table) that a
        // non-NULL handle argument points to a live object of its type that
        // nothing else mutates during the call; NULL is checked here.
        match unsafe { $p.as_ref() } {
            Some(r) => r,
            None => return Err(null_arg!($p)),
        }
    };
}

/// Borrows `*p` mutably for the call (see [`try_ref!`]).
macro_rules! try_mut {
    ($p:ident) => {
        // SAFETY: as for `try_ref!`; the caller also promises exclusive
        // access (the handle is not used on another thread meanwhile).
        match unsafe { $p.as_mut() } {
            Some(r) => r,
            None => return Err(null_arg!($p)),
        }
    };
}

/// Checks an out-parameter and wraps it as an [`Out`].
macro_rules! try_out {
    ($p:ident) => {
        match $crate::guard::Out::new($p) {
            Some(out) => out,
            None => return Err(null_arg!($p)),
        }
    };
}

/// The body of an exported function that works through one handle:
/// `on_handle!(error, mut call => c, { …; Ok(()) })` checks the handle
/// argument `call` (as `try_mut!`; without `mut`, as `try_ref!`), binds it
/// to `c` and runs the block (a [`Body`]).
macro_rules! on_handle {
    ($error:ident, mut $handle:ident => $h:ident, $body:block) => {
        ffi_guard!($error, {
            let $h = try_mut!($handle);
            $body
        })
    };
    ($error:ident, $handle:ident => $h:ident, $body:block) => {
        ffi_guard!($error, {
            let $h = try_ref!($handle);
            $body
        })
    };
}

/// The body of an exported function that reads one thing from a handle:
/// `read_out!(error, call, out, |c| expr)` checks the handle argument
/// `call` (as `try_ref!`) and `out` (as `try_out!`), in that order, then
/// stores `expr` (which may use `?`) in `*out`.
macro_rules! read_out {
    ($error:ident, $handle:ident, $out:ident, |$h:ident| $read:expr) => {
        on_handle!($error, $handle => $h, {
            let out = try_out!($out);
            out.set($read);
            Ok(())
        })
    };
}

/// A non-NULL out-parameter. Writing through it never reads the old
/// (possibly uninitialised) contents.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    /// `None` when `p` is NULL.
    pub(crate) fn new(p: *mut T) -> Option<Out<T>> {
        (!p.is_null()).then_some(Out(p))
    }

    /// Stores `value` (the old contents are overwritten, not dropped).
    pub(crate) fn set(self, value: T) {
        // SAFETY: the pointer is not NULL (checked in `new`) and the caller
        // promises it is valid for writes of a `T` (header: out-parameters).
        unsafe { self.0.write(value) }
    }
}

/// Frees what `Box::into_raw` handed to C; NULL does nothing. The body of
/// the `sense_*_free` functions.
///
/// # Safety
///
/// `p` is NULL or a pointer made by `Box::into_raw` for a `Box<T>`, given
/// back exactly once and not used afterwards.
pub(crate) unsafe fn drop_boxed<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: the caller's promise above: `p` came from
        // `Box::into_raw` and ownership returns here once.
        drop(unsafe { Box::from_raw(p) });
    }
}

/// An optional out-parameter: written when not NULL.
pub(crate) fn set_opt<T>(p: *mut T, value: T) {
    if let Some(out) = Out::new(p) {
        out.set(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_body_reports_panic_with_a_static_error() {
        let mut err: *mut sense_error = std::ptr::null_mut();
        let status = run_status(&mut err, || panic!("boom"));
        assert_eq!(status, sense_status::Panic);
        assert!(!err.is_null());
        // SAFETY: `err` was just set to a static error.
        let e = unsafe { &*err };
        assert_eq!(e.status(), sense_status::Panic);
        assert!(e.message().starts_with("internal error"));
        crate::error::sense_error_free(err);
    }

    #[test]
    fn a_panicking_value_body_returns_the_default() {
        assert_eq!(run_value(|| -> i32 { panic!("boom") }, || -7), -7);
    }
}
