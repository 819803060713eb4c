//! A Sense stack traceback: the chain of frames an error came through,
//! outermost first and innermost last, like Python's and like Lua's
//! `luaL_traceback` (which lists them the other way round).
//!
//! The VM records it once, when an error leaves a fiber with no handler
//! (`vm/traceback.rs`); an error caught by `try` or a `test` block gets
//! none. Errors that never ran code (syntax errors, host-side errors)
//! have an empty one.

use std::fmt;

/// One frame of a traceback: the function (or agent body, module top
/// level) that was running, its file, and the line it was at.
///
/// ```
/// use sense_eval::traceback::TraceFrame;
///
/// let f = TraceFrame { function: "fetch".into(), file: "main.sns".into(), line: 3 };
/// assert_eq!(f.to_string(), "main.sns:3: in fetch");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceFrame {
    /// The function's name (`<main>` for a program's top level,
    /// `<module>` for an imported module's).
    pub function: String,
    /// The source file's name.
    pub file: String,
    /// The 1-based line the frame was at (its call, for outer frames).
    pub line: u32,
}

impl fmt::Display for TraceFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: in {}", self.file, self.line, self.function)
    }
}

/// The text form of a traceback: `stack traceback (most recent call
/// last):` then one indented line per frame, innermost last; empty when
/// there are no frames.
///
/// ```
/// use sense_eval::traceback::{TraceFrame, render};
///
/// let frames = [
///     TraceFrame { function: "<main>".into(), file: "m.sns".into(), line: 5 },
///     TraceFrame { function: "f".into(), file: "m.sns".into(), line: 2 },
/// ];
/// assert_eq!(
///     render(&frames),
///     "stack traceback (most recent call last):\n  m.sns:5: in <main>\n  m.sns:2: in f\n"
/// );
/// assert_eq!(render(&[]), "");
/// ```
pub fn render(frames: &[TraceFrame]) -> String {
    if frames.is_empty() {
        return String::new();
    }
    let mut out = String::from("stack traceback (most recent call last):\n");
    for f in frames {
        out.push_str(&format!("  {f}\n"));
    }
    out
}
