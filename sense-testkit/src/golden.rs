//! The golden suite: one named test per `tests/golden/**/*.sns` (and per
//! `examples/*.sns`), each run through the real `sense` binary and compared
//! byte for byte with the expected files beside it.
//!
//! - `NAME.out`: expected stdout (always compared).
//! - `NAME.err`: expected stderr; present iff stderr is not empty.
//! - `NAME.status`: expected exit status, when it is not the default
//!   (1 with a `.err`, else 0) — e.g. REPL sessions that print errors.
//! - `NAME.in`: stdin for the run (default: empty).
//! - A first line `# args: <command and flags>` replaces the default `run`;
//!   the script's path is appended last.
//! - Names starting with `_` are fixtures (imported modules), not cases.
//!
//! `SENSE_BLESS=1 cargo test --test golden` rewrites the expected files
//! from the current output; review the diff before committing.
//! Examples' expected output lives in `tests/examples/NAME.out`, that of the
//! benchmark workloads (`benches/data/*.sns`) in `tests/bench-data/`.
//!
//! The harnesses (`tests/golden.rs`, `tests/golden_gc.rs`) call
//! [`run_suite`] with the repository root and the `sense` binary.

use crate::{bless, relative, sense_scripts};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Case {
    script: PathBuf,
    expected_out: PathBuf,
    expected_err: PathBuf,
    expected_status: PathBuf,
    stdin: PathBuf,
}

/// The exit status a case expects: the number in its `.status` file, or
/// else 0 when it expects no errors and 1 when it does.
pub fn expected_code(status_file: &Path, want_err: &str) -> Result<i32, String> {
    match std::fs::read_to_string(status_file) {
        Ok(s) => s
            .trim()
            .parse::<i32>()
            .map_err(|e| format!("bad .status file: {e}")),
        Err(_) if want_err.is_empty() => Ok(0),
        Err(_) => Ok(1),
    }
}

/// The problem to report when the `what` stream (`stdout`, `stderr`) is
/// not what was expected.
pub fn differs(what: &str, expected: &str, actual: &str) -> Option<String> {
    (expected != actual)
        .then(|| format!("{what} differs\n--- expected\n{expected}--- actual\n{actual}---"))
}

impl Case {
    /// A script whose expected files (`STEM.out`, `.err`, `.status`, `.in`)
    /// are in `dir` rather than beside it.
    fn expected_in(script: PathBuf, dir: &Path) -> Case {
        let stem = script.file_stem().unwrap_or_default().to_string_lossy();
        let expected = |ext: &str| dir.join(format!("{stem}.{ext}"));
        Case {
            expected_out: expected("out"),
            expected_err: expected("err"),
            expected_status: expected("status"),
            stdin: expected("in"),
            script,
        }
    }
}

fn run_case(sense: &Path, root: &Path, case: &Case, gc_stress: bool) -> Result<(), Failed> {
    let relative = |p: &Path| relative(root, p);
    let rel = relative(&case.script);
    let text = std::fs::read_to_string(&case.script).map_err(|e| format!("{rel}: {e}"))?;
    let mut args: Vec<String> = match text.lines().next().and_then(|l| l.strip_prefix("# args:")) {
        Some(a) => a.split_whitespace().map(String::from).collect(),
        None => vec!["run".to_string()],
    };
    args.push(rel.clone());
    let memory_dir = std::env::temp_dir().join(format!(
        "sense-golden-{}-{}",
        std::process::id(),
        rel.replace('/', "_")
    ));
    let _ = std::fs::remove_dir_all(&memory_dir);
    std::fs::create_dir_all(&memory_dir).map_err(|e| e.to_string())?;
    let stdin = std::fs::read(&case.stdin).unwrap_or_default();
    let mut child = Command::new(sense)
        .args(&args)
        .current_dir(root)
        .env("SENSE_MEMORY_DIR", &memory_dir)
        .env("NO_COLOR", "1")
        .env("SENSE_GC_STRESS", if gc_stress { "1" } else { "" })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run sense: {e}"))?;
    if let Some(mut pipe) = child.stdin.take() {
        use std::io::Write;
        let _ = pipe.write_all(&stdin);
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&memory_dir);
    let stdout = String::from_utf8_lossy(&output.stdout).replace("\r\n", "\n");
    let stderr = String::from_utf8_lossy(&output.stderr).replace("\r\n", "\n");
    let code = output.status.code().unwrap_or(-1);

    if bless() && !gc_stress {
        std::fs::write(&case.expected_out, &stdout).map_err(|e| e.to_string())?;
        if stderr.is_empty() {
            let _ = std::fs::remove_file(&case.expected_err);
        } else {
            std::fs::write(&case.expected_err, &stderr).map_err(|e| e.to_string())?;
        }
        let default = if stderr.is_empty() { 0 } else { 1 };
        if code == default {
            let _ = std::fs::remove_file(&case.expected_status);
        } else {
            std::fs::write(&case.expected_status, format!("{code}\n"))
                .map_err(|e| e.to_string())?;
        }
        return Ok(());
    }

    let mut problems = Vec::new();
    let want_out = std::fs::read_to_string(&case.expected_out).map_err(|_| {
        format!(
            "{rel}: missing {} (run with SENSE_BLESS=1)",
            relative(&case.expected_out)
        )
    })?;
    problems.extend(differs("stdout", &want_out, &stdout));
    let want_err = std::fs::read_to_string(&case.expected_err).unwrap_or_default();
    let want_code =
        expected_code(&case.expected_status, &want_err).map_err(|e| format!("{rel}: {e}"))?;
    if code != want_code {
        problems.push(format!("expected exit status {want_code}, got {code}"));
    }
    problems.extend(differs("stderr", &want_err, &stderr));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{rel}:\n{}", problems.join("\n")).into())
    }
}

/// Runs every case of the repository at `root` through the `sense`
/// binary at `sense`, and exits with the harness's status; with
/// `gc_stress` the collector runs at every safe point.
pub fn run_suite(sense: &Path, root: &Path, gc_stress: bool) -> ! {
    let args = Arguments::from_args();
    let mut cases = Vec::new();
    for s in sense_scripts(&root.join("tests/golden")) {
        cases.push(Case {
            expected_out: s.with_extension("out"),
            expected_err: s.with_extension("err"),
            expected_status: s.with_extension("status"),
            stdin: s.with_extension("in"),
            script: s,
        });
    }
    for s in sense_scripts(&root.join("examples")) {
        cases.push(Case::expected_in(s, &root.join("tests/examples")));
    }
    // The benchmark workloads run too (not under GC stress: too slow), so
    // they cannot rot; their expected output is in tests/bench-data/.
    if !gc_stress {
        for s in sense_scripts(&root.join("benches/data")) {
            cases.push(Case::expected_in(s, &root.join("tests/bench-data")));
        }
    }
    let trials = cases
        .into_iter()
        .map(|case| {
            let (sense, root) = (sense.to_path_buf(), root.to_path_buf());
            let name = relative(&root, &case.script)
                .trim_start_matches("tests/golden/")
                .trim_end_matches(".sns")
                .to_string();
            Trial::test(name, move || run_case(&sense, &root, &case, gc_stress))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
