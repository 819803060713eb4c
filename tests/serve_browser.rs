//! The `sense serve` console in a real browser (headless Debian Chromium
//! driven by playwright-core, tests/serve_browser/console.mjs): two
//! service processes share one store; instances are made through one,
//! and the console of the other lists them by status and answers one.
//!
//! Needs `node`, `/usr/bin/chromium` (or `$SENSE_CHROMIUM`) and
//! playwright-core in tests/browser/node_modules (`npm ci` there); `.ci/run`
//! provides all three. Without them the test fails and says what is
//! missing, unless `SENSE_SKIP_BROWSER=1` is set — then it says it skipped.

mod serve_support;

use serde_json::json;
use serve_support::{Service, TempDir, create, id_of, resume};
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const PROGRAM: &str = r#"
agent interviewer:
    answers = []
    def ask(topic, n):
        return ask_human("(" + str(n) + "/3) " + topic + "?")
    for topic in ["name", "years", "ready"]:
        push(answers, topic + "=" + str(ask(topic, len(answers) + 1)))
    print("summary:", answers)
"#;

#[test]
fn the_service_console_lists_and_answers_instances_of_the_fleet() {
    let playwright = root().join("tests/browser/node_modules/playwright-core");
    if !playwright.join("index.mjs").is_file() {
        let _ = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(root().join("tests/browser"))
            .status();
    }
    let chromium = std::env::var_os("SENSE_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let node = Command::new("node").arg("--version").output();
    let mut need = Vec::new();
    if !node.is_ok_and(|o| o.status.success()) {
        need.push("node (Debian: nodejs npm)".to_string());
    }
    if !chromium.is_file() {
        need.push(format!(
            "Chromium at {} (Debian: chromium)",
            chromium.display()
        ));
    }
    if !playwright.join("index.mjs").is_file() {
        need.push("playwright-core (npm ci in tests/browser)".to_string());
    }
    if !need.is_empty() {
        let list = need.join(", ");
        if std::env::var("SENSE_SKIP_BROWSER").is_ok_and(|v| v == "1") {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: the sense serve console browser test (SENSE_SKIP_BROWSER=1); missing: {list}"
            );
            return;
        }
        panic!("the console browser test needs: {list} (set SENSE_SKIP_BROWSER=1 to skip it)");
    }
    let dir = TempDir::new("browser");
    let program = dir.write("fleet.sns", PROGRAM);
    let url = format!("sqlite:{}", dir.0.join("fleet.db").display());
    let maker = Service::start(&program, &url, &[]);
    let console = Service::start(&program, &url, &[]);
    let first = id_of(&create(&maker, "interviewer"));
    create(&maker, "interviewer");
    let done = id_of(&create(&maker, "interviewer"));
    for v in ["a", "b", "c"] {
        resume(&maker, &done, json!(v), None);
    }
    let artifacts = root().join("target/browser-artifacts");
    let out = Command::new("node")
        .arg(root().join("tests/serve_browser/console.mjs"))
        .arg(format!("http://127.0.0.1:{}/", console.port))
        .arg(&artifacts)
        .arg(&playwright)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the console test failed (screenshots in {}):\n{stdout}\n{stderr}",
        artifacts.display()
    );
    // The answer went through the console's process into the shared store.
    let (_, body) = maker.call("GET", &format!("/api/instances/{first}"), None);
    assert_eq!(body["version"], 2, "{body}");
    assert_eq!(body["pause_reason"], "(2/3) years?");
}
