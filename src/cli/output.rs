//! Buffered program output shared by the runtime's hooks.

use std::io::{BufWriter, Stdout, Write};
use std::sync::{Arc, Mutex, PoisonError};

/// Program output: buffered, flushed before reading input, before printing
/// errors, and at exit.
#[derive(Clone)]
pub struct Output(Arc<Mutex<BufWriter<Stdout>>>);

impl Output {
    /// Buffered stdout.
    pub fn stdout() -> Self {
        Output(Arc::new(Mutex::new(BufWriter::with_capacity(
            64 * 1024,
            std::io::stdout(),
        ))))
    }

    /// Writes program text.
    pub fn write(&self, s: &str) {
        let mut w = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = w.write_all(s.as_bytes());
    }

    /// Flushes what was written.
    pub fn flush(&self) {
        let mut w = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = w.flush();
    }

    /// Wires this output and a stdin reader into a runtime.
    pub fn install(&self, rt: &mut sense::Runtime) {
        let out = self.clone();
        rt.set_output(move |s| out.write(s));
        let out = self.clone();
        rt.set_input(move || {
            out.flush();
            let mut line = String::new();
            match std::io::stdin().read_line(&mut line) {
                Ok(0) | Err(_) => None,
                Ok(_) => Some(line),
            }
        });
    }
}

/// An error's diagnostic as the CLI prints it: the runtime's rendering
/// (whose first line is exactly the reference's) and, when a close name
/// exists for an undefined variable or missing member, a
/// `= help: did you mean …?` line under the caret, aligned with the
/// snippet's gutter as rustc does.
pub fn diagnostic(rt: &sense::Runtime, e: &sense::Error, repl_text: Option<&str>) -> String {
    let rendered = e.rendered();
    let Some(help) =
        super::suggest::hint(e.display_text(), rendered, &rt.visible_names(), repl_text)
            .or_else(|| heap_hint(e.display_text()))
    else {
        return rendered.to_string();
    };
    let gutter = rendered
        .lines()
        .skip(1)
        .find(|l| l.trim() == "|")
        .and_then(|l| l.find('|'));
    match gutter {
        Some(pad) => format!("{rendered}\n{:pad$}= help: {help}", ""),
        None => format!("{rendered}\nhelp: {help}"),
    }
}

/// The runtime's "out of memory" names no way to raise the ceiling (a C
/// host has none of the CLI's flags); the CLI names its own.
fn heap_hint(display: &str) -> Option<String> {
    display
        .contains("out of memory: the program's values need about")
        .then(|| "raise the heap limit with --max-heap (e.g. --max-heap 2G)".to_string())
}

/// Flushes program output, then prints an error's diagnostic to stderr.
pub fn report_error(out: &Output, rt: &sense::Runtime, e: &sense::Error, repl_text: Option<&str>) {
    out.flush();
    eprintln!("{}", diagnostic(rt, e, repl_text));
}
