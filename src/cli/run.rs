//! `sense run`.

use super::output::Output;
use std::path::Path;

/// The program text on standard input, refused past `limit` bytes (read
/// no further than that) or when it is not UTF-8.
fn read_stdin(limit: usize) -> Result<String, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the program from standard input: {e}"))?;
    if bytes.len() > limit {
        return Err(format!(
            "the program on standard input is larger than the source limit of {limit} bytes (--max-source)"
        ));
    }
    String::from_utf8(bytes).map_err(|_| "the program on standard input is not UTF-8".to_string())
}

/// Runs a program file; returns the exit status.
pub fn run(path: &Path, config: sense::Config, dry_run: bool) -> i32 {
    let out = Output::stdout();
    let source_limit = config.max_source_len;
    let mut rt = sense::Runtime::with_config(config);
    rt.set_dry_run(dry_run);
    out.install(&mut rt);
    sense_providers::register_defaults(&mut rt);
    if dry_run {
        out.write("DRY RUN \u{2014} no actions will actually commit\n\n");
    }
    let result = if path == Path::new("-") {
        match read_stdin(source_limit) {
            Ok(text) => rt.run_source("<stdin>", &text),
            Err(message) => {
                eprintln!("sense run: {message}");
                return 1;
            }
        }
    } else {
        rt.run_file(path)
    };
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
