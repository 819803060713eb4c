//! Sense errors: the class, the reference's message, the optional reported
//! line, and where it happened (for the caret).

use crate::proto::FileId;
use crate::traceback::TraceFrame;
use sense_syntax::{Span, SyntaxError};
use std::fmt;

/// The error classes: every Sense error has exactly one.
///
/// ```
/// use sense_eval::ErrorClass;
///
/// assert_eq!(ErrorClass::Runtime.name(), "SenseRuntimeError");
/// assert_eq!(ErrorClass::Policy.name(), "SensePolicyError");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ErrorClass {
    /// Lexer and parser errors.
    Syntax,
    /// Reading an undefined variable.
    Name,
    /// A type-annotation check failed (and a few kind checks).
    Type,
    /// Everything else at run time.
    Runtime,
    /// A module is missing or circular, or Python interop was asked for.
    Import,
    /// A capability denied by policy.
    Policy,
    /// Commit of an approval-requiring action before `.approve()`.
    Approval,
}

impl ErrorClass {
    /// The class name as the CLI prints it, e.g. `SenseRuntimeError`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::Syntax => "SenseSyntaxError",
            ErrorClass::Name => "SenseNameError",
            ErrorClass::Type => "SenseTypeError",
            ErrorClass::Runtime => "SenseRuntimeError",
            ErrorClass::Import => "SenseImportError",
            ErrorClass::Policy => "SensePolicyError",
            ErrorClass::Approval => "SenseApprovalError",
        }
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Inner {
    class: ErrorClass,
    message: String,
    line: Option<u32>,
    span: Option<Span>,
    file: Option<FileId>,
    /// Never report a line, even once located (builtin-style errors).
    lineless: bool,
    /// A resource limit (steps, heap, recursion depth, string or array
    /// size): `except` and `finally` let it pass. Not part of snapshots
    /// (such an error ends the run before one can be taken).
    #[serde(skip)]
    limit: bool,
    /// The frames the error came through, outermost first; recorded when
    /// it leaves a fiber with no handler. Not part of snapshots: a caught
    /// error has none, and an uncaught one ends the run.
    #[serde(skip)]
    traceback: Vec<TraceFrame>,
}

/// The message of the error that ends a too-deep recursion.
pub const RECURSION_MESSAGE: &str = "maximum recursion depth exceeded";

/// A Sense error. One pointer wide, so `Result<Value, EvalError>` stays small.
///
/// # Examples
///
/// ```
/// use sense_eval::{Config, ErrorClass, EvalError, Vm};
/// use sense_syntax::SourceFile;
///
/// // Made by a host function or a builtin: no position yet.
/// let e = EvalError::runtime("the budget ran out");
/// assert_eq!((e.class(), e.message(), e.line()), (ErrorClass::Runtime, "the budget ran out", None));
///
/// // Raised by a program: located at the failing line.
/// let mut vm = Vm::new(Config::default());
/// let src = SourceFile::new("m.sns", "x = 1\ny = x / 0\n");
/// let err = vm.run_main(src, None, None).unwrap_err();
/// assert_eq!(err.class(), ErrorClass::Runtime);
/// assert_eq!(err.line(), Some(2));
/// assert!(err.message().contains("division by zero"), "{}", err.message());
/// ```
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EvalError(Box<Inner>);

const _: () = assert!(std::mem::size_of::<EvalError>() == std::mem::size_of::<usize>());

impl EvalError {
    /// A new error of `class` with no position yet.
    pub fn new(class: ErrorClass, message: impl Into<String>) -> Self {
        EvalError(Box::new(Inner {
            class,
            message: message.into(),
            line: None,
            span: None,
            file: None,
            lineless: false,
            limit: false,
            traceback: Vec::new(),
        }))
    }

    /// An error that never shows `[line N]`, like the reference's errors
    /// raised inside builtins; it is still located for the caret.
    pub fn lineless(mut self) -> Self {
        self.0.lineless = true;
        self.0.line = None;
        self
    }

    /// Marks the error as a resource limit: a program's `except` cannot
    /// catch it and `finally` blocks do not run; it ends the run (a
    /// `test` block still records it).
    pub fn limit(mut self) -> Self {
        self.0.limit = true;
        self
    }

    /// True for a resource limit (see [`limit`](Self::limit)).
    pub fn is_limit(&self) -> bool {
        self.0.limit
    }

    /// A `SenseRuntimeError`.
    pub fn runtime(message: impl Into<String>) -> Self {
        Self::new(ErrorClass::Runtime, message)
    }

    /// A `SenseTypeError`.
    pub fn type_error(message: impl Into<String>) -> Self {
        Self::new(ErrorClass::Type, message)
    }

    /// A `SenseNameError`.
    pub fn name_error(message: impl Into<String>) -> Self {
        Self::new(ErrorClass::Name, message)
    }

    /// A `SenseImportError`.
    pub fn import(message: impl Into<String>) -> Self {
        Self::new(ErrorClass::Import, message)
    }

    /// From a syntax error in `file`.
    pub fn syntax(err: &SyntaxError, file: FileId) -> Self {
        let mut e = Self::new(ErrorClass::Syntax, err.message.clone());
        e.0.line = Some(err.span.line);
        e.0.span = Some(err.span);
        e.0.file = Some(file);
        e
    }

    /// The class.
    pub fn class(&self) -> ErrorClass {
        self.0.class
    }

    /// The message without any `[line N]` prefix.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The reported line, if the error carries one.
    pub fn line(&self) -> Option<u32> {
        self.0.line
    }

    /// Where it happened (also set for errors that report no line).
    pub fn span(&self) -> Option<Span> {
        self.0.span
    }

    /// The file of [`span`](Self::span).
    pub fn file(&self) -> Option<FileId> {
        self.0.file
    }

    /// The text a `test` block records for this error: the display text,
    /// except that hitting the depth limit reads like the reference's host
    /// `RecursionError` (`ExcTypeName: message`, the book: scope.md "Functions", modules.md "Tests").
    pub fn test_failure_text(&self) -> String {
        if self.0.class == ErrorClass::Runtime
            && self.0.line.is_none()
            && self.0.message == RECURSION_MESSAGE
        {
            return format!("RecursionError: {RECURSION_MESSAGE}");
        }
        self.display()
    }

    /// The reference's display text: `[line N] message` or `message`.
    pub fn display(&self) -> String {
        match self.0.line {
            Some(l) => format!("[line {l}] {}", self.0.message),
            None => self.0.message.clone(),
        }
    }

    /// Sets the reported line and position (only if none is set yet).
    pub fn at(mut self, span: Span, file: FileId) -> Self {
        if self.0.span.is_none() {
            if !self.0.lineless {
                self.0.line = Some(span.line);
            }
            self.0.span = Some(span);
            self.0.file = Some(file);
        }
        self
    }

    /// Sets the position for the caret without a reported line (errors raised
    /// inside builtins show no `[line N]`, the book: errors.md).
    pub fn located(mut self, span: Span, file: FileId) -> Self {
        if self.0.span.is_none() {
            self.0.span = Some(span);
            self.0.file = Some(file);
        }
        self
    }

    /// Points the error at another index of the same file (the code
    /// store renumbers files when it releases unused ones).
    pub(crate) fn set_file(&mut self, file: FileId) {
        self.0.file = Some(file);
    }

    /// The Sense stack traceback, outermost frame first, innermost last;
    /// empty for an error that ran no code or was caught.
    pub fn traceback(&self) -> &[TraceFrame] {
        &self.0.traceback
    }

    /// Puts `outer` (frames of a fiber further out) in front of the
    /// traceback.
    pub(crate) fn prepend_traceback(&mut self, outer: Vec<TraceFrame>) {
        let inner = std::mem::replace(&mut self.0.traceback, outer);
        self.0.traceback.extend(inner);
    }

    /// True once a position has been attached.
    pub fn is_located(&self) -> bool {
        self.0.span.is_some()
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.class.name(), self.display())
    }
}

impl std::error::Error for EvalError {}

/// Result alias used throughout the crate.
pub type EvalResult<T> = Result<T, EvalError>;
