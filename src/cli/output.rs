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
