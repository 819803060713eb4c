//! The error type hosts see.

use sense_eval::traceback::{TraceFrame, render};
use sense_eval::{ErrorClass, EvalError};
use std::fmt;

/// An error from the runtime: a Sense error (with class, message, line and
/// the rendered diagnostic) or a host-side problem such as an unreadable file.
///
/// ```
/// use sense_agents::{ErrorClass, Runtime};
///
/// let mut rt = Runtime::new();
/// let err = rt.run_source("calc.sns", "x = 1\ny = x / 0\n").unwrap_err();
/// assert_eq!(err.class(), Some(ErrorClass::Runtime));
/// assert_eq!(err.class_name(), "SenseRuntimeError");
/// assert_eq!(err.display_text(), "[line 2] division by zero");
/// assert_eq!((err.line(), err.column()), (Some(2), Some(5)));
/// assert!(err.rendered().contains("--> calc.sns:2:5"));
///
/// // The Sense stack traceback, innermost frame last.
/// let err = rt.run_source("t.sns", "def f(x):\n    return x / 0\nf(1)\n").unwrap_err();
/// let frames: Vec<(&str, u32)> =
///     err.traceback().iter().map(|f| (f.function.as_str(), f.line)).collect();
/// assert_eq!(frames, [("<main>", 3), ("f", 2)]);
/// assert!(err.traceback_text().ends_with("  t.sns:2: in f\n"), "{}", err.traceback_text());
/// ```
#[derive(Clone, Debug)]
pub struct Error {
    class: Option<ErrorClass>,
    display: String,
    rendered: String,
    line: Option<u32>,
    column: Option<u32>,
    traceback: Vec<TraceFrame>,
}

impl Error {
    pub(crate) fn from_eval(
        err: &EvalError,
        rendered: String,
        line: Option<u32>,
        column: Option<u32>,
    ) -> Self {
        Error {
            class: Some(err.class()),
            display: err.display(),
            rendered,
            line,
            column,
            traceback: err.traceback().to_vec(),
        }
    }

    pub(crate) fn host(message: impl Into<String>) -> Self {
        let message = message.into();
        Error {
            class: None,
            rendered: format!("SenseError: {message}"),
            display: message,
            line: None,
            column: None,
            traceback: Vec::new(),
        }
    }

    /// The Sense error class, or `None` for host-side errors.
    pub fn class(&self) -> Option<ErrorClass> {
        self.class
    }

    /// The class name as the CLI prints it (`SenseError` for host-side errors).
    pub fn class_name(&self) -> &'static str {
        self.class.map_or("SenseError", ErrorClass::name)
    }

    /// The reference's display text: `[line N] message` or `message`.
    pub fn display_text(&self) -> &str {
        &self.display
    }

    /// The full diagnostic: first line `<Class>: <display>`, then the
    /// location and a caret when known.
    pub fn rendered(&self) -> &str {
        &self.rendered
    }

    /// The 1-based line the error points at, if known. Also set for
    /// errors whose message carries no `[line N]` (raised inside a builtin
    /// or a host function, or the recursion limit).
    pub fn line(&self) -> Option<u32> {
        self.line
    }

    /// The column (1-based, in characters) of the error's position, if known.
    pub fn column(&self) -> Option<u32> {
        self.column
    }

    /// The Sense stack traceback: the frames the error came through,
    /// outermost first, innermost last (like `luaL_traceback`, whose order
    /// is the reverse). Empty for errors that ran no code (syntax errors,
    /// host-side errors) and for a snapshot's restore.
    pub fn traceback(&self) -> &[TraceFrame] {
        &self.traceback
    }

    /// The traceback as text: `stack traceback (most recent call last):`
    /// then `  FILE:LINE: in FUNCTION` per frame; empty when there are
    /// no frames.
    pub fn traceback_text(&self) -> String {
        render(&self.traceback)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class_name(), self.display)
    }
}

impl std::error::Error for Error {}
