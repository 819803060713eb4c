//! The `sense inspect` JSON API, driven over real HTTP against the real
//! binary: the state's shape, answering a paused agent until it completes,
//! calling tools (a policy denial comes back as 4xx JSON), a whole action
//! lifecycle with the audit log growing, malformed requests that get 4xx
//! while the server keeps working, and `--state` mode writing the state
//! file back so `sense resume` / `sense show` see the console's changes.

use sense_testkit::inspect_server::Server;

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const DEMO: &str = "tests/browser/demo.sns";

/// One HTTP/1.1 exchange: status, lower-cased headers, body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn raw(port: u16, request: &[u8]) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    s.write_all(request).expect("send");
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).expect("read the answer");
    let text = String::from_utf8(bytes).expect("utf-8 answer");
    let (head, body) = text.split_once("\r\n\r\n").expect("a header block");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .expect("a status line");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

fn request(port: u16, method: &str, path: &str, extra: &[(&str, &str)], body: &str) -> Answer {
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (n, v) in extra {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    raw(port, req.as_bytes())
}

fn get(port: u16, path: &str) -> Answer {
    request(port, "GET", path, &[], "")
}

fn post(port: u16, path: &str, body: Value) -> Answer {
    request(
        port,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        &body.to_string(),
    )
}

fn state(port: u16) -> Value {
    let a = get(port, "/api/state");
    assert_eq!(a.status, 200, "{}", a.body);
    a.json()
}

fn agent<'a>(state: &'a Value, name: &str) -> &'a Value {
    state["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("no agent {name} in {state}"))
}

fn audit_texts(port: u16) -> Vec<String> {
    let a = get(port, "/api/audit");
    assert_eq!(a.status, 200);
    a.json()
        .as_array()
        .expect("audit array")
        .iter()
        .map(|e| e["text"].as_str().expect("text").to_string())
        .collect()
}

fn output(port: u16) -> String {
    get(port, "/api/output").json()["text"]
        .as_str()
        .expect("output text")
        .to_string()
}

/// An error answer: status and class, with a message and a rendering.
/// An error answer's message (empty when it has none).
fn message(e: &Value) -> &str {
    e["error"]["message"].as_str().unwrap_or_default()
}

fn assert_error(a: &Answer, status: u16, class: &str) -> Value {
    assert_eq!(a.status, status, "{}", a.body);
    let v = a.json();
    assert_eq!(v["error"]["class"], class, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
    assert!(
        v["error"]["rendered"]
            .as_str()
            .is_some_and(|r| r.starts_with(class))
    );
    v
}

fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("sense-inspect-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

fn sense(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_sense"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("sense runs");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn page_and_state_shape() {
    let s = inspect(&[DEMO]);
    let page = get(s.port, "/");
    assert_eq!(page.status, 200);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    assert!(page.body.contains("Sense inspector"));
    for asset in ["/app.js", "/app.css"] {
        assert_eq!(get(s.port, asset).status, 200, "{asset}");
    }

    let st = state(s.port);
    for key in [
        "program", "agents", "tools", "actions", "audit", "memories", "output",
    ] {
        assert!(st.get(key).is_some(), "state has {key}: {st}");
    }
    assert_eq!(st["program"]["mode"], "file");
    assert_eq!(st["program"]["path"], DEMO);
    assert_eq!(st["program"]["error"], Value::Null);

    let a = agent(&st, "interviewer");
    assert_eq!(a["status"], "paused");
    assert_eq!(a["pause_kind"], "ask_human");
    assert_eq!(a["pause_reason"]["text"], "(1/2) who is releasing?");
    assert_eq!(a["pause_reason"]["literal"], "\"(1/2) who is releasing?\"");
    let frames = a["frames"].as_array().unwrap();
    assert_eq!(frames[0]["function"], "ask");
    assert_eq!(frames[0]["file"], DEMO);
    assert!(frames[0]["line"].as_u64().unwrap() > 0);
    assert_eq!(frames[1]["function"], "interviewer");
    let topic = frames[0]["locals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "topic")
        .expect("local 'topic'");
    assert_eq!(topic["value"]["literal"], "\"who is releasing\"");
    assert_eq!(agent(&st, "nightly")["status"], "created");

    let tools = st["tools"].as_array().unwrap();
    let health = tools.iter().find(|t| t["name"] == "health").unwrap();
    assert_eq!(
        health["params"],
        json!([{"name": "host", "type": "String"}])
    );
    assert_eq!(health["returns"], "Bool");
    assert_eq!(health["capability"], "ops.read");
    assert_eq!(health["policy"], "allowed");
    assert_eq!(health["description"], "Checks that one host answers.");
    let fetch = tools.iter().find(|t| t["name"] == "fetch").unwrap();
    assert_eq!(fetch["policy"], "denied");

    let decls = st["actions"]["declarations"].as_array().unwrap();
    let deploy = decls.iter().find(|d| d["name"] == "deploy").unwrap();
    assert_eq!(deploy["kind"], "reversible");
    assert_eq!(deploy["approval"], true);
    assert_eq!(deploy["rollback"], true);
    assert_eq!(deploy["policy"], "allowed");
    assert_eq!(st["actions"]["instances"], json!([]));

    let notes = &st["memories"][0];
    assert_eq!(notes["name"], "notes");
    assert_eq!(notes["hint"], "release notes");
    assert_eq!(notes["entries"][0]["key"], "owner");
    assert_eq!(notes["entries"][0]["value"]["literal"], "\"Ada\"");
    assert_eq!(st["audit"], json!([]));
    assert_eq!(
        st["output"]["text"],
        "interviewer is paused: (1/2) who is releasing?\n"
    );

    let serial = a["serial"].as_u64().unwrap();
    let one = get(s.port, &format!("/api/agents/{serial}")).json();
    assert_eq!(one["name"], "interviewer");
    s.stop();
}

#[test]
fn answering_a_paused_agent_until_it_completes() {
    let s = inspect(&[DEMO]);
    let st = state(s.port);
    let serial = agent(&st, "interviewer")["serial"].as_u64().unwrap();
    let resume = format!("/api/agents/{serial}/resume");

    let a = post(s.port, &resume, json!({"value": "\"Ada\""}));
    assert_eq!(a.status, 200, "{}", a.body);
    let v = a.json();
    assert_eq!(v["ok"], true);
    assert_eq!(v["agent"]["status"], "paused");
    assert_eq!(v["agent"]["pause_reason"]["text"], "(2/2) which version?");
    assert_eq!(
        agent(&v["state"], "interviewer")["frames"][1]["locals"][0]["value"]["literal"],
        "[\"Ada\"]",
        "the state after the step comes with the answer"
    );

    // A bad literal is refused and changes nothing.
    let bad = post(s.port, &resume, json!({"value": "v2"}));
    let e = assert_error(&bad, 400, "SenseError");
    assert!(message(&e).contains("Sense literal"), "{e}");
    assert_eq!(agent(&state(s.port), "interviewer")["status"], "paused");

    let a = post(s.port, &resume, json!({"value": "\"v2\""}));
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.json()["agent"]["status"], "completed");
    assert!(output(s.port).contains("release of v2 by Ada noted\n"));
    let st = state(s.port);
    let release = st["memories"][0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "release")
        .expect("the agent remembered the release")
        .clone();
    assert_eq!(release["value"]["literal"], "[\"Ada\", \"v2\"]");

    // Resuming a completed agent is a conflict, reported by Sense.
    let again = post(s.port, &resume, json!({"value": "1"}));
    let e = assert_error(&again, 409, "SenseRuntimeError");
    assert!(message(&e).contains("not 'paused'"), "{e}");

    // Starting the created agent, then starting it again.
    let nightly = agent(&st, "nightly")["serial"].as_u64().unwrap();
    let start = format!("/api/agents/{nightly}/start");
    let a = post(s.port, &start, json!({}));
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.json()["agent"]["status"], "completed");
    assert!(output(s.port).contains("nightly job ran"));
    assert_error(&post(s.port, &start, json!({})), 409, "SenseRuntimeError");
    // Two answers and a start; the refused steps changed nothing.
    assert_eq!(state(s.port)["program"]["changes"], 3);
    s.stop();
}

#[test]
fn calling_tools_and_a_policy_denial() {
    let s = inspect(&[DEMO]);
    let a = post(
        s.port,
        "/api/tools/health/call",
        json!({"args": ["\"web-1\""]}),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.json()["result"],
        json!({"type": "Bool", "literal": "true", "text": "true"})
    );
    let a = post(
        s.port,
        "/api/tools/health/call",
        json!({"args": ["\"web-2\""]}),
    );
    assert_eq!(a.json()["result"]["literal"], "false");
    assert!(output(s.port).contains("checking web-1\nchecking web-2\n"));

    let denied = post(
        s.port,
        "/api/tools/fetch/call",
        json!({"args": ["\"https://example.invalid/\""]}),
    );
    let e = assert_error(&denied, 403, "SensePolicyError");
    assert_eq!(
        e["error"]["message"],
        "tool 'fetch' requires capability 'net.fetch', which is denied by policy"
    );
    assert!(e["state"].is_object(), "errors carry the state after them");

    let a = post(s.port, "/api/tools/add/call", json!({"args": ["2", "40"]}));
    assert_eq!(a.json()["result"]["literal"], "42");
    let arity = post(s.port, "/api/tools/add/call", json!({"args": ["2"]}));
    assert_error(&arity, 422, "SenseRuntimeError");
    let typed = post(
        s.port,
        "/api/tools/add/call",
        json!({"args": ["2", "\"x\""]}),
    );
    assert_error(&typed, 422, "SenseTypeError");
    let lit = post(s.port, "/api/tools/add/call", json!({"args": ["2", "x"]}));
    let e = assert_error(&lit, 400, "SenseError");
    assert!(message(&e).starts_with("argument 2:"), "{e}");
    assert_error(
        &post(s.port, "/api/tools/nope/call", json!({"args": []})),
        404,
        "NotFound",
    );
    assert_error(
        &post(s.port, "/api/tools/add/call", json!({"args": [1, 2]})),
        400,
        "BadRequest",
    );

    assert_eq!(
        audit_texts(s.port),
        vec![
            "tool 'health' -> called",
            "tool 'health' -> called",
            "tool 'fetch' -> denied (capability 'net.fetch' denied by policy)",
            // Arity and parameter types are checked before `called`.
            "tool 'add' -> called",
        ]
    );
    s.stop();
}

#[test]
fn a_whole_action_lifecycle_grows_the_audit_log() {
    let s = inspect(&[DEMO]);
    let prepare = |args: Value| {
        post(
            s.port,
            "/api/actions/deploy/prepare",
            json!({ "args": args }),
        )
    };
    let step = |id: u64, step: &str| {
        post(
            s.port,
            &format!("/api/actions/instances/{id}/{step}"),
            json!({}),
        )
    };

    let a = prepare(json!(["\"v3\"", "[\"web-1\"]"]));
    assert_eq!(a.status, 200, "{}", a.body);
    let inst = a.json()["instance"].clone();
    assert_eq!(inst["state"], "prepared");
    assert_eq!(inst["next"], json!(["verify", "approve"]));
    assert_eq!(inst["args"][1]["value"]["literal"], "[\"web-1\"]");
    let id = inst["id"].as_u64().unwrap();
    assert_eq!(audit_texts(s.port).len(), 1);

    // Out of order: a conflict, and the instance stays where it was.
    let e = assert_error(&step(id, "commit"), 409, "SenseRuntimeError");
    assert_eq!(e["instance"]["state"], "prepared");

    let mut audited = 1;
    for (name, state, approved) in [
        ("verify", "verified", false),
        ("approve", "verified", true),
        ("commit", "committed", true),
        ("rollback", "rolled_back", true),
    ] {
        let a = step(id, name);
        assert_eq!(a.status, 200, "{name}: {}", a.body);
        let v = a.json();
        assert_eq!(v["instance"]["state"], state, "{name}");
        assert_eq!(v["instance"]["approved"], approved, "{name}");
        let log = audit_texts(s.port);
        assert!(log.len() >= audited, "{name}: {log:?}");
        audited = log.len();
    }
    assert_eq!(
        audit_texts(s.port),
        vec![
            "reversible action 'deploy' -> prepared",
            "reversible action 'deploy' -> verified",
            "reversible action 'deploy' -> committed",
            "reversible action 'deploy' -> rolled_back",
        ]
    );
    assert!(output(s.port).contains("deployed v3 to 1 hosts\nrolling back v3\n"));

    // Commit without approval: denied by Sense, the instance is now denied.
    let id2 = prepare(json!(["\"v4\"", "[]"])).json()["instance"]["id"]
        .as_u64()
        .unwrap();
    assert_eq!(step(id2, "verify").status, 200);
    let e = assert_error(&step(id2, "commit"), 403, "SenseApprovalError");
    assert_eq!(e["instance"]["state"], "denied");
    assert!(
        audit_texts(s.port)
            .last()
            .unwrap()
            .ends_with("-> denied (requires approval)")
    );

    // The program's irreversible action has no rollback button to press.
    let ann = post(
        s.port,
        "/api/actions/announce/prepare",
        json!({"args": ["\"hi\""]}),
    )
    .json()["instance"]
        .clone();
    assert_eq!(ann["kind"], "irreversible");
    assert_error(
        &post(
            s.port,
            &format!("/api/actions/instances/{}/explode", ann["id"]),
            json!({}),
        ),
        404,
        "NotFound",
    );
    assert_error(&step(999_999, "verify"), 404, "NotFound");
    assert_error(
        &get(s.port, &format!("/api/actions/instances/{id}/verify")),
        405,
        "MethodNotAllowed",
    );
    assert_error(&prepare(json!(["1", "[]"])), 422, "SenseTypeError");
    assert_eq!(
        state(s.port)["actions"]["instances"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    s.stop();
}

#[test]
fn bad_requests_get_4xx_and_the_server_keeps_working() {
    let s = inspect(&[DEMO]);
    let serial = agent(&state(s.port), "interviewer")["serial"]
        .as_u64()
        .unwrap();
    let resume = format!("/api/agents/{serial}/resume");
    let json_type = [("Content-Type", "application/json")];

    assert_error(
        &request(s.port, "POST", &resume, &json_type, "{\"value\": "),
        400,
        "BadRequest",
    );
    assert_error(
        &request(s.port, "POST", &resume, &json_type, "[1, 2]"),
        400,
        "BadRequest",
    );
    assert_error(
        &post(s.port, &resume, json!({"value": 42})),
        400,
        "BadRequest",
    );
    assert_error(
        &request(s.port, "POST", &resume, &[], "{\"value\": \"1\"}"),
        415,
        "UnsupportedMediaType",
    );
    let huge = format!("{{\"value\": \"{}\"}}", "x".repeat(200_000));
    assert_error(
        &request(s.port, "POST", &resume, &json_type, &huge),
        413,
        "PayloadTooLarge",
    );
    assert_error(
        &post(s.port, "/api/agents/424242/resume", json!({})),
        404,
        "NotFound",
    );
    assert_error(
        &post(s.port, "/api/agents/not-a-number/start", json!({})),
        404,
        "NotFound",
    );
    assert_error(&get(s.port, "/api/agents/424242"), 404, "NotFound");
    assert_error(&get(s.port, "/api/nothing/here"), 404, "NotFound");
    assert_error(&get(s.port, "/api/tools/%zz/call"), 400, "BadRequest");
    let wrong = post(s.port, "/api/state", json!({}));
    assert_error(&wrong, 405, "MethodNotAllowed");
    assert_eq!(wrong.header("allow"), Some("GET"));
    let wrong = request(s.port, "DELETE", &resume, &[], "");
    assert_error(&wrong, 405, "MethodNotAllowed");
    assert_eq!(wrong.header("allow"), Some("POST"));

    // Other sites cannot drive the console (DNS rebinding, cross-site POSTs).
    let only_foreign = raw(
        s.port,
        b"GET /api/state HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
    );
    assert_error(&only_foreign, 403, "Forbidden");
    let cross = request(
        s.port,
        "POST",
        &resume,
        &[
            ("Content-Type", "application/json"),
            ("Origin", "http://evil.example"),
        ],
        "{\"value\": \"1\"}",
    );
    assert_error(&cross, 403, "Forbidden");

    // Garbage on the socket, and a client that hangs up early.
    let _ = raw_garbage(s.port, b"\x00\x01\x02 not http at all\r\n\r\n");
    if let Ok(mut c) = TcpStream::connect(("127.0.0.1", s.port)) {
        let _ = c.write_all(b"POST /api/tools/add/call HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    }

    // Still serving, and nothing changed.
    let st = state(s.port);
    assert_eq!(agent(&st, "interviewer")["status"], "paused");
    assert_eq!(st["program"]["changes"], 0);
    let a = post(s.port, &resume, json!({"value": "\"Ada\""}));
    assert_eq!(a.status, 200, "{}", a.body);

    // A client that sends its headers but stalls in its body holds the
    // console up for a few seconds at most.
    let mut stalled = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
    let head = format!(
        "POST {resume} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{{\"value\": \"",
        s.port
    );
    stalled.write_all(head.as_bytes()).expect("send headers");
    let started = std::time::Instant::now();
    assert_eq!(get(s.port, "/api/agents").status, 200);
    assert!(started.elapsed() < Duration::from_secs(30));
    drop(stalled);
    assert_eq!(get(s.port, "/api/agents").status, 200);
    s.stop();
}

/// Sends bytes that are not HTTP; returns whatever comes back.
fn raw_garbage(port: u16, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
        let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
        let _ = s.write_all(bytes);
        let _ = s.read_to_end(&mut out);
    }
    out
}

#[test]
fn a_program_that_fails_is_still_served() {
    let file = temp("fails.sns");
    std::fs::write(
        &file,
        "tool ping() \"answers\":\n    return \"pong\"\nprint(\"before\")\nx = 1 / 0\n",
    )
    .unwrap();
    let s = inspect(&[file.to_str().unwrap()]);
    let st = state(s.port);
    let err = &st["program"]["error"];
    assert_eq!(err["class"], "SenseRuntimeError", "{st}");
    assert!(err["rendered"].as_str().unwrap().contains("x = 1 / 0"));
    assert_eq!(st["output"]["text"], "before\n");
    let a = post(s.port, "/api/tools/ping/call", json!({}));
    assert_eq!(a.json()["result"]["literal"], "\"pong\"");
    s.stop();
    let _ = std::fs::remove_file(&file);
}

#[test]
fn dry_run_commits_nothing() {
    let s = inspect(&[DEMO, "--dry-run"]);
    assert_eq!(state(s.port)["program"]["dry_run"], true);
    let id = post(
        s.port,
        "/api/actions/deploy/prepare",
        json!({"args": ["\"v9\"", "[\"web-1\"]"]}),
    )
    .json()["instance"]["id"]
        .as_u64()
        .unwrap();
    for step in ["verify", "approve", "commit"] {
        let a = post(
            s.port,
            &format!("/api/actions/instances/{id}/{step}"),
            json!({}),
        );
        assert_eq!(a.status, 200, "{step}: {}", a.body);
    }
    assert!(!output(s.port).contains("deployed"));
    assert_eq!(
        audit_texts(s.port).last().unwrap(),
        "reversible action 'deploy' -> committed (dry run \u{2014} body not executed)"
    );
    s.stop();
}

#[test]
fn missing_inputs_are_reported() {
    let (ok, _, err) = sense(&["inspect", "no/such/file.sns", "--port", "0"]);
    assert!(!ok);
    assert!(
        err.contains("no such file or directory: no/such/file.sns"),
        "{err}"
    );
    let (ok, _, err) = sense(&["inspect", "--state", "no/such.state", "--port", "0"]);
    assert!(!ok);
    assert!(
        err.contains("no such file or directory: no/such.state"),
        "{err}"
    );
    let (ok, _, _) = sense(&["inspect", "--port", "0"]);
    assert!(!ok, "a FILE or --state is required");
}

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).expect("state file")
}

#[test]
fn state_mode_writes_the_state_file_back() {
    let st_path = temp("interview.state");
    let st = st_path.to_str().unwrap();
    let (ok, out, err) = sense(&[
        "start",
        "examples/interview.sns",
        "interviewer",
        "--state",
        st,
    ]);
    assert!(ok, "{err}");
    assert_eq!(out, "paused: (1/3) name?\n");

    // Answer the first question from the console.
    let s = inspect(&["--state", st]);
    let view = state(s.port);
    assert_eq!(view["program"]["mode"], "state");
    let a = agent(&view, "interviewer");
    assert_eq!(a["subject"], true);
    assert_eq!(a["pause_reason"]["text"], "(1/3) name?");
    let serial = a["serial"].as_u64().unwrap();
    let before = bytes(&st_path);
    let r = post(
        s.port,
        &format!("/api/agents/{serial}/resume"),
        json!({"value": "\"Ada\""}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_ne!(bytes(&st_path), before, "the state file was rewritten");
    assert!(!st_path.with_extension("tmp-sense-inspect").exists());
    // A request that changes nothing (a bad literal) leaves it alone.
    let after = bytes(&st_path);
    let bad = post(
        s.port,
        &format!("/api/agents/{serial}/resume"),
        json!({"value": "Ada"}),
    );
    assert_eq!(bad.status, 400);
    assert_eq!(bytes(&st_path), after);
    s.stop();

    // The CLI sees the console's answer…
    let (ok, out, _) = sense(&["show", st]);
    assert!(ok);
    assert!(out.contains("(2/3) years of experience?"), "{out}");
    let (ok, out, err) = sense(&["resume", st, "\"3\""]);
    assert!(ok, "{err}");
    assert_eq!(out, "paused: (3/3) ready to start?\n");

    // …and the console sees the CLI's; the last answer completes it.
    let s = inspect(&["--state", st]);
    let a = agent(&state(s.port), "interviewer").clone();
    assert_eq!(a["pause_reason"]["text"], "(3/3) ready to start?");
    let r = post(
        s.port,
        &format!("/api/agents/{}/resume", a["serial"]),
        json!({"value": "\"yes\""}),
    );
    assert_eq!(r.json()["agent"]["status"], "completed");
    assert!(
        output(s.port).contains("summary: [name=Ada, years of experience=3, ready to start=yes]")
    );
    s.stop();
    let (_, out, _) = sense(&["show", st]);
    assert!(out.contains("agent interviewer: completed"), "{out}");
    let _ = std::fs::remove_file(&st_path);
}

#[test]
fn state_mode_keeps_prepared_actions_across_restarts() {
    let st_path = temp("demo.state");
    let st = st_path.to_str().unwrap();
    // The demo's top level starts the interviewer; `start` runs the nightly job.
    let (ok, out, err) = sense(&["start", DEMO, "nightly", "--state", st]);
    assert!(ok, "{err}");
    assert!(out.ends_with("completed\n"), "{out}");

    let s = inspect(&["--state", st]);
    let a = post(
        s.port,
        "/api/actions/deploy/prepare",
        json!({"args": ["\"v5\"", "[\"web-1\"]"]}),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let id = a.json()["instance"]["id"].as_u64().unwrap();
    let v = post(
        s.port,
        &format!("/api/actions/instances/{id}/verify"),
        json!({}),
    );
    assert_eq!(v.status, 200);
    s.stop();

    let s = inspect(&["--state", st]);
    let view = state(s.port);
    let inst = view["actions"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == id)
        .unwrap_or_else(|| panic!("instance {id} survived the restart: {view}"))
        .clone();
    assert_eq!(inst["state"], "verified");
    assert_eq!(
        view["audit"].as_array().unwrap().len(),
        2,
        "the audit log is saved too"
    );
    for step in ["approve", "commit"] {
        let a = post(
            s.port,
            &format!("/api/actions/instances/{id}/{step}"),
            json!({}),
        );
        assert_eq!(a.status, 200, "{step}: {}", a.body);
    }
    assert!(output(s.port).contains("deployed v5 to 1 hosts"));
    assert_eq!(agent(&state(s.port), "interviewer")["status"], "paused");
    s.stop();
    let _ = std::fs::remove_file(&st_path);
}

/// `sense inspect ARGS` on a free port, run from this crate's directory.
fn inspect(args: &[&str]) -> Server {
    sense_testkit::inspect!(args)
}
