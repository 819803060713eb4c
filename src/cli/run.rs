//! `sense run`.

use super::output::Output;
use std::path::Path;

/// Runs a program file; returns the exit status.
pub fn run(path: &Path, config: sense::Config) -> i32 {
    let out = Output::stdout();
    let mut rt = sense::Runtime::with_config(config);
    out.install(&mut rt);
    let result = rt.run_file(path);
    out.flush();
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("{}", e.rendered());
            1
        }
    }
}
