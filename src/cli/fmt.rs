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

use sense::syntax::SourceFile;
use sense::syntax::format::format_source;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What to do with the formatted text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Print,
    Write,
    Check,
}

/// Every `*.sns` file under `dir` (symbolic links to directories are not
/// followed).
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "sns") && p.is_file() {
            out.push(p);
        }
    }
}

/// `path` without `.` components, as the reference prints paths
/// (`./a.sns` is shown as `a.sns`).
pub(super) fn tidy(path: &Path) -> PathBuf {
    let tidy: PathBuf = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if tidy.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        tidy
    }
}

/// Formats `path`; returns the exit status.
pub fn fmt(path: &Path, write: bool, check: bool) -> i32 {
    let mode = if check {
        Mode::Check
    } else if write {
        Mode::Write
    } else {
        Mode::Print
    };
    if !path.exists() {
        eprintln!("SenseError: no such file or directory: {}", path.display());
        return 1;
    }
    let files = if path.is_dir() {
        let mut found = Vec::new();
        collect(path, &mut found);
        let mut v: Vec<PathBuf> = found.iter().map(|p| tidy(p)).collect();
        // Sorted as strings, like the reference.
        v.sort_by_key(|p| p.to_string_lossy().into_owned());
        if v.is_empty() {
            println!("no .sns files found under {}", path.display());
            return 0;
        }
        v
    } else {
        vec![tidy(path)]
    };
    let several = files.len() > 1;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (mut changed_any, mut failed) = (false, false);
    for file in &files {
        let name = file.display().to_string();
        let original = match std::fs::read(file) {
            Ok(bytes) => bytes,
            Err(e) => {
                let _ = out.flush();
                eprintln!("{name}: SenseError: cannot read {name}: {e}");
                failed = true;
                continue;
            }
        };
        let Ok(text) = String::from_utf8(original.clone()) else {
            let _ = out.flush();
            eprintln!("{name}: SenseError: {name} is not valid UTF-8");
            failed = true;
            continue;
        };
        let formatted = match format_source(&SourceFile::new(name.clone(), text)) {
            Ok(f) => f,
            Err(e) => {
                let _ = out.flush();
                eprintln!("{name}: SenseSyntaxError: {e}");
                failed = true;
                continue;
            }
        };
        // Byte comparison: CRLF line ends or a BOM count as a change.
        let changed = formatted.as_bytes() != original.as_slice();
        changed_any |= changed;
        match mode {
            Mode::Check => {
                if changed {
                    let _ = writeln!(out, "{name}");
                }
            }
            Mode::Write => {
                if changed {
                    if let Err(e) = std::fs::write(file, &formatted) {
                        let _ = out.flush();
                        eprintln!("{name}: SenseError: cannot write {name}: {e}");
                        failed = true;
                        continue;
                    }
                    let _ = writeln!(out, "{name}");
                }
            }
            Mode::Print => {
                if several {
                    let _ = writeln!(out, "# ----- {name} -----");
                }
                let _ = out.write_all(formatted.as_bytes());
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
