//! [`sense_status`]: the result code of every fallible function.

/// The result of a fallible `libsense` function.
///
/// Values are explicit and never renumbered; a retired value would be
/// listed here and never reused. `SENSE_STATUS_OK` is 0, so `if (status)`
/// tests for failure. When the function took a `sense_error **error` and
/// it was not NULL, a failure also stores a `sense_error` with details.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum sense_status {
    /// Success.
    Ok = 0,
    /// A required pointer was NULL, a number was out of range, or a value
    /// was of the wrong kind (e.g. `sense_value_as_int` on a String).
    InvalidArgument = 1,
    /// A string argument (or a file read by `sense_runtime_run_file`) was
    /// not valid UTF-8.
    InvalidUtf8 = 2,
    /// The Sense source did not parse (`SenseSyntaxError`).
    SyntaxError = 3,
    /// Any other Sense error: a runtime, name, type, import, policy or
    /// approval error raised while running code, or a host function or
    /// model provider that failed.
    RuntimeError = 4,
    /// The operation does not fit the object's state: starting an agent
    /// that is not `created`, resuming one that is not `paused`, or calling
    /// into a runtime from inside one of its own callbacks.
    WrongState = 5,
    /// No such thing: no agent bound to that name, an agent handle whose
    /// agent was collected, a global that is not defined, a list index out
    /// of range, a file that does not exist.
    NotFound = 6,
    /// A bug inside `libsense` panicked; the panic was caught at the
    /// boundary. A runtime that panicked is poisoned: every later call on
    /// it returns `SENSE_STATUS_PANIC`; free it.
    Panic = 7,
}
