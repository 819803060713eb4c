//! Test support shared by the workspace's test harnesses: the golden
//! suite's runner (plain and under GC stress), the walk that finds every
//! golden program, the one blessing rule, the skip rule for tests that
//! need a tool the machine may lack (and the per-store test lists built
//! on it, whose PostgreSQL halves need a server), a `sense inspect` server for the
//! console tests, and (features `loopback`, `serve`) a scripted HTTP
//! server for the provider tests and a `sense serve` driver.
//!
//! A crate of its own (a dev-dependency), so every harness uses the part it
//! needs without `#[path]` includes or `allow(dead_code)`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod announced;
pub mod golden;
pub mod inspect_server;
#[cfg(feature = "loopback")]
pub mod loopback;
pub mod rng;
#[cfg(feature = "serve")]
pub mod serve;
mod temp_dir;
pub mod toolchain;
pub mod trials;

pub use rng::Rng;
pub use temp_dir::TempDir;

use std::path::{Path, PathBuf};

/// Whether expected files are to be rewritten from the current output:
/// `SENSE_BLESS=1` and nothing else, in every suite of the workspace (the
/// golden files, the book, the C header, the instruction-count baseline).
pub fn bless() -> bool {
    std::env::var_os("SENSE_BLESS").is_some_and(|v| v == "1")
}

/// Every `*.sns` under `dir`, recursively and in name order, skipping
/// names that start with `_` (fixtures imported by other programs).
pub fn sense_scripts(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(dir, &mut out, &|name| {
        (!name.starts_with('_')).then_some(name.ends_with(".sns"))
    });
    out
}

/// Every `*.rs` file under `dir`, recursively and in name order (the
/// source scans: the layering check, the check that no public item hands
/// out the VM).
pub fn rust_sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(dir, &mut out, &|name| Some(name.ends_with(".rs")));
    out
}

/// Runs `find` over the text of every Rust source under `dir` and returns
/// what it finds as `FILE:hit` lines (the source scans of the layering
/// checks). Panics (it is test code) if no file name ends with
/// `must_see`: a scan of the wrong folder would pass unseen.
pub fn scan_rust_sources(
    dir: &Path,
    must_see: &str,
    find: impl Fn(&str) -> Vec<String>,
) -> Vec<String> {
    let files = rust_sources(dir);
    assert!(
        files.iter().any(|f| f.ends_with(must_see)),
        "the scan must see {must_see} (looked in {})",
        dir.display()
    );
    let mut hits = Vec::new();
    for file in files {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for hit in find(&text) {
            hits.push(format!("{}:{hit}", file.display()));
        }
    }
    hits
}

/// Every file under `dir` whose name ends with `suffix`, recursively and
/// in name order (the book's pages, say).
pub fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(dir, &mut out, &|name| Some(name.ends_with(suffix)));
    out
}

/// Walks `dir` in name order into `out`. `pick(name)` says, for each
/// entry: `None` to pass it over (a directory is then not entered), or
/// whether a file of that name is wanted.
fn collect(dir: &Path, out: &mut Vec<PathBuf>, pick: &dyn Fn(&str) -> Option<bool>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let Some(wanted) = pick(name) else {
            continue;
        };
        if p.is_dir() {
            collect(&p, out, pick);
        } else if wanted {
            out.push(p);
        }
    }
}

/// `p` relative to `root`, with `/` separators (how cases are named).
pub fn relative(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Runs `command` with `stdin` written to its standard input, and its
/// standard output and errors captured. Panics (it is test code) if it
/// cannot be started.
pub fn output_with_stdin(
    command: &mut std::process::Command,
    stdin: &[u8],
) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = spawn_piped(command, Stdio::piped(), Stdio::piped());
    if let Some(mut pipe) = child.stdin.take() {
        // A program that exits without reading all of it closes the pipe:
        // what it printed is still the result.
        let _ = pipe.write_all(stdin);
    }
    child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"))
}

/// Starts `command` with its standard output piped and `stdin` and
/// `stderr` as given. Panics (it is test code) if it cannot be started.
pub(crate) fn spawn_piped(
    command: &mut std::process::Command,
    stdin: std::process::Stdio,
    stderr: std::process::Stdio,
) -> std::process::Child {
    command
        .stdin(stdin)
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"))
}

/// The standard output of a command that must have succeeded; panics (it
/// is test code) with its output and errors otherwise.
pub fn success_stdout(o: &std::process::Output) -> String {
    assert!(
        o.status.success(),
        "sense failed: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}
