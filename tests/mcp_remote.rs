//! `connect_mcp(name, url: …)`: remote MCP servers over the Streamable
//! HTTP transport. Against the npm reference server
//! `@modelcontextprotocol/server-everything` in its `streamableHttp` mode
//! on loopback (installed by .ci/setup.d/30-mcp.sh): end to end through
//! `ask_with_tools`, a call that outlives its timeout, a server that
//! crashes, and a paused agent that reconnects after `sense resume` to a
//! restarted server. Against tests/mcp/http_server.py (standard-library
//! Python, which checks the transport's headers): the session id, the
//! protocol version and bearer token on every request, the answers to the
//! server's pings, a new session after a 404, the DELETE at close, and a
//! server that keeps its stream busy without ever answering.

use sense::agents::provider::{ToolServer, ToolServerConnector};
#[path = "mcp/support.rs"]
mod support;

use sense_testkit::loopback::{Loopback, Reply, program, text};
use sense_testkit::toolchain::{self, Tool};
use sense_testkit::trials::Trial;
use serde_json::{Value as Json, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::{
    answer, check_everything_echo, configured, resume_adding, run_program, sense, tool_call,
};

const KEY: &str = "sk-test-mcp-0123456789";

/// What `.ci/setup.d/30-mcp.sh` installs, for the skip lines.
const MCP_HINT: &str = "source .ci/setup.d/30-mcp.sh (npm @modelcontextprotocol/server-everything)";

/// A server process ended (its whole group) when dropped.
struct Server {
    child: Child,
    url: String,
    log: Option<std::path::PathBuf>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
        if let Some(log) = &self.log {
            let _ = std::fs::remove_file(log);
        }
    }
}

impl Server {
    fn stop(&mut self) {
        #[cfg(unix)]
        kill_group(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Every request the fake server recorded.
    fn log(&self) -> Vec<Json> {
        let path = self.log.as_ref().expect("a fake server's log");
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    }
}

/// Ends the process group `pid` leads (the servers are started in their
/// own group), through `kill(1)`: this crate has no signal bindings.
#[cfg(unix)]
fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stderr(Stdio::null())
        .status();
}

fn own_group(cmd: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
}

/// A port nobody listens on right now.
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("address").port()
}

/// Waits until something accepts connections on `port`.
fn wait_listening(port: u16) {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("nothing listens on port {port}");
}

/// server-everything in streamableHttp mode on `port`.
fn everything_on(port: u16) -> Server {
    let bin = configured("SENSE_MCP_EVERYTHING")
        .unwrap_or_else(|| panic!("needs SENSE_MCP_EVERYTHING: {MCP_HINT}"));
    let mut cmd = Command::new(bin);
    cmd.arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    own_group(&mut cmd);
    let child = cmd.spawn().expect("server-everything starts");
    wait_listening(port);
    Server {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
        log: None,
    }
}

/// tests/mcp/http_server.py in `mode`, with `token` as the bearer token
/// it requires (if any).
fn fake(mode: &str, token: Option<&str>) -> Server {
    let log = std::env::temp_dir().join(format!(
        "sense-mcp-http-{mode}-{}-{}.log",
        std::process::id(),
        free_port()
    ));
    let script = format!("{}/tests/mcp/http_server.py", env!("CARGO_MANIFEST_DIR"));
    let mut cmd = Command::new(python3().unwrap_or_else(|| panic!("needs python3")));
    cmd.args([script.as_str(), log.to_str().expect("utf-8 path"), mode])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    match token {
        Some(t) => cmd.env("FAKE_MCP_TOKEN", t),
        None => cmd.env_remove("FAKE_MCP_TOKEN"),
    };
    own_group(&mut cmd);
    let mut child = cmd.spawn().expect("python3 starts");
    let mut line = String::new();
    let out = child.stdout.take().expect("stdout");
    BufReader::new(out).read_line(&mut line).expect("a port");
    let port: u16 = line.trim().parse().expect("a port number");
    Server {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
        log: Some(log),
    }
}

fn python3() -> Option<String> {
    configured("SENSE_MCP_PYTHON").or_else(|| {
        Command::new("python3")
            .args(["-c", "pass"])
            .status()
            .is_ok_and(|s| s.success())
            .then(|| "python3".to_string())
    })
}

fn settings(call_secs: u64) -> sense_providers::McpSettings {
    sense_providers::McpSettings {
        connect_timeout: Duration::from_secs(20),
        call_timeout: Duration::from_secs(call_secs),
        exit_grace: Duration::from_secs(1),
    }
}

fn connect(url: &str, token_env: Option<&str>, call_secs: u64) -> Box<dyn ToolServer> {
    sense_providers::McpStdioConnector::new(settings(call_secs))
        .connect_url(url, token_env)
        .expect("connects")
}

fn run(source: &str, name: &str, model: Option<&Loopback>) -> (String, String, bool) {
    run_with(source, name, model, &[])
}

/// `sense run` of `source` with the model at `model` and `extra` set.
fn run_with(
    source: &str,
    name: &str,
    model: Option<&Loopback>,
    extra: &[(&str, &str)],
) -> (String, String, bool) {
    let mut env = vec![("SENSE_MCP_TIMEOUT", "20")];
    env.extend_from_slice(extra);
    run_program(source, name, model, KEY, &env)
}

fn everything_over_http_through_ask_with_tools() {
    let server = everything_on(free_port());
    let connect = format!(
        "connect_mcp(\"everything\", url: {:?}, capability: \"tools.remote\")",
        server.url
    );
    check_everything_echo(&connect, "over http", |source, model| {
        run(source, "remote_echo", Some(model))
    });
}

/// A call of `tool` on a connection whose call timeout is 2 s fails with
/// the timeout error at that deadline.
fn times_out(conn: &mut dyn ToolServer, tool: &str, args: &str, url: &str) {
    let started = Instant::now();
    let err = conn.call_tool(tool, args).expect_err("no answer in time");
    assert_eq!(
        err,
        format!("TimeoutError: MCP server '{url}' did not answer 'tools/call' within 2s")
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(6),
        "the deadline moved: {took:?}"
    );
}

fn everything_over_http_slow_call_times_out() {
    let server = everything_on(free_port());
    let mut conn = connect(&server.url, None, 2);
    times_out(
        conn.as_mut(),
        "trigger-long-running-operation",
        r#"{"duration": 20, "steps": 4}"#,
        &server.url,
    );
    // The connection is still usable for quick calls.
    let echoed = conn.call_tool("echo", r#"{"message": "still here"}"#);
    assert_eq!(echoed.as_deref(), Ok("Echo: still here"));
    conn.close();
}

fn everything_over_http_crash_is_a_clean_error() {
    let mut server = everything_on(free_port());
    let mut conn = connect(&server.url, None, 5);
    assert_eq!(
        conn.call_tool("get-sum", r#"{"a": 2, "b": 3}"#).as_deref(),
        Ok("The sum of 2 and 3 is 5.")
    );
    server.stop();
    let started = Instant::now();
    let err = conn
        .call_tool("get-sum", r#"{"a": 2, "b": 3}"#)
        .expect_err("the server has gone");
    assert!(
        err.starts_with(&format!(
            "RuntimeError: MCP server '{}' is unreachable (",
            server.url
        )),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    conn.close();
}

/// A paused agent holding a remote connection survives `sense start` /
/// `sense resume` across a restart of the server (whose sessions are
/// lost): it connects again, with a new session, on first use.
fn everything_over_http_reconnects_after_resume() {
    let port = free_port();
    let mut first = everything_on(port);
    let url = first.url.clone();
    let source = format!(
        r#"agent worker:
    s = connect_mcp("everything", url: {url:?})
    model gpt = inference("openai")
    set delegation = gpt
    go = pause("connected to " + s.name)
    print(ask_with_tools("add " + go, s.tools).value)
"#
    );
    let file = program("remote_resume", &source);
    let state = std::env::temp_dir().join(format!("sense-mcp-http-{}.state", std::process::id()));
    let (s, f) = (
        state.to_str().expect("utf-8 path"),
        file.to_str().expect("utf-8 path"),
    );
    let out = sense(
        &["start", f, "worker", "--state", s],
        &[("OPENAI_API_KEY", KEY)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "paused: connected to everything\n");
    first.stop();
    let _second = everything_on(port);
    assert_eq!(
        resume_adding(s, "everything__get-sum", KEY),
        "The sum of 40 and 2 is 42."
    );
    let _ = std::fs::remove_file(&state);
}

/// The value of header `name` (any case) of a recorded request.
fn header<'a>(entry: &'a Json, name: &str) -> Option<&'a str> {
    entry["headers"].as_object().and_then(|h| {
        h.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .and_then(|(_, v)| v.as_str())
    })
}

fn headers_session_token_and_server_pings() {
    let server = fake("ok", Some("tok-0123456789"));
    let model = Loopback::start(vec![
        Reply::json(200, tool_call("c1", "fake__add", json!({"a": 2, "b": 5}))),
        Reply::json(200, answer("seven")),
    ]);
    let source = format!(
        r#"s = connect_mcp("fake", url: {url:?}, token_env: "FAKE_TOKEN")
print(s)
model gpt = inference("openai")
set delegation = gpt
print(ask_with_tools("add 2 and 5", s.tools).value)
s.close()
"#,
        url = server.url
    );
    // A token pasted with its newline still works.
    let (out, err, ok) = run_with(
        &source,
        "remote_headers",
        Some(&model),
        &[("FAKE_TOKEN", "tok-0123456789\n")],
    );
    assert!(ok, "stderr: {err}");
    assert_eq!(out, "<mcp server fake (2 tools)>\nseven\n");
    assert_eq!(model.seen()[1].body["messages"][2]["content"], "7");
    let log = server.log();
    let methods: Vec<String> = log
        .iter()
        .map(|e| match e["body"]["method"].as_str() {
            Some(m) => m.to_string(),
            None if e["http"] == "DELETE" => "DELETE".into(),
            None => format!("answer to {}", e["body"]["id"]),
        })
        .collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "answer to \"srv-ping\"",
            "tools/call",
            "answer to \"srv-ping\"",
            "DELETE"
        ]
    );
    for (i, e) in log.iter().enumerate() {
        assert_eq!(header(e, "authorization"), Some("Bearer tok-0123456789"));
        if i == 0 {
            assert_eq!(header(e, "mcp-session-id"), None);
            assert_eq!(header(e, "mcp-protocol-version"), None);
        } else {
            assert_eq!(header(e, "mcp-session-id"), Some("session-1"), "{e}");
            assert_eq!(header(e, "mcp-protocol-version"), Some("2025-06-18"));
        }
    }
    assert_eq!(
        log[3]["body"],
        json!({"jsonrpc": "2.0", "id": "srv-ping", "result": {}})
    );
}

fn a_missing_or_wrong_token_is_refused() {
    let server = fake("ok", Some("right-token"));
    let source = format!(
        "connect_mcp(\"fake\", url: {:?}, token_env: \"FAKE_TOKEN\")\n",
        server.url
    );
    let cases = [
        (
            None,
            "RuntimeError: connect_mcp() needs the 'FAKE_TOKEN' environment variable \
             (token_env:) set to the server's bearer token"
                .to_string(),
        ),
        (
            Some("wrong-token"),
            format!(
                "RuntimeError: MCP server '{}' answered HTTP 401: bad token",
                server.url
            ),
        ),
        (
            Some("right token"),
            "RuntimeError: the 'FAKE_TOKEN' environment variable holds a malformed token: it \
             contains spaces, control characters or non-ASCII characters"
                .to_string(),
        ),
    ];
    for (token, want) in cases {
        let env: Vec<(&str, &str)> = token.map(|t| ("FAKE_TOKEN", t)).into_iter().collect();
        let (_, err, ok) = run_with(&source, "remote_token", None, &env);
        assert!(!ok);
        assert_eq!(
            err.lines().next().unwrap_or(""),
            format!("SenseRuntimeError: connect_mcp() failed to connect to 'fake': {want}")
        );
    }
}

fn an_ended_session_is_renewed_once() {
    let server = fake("expire", None);
    let mut conn = connect(&server.url, None, 5);
    assert_eq!(
        conn.call_tool("add", r#"{"a": 1, "b": 1}"#).as_deref(),
        Ok("2")
    );
    let log = server.log();
    let inits: Vec<&Json> = log
        .iter()
        .filter(|e| e["body"]["method"] == "initialize")
        .collect();
    assert_eq!(inits.len(), 2, "a new session after the 404");
    let last = log.last().expect("requests");
    assert_eq!(header(last, "mcp-session-id"), Some("session-2"));
    conn.close();
}

fn a_busy_stream_cannot_extend_a_call() {
    let server = fake("ok", None);
    let mut conn = connect(&server.url, None, 2);
    times_out(conn.as_mut(), "flood", "{}", &server.url);
    conn.close();
}

fn remote_argument_errors() {
    let cases = [
        (
            r#"connect_mcp("a", "b", url: "http://127.0.0.1:9/mcp")"#,
            "connect_mcp() of a remote server expects (name: String, url: String, token_env: String = nil, capability: String = nil)",
        ),
        (
            r#"connect_mcp("a", url: 3)"#,
            "connect_mcp()'s url argument must be a String",
        ),
        (
            r#"connect_mcp("a", "b", [], token_env: "T")"#,
            "connect_mcp()'s token_env: goes with url: (a remote server)",
        ),
        (
            r#"connect_mcp("a", url: "http://x", port: 3)"#,
            "'connect_mcp' does not accept labeled arguments (url, port)",
        ),
        (
            r#"connect_mcp("a", url: "ftp://example.com/mcp")"#,
            "connect_mcp() failed to connect to 'a': ValueError: an MCP server's url must start with http:// or https://, got 'ftp://example.com/mcp'",
        ),
    ];
    for (call, want) in cases {
        let (_, err, ok) = run(&format!("{call}\n"), "remote_args", None);
        assert!(!ok);
        assert_eq!(
            err.lines().next().unwrap_or(""),
            format!("SenseRuntimeError: {want}")
        );
    }
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let (_, err, ok) = run(
        &format!("connect_mcp(\"gone\", url: {url:?})\n"),
        "gone",
        None,
    );
    assert!(!ok);
    let first = err.lines().next().unwrap_or("");
    assert!(
        first.starts_with(&format!(
            "SenseRuntimeError: connect_mcp() failed to connect to 'gone': RuntimeError: MCP server '{url}' is unreachable ("
        )),
        "{first}"
    );
}

fn gated(name: &str, tools: fn() -> Vec<Tool>, test: fn()) -> Trial {
    toolchain::gated_trial(name, tools, move || {
        test();
        Ok(())
    })
}

fn everything() -> Vec<Tool> {
    vec![Tool::other(
        "SENSE_MCP_EVERYTHING",
        MCP_HINT,
        configured("SENSE_MCP_EVERYTHING").is_some(),
    )]
}

fn python_only() -> Vec<Tool> {
    vec![Tool::other(
        "python3",
        "apt-get install python3",
        python3().is_some(),
    )]
}

fn main() {
    let mut trials = vec![
        gated(
            "everything_over_http_through_ask_with_tools",
            everything,
            everything_over_http_through_ask_with_tools,
        ),
        gated(
            "everything_over_http_slow_call_times_out",
            everything,
            everything_over_http_slow_call_times_out,
        ),
        gated(
            "everything_over_http_crash_is_a_clean_error",
            everything,
            everything_over_http_crash_is_a_clean_error,
        ),
        gated(
            "everything_over_http_reconnects_after_resume",
            everything,
            everything_over_http_reconnects_after_resume,
        ),
        gated(
            "headers_session_token_and_server_pings",
            python_only,
            headers_session_token_and_server_pings,
        ),
        gated(
            "a_missing_or_wrong_token_is_refused",
            python_only,
            a_missing_or_wrong_token_is_refused,
        ),
        gated(
            "an_ended_session_is_renewed_once",
            python_only,
            an_ended_session_is_renewed_once,
        ),
        gated(
            "a_busy_stream_cannot_extend_a_call",
            python_only,
            a_busy_stream_cannot_extend_a_call,
        ),
    ];
    trials.extend(sense_testkit::trials! {
        plain: remote_argument_errors;
        per_store: ;
    });
    sense_testkit::trials::run(trials);
}
