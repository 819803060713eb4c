//! The README's "Two commands" section, checked as it is written: the
//! first command runs an example, with the output the golden suite expects
//! of it; the second is the test command `.ci/run` runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The fenced blocks of the README section headed `## Two commands`.
fn two_commands() -> Vec<String> {
    let readme = read(&root().join("README.md"));
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Two commands"))
        .expect("README.md has a `## Two commands` section");
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in section.lines() {
        match (&mut current, line.trim_start().starts_with("```")) {
            (None, true) => current = Some(String::new()),
            (Some(b), true) => {
                blocks.push(b.trim().to_string());
                current = None;
            }
            (Some(b), false) => {
                b.push_str(line);
                b.push('\n');
            }
            (None, false) => {}
        }
    }
    assert_eq!(blocks.len(), 2, "two commands in the section: {blocks:?}");
    blocks
}

#[test]
fn the_run_command_runs_its_example() {
    let run = &two_commands()[0];
    // `cargo run --release -- ARGS` runs the `sense` binary with ARGS.
    let args: Vec<&str> = run
        .strip_prefix("cargo run --release -- ")
        .unwrap_or_else(|| panic!("not `cargo run --release -- …`: {run}"))
        .split_whitespace()
        .collect();
    let ["run", script] = args.as_slice() else {
        panic!("expected `run FILE` after `--`, got {args:?}");
    };
    let memory = std::env::temp_dir().join(format!("sense-readme-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_sense"))
        .args(&args)
        .current_dir(root())
        .env("SENSE_MEMORY_DIR", &memory)
        .stdin(Stdio::null())
        .output()
        .expect("sense runs");
    let _ = std::fs::remove_dir_all(&memory);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.is_empty(),
        "`sense {run}` failed: {stderr}"
    );
    let stem = Path::new(script).file_stem().unwrap().to_string_lossy();
    let want = read(&root().join(format!("tests/examples/{stem}.out")));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        want,
        "output of `sense {}`",
        args.join(" ")
    );
}

#[test]
fn the_test_command_is_what_ci_runs() {
    let test = &two_commands()[1];
    let ci = read(&root().join(".ci/run"));
    assert!(
        ci.lines().any(|l| l.trim() == test),
        "README's test command `{test}` is not a line of .ci/run"
    );
}
