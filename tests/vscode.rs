//! The VS Code extension's checks that run on Node.js
//! (`editors/vscode/test`): the TextMate grammar tokenized by
//! vscode-textmate, and `sense lsp` driven by VS Code's protocol client
//! (vscode-languageserver-protocol). `tests/lsp.rs` drives the server
//! from Rust.
//!
//! Needs `node` and the scripts' npm packages (`npm ci --prefix
//! editors/vscode/test`; `.ci/setup.d/40-editor.sh` installs both).
//! Without them each test follows the skip rule of
//! `sense_testkit::toolchain`: reported as ignored with what to install,
//! and failed under `SENSE_TEST_ALL=1`.

use libtest_mimic::Failed;
use sense_testkit::toolchain::{self, Tool};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The packages the scripts `require`.
const PACKAGES: &[&str] = &[
    "vscode-textmate",
    "vscode-oniguruma",
    "vscode-languageserver-protocol",
];

fn test_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode/test")
}

/// Node.js and the npm packages, each with how to get it.
fn needs() -> Vec<Tool> {
    let modules = test_dir().join("node_modules");
    let installed = PACKAGES.iter().all(|p| modules.join(p).is_dir());
    vec![
        Tool::command("node", "nodejs"),
        Tool::other(
            &format!("{} in editors/vscode/test", PACKAGES.join(", ")),
            "apt-get install npm, then `npm ci --prefix editors/vscode/test`",
            installed,
        ),
    ]
}

/// Runs one script of editors/vscode/test with Node.js; its output on
/// failure.
fn node_script(script: &str) -> Result<(), Failed> {
    let what = format!("editors/vscode/test/{script}");
    let mut child = Command::new("node")
        .arg(script)
        .current_dir(test_dir())
        .env("SENSE_BIN", env!("CARGO_BIN_EXE_sense"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{what}: node does not start: {e}"))?;
    // The scripts time themselves out; this is a backstop.
    let deadline = Instant::now() + Duration::from_secs(120);
    while child
        .try_wait()
        .map_err(|e| format!("{what}: {e}"))?
        .is_none()
    {
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err(format!("{what} did not finish in 120 s").into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{what}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{what} failed\n{stdout}\n{stderr}").into());
    }
    print!("{stdout}");
    Ok(())
}

/// The TextMate grammar, tokenized by vscode-textmate (npm).
fn grammar_tokenizes_samples() -> Result<(), Failed> {
    node_script("grammar.test.js")
}

/// `sense lsp` driven by VS Code's protocol client library (npm).
fn vscode_protocol_client_session() -> Result<(), Failed> {
    node_script("lsp.test.js")
}

fn main() {
    sense_testkit::trials::run(vec![
        toolchain::gated_trial(
            "grammar_tokenizes_samples",
            needs,
            grammar_tokenizes_samples,
        ),
        toolchain::gated_trial(
            "vscode_protocol_client_session",
            needs,
            vscode_protocol_client_session,
        ),
    ]);
}
