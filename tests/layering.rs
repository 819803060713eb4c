//! Layering (issue 14): layers point one way, sense-syntax ← sense-eval ←
//! sense-agents ← (sense-providers, sense-store, sense-ffi, the CLI), and
//! the language core opens no connection and knows no database.
//!
//! Two checks keep it so:
//! - the *normal* dependency trees of `sense-syntax` and `sense-eval`
//!   (`cargo tree -e normal`) hold no database or network crate and no
//!   crate of a higher layer;
//! - the source of `sense-eval` (comments aside) names none of
//!   [`NAMES_KEPT_OUT_OF_SENSE_EVAL`].
//!
//! Each check is also run on fixture text, so that a check that could
//! never fail shows up as a failing test here rather than as a silent
//! pass.
// Test code may unwrap and index (the workspace lints forbid it in library code).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's crates, lowest layer first: a crate may depend only on
/// crates before it in this list.
const LAYERS: &[&str] = &[
    "sense-syntax",
    "sense-eval",
    "sense-agents",
    "sense-providers",
    "sense-store",
    "sense-ffi",
    "sense-testkit",
    "sense",
];

/// The crates whose dependency trees are checked: the language core.
const CORE: &[&str] = &["sense-syntax", "sense-eval"];

/// Crates that store data or talk over a network (or drive a runtime that
/// does): never a normal dependency of the language core.
const STORAGE_AND_NETWORK_CRATES: &[&str] = &[
    "rusqlite",
    "libsqlite3-sys",
    "postgres",
    "tokio-postgres",
    "sqlx",
    "ureq",
    "reqwest",
    "hyper",
    "hyper-util",
    "h2",
    "tokio",
    "mio",
    "socket2",
    "tiny_http",
    "httparse",
    "rustls",
    "native-tls",
    "lsp-server",
];

/// Identifiers `sense-eval`'s code must not name (comments may): the
/// storage and network crates, the crates above it, and the agent-layer
/// types that have moved out to `sense-agents`.
///
/// **Extend it when a type moves out**: once a kind or a builtin group
/// lives in `sense-agents` (issue 14, ARCHITECTURE.md "Not done yet"),
/// add its type and op names here (e.g. `ModelDecl`, `ModelProvider`,
/// `ToolServerConnector`), so that it cannot creep back. A name matches a
/// whole identifier, case-sensitively: `Sqlite` matches `Sqlite` and
/// `rusqlite::Connection` matches `rusqlite`, but not `SqliteLog` or
/// `open_sqlite`.
const NAMES_KEPT_OUT_OF_SENSE_EVAL: &[&str] = &[
    // Storage and network crates and their types.
    "rusqlite",
    "Sqlite",
    "postgres",
    "Postgres",
    "ureq",
    "hyper",
    "tokio",
    "TcpStream",
    "TcpListener",
    "UdpSocket",
    // Crates of higher layers.
    "sense_agents",
    "sense_providers",
    "sense_store",
    "sense_ffi",
    // Agent-layer types moved to sense-agents through the object-kind seam
    // (sense-agents/src/kinds/): models, answers, skills, providers, MCP
    // tool servers, and memories.
    "ModelObj",
    "AnswerObj",
    "SkillObj",
    "McpServerObj",
    "McpToolObj",
    "ModelProvider",
    "ProviderEntry",
    "ToolServerConnector",
    "ToolServer",
    "ModelDecl",
    "MemoryObj",
    "MemoryKind",
    "MemoryDecl",
    "MemoryLog",
    "MemoryOpener",
    "MemoryStore",
    "memory_log",
    "memory_store",
    "memory_items",
    "memory_entries",
    // Agents (sense-agents/src/kinds/agent.rs, status.rs, report.rs): the
    // core runs generic tasks (task.rs, kind/task.rs) and names none of
    // the agent protocol's types, statuses, pause kinds or natives.
    "AgentStatus",
    "PauseKind",
    "AgentReport",
    "AgentDecl",
    "AgentBody",
    "AgentInfo",
    "AgentKind",
    "SelfPause",
    "AskHuman",
    "WaitingMessage",
    "HostRequest",
    "SenseAgent",
    "agent_reports",
    "declare_agent",
    "agent_member",
    "sense_start",
    "sense_resume",
    "expected_agent",
    "running_lexical_agent",
    "ask_human",
];

/// Package names in `cargo tree --prefix none --format {p}` output.
fn package_names(tree: &str) -> Vec<String> {
    let mut names: Vec<String> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// What `krate`'s normal dependencies (as `package_names`) include that
/// the layering forbids: storage and network crates, and workspace crates
/// of its own layer or above (other than itself).
fn forbidden_dependencies(krate: &str, deps: &[String]) -> Vec<String> {
    let level = LAYERS.iter().position(|l| *l == krate).unwrap();
    let above = &LAYERS[level + 1..];
    deps.iter()
        .filter(|d| STORAGE_AND_NETWORK_CRATES.contains(&d.as_str()) || above.contains(&d.as_str()))
        .cloned()
        .collect()
}

/// The identifiers of Rust source `text`, `//` comments (and doc
/// comments) left out, each with its 1-based line. A `//` inside a string
/// literal also ends its line's code: the check may miss a name there,
/// but never reports one that is only in a comment.
fn code_identifiers(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.find("//").map_or(line, |at| &line[..at]);
        for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !word.is_empty() && !word.starts_with(|c: char| c.is_ascii_digit()) {
                out.push((i + 1, word));
            }
        }
    }
    out
}

/// `line: name` for every name of `names` that `text`'s code uses.
fn names_used(text: &str, names: &[&str]) -> Vec<String> {
    code_identifiers(text)
        .into_iter()
        .filter(|(_, w)| names.contains(w))
        .map(|(line, w)| format!("{line}: {w}"))
        .collect()
}

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_core_crates_depend_on_no_storage_network_or_higher_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut problems = Vec::new();
    for krate in CORE {
        let output = Command::new(&cargo)
            .current_dir(workspace_root())
            .args(["tree", "-p", krate, "-e", "normal", "--prefix", "none"])
            .args(["--format", "{p}"])
            .output()
            .expect("run cargo tree");
        assert!(
            output.status.success(),
            "cargo tree -p {krate} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let deps = package_names(&String::from_utf8(output.stdout).unwrap());
        assert!(
            deps.iter().any(|d| d == krate),
            "cargo tree -p {krate} did not list {krate} itself: {deps:?}"
        );
        for bad in forbidden_dependencies(krate, &deps) {
            problems.push(format!(
                "{krate} depends on {bad} (see: cargo tree -p {krate} -e normal -i {bad})"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn sense_eval_names_nothing_kept_out_of_it() {
    let src = workspace_root().join("sense-eval").join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("vm.rs")),
        "the scan must see sense-eval/src/vm.rs (looked in {})",
        src.display()
    );
    let mut problems = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for hit in names_used(&text, NAMES_KEPT_OUT_OF_SENSE_EVAL) {
            problems.push(format!("{}:{hit}", file.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "sense-eval names what belongs to a higher layer:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_dependency_check_catches_a_database_or_a_higher_crate() {
    let tree = "sense-eval v0.1.0 (/x/sense-eval)\nrusqlite v0.43.0\nserde v1.0.0\n\
                serde v1.0.0 (*)\nsense-agents v0.1.0 (/x/sense-agents)\nsense-syntax v0.1.0 (/x)\n";
    let deps = package_names(tree);
    assert_eq!(
        deps,
        [
            "rusqlite",
            "sense-agents",
            "sense-eval",
            "sense-syntax",
            "serde"
        ]
    );
    assert_eq!(
        forbidden_dependencies("sense-eval", &deps),
        ["rusqlite", "sense-agents"]
    );
    // sense-syntax is below sense-eval: depending on it is fine for
    // sense-eval, the other way round is not.
    assert_eq!(
        forbidden_dependencies(
            "sense-syntax",
            &package_names("sense-eval v0.1.0\ntokio v1.0.0\n")
        ),
        ["sense-eval", "tokio"]
    );
}

#[test]
fn the_name_check_catches_code_and_ignores_comments() {
    let names = &["rusqlite", "Sqlite", "ModelDecl"];
    let fixture = "\
//! Persistent memories live in SQLite (`rusqlite`, in sense-agents).
use rusqlite::Connection;
struct Sqlite; // a rusqlite wrapper
fn open_sqlite() -> SqliteLog {}
enum Op { ModelDecl(u32) }
";
    assert_eq!(
        names_used(fixture, names),
        ["2: rusqlite", "3: Sqlite", "5: ModelDecl"]
    );
    assert_eq!(
        names_used("/// mentions rusqlite only in docs\nfn f() {}\n", names),
        Vec::<String>::new()
    );
}
