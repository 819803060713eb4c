//! `sense fmt PATH [--write|-w] [--check]`: the canonical formatter
//! (docs/book/src/cli.md § Formatting; the formatting itself is
//! [`sense::syntax::format::format_source`]).
//!
//! PATH is a file, or a directory searched recursively for `*.sns` files
//! (sorted by path). Without flags the formatted text goes to stdout, each
//! file preceded by `# ----- FILE -----` when there are several. `--write`
//! rewrites the files that change and prints their paths; `--check` only
//! prints the paths that would change, and exits 1 if there are any. A
//! file that does not parse is reported on stderr as
//! `FILE: SenseSyntaxError: [line N] message` and makes the exit status 1;
//! the other files are still processed.

use super::sns_files::Search;
use sense::syntax::SourceFile;
use sense::syntax::format::format_source;
use std::io::Write;
use std::path::Path;

/// What to do with the formatted text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Print,
    Write,
    Check,
}

/// Every `*.sns` file under a directory (symbolic links to directories are
/// not followed).
const SNS_FILES: Search = Search {
    wanted: |p| p.extension().is_some_and(|x| x == "sns") && p.is_file(),
    follow_links: false,
    none_found: "no .sns files found under {}",
};

/// Formats `path`; returns the exit status.
pub fn fmt(path: &Path, write: bool, check: bool) -> i32 {
    let mode = if check {
        Mode::Check
    } else if write {
        Mode::Write
    } else {
        Mode::Print
    };
    let mut files = match SNS_FILES.files(path) {
        Ok(files) => files,
        Err(status) => return status,
    };
    // Sorted as strings, like the reference.
    files.sort_by_key(|p| p.to_string_lossy().into_owned());
    let several = files.len() > 1;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (mut changed_any, mut failed) = (false, false);
    for file in &files {
        let name = file.display().to_string();
        match format_file(file, &name, mode, several, &mut out) {
            Ok(changed) => changed_any |= changed,
            Err(message) => {
                let _ = out.flush();
                eprintln!("{name}: {message}");
                failed = true;
            }
        }
    }
    let _ = out.flush();
    if failed || (mode == Mode::Check && changed_any) {
        1
    } else {
        0
    }
}

/// Formats `file` (shown as `name`) and does with it what `mode` says;
/// tells whether formatting changes it, or the error to report after its
/// name.
fn format_file(
    file: &Path,
    name: &str,
    mode: Mode,
    several: bool,
    out: &mut impl Write,
) -> Result<bool, String> {
    let original =
        std::fs::read(file).map_err(|e| format!("SenseError: cannot read {name}: {e}"))?;
    let text = String::from_utf8(original.clone())
        .map_err(|_| format!("SenseError: {name} is not valid UTF-8"))?;
    let formatted = format_source(&SourceFile::new(name.to_string(), text))
        .map_err(|e| format!("SenseSyntaxError: {e}"))?;
    // Byte comparison: CRLF line ends or a BOM count as a change.
    let changed = formatted.as_bytes() != original.as_slice();
    match mode {
        Mode::Check if changed => {
            let _ = writeln!(out, "{name}");
        }
        Mode::Write if changed => {
            std::fs::write(file, &formatted)
                .map_err(|e| format!("SenseError: cannot write {name}: {e}"))?;
            let _ = writeln!(out, "{name}");
        }
        Mode::Check | Mode::Write => {}
        Mode::Print => {
            if several {
                let _ = writeln!(out, "# ----- {name} -----");
            }
            let _ = out.write_all(formatted.as_bytes());
        }
    }
    Ok(changed)
}
