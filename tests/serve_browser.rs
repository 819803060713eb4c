//! The `sense serve` console in a real browser (headless Debian Chromium
//! driven by playwright-core, tests/serve_browser/console.mjs): two
//! service processes share one store; instances are made through one,
//! and the console of the other lists them by status and answers one;
//! then it starts an agent whose streamed answer appears on the page as it
//! arrives (relayed on the instance's events stream).
//!
//! Needs `node`, Chromium (`$SENSE_CHROMIUM`, or `chromium`,
//! `chromium-browser`, `google-chrome` on `PATH`) and
//! playwright-core in tests/browser/node_modules (`npm ci` there); `.ci/run`
//! provides all three. Without them the test follows the skip rule of
//! `sense_testkit::toolchain`: reported as ignored with the package to
//! install, and failing under `SENSE_TEST_ALL=1`.

use libtest_mimic::{Arguments, Failed};
use sense_testkit::toolchain::{self, Tool};

use sense_testkit::serve::{Service, TempDir, create, id_of, resume};
use serde_json::json;
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
model m = inference("mock")
set delegation = m
def keep(piece):
    return piece
agent writer:
    go = pause("ready")
    a = ask("the weather in " + go, on_text: keep)
    pause("done")
"#;

/// What the test needs, each with how to get it; playwright-core is
/// fetched (`npm ci`, no browser download) once node and Chromium are there.
fn needs() -> Vec<Tool> {
    let node = Tool::command("node", "nodejs");
    let (chromium, _) = toolchain::chromium();
    if !(node.present && chromium.present) {
        return vec![node, chromium];
    }
    let installed = || playwright().join("index.mjs").is_file();
    if !installed() {
        let _ = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(root().join("tests/browser"))
            .status();
    }
    let playwright = Tool::other(
        "playwright-core",
        "apt-get install npm, then `npm ci` in tests/browser",
        installed(),
    );
    vec![node, chromium, playwright]
}

fn playwright() -> PathBuf {
    root().join("tests/browser/node_modules/playwright-core")
}

fn main() {
    let args = Arguments::from_args();
    let trials = vec![toolchain::gated_trial(
        "the_service_console_lists_answers_and_shows_streamed_text",
        needs,
        console_lists_and_answers,
    )];
    libtest_mimic::run(&args, trials).exit();
}

fn console_lists_and_answers() -> Result<(), Failed> {
    let playwright = playwright();
    let dir = TempDir::new("browser");
    let program = dir.write("fleet.sns", PROGRAM);
    let url = format!("sqlite:{}", dir.0.join("fleet.db").display());
    let maker = serve(&program, &url, &[]);
    let console = serve(&program, &url, &[]);
    let first = id_of(&create(&maker, "interviewer"));
    create(&maker, "interviewer");
    let done = id_of(&create(&maker, "interviewer"));
    for v in ["a", "b", "c"] {
        resume(&maker, &done, json!(v), None);
    }
    let artifacts = root().join("target/browser-artifacts");
    let (_, chromium) = toolchain::chromium();
    let out = Command::new("node")
        .env("SENSE_CHROMIUM", chromium.expect("the gate found Chromium"))
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
    Ok(())
}

/// `sense serve PROGRAM --store STORE --port 0 EXTRA…`, this crate's binary.
fn serve(program: &std::path::Path, store: &str, extra: &[&str]) -> Service {
    Service::start(env!("CARGO_BIN_EXE_sense"), program, store, extra)
}
