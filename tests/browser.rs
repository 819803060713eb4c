//! The `sense inspect` page in a real browser: headless Debian Chromium,
//! driven by Playwright's `playwright-core` (tests/browser/console.mjs),
//! against `sense inspect tests/browser/demo.sns`. Screenshots land in
//! `target/browser-artifacts/`.
//!
//! Needs `node`, Chromium (`$SENSE_CHROMIUM`, or `chromium`,
//! `chromium-browser`, `google-chrome` on `PATH`) and
//! playwright-core in tests/browser/node_modules (the test runs `npm ci`
//! there when it is missing); `.ci/run` installs all three. Without them
//! the test follows the skip rule of `sense_testkit::toolchain`: it is
//! reported as ignored with the package to install, and fails under
//! `SENSE_TEST_ALL=1`.

use sense_testkit::inspect_server::Server;

use libtest_mimic::Failed;
use sense_testkit::toolchain::{self, Tool};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What the browser test needs, each with how to get it.
fn needs() -> Vec<Tool> {
    let node = Tool::command("node", "nodejs");
    let (chromium, _) = toolchain::chromium();
    let dir = root().join("tests/browser");
    let installed = |dir: &Path| {
        dir.join("node_modules/playwright-core/package.json")
            .is_file()
    };
    // The lock file pins playwright-core (no browser download): fetch it
    // once when the rest is there, so the test needs only node and npm.
    if !(node.present && chromium.present) {
        return vec![node, chromium];
    }
    if !installed(&dir) {
        let _ = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status();
    }
    let playwright = Tool::other(
        "playwright-core",
        "apt-get install npm, then `npm ci` in tests/browser",
        installed(&dir),
    );
    vec![node, chromium, playwright]
}

fn console_in_headless_chromium() -> Result<(), Failed> {
    let artifacts = root().join("target/browser-artifacts");
    std::fs::create_dir_all(&artifacts).map_err(|e| format!("artifact directory: {e}"))?;
    let server = inspect(&["tests/browser/demo.sns"]);
    let (_, chromium) = toolchain::chromium();
    let chromium = chromium.ok_or("Chromium disappeared after the gate found it")?;
    let out = Command::new("node")
        .env("SENSE_CHROMIUM", chromium)
        .arg("console.mjs")
        .arg(&server.url)
        .arg(&artifacts)
        .current_dir(root().join("tests/browser"))
        .output()
        .map_err(|e| format!("node does not run: {e}"))?;
    server.stop();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "the browser test failed (screenshots in {}):\n{stdout}\n{stderr}",
            artifacts.display()
        )
        .into());
    }
    for shot in [
        "01-paused-agent.png",
        "02-action-committed.png",
        "04-agent-completed.png",
    ] {
        let p: &Path = &artifacts.join(shot);
        if !p.metadata().is_ok_and(|m| m.len() > 10_000) {
            return Err(format!("screenshot {} missing or empty", p.display()).into());
        }
    }
    Ok(())
}

fn main() {
    sense_testkit::trials::run(vec![toolchain::gated_trial(
        "console_in_headless_chromium",
        needs,
        console_in_headless_chromium,
    )])
}

/// `sense inspect ARGS` on a free port, run from this crate's directory.
fn inspect(args: &[&str]) -> Server {
    sense_testkit::inspect!(args)
}
