//! `connect_mcp` against MCP servers this project did not write (the npm
//! reference server `@modelcontextprotocol/server-everything` and a server
//! built on PyPI's `mcp` package, installed by .ci/setup.d/30-mcp.sh), with
//! `ask_with_tools` driving the tools through a loopback model; and servers
//! that fail (missing, exiting, hanging, writing garbage), which must give
//! clean errors and leave no child process behind.

#[path = "mcp/support.rs"]
mod support;

use sense_testkit::loopback::{Loopback, Reply, program, text};
use sense_testkit::toolchain::{self, Tool};
use sense_testkit::trials::Trial;
use serde_json::json;
use std::time::{Duration, Instant};
use support::{
    answer, check_everything_echo, configured, resume_adding, run_program, sense, tool_call,
};

const KEY: &str = "sk-test-mcp-0123456789";

/// What `.ci/setup.d/30-mcp.sh` installs, for the skip lines.
const MCP_HINT: &str =
    "source .ci/setup.d/30-mcp.sh (npm @modelcontextprotocol/server-everything, PyPI mcp)";

/// The path in `var` for a test its gate let through (a clear failure
/// when run by hand with `--include-ignored` without it).
fn installed(var: &str) -> String {
    configured(var).unwrap_or_else(|| panic!("needs {var}: {MCP_HINT}"))
}

/// `var` as a tool a test needs.
fn needs_var(var: &str) -> Tool {
    Tool::other(var, MCP_HINT, configured(var).is_some())
}

fn py_script() -> String {
    format!("{}/tests/mcp/py_server.py", env!("CARGO_MANIFEST_DIR"))
}

fn run(
    source: &str,
    name: &str,
    server: Option<&Loopback>,
    extra: &[(&str, &str)],
) -> (String, String, bool) {
    run_program(source, name, server, KEY, extra)
}

/// Sense source for a string literal.
fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn everything_server_echo_through_ask_with_tools() {
    let cmd = installed("SENSE_MCP_EVERYTHING");
    let connect = format!("connect_mcp(\"everything\", {}, [\"stdio\"])", lit(&cmd));
    check_everything_echo(&connect, "hi there", |source, model| {
        run(source, "everything_echo", Some(model), &[])
    });
}

fn python_server_capability_errors_and_skills() {
    let py = installed("SENSE_MCP_PYTHON");
    let model = Loopback::start(vec![
        // 1st ask_with_tools: denied by policy, then an answer.
        Reply::json(200, tool_call("c1", "py__add", json!({"a": 2, "b": 3}))),
        Reply::json(200, answer("denied")),
        // 2nd: allowed, through a skill; a failing tool; then an answer.
        Reply::json(200, tool_call("c2", "py__add", json!({"a": 2, "b": 3}))),
        Reply::json(
            200,
            tool_call("c3", "py__fail", json!({"reason": "disk on fire"})),
        ),
        Reply::json(200, answer("done")),
    ]);
    let source = format!(
        r#"s = connect_mcp("py", {py}, [{script}], "tools.py")
model gpt = inference("openai")
set delegation = gpt
math = skill("math", "Arithmetic and failures", s.tools)
def denied():
    policy: deny tools.py
    return ask_with_tools("add 2 and 3", [math])
print(denied().value)
print(ask_with_tools("add 2 and 3", [math]).value)
for line in audit_log():
    print(line)
"#,
        py = lit(&py),
        script = lit(&py_script())
    );
    let (out, err, ok) = run(&source, "py_caps", Some(&model), &[]);
    assert!(ok, "stderr: {err}");
    assert_eq!(
        out,
        "denied\ndone\n\
         [line 7] tool 'py.add' -> denied (capability 'tools.py' denied by policy)\n\
         [line 7] model 'gpt' -> called\n\
         [line 9] tool 'py.add' -> called\n\
         [line 9] tool 'py.fail' -> failed (RuntimeError: Error executing tool fail: disk on fire)\n\
         [line 9] model 'gpt' -> called\n"
    );
    let seen = model.seen();
    assert_eq!(seen.len(), 5);
    assert_eq!(
        seen[0].body["messages"][0]["content"],
        "Available skills:\n- math: Arithmetic and failures\n\nadd 2 and 3"
    );
    let names: Vec<&str> = seen[0].body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert_eq!(names, ["py__add", "py__shout", "py__fail", "py__sleepy"]);
    assert_eq!(
        seen[1].body["messages"][2]["content"],
        "error: [line 7] mcp tool 'py.add' requires capability 'tools.py', which is denied by policy"
    );
    assert_eq!(seen[3].body["messages"][2]["content"], "5");
    assert_eq!(
        seen[4].body["messages"][4]["content"],
        "error: [line 9] mcp tool 'py.fail' failed: RuntimeError: Error executing tool fail: disk on fire"
    );
}

fn hanging_tool_call_times_out() {
    let py = installed("SENSE_MCP_PYTHON");
    let model = Loopback::start(vec![
        Reply::json(200, tool_call("c1", "py__sleepy", json!({"seconds": 30}))),
        Reply::json(200, answer("gave up")),
    ]);
    let source = format!(
        r#"s = connect_mcp("py", {py}, [{script}])
model gpt = inference("openai")
set delegation = gpt
print(ask_with_tools("sleep", s.tools).value)
"#,
        py = lit(&py),
        script = lit(&py_script())
    );
    let started = Instant::now();
    let (out, err, ok) = run(
        &source,
        "py_hang",
        Some(&model),
        &[("SENSE_MCP_CALL_TIMEOUT", "3")],
    );
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "gave up\n");
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(
        model.seen()[1].body["messages"][2]["content"],
        "error: [line 4] mcp tool 'py.sleepy' failed: TimeoutError: MCP server '{py}' did not answer 'tools/call' within 3s"
            .replace("{py}", &py)
    );
}

fn broken_servers_give_clean_errors() {
    let cases = [
        (
            r#"connect_mcp("gone", "no-such-mcp-server-zz", [])"#,
            "connect_mcp() failed to connect to 'gone': FileNotFoundError: [Errno 2] No such file or directory: 'no-such-mcp-server-zz'",
        ),
        (
            r#"connect_mcp("quits", "sh", ["-c", "echo bye >&2; exit 3"])"#,
            "connect_mcp() failed to connect to 'quits': RuntimeError: MCP server 'sh' exited (exit status 3); its stderr ends: bye",
        ),
        (
            r#"connect_mcp("noise", "sh", ["-c", "echo hello world; sleep 5"])"#,
            "connect_mcp() failed to connect to 'noise': RuntimeError: MCP server 'sh' wrote something that is not JSON-RPC: hello world",
        ),
        (
            r#"connect_mcp("mute", "sleep", ["30"])"#,
            "connect_mcp() failed to connect to 'mute': TimeoutError: MCP server 'sleep' did not answer 'initialize' within 1s",
        ),
    ];
    for (call, want) in cases {
        let started = Instant::now();
        let (_, err, ok) = run(
            &format!("s = {call}\n"),
            "broken",
            None,
            &[("SENSE_MCP_TIMEOUT", "1")],
        );
        assert!(!ok);
        assert_eq!(
            err.lines().next().unwrap_or(""),
            format!("SenseRuntimeError: {want}")
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{call} took too long"
        );
    }
}

fn argument_errors_match_the_reference() {
    let cases = [
        (
            "connect_mcp(\"a\", \"b\")",
            "connect_mcp() expects (name: String, command: String, args: Array<String>, capability: String = nil)",
        ),
        (
            "connect_mcp(1, \"b\", [])",
            "connect_mcp()'s name argument must be a String",
        ),
        (
            "connect_mcp(\"a\", 2, [])",
            "connect_mcp()'s command argument must be a String",
        ),
        (
            "connect_mcp(\"a\", \"b\", [1])",
            "connect_mcp()'s args argument must be an Array of Strings",
        ),
        (
            "connect_mcp(\"a\", \"b\", [], 4)",
            "connect_mcp()'s capability argument must be a String",
        ),
    ];
    for (call, want) in cases {
        let (_, err, ok) = run(&format!("{call}\n"), "args", None, &[]);
        assert!(!ok);
        assert_eq!(
            err.lines().next().unwrap_or(""),
            format!("SenseRuntimeError: {want}")
        );
    }
}

/// Children of this process whose command line mentions `needle`.
fn children_running(needle: &str) -> Vec<u32> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // pid (comm) state ppid …
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if ppid == Some(me) && String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found
}

/// `.close()` and dropping the runtime both end and reap the server.
fn servers_are_reaped_on_close_and_on_drop() {
    let py = installed("SENSE_MCP_PYTHON");
    let source = |close: bool| {
        format!(
            "s = connect_mcp(\"py\", {}, [{}, \"--reap-test\"])\n{}",
            lit(&py),
            lit(&py_script()),
            if close { "s.close()\n" } else { "" }
        )
    };
    for close in [true, false] {
        let before = children_running("--reap-test");
        let mut rt = sense::Runtime::new();
        rt.set_output(|_| {});
        sense_providers::register_defaults(&mut rt);
        rt.run_source("reap.sns", &source(close)).expect("connects");
        let during: Vec<u32> = children_running("--reap-test")
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect();
        if close {
            assert!(during.is_empty(), "closed server still running: {during:?}");
        } else {
            assert_eq!(during.len(), 1, "the server runs while the runtime lives");
        }
        drop(rt);
        for pid in &during {
            assert!(
                !std::path::Path::new(&format!("/proc/{pid}")).exists(),
                "server {pid} left behind (running or zombie)"
            );
        }
    }
}

/// A paused agent holding an MCP connection survives `sense start` /
/// `sense resume`: the server is started again on first use after the
/// restore, and its tools work through `ask_with_tools`.
fn mcp_server_reconnects_after_resume() {
    let py = installed("SENSE_MCP_PYTHON");
    let source = format!(
        r#"agent worker:
    s = connect_mcp("py", {py}, [{script}])
    model gpt = inference("openai")
    set delegation = gpt
    go = pause("connected to " + str(s))
    print(ask_with_tools("add " + go, s.tools).value)
"#,
        py = lit(&py),
        script = lit(&py_script())
    );
    let file = program("mcp_resume", &source);
    let state = std::env::temp_dir().join(format!("sense-mcp-{}.state", std::process::id()));
    let s = state.to_str().expect("utf-8 path");
    let f = file.to_str().expect("utf-8 path");
    let out = sense(
        &["start", f, "worker", "--state", s],
        &[("OPENAI_API_KEY", KEY)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "paused: connected to <mcp server py (4 tools)>\n"
    );

    assert_eq!(resume_adding(s, "py__add", KEY), "42");
    let _ = std::fs::remove_file(&state);
}

/// The McpServer value as the reference shows it: rendering, members,
/// `close()` (twice), tools only callable through a model, a closed
/// connection's tools failing cleanly.
fn server_values_and_members() {
    let py = installed("SENSE_MCP_PYTHON");
    let model = Loopback::start(vec![
        Reply::json(200, tool_call("c1", "py__shout", json!({"text": "hi"}))),
        Reply::json(200, answer("closed")),
    ]);
    let head = format!(
        "s = connect_mcp(\"py\", {}, [{}], \"tools.py\")\n",
        lit(&py),
        lit(&py_script())
    );
    let body = r#"print(s)
print(s.tools)
print(type_of(s), type_of(s.tools[0]), s.name)
print(skill("k", "d", s.tools))
print(s.close())
print(s.close())
model gpt = inference("openai")
set delegation = gpt
print(ask_with_tools("shout", s.tools).value)
print(audit_log())
s.tools[0](1, 2)
"#;
    let (out, err, ok) = run(&(head.clone() + body), "values", Some(&model), &[]);
    assert!(!ok);
    assert_eq!(
        out,
        "<mcp server py (4 tools)>\n\
         [<mcp tool py.add>, <mcp tool py.shout>, <mcp tool py.fail>, <mcp tool py.sleepy>]\n\
         McpServer Tool py\n<skill k (4 tools)>\nnil\nnil\nclosed\n\
         [[line 10] tool 'py.shout' -> failed (RuntimeError: the connection to MCP server 'py' is closed), [line 10] model 'gpt' -> called]\n"
    );
    assert_eq!(
        err.lines().next().unwrap_or(""),
        "SenseRuntimeError: [line 12] value of type Tool is not callable"
    );
    let (_, err, ok) = run(&(head + "s.nope\n"), "member", None, &[]);
    assert!(!ok);
    assert_eq!(
        err.lines().next().unwrap_or(""),
        "SenseRuntimeError: [line 2] mcp server 'py' has no member 'nope'"
    );
}

/// A Python 3 for the standard-library fake servers: `SENSE_MCP_PYTHON`
/// when set, else `python3` on the PATH.
fn python3_path() -> Option<String> {
    configured("SENSE_MCP_PYTHON").or_else(|| {
        std::process::Command::new("python3")
            .args(["-c", "pass"])
            .status()
            .is_ok_and(|s| s.success())
            .then(|| "python3".to_string())
    })
}

/// The Python of a test its gate let through.
fn python3() -> String {
    python3_path().unwrap_or_else(|| panic!("needs python3: apt-get install python3"))
}

/// tests/mcp/unruly_server.py in `mode`, connected through the library,
/// with the file it reports its progress in.
fn unruly(
    py: &str,
    mode: &str,
    settings: sense_providers::McpSettings,
) -> (
    Box<dyn sense::agents::provider::ToolServer>,
    std::path::PathBuf,
) {
    use sense::agents::provider::ToolServerConnector;
    let progress =
        std::env::temp_dir().join(format!("sense-unruly-{mode}-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&progress);
    let script = format!("{}/tests/mcp/unruly_server.py", env!("CARGO_MANIFEST_DIR"));
    let args = [
        script,
        mode.to_string(),
        progress.to_str().expect("utf-8 path").to_string(),
    ];
    let server = sense_providers::McpStdioConnector::new(settings)
        .connect(py, &args)
        .expect("the unruly server initializes like any other");
    (server, progress)
}

/// The number in a progress file (0 until it is written).
fn progress_of(file: &std::path::Path) -> u64 {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

/// A server that floods answers to ids nobody asked for, pings and
/// notifications is held up by its own pipe while the client is not
/// reading (nothing piles up in the client), and a call to it still times
/// out at its deadline although messages keep arriving.
fn a_flooding_server_is_held_up_and_cannot_extend_a_call() {
    let py = python3();
    let settings = sense_providers::McpSettings {
        connect_timeout: Duration::from_secs(20),
        call_timeout: Duration::from_secs(2),
        exit_grace: Duration::from_secs(1),
    };
    let (mut server, progress) = unruly(&py, "flood", settings);
    // The program does something else for a while: nothing is read.
    std::thread::sleep(Duration::from_millis(2500));
    let written = progress_of(&progress);
    assert!(
        written < 16 * 1024 * 1024,
        "the client took {written} bytes it had no use for"
    );
    let started = Instant::now();
    let err = server
        .call_tool("wait", "{}")
        .expect_err("the server never answers");
    assert_eq!(
        err,
        format!("TimeoutError: MCP server '{py}' did not answer 'tools/call' within 2s")
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(5),
        "the deadline moved: {took:?}"
    );
    assert!(
        progress_of(&progress) > written,
        "the client read (and dropped) what arrived during the call"
    );
    server.close();
    let _ = std::fs::remove_file(&progress);
}

/// True while `pid` is a running (not zombie) process.
fn running(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .next()?
                .to_string();
            Some(state != "Z" && state != "X")
        })
        .unwrap_or(false)
}

/// A server's own children end with it, on `.close()` and on drop: the
/// server runs in its own process group, which is ended as a whole.
fn a_servers_children_end_with_the_connection() {
    let py = python3();
    for close in [true, false] {
        let settings = sense_providers::McpSettings {
            exit_grace: Duration::from_secs(1),
            ..sense_providers::McpSettings::default()
        };
        let (mut server, progress) = unruly(&py, "spawn", settings);
        let until = Instant::now() + Duration::from_secs(10);
        while progress_of(&progress) == 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        let child = progress_of(&progress);
        assert!(child > 0 && running(child), "the server started its child");
        if close {
            server.close();
        } else {
            drop(server);
        }
        let until = Instant::now() + Duration::from_secs(5);
        while running(child) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !running(child),
            "the server's child {child} outlived the connection (close: {close})"
        );
        let _ = std::fs::remove_file(&progress);
    }
}

/// A malformed `SENSE_MCP_TIMEOUT` is refused when a server is connected,
/// naming the variable.
fn malformed_mcp_timeouts_are_refused() {
    let (_, err, ok) = run(
        "connect_mcp(\"x\", \"true\", [])\n",
        "mcp_bad_timeout",
        None,
        &[("SENSE_MCP_TIMEOUT", "soon")],
    );
    assert!(!ok);
    assert_eq!(
        err.lines().next().unwrap_or(""),
        "SenseRuntimeError: connect_mcp() failed to connect to 'x': ValueError: SENSE_MCP_TIMEOUT \
         is 'soon', which is not a number of seconds (a number greater than 0, e.g. 30 or 0.5)"
    );
}

/// A trial of `test` that needs `tools` (checked when it runs).
fn gated(name: &str, tools: fn() -> Vec<Tool>, test: fn()) -> Trial {
    toolchain::gated_trial(name, tools, move || {
        test();
        Ok(())
    })
}

fn everything() -> Vec<Tool> {
    vec![needs_var("SENSE_MCP_EVERYTHING")]
}

fn mcp_python() -> Vec<Tool> {
    vec![needs_var("SENSE_MCP_PYTHON")]
}

fn python_only() -> Vec<Tool> {
    vec![Tool::other(
        "python3",
        "apt-get install python3",
        python3_path().is_some(),
    )]
}

fn python_and_proc() -> Vec<Tool> {
    vec![
        Tool::other(
            "python3",
            "apt-get install python3",
            python3_path().is_some(),
        ),
        Tool::other(
            "/proc",
            "a Linux /proc file system",
            std::path::Path::new("/proc/self/stat").exists(),
        ),
    ]
}

fn main() {
    let mut trials = vec![
        gated(
            "everything_server_echo_through_ask_with_tools",
            everything,
            everything_server_echo_through_ask_with_tools,
        ),
        gated(
            "python_server_capability_errors_and_skills",
            mcp_python,
            python_server_capability_errors_and_skills,
        ),
        gated(
            "hanging_tool_call_times_out",
            mcp_python,
            hanging_tool_call_times_out,
        ),
        gated(
            "servers_are_reaped_on_close_and_on_drop",
            mcp_python,
            servers_are_reaped_on_close_and_on_drop,
        ),
        gated(
            "mcp_server_reconnects_after_resume",
            mcp_python,
            mcp_server_reconnects_after_resume,
        ),
        gated(
            "server_values_and_members",
            mcp_python,
            server_values_and_members,
        ),
        gated(
            "a_flooding_server_is_held_up_and_cannot_extend_a_call",
            python_only,
            a_flooding_server_is_held_up_and_cannot_extend_a_call,
        ),
        gated(
            "a_servers_children_end_with_the_connection",
            python_and_proc,
            a_servers_children_end_with_the_connection,
        ),
    ];
    trials.extend(sense_testkit::trials! {
        plain: broken_servers_give_clean_errors,
            argument_errors_match_the_reference,
            malformed_mcp_timeouts_are_refused;
        per_store: ;
    });
    sense_testkit::trials::run(trials);
}
