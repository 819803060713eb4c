//! The `sense inspect` page in a real browser: headless Debian Chromium,
//! driven by Playwright's `playwright-core` (tests/browser/console.mjs),
//! against `sense inspect tests/browser/demo.sns`. Screenshots land in
//! `target/browser-artifacts/`.
//!
//! Needs `node`, `/usr/bin/chromium` (or `$SENSE_CHROMIUM`) and
//! playwright-core in tests/browser/node_modules (the test runs `npm ci`
//! there when it is missing); `.ci/run` installs all three. Without
//! them the test fails and says what to install, unless
//! `SENSE_SKIP_BROWSER=1` is set — then it reports itself as skipped.

#[path = "browser/server.rs"]
mod server;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What is missing to run the browser test, as install instructions.
fn missing() -> Vec<String> {
    let mut need = Vec::new();
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        need.push("node (Debian: apt-get install -y nodejs npm)".to_string());
    }
    let chromium = std::env::var_os("SENSE_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if !chromium.is_file() {
        need.push(format!(
            "Chromium at {} (Debian: apt-get install -y chromium; or set SENSE_CHROMIUM)",
            chromium.display()
        ));
    }
    let dir = root().join("tests/browser");
    let installed = |dir: &Path| {
        dir.join("node_modules/playwright-core/package.json")
            .is_file()
    };
    if !installed(&dir) {
        // The lock file pins playwright-core (no browser download): fetch
        // it once, so `cargo test --workspace` needs only node and npm.
        let _ = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status();
    }
    if !installed(&dir) {
        need.push(format!(
            "playwright-core (run `npm ci` in {})",
            dir.display()
        ));
    }
    need
}

#[test]
fn console_in_headless_chromium() {
    let need = missing();
    if !need.is_empty() {
        let list = need.join("\n  - ");
        if std::env::var("SENSE_SKIP_BROWSER").is_ok_and(|v| v == "1") {
            // Straight to stderr, past the test harness's capture, so the
            // skip shows in every run's output.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: browser test console_in_headless_chromium (SENSE_SKIP_BROWSER=1); missing:\n  - {list}"
            );
            return;
        }
        panic!(
            "the browser test needs:\n  - {list}\n(.ci/run installs these; set SENSE_SKIP_BROWSER=1 to skip the test)"
        );
    }
    let artifacts = root().join("target/browser-artifacts");
    std::fs::create_dir_all(&artifacts).expect("artifact directory");
    let server = server::Server::start(&["tests/browser/demo.sns"]);
    let out = Command::new("node")
        .arg("console.mjs")
        .arg(&server.url)
        .arg(&artifacts)
        .current_dir(root().join("tests/browser"))
        .output()
        .expect("node runs");
    server.stop();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        out.status.success(),
        "the browser test failed (screenshots in {}):\n{stdout}\n{stderr}",
        artifacts.display()
    );
    for shot in [
        "01-paused-agent.png",
        "02-action-committed.png",
        "04-agent-completed.png",
    ] {
        let p: &Path = &artifacts.join(shot);
        assert!(
            p.metadata().is_ok_and(|m| m.len() > 10_000),
            "screenshot {}",
            p.display()
        );
    }
}
