//! The skip rule for tests that need a tool the machine may lack (a
//! browser, a Go toolchain, clang, …), shared by the libtest-mimic
//! harnesses of the workspace.
//!
//! - Every tool present: the test runs.
//! - A tool missing, `SENSE_TEST_ALL` unset: the test is reported as
//!   *ignored*, with one line naming what it needs and the Debian package
//!   that provides it (`… ignored (needs chromium: apt-get install
//!   chromium)`), so the harness's summary counts it among the ignored.
//! - A tool missing with `SENSE_TEST_ALL=1` (what `.ci/run` exports after
//!   installing everything): the test fails with the same text, so CI
//!   never skips.

use libtest_mimic::{Completion, Failed, Trial};
use std::path::{Path, PathBuf};

/// One thing a test needs, and whether this machine has it.
#[derive(Clone, Debug)]
pub struct Tool {
    /// What is needed, as a reader would look for it (`go`, `/usr/bin/chromium`).
    pub name: String,
    /// How to get it on Debian (`apt-get install golang-go`).
    pub install: String,
    /// Whether it is there.
    pub present: bool,
}

impl Tool {
    /// An executable found on `PATH`, from Debian package `package`.
    pub fn command(cmd: &str, package: &str) -> Tool {
        Tool {
            name: cmd.to_string(),
            install: format!("apt-get install {package}"),
            present: on_path(cmd).is_some(),
        }
    }

    /// A file that must exist (e.g. a browser at a fixed place).
    pub fn file(path: &Path, install: &str) -> Tool {
        Tool {
            name: path.display().to_string(),
            install: install.to_string(),
            present: path.is_file(),
        }
    }

    /// Anything else the caller checked itself.
    pub fn other(name: &str, install: &str, present: bool) -> Tool {
        Tool {
            name: name.to_string(),
            install: install.to_string(),
            present,
        }
    }
}

/// The names a Chromium executable goes by on Linux distributions, in
/// the order they are tried on `PATH`.
pub const CHROMIUM_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// Chromium for the browser tests: `$SENSE_CHROMIUM` when set (a path or a
/// command name), otherwise the first of [`CHROMIUM_NAMES`] on `PATH`.
/// The tool's name says what was tried, so a skip line tells a reader
/// where to put it; the path is what the test passes to its driver.
pub fn chromium() -> (Tool, Option<PathBuf>) {
    let install = "apt-get install chromium (or set SENSE_CHROMIUM)";
    if let Some(set) = std::env::var_os("SENSE_CHROMIUM") {
        let given = PathBuf::from(&set);
        let name = format!("SENSE_CHROMIUM={}", given.display());
        let found = if given.components().count() > 1 {
            is_executable(&given).then_some(given)
        } else {
            on_path(&given.to_string_lossy())
        };
        return (Tool::other(&name, install, found.is_some()), found);
    }
    let found = CHROMIUM_NAMES.iter().find_map(|n| on_path(n));
    let name = format!("chromium (tried {} on PATH)", CHROMIUM_NAMES.join(", "));
    (Tool::other(&name, install, found.is_some()), found)
}

/// Whether `SENSE_TEST_ALL=1` is set: then nothing may be skipped.
pub fn test_all() -> bool {
    std::env::var("SENSE_TEST_ALL").is_ok_and(|v| v == "1")
}

/// The full path of `cmd` if an executable of that name is on `PATH`.
pub fn on_path(cmd: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(cmd))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// The one line that says what is missing: `needs go: apt-get install
/// golang-go; …`. `None` when nothing is.
pub fn missing_line(tools: &[Tool]) -> Option<String> {
    let missing: Vec<String> = tools
        .iter()
        .filter(|t| !t.present)
        .map(|t| format!("needs {}: {}", t.name, t.install))
        .collect();
    (!missing.is_empty()).then(|| missing.join("; "))
}

/// What a gated test does on this machine.
pub enum Gate {
    /// Everything is there: run it.
    Run,
    /// Something is missing: report the test ignored with this reason.
    Skip(String),
    /// Something is missing and `SENSE_TEST_ALL=1`: fail with this message.
    Fail(String),
}

/// Applies the rule to what `tools` found.
pub fn gate(tools: &[Tool]) -> Gate {
    match missing_line(tools) {
        None => Gate::Run,
        Some(line) if test_all() => Gate::Fail(format!(
            "{line} (SENSE_TEST_ALL=1: nothing a test needs may be missing)"
        )),
        Some(line) => Gate::Skip(line),
    }
}

/// A trial that runs `body` only when `tools` (checked when the trial
/// runs, so filtered-out tests check nothing) are all present; otherwise
/// it is ignored with the reason, or fails under `SENSE_TEST_ALL=1`.
pub fn gated_trial<T, B>(name: impl Into<String>, tools: T, body: B) -> Trial
where
    T: FnOnce() -> Vec<Tool> + Send + 'static,
    B: FnOnce() -> Result<(), Failed> + Send + 'static,
{
    Trial::ignorable_test(name, move || match gate(&tools()) {
        Gate::Run => body().map(|()| Completion::Completed),
        Gate::Skip(reason) => Ok(Completion::ignored_with(reason)),
        Gate::Fail(message) => Err(message.into()),
    })
}
