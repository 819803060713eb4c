//! `sense run`.

use super::output::Output;
use std::path::Path;

/// Runs a program file; returns the exit status.
pub fn run(path: &Path, config: sense::Config, dry_run: bool) -> i32 {
    let out = Output::stdout();
    let mut rt = sense::Runtime::with_config(config);
    rt.set_dry_run(dry_run);
    out.install(&mut rt);
    sense_providers::register_defaults(&mut rt);
    if dry_run {
        out.write("DRY RUN \u{2014} no actions will actually commit\n\n");
    }
    let result = rt.run_file(path);
    if dry_run && result.is_ok() {
        out.write("\n--- dry run summary ---\n");
        let log = rt.audit_log();
        if log.is_empty() {
            out.write("(no actions were prepared)\n");
        }
        for line in log {
            out.write(&line);
            out.write("\n");
        }
    }
    out.flush();
    match result {
        Ok(()) => 0,
        Err(e) => {
            super::output::report_error(&out, &rt, &e, None);
            1
        }
    }
}
