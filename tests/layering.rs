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

use std::path::PathBuf;
use std::process::Command;

/// The workspace's crates, lowest layer first: a crate may depend only on
/// crates before it in this list.
const LAYERS: &[&str] = &[
    "sense-syntax",
    "sense-eval",
    "sense-agents",
    "sense-lsp",
    "sense-providers",
    "sense-store",
    "sense-server",
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
    // Policy, tools, actions and audit (sense-agents/src/kinds/tool.rs,
    // kinds/action.rs, policy.rs, audit.rs).
    "ToolObj",
    "ToolInfo",
    "ToolDecl",
    "ToolSignature",
    "tool_signature",
    "call_tool",
    "ActionObj",
    "ActionDeclObj",
    "ActionState",
    "ActionInfo",
    "ActionDecl",
    "ActionCommit",
    "prepare_action",
    "AuditEntry",
    "audit_log",
    "audit_entries",
    "capability_allowed",
    "exec_policy",
    "PolicyRules",
    "FrameTag",
    "lineage",
    "AuditLog",
    "DryRun",
    "dry_run",
    "delegation",
    "set_delegation",
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
    "HostAgent",
    "as_agent",
];

/// String literals `sense-eval`'s code must not hold: the names of the
/// object kinds that moved to `sense-agents`, as registered
/// (`ObjectKind::name`, also the keyword of their declarations) and as
/// `type_of` shows them. The core finds such a kind through the registry
/// (`kind_named`, `ObjectKind::matches_annotation`, `Declaration::name`)
/// and never spells it. Only a literal that *is* the name counts, so
/// messages that use the word ("out of memory") stay free.
///
/// **Extend it when a kind moves out**, with its `name()` and
/// `type_name()`.
const KIND_LITERALS_KEPT_OUT_OF_SENSE_EVAL: &[&str] = &[
    "model",
    "Model",
    "answer",
    "Answer",
    "memory",
    "Memory",
    "skill",
    "Skill",
    "mcp_server",
    "McpServer",
    "mcp_tool",
    "tool",
    "Tool",
    "action",
    "Action",
    "policy",
    "Policy",
    "audit",
    "agent",
    "Agent",
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

/// The string literals of Rust source `text` (`"…"` and raw `r#"…"#`;
/// comments and char literals skipped), each with its 1-based line and
/// its text as written between the quotes.
fn string_literals(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < bytes.len() {
        let rest = &text[i..];
        let c = bytes[i];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
            line += rest[..end].matches('\n').count();
            i += end;
        } else if c == b'\'' {
            // A char literal ('x', '\n', '"') or a lifetime ('a).
            if let Some(escaped) = rest.strip_prefix("'\\") {
                i += 2 + escaped.find('\'').map_or(escaped.len(), |e| e + 1);
            } else if rest.chars().nth(2) == Some('\'') {
                i += 2 + rest[1..].chars().next().map_or(0, char::len_utf8);
            } else {
                i += 1;
            }
        } else if c == b'"'
            || (c == b'r' && (i == 0 || !ident(bytes[i - 1])) && {
                let hashes = rest[1..].bytes().take_while(|b| *b == b'#').count();
                rest[1 + hashes..].starts_with('"')
            })
        {
            let (open, close) = if c == b'"' {
                (1, "\"".to_string())
            } else {
                let hashes = rest[1..].bytes().take_while(|b| *b == b'#').count();
                (2 + hashes, format!("\"{}", "#".repeat(hashes)))
            };
            let body = &rest[open..];
            let mut end = 0;
            loop {
                match body[end..].find(close.as_str()) {
                    None => {
                        end = body.len();
                        break;
                    }
                    Some(at) => {
                        let at = end + at;
                        let escapes = body[..at].bytes().rev().take_while(|b| *b == b'\\').count();
                        if c == b'"' && escapes % 2 == 1 {
                            end = at + 1;
                        } else {
                            end = at;
                            break;
                        }
                    }
                }
            }
            out.push((line, &body[..end]));
            line += body[..end].matches('\n').count();
            i += open + end + close.len();
        } else {
            if c == b'\n' {
                line += 1;
            }
            i += 1;
        }
    }
    out
}

/// `line: "literal"` for every string literal of `text` that is one of `names`.
fn literals_used(text: &str, names: &[&str]) -> Vec<String> {
    among(string_literals(text), names, |l| format!("\"{l}\""))
}

/// `line: name` for every name of `names` that `text`'s code uses.
fn names_used(text: &str, names: &[&str]) -> Vec<String> {
    among(code_identifiers(text), names, str::to_string)
}

/// `line: shown` for every `(line, word)` of `found` whose word is one of
/// `names`.
fn among(found: Vec<(usize, &str)>, names: &[&str], show: fn(&str) -> String) -> Vec<String> {
    found
        .into_iter()
        .filter(|(_, w)| names.contains(w))
        .map(|(line, w)| format!("{line}: {}", show(w)))
        .collect()
}

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The packages in `krate`'s tree of normal dependencies (`cargo tree`),
/// itself included.
fn normal_dependencies(krate: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
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
    package_names(&String::from_utf8(output.stdout).unwrap())
}

#[test]
fn the_core_crates_depend_on_no_storage_network_or_higher_crate() {
    let mut problems = Vec::new();
    for krate in CORE {
        let deps = normal_dependencies(krate);
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

/// The normal dependencies of `krate` that sit above it in [`LAYERS`],
/// and whether it depends on `expected` at all (a check that the tree was
/// read).
fn workspace_crates_above(krate: &str, expected: &str) -> (Vec<String>, bool) {
    let deps = normal_dependencies(krate);
    let level = LAYERS.iter().position(|l| *l == krate).unwrap();
    let above = &LAYERS[level + 1..];
    let bad = deps
        .iter()
        .filter(|d| above.contains(&d.as_str()))
        .cloned()
        .collect();
    (bad, deps.iter().any(|d| d == expected))
}

/// The editor layer (`sense-lsp`) sits on the runtime: it may use the
/// syntax and the agent layer's list of builtins, but no crate above it
/// (providers, store, libsense, the CLI), so the editor server never
/// opens a connection or a database of the service.
#[test]
fn the_editor_crate_depends_on_no_higher_workspace_crate() {
    let (bad, read) = workspace_crates_above("sense-lsp", "sense-agents");
    assert!(bad.is_empty(), "sense-lsp depends on {bad:?}");
    assert!(read, "sense-lsp's tree lacks sense-agents");
}

/// The services (`sense-server`) sit on the store and the providers: never
/// on libsense, the test kit or the CLI, so a Rust host can embed them.
#[test]
fn the_server_crate_depends_on_no_higher_workspace_crate() {
    let (bad, read) = workspace_crates_above("sense-server", "sense-store");
    assert!(bad.is_empty(), "sense-server depends on {bad:?}");
    assert!(read, "sense-server's tree lacks sense-store");
}

/// Where sense-eval's sources (`FILE:LINE: what`) show what `find` finds in
/// a file's text.
fn sense_eval_hits(find: impl Fn(&str) -> Vec<String>) -> Vec<String> {
    let src = workspace_root().join("sense-eval").join("src");
    sense_testkit::scan_rust_sources(&src, "vm.rs", find)
}

#[test]
fn sense_eval_names_nothing_kept_out_of_it() {
    let problems = sense_eval_hits(|text| names_used(text, NAMES_KEPT_OUT_OF_SENSE_EVAL));
    assert!(
        problems.is_empty(),
        "sense-eval names what belongs to a higher layer:\n{}",
        problems.join("\n")
    );
}

#[test]
fn sense_eval_spells_no_moved_kind_name() {
    let problems =
        sense_eval_hits(|text| literals_used(text, KIND_LITERALS_KEPT_OUT_OF_SENSE_EVAL));
    assert!(
        problems.is_empty(),
        "sense-eval spells the name of a kind registered by a higher layer \
         (find it through the registry instead):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_literal_check_sees_strings_and_skips_comments_chars_and_sentences() {
    let names = &["model", "Memory"];
    let fixture = r##"
// "model" in a comment
let k = if c == '"' { "model" } else { 'x' };
/* "Memory"
   block */ let t: &'static str = "Memory";
let m = "out of memory: \"model\" too big";
let r = r#"Memory"#;
let e = "a\\"; let f = "model";
"##;
    assert_eq!(
        literals_used(fixture, names),
        [
            "3: \"model\"",
            "5: \"Memory\"",
            "7: \"Memory\"",
            "8: \"model\""
        ]
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
