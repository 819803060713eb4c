//! `sense serve` over HTTP, on SQLite and on PostgreSQL: the instance
//! lifecycle, exactly-once answers under concurrency (within one process
//! and across two on one store), messages, long polling, pause, delete,
//! audit, program versions, and the HTTP limits and access checks.
//!
//! A test that runs on both stores is two trials, `NAME::sqlite` and
//! `NAME::postgres`; without a server (`SENSE_TEST_POSTGRES_URL`) the
//! second is reported as ignored with the reason, and fails under
//! `SENSE_TEST_ALL=1` (see `sense_testkit::trials`).

use sense_testkit::serve::{Service, TempDir, call, create, id_of, raw, resume, setup, store};
use sense_testkit::trials::StoreKind;
use serde_json::{Value as Json, json};
use std::io::Write;
use std::time::{Duration, Instant};

const PROGRAM: &str = r#"
agent interviewer:
    answers = []
    def ask(topic, n):
        return ask_human("(" + str(n) + "/3) " + topic + "?")
    def collect(topics):
        i = 1
        for topic in topics:
            push(answers, topic + "=" + str(ask(topic, i)))
            i = i + 1
    collect(["name", "years", "ready"])
    print("summary:", answers)

agent listener:
    got = []
    while len(got) < 2:
        push(got, receive())
    print("messages:", got)

agent spinner:
    ask_human("go?")
    n = 0
    while true:
        n = n + 1
    print("never")

agent broken:
    x = ask_human("divide by?")
    print(10 / x)
"#;

/// What `sense start` + `sense resume` print for the interviewer answered
/// with `answers` (the uninterrupted run, through the CLI).
fn cli_output(dir: &TempDir, program: &std::path::Path, answers: &[&str]) -> String {
    let bin = env!("CARGO_BIN_EXE_sense");
    let state = dir.0.join("cli.state");
    let mut text = String::new();
    let out = std::process::Command::new(bin)
        .args(["start"])
        .arg(program)
        .args(["interviewer", "--state"])
        .arg(&state)
        .output()
        .unwrap();
    assert!(out.status.success());
    for a in answers {
        let out = std::process::Command::new(bin)
            .arg("resume")
            .arg(&state)
            .arg(a)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        text = String::from_utf8(out.stdout).unwrap();
    }
    // The last resume prints the program's output, then `completed`.
    text.trim_end_matches("completed\n").to_string()
}

fn answers_run_the_agent_to_the_uninterrupted_result(kind: StoreKind) {
    let dir = TempDir::new("lifecycle");
    let program = dir.write("flow.sns", PROGRAM);
    let expected = cli_output(&dir, &program, &["\"Ada\"", "3", "true"]);
    assert_eq!(expected, "summary: [name=Ada, years=3, ready=true]\n");
    let store = store(kind, &dir);
    let svc = serve(&program, &store.url, &[]);
    let first = create(&svc, "interviewer");
    assert_eq!(first["status"], "paused", "{}: {first}", store.name);
    assert_eq!(first["pause_reason"], "(1/3) name?");
    assert_eq!(first["pause_kind"], "ask_human");
    assert_eq!(first["version"], 1);
    let id = id_of(&first);
    // The call stack and locals, as `sense show` lists them.
    let (_, detail) = svc.call("GET", &format!("/api/instances/{id}"), None);
    let me = detail["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["subject"] == true)
        .unwrap();
    let functions: Vec<&str> = me["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["function"].as_str().unwrap())
        .collect();
    assert_eq!(functions, ["ask", "collect", "interviewer"], "{detail}");
    assert_eq!(me["frames"][0]["locals"]["topic"], "name");
    let mut version = 1;
    for (answer, next) in [
        (json!("Ada"), Some("(2/3) years?")),
        (json!(3), Some("(3/3) ready?")),
        (json!(true), None),
    ] {
        let (status, body) = resume(&svc, &id, answer, Some(version));
        assert_eq!(status, 200, "{}: {body}", store.name);
        version += 1;
        assert_eq!(body["version"], version);
        match next {
            Some(q) => assert_eq!(body["pause_reason"], q),
            None => {
                assert_eq!(body["status"], "completed");
                assert_eq!(body["output"], expected.as_str(), "{}", store.name);
            }
        }
    }
    // Finished instances cannot be answered again.
    let (status, body) = resume(&svc, &id, json!("again"), None);
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["current"]["status"], "completed");
    let (_, audit) = svc.call("GET", &format!("/api/instances/{id}/audit"), None);
    let kinds: Vec<&str> = audit["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["created", "resumed", "resumed", "resumed"],
        "{}",
        store.name
    );
    assert_eq!(audit["events"][1]["detail"]["value"], "Ada");
    // A failing agent is stored as failed, with its error.
    let b = create(&svc, "broken");
    let (status, body) = resume(&svc, &id_of(&b), json!(0), None);
    assert_eq!(status, 200);
    assert_eq!(body["status"], "failed");
    assert!(
        body["error"].as_str().unwrap().contains("division"),
        "{body}"
    );
    // An unknown agent is a 404 and stores nothing.
    let (status, _) = svc.call("POST", "/api/instances", Some(json!({"agent": "nobody"})));
    assert_eq!(status, 404);
    let (_, list) = svc.call("GET", "/api/instances?status=all", None);
    assert_eq!(list["instances"].as_array().unwrap().len(), 2);
}

fn a_stale_version_is_409_and_changes_nothing(kind: StoreKind) {
    let fx = setup("stale", kind, "flow.sns", PROGRAM);
    let svc = serve(&fx.program, &fx.store.url, &[]);
    let id = id_of(&create(&svc, "interviewer"));
    assert_eq!(resume(&svc, &id, json!("Ada"), Some(1)).0, 200);
    let (status, body) = resume(&svc, &id, json!("Bob"), Some(1));
    assert_eq!(status, 409, "{}: {body}", fx.store.name);
    assert_eq!(body["error"]["class"], "VersionConflict");
    assert_eq!(body["current"]["version"], 2);
    assert_eq!(body["current"]["pause_reason"], "(2/3) years?");
    let (_, audit) = svc.call("GET", &format!("/api/instances/{id}/audit"), None);
    assert_eq!(audit["events"].as_array().unwrap().len(), 2, "{audit}");
}

/// Six clients answer the same question (the same version) at once,
/// through two processes on one store: exactly one answer is applied per
/// round, the others get 409 and change nothing.
fn concurrent_answers_through_two_processes_apply_once(kind: StoreKind) {
    let fx = setup("concurrent", kind, "flow.sns", PROGRAM);
    let a = serve(&fx.program, &fx.store.url, &[]);
    let b = serve(&fx.program, &fx.store.url, &[]);
    let id = id_of(&create(&a, "interviewer"));
    let ports = [a.port, b.port];
    for round in 0..3 {
        let threads: Vec<_> = (0..6)
            .map(|t| {
                let (port, id) = (ports[t % 2], id.clone());
                std::thread::spawn(move || {
                    let req = json!({"value": format!("r{round}t{t}"), "version": round + 1});
                    call(
                        port,
                        "POST",
                        &format!("/api/instances/{id}/resume"),
                        Some(req),
                    )
                    .unwrap()
                })
            })
            .collect();
        let results: Vec<(u16, Json)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let ok = results.iter().filter(|(s, _)| *s == 200).count();
        let conflicts = results.iter().filter(|(s, _)| *s == 409).count();
        assert_eq!(
            (ok, conflicts),
            (1, 5),
            "{}: round {round}: {results:?}",
            fx.store.name
        );
    }
    let (_, body) = a.call("GET", &format!("/api/instances/{id}"), None);
    assert_eq!(body["status"], "completed");
    assert_eq!(body["version"], 4);
    let (_, audit) = b.call("GET", &format!("/api/instances/{id}/audit"), None);
    let applied: Vec<String> = audit["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "resumed")
        .map(|e| e["detail"]["value"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(applied.len(), 3, "{audit}");
    // The output holds exactly the three answers that were applied.
    let summary = format!(
        "summary: [name={}, years={}, ready={}]\n",
        applied[0], applied[1], applied[2]
    );
    assert_eq!(body["output"], summary.as_str(), "{}", fx.store.name);
}

/// A message wakes an agent waiting in `receive()`; a long poll on one
/// process answers when another process changed the instance.
fn messages_wake_waiting_agents_and_long_polls_see_other_processes(kind: StoreKind) {
    let fx = setup("messages", kind, "flow.sns", PROGRAM);
    let a = serve(&fx.program, &fx.store.url, &[]);
    let b = serve(&fx.program, &fx.store.url, &[]);
    let first = create(&a, "listener");
    assert_eq!(first["pause_kind"], "message", "{first}");
    let id = id_of(&first);
    let (port, wid) = (a.port, id.clone());
    let waiting = std::thread::spawn(move || {
        let t = Instant::now();
        let r = call(
            port,
            "GET",
            &format!("/api/instances/{wid}/wait?version=1&timeout=20"),
            None,
        );
        (r.unwrap(), t.elapsed())
    });
    std::thread::sleep(Duration::from_millis(300));
    let (status, body) = b.call(
        "POST",
        &format!("/api/instances/{id}/messages"),
        Some(json!({"value": "one"})),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "paused");
    assert_eq!(body["version"], 2);
    let ((status, woke), took) = waiting.join().unwrap();
    assert_eq!(status, 200);
    assert_eq!(woke["changed"], true, "{}: {woke}", fx.store.name);
    assert_eq!(woke["version"], 2);
    assert!(took < Duration::from_secs(5), "long poll took {took:?}");
    let (_, body) = a.call(
        "POST",
        &format!("/api/instances/{id}/messages"),
        Some(json!({"value": [2, "two"]})),
    );
    assert_eq!(body["status"], "completed", "{body}");
    assert_eq!(body["output"], "messages: [one, [2, two]]\n");
    // A long poll with nothing happening ends at its timeout, unchanged.
    let other = id_of(&create(&b, "interviewer"));
    let t = Instant::now();
    let (status, body) = a.call(
        "GET",
        &format!("/api/instances/{other}/wait?version=1&timeout=0.5"),
        None,
    );
    assert_eq!((status, &body["changed"]), (200, &json!(false)));
    assert!(t.elapsed() >= Duration::from_millis(450));
}

/// `POST …/pause` stops an agent that is running right now — through the
/// process running it, or through another process of the fleet.
fn pause_stops_a_running_agent_from_any_process(kind: StoreKind) {
    let fx = setup("pause", kind, "flow.sns", PROGRAM);
    let a = serve(&fx.program, &fx.store.url, &["--max-steps", "100000000000"]);
    let b = serve(&fx.program, &fx.store.url, &[]);
    for via in [a.port, b.port] {
        let id = id_of(&create(&a, "spinner"));
        let (port, rid) = (a.port, id.clone());
        let running = std::thread::spawn(move || {
            call(
                port,
                "POST",
                &format!("/api/instances/{rid}/resume"),
                Some(json!({"value": "go"})),
            )
            .unwrap()
        });
        std::thread::sleep(Duration::from_millis(500));
        let (status, body) =
            call(via, "POST", &format!("/api/instances/{id}/pause"), None).unwrap();
        assert_eq!(status, 200, "{body}");
        let t = Instant::now();
        let (status, body) = running.join().unwrap();
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["status"], "paused", "{}: {body}", fx.store.name);
        assert_eq!(body["pause_kind"], "host");
        assert_eq!(body["pause_requested"], false);
        assert!(t.elapsed() < Duration::from_secs(10));
        // It continues from where it stopped when resumed.
        let (_, detail) = a.call("GET", &format!("/api/instances/{id}"), None);
        let n = &detail["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["subject"] == true)
            .unwrap()["frames"][0]["locals"]["n"];
        assert!(n.as_i64().unwrap() > 0, "{detail}");
    }
}

fn delete_and_listing(kind: StoreKind) {
    let fx = setup("delete", kind, "flow.sns", PROGRAM);
    let svc = serve(&fx.program, &fx.store.url, &[]);
    let ids: Vec<String> = (0..5)
        .map(|_| id_of(&create(&svc, "interviewer")))
        .collect();
    assert_eq!(resume(&svc, &ids[0], json!(0), None).0, 200);
    let (status, _) = svc.call(
        "DELETE",
        &format!("/api/instances/{}?version=1", ids[0]),
        None,
    );
    assert_eq!(status, 409, "a stale delete is refused");
    let (status, _) = svc.call(
        "DELETE",
        &format!("/api/instances/{}?version=2", ids[0]),
        None,
    );
    assert_eq!(status, 200);
    assert_eq!(
        svc.call("GET", &format!("/api/instances/{}", ids[0]), None)
            .0,
        404
    );
    let (_, audit) = svc.call("GET", &format!("/api/instances/{}/audit", ids[0]), None);
    assert_eq!(
        audit["events"].as_array().unwrap().last().unwrap()["event"],
        "deleted"
    );
    // Pages of two, paused only.
    let mut seen = Vec::new();
    let mut after = 0;
    loop {
        let (_, page) = svc.call(
            "GET",
            &format!("/api/instances?status=paused&limit=2&after={after}"),
            None,
        );
        for i in page["instances"].as_array().unwrap() {
            seen.push(id_of(i));
        }
        match page["next"].as_i64() {
            Some(n) => after = n,
            None => break,
        }
    }
    assert_eq!(seen, ids[1..], "{}", fx.store.name);
    assert_eq!(svc.call("GET", "/api/instances?status=bogus", None).0, 400);
}

/// Restarting with a changed program: old instances keep their source,
/// stay resumable, and say so.
fn a_changed_program_leaves_old_instances_resumable() {
    let dir = TempDir::new("versions");
    let program = dir.write("flow.sns", PROGRAM);
    let url = format!("sqlite:{}", dir.0.join("v.db").display());
    let mut svc = serve(&program, &url, &[]);
    let old = id_of(&create(&svc, "interviewer"));
    svc.kill();
    dir.write("flow.sns", &PROGRAM.replace("summary:", "SUMMARY v2:"));
    let svc = serve(&program, &url, &[]);
    let (_, body) = svc.call("GET", &format!("/api/instances/{old}"), None);
    assert_eq!(body["program"]["current"], false, "{body}");
    assert!(
        body["program"]["note"]
            .as_str()
            .unwrap()
            .contains("resumable")
    );
    let new = id_of(&create(&svc, "interviewer"));
    for v in ["a", "b", "c"] {
        resume(&svc, &old, json!(v), None);
        resume(&svc, &new, json!(v), None);
    }
    let (_, o) = svc.call("GET", &format!("/api/instances/{old}"), None);
    let (_, n) = svc.call("GET", &format!("/api/instances/{new}"), None);
    assert_eq!(o["output"], "summary: [name=a, years=b, ready=c]\n");
    assert_eq!(n["output"], "SUMMARY v2: [name=a, years=b, ready=c]\n");
    assert_eq!(n["program"]["current"], true);
}

fn http_limits_and_access_checks() {
    let dir = TempDir::new("http");
    let program = dir.write("flow.sns", PROGRAM);
    let url = format!("sqlite:{}", dir.0.join("h.db").display());
    // Listening beyond loopback needs a token.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sense"))
        .arg("serve")
        .arg(&program)
        .args(["--store", &url, "--listen", "0.0.0.0", "--port", "0"])
        .env_remove("SENSE_SERVE_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("requires a token"));
    let svc = serve(&program, &url, &["--token", "s3cret"]);
    let p = svc.port;
    let (status, _) = call(p, "GET", "/api/instances", None).unwrap();
    assert_eq!(status, 401);
    let authed = |method: &str, path: &str, extra: &str, body: &str| {
        raw(
            p,
            &format!(
                "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer s3cret\r\n{extra}Content-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
        .unwrap()
    };
    assert_eq!(authed("GET", "/api/instances", "", "").0, 200);
    assert_eq!(authed("GET", "/api/instances", "", "").0, 200);
    let json_type = "Content-Type: application/json\r\n";
    let big = format!("{{\"value\": \"{}\"}}", "x".repeat(300 * 1024));
    assert_eq!(authed("POST", "/api/instances", json_type, &big).0, 413);
    assert_eq!(
        authed("POST", "/api/instances", json_type, "{not json").0,
        400
    );
    assert_eq!(authed("POST", "/api/instances", json_type, "[1]").0, 400);
    assert_eq!(
        authed(
            "POST",
            "/api/instances",
            "Content-Type: text/plain\r\n",
            "{}"
        )
        .0,
        415
    );
    assert_eq!(authed("POST", "/api/instances", json_type, "{}").0, 400);
    assert_eq!(authed("GET", "/api/nothing", "", "").0, 404);
    assert_eq!(authed("PUT", "/api/instances/x/resume", "", "").0, 405);
    let long = format!("/api/instances/{}", "a".repeat(10_000));
    assert_eq!(authed("GET", &long, "", "").0, 414);
    let id = id_of(
        &authed(
            "POST",
            "/api/instances",
            json_type,
            r#"{"agent": "interviewer"}"#,
        )
        .1,
    );
    // A value nested too deeply is refused (a JSON object is a Map since
    // issue 23, so it no longer is).
    let deep = format!(r#"{{"value": {}1{}}}"#, "[".repeat(70), "]".repeat(70));
    let (status, body) = authed(
        "POST",
        &format!("/api/instances/{id}/resume"),
        json_type,
        &deep,
    );
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["class"], "BadValue");
    // Without a token, on loopback: another site's Host or Origin is refused.
    let open = serve(&program, &url, &[]);
    let q = open.port;
    let (status, _) = raw(
        q,
        "GET /api/info HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    assert_eq!(status, 403);
    let (status, _) = raw(
        q,
        &format!("POST /api/instances HTTP/1.1\r\nHost: 127.0.0.1:{q}\r\nOrigin: http://evil.example\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"),
    )
    .unwrap();
    assert_eq!(status, 403);
    // The console page and its script are served to anyone on loopback.
    for path in ["/", "/console.js"] {
        let (status, _) = raw(
            q,
            &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{q}\r\nConnection: close\r\n\r\n"),
        )
        .unwrap();
        assert_eq!(status, 200, "{path}");
    }
    let (status, info) = call(q, "GET", "/api/info", None).unwrap();
    assert_eq!(status, 200);
    assert_eq!(info["program"]["name"], program.display().to_string());
}

/// A client that sends its head and stalls in the body (or never reads
/// the answer) holds up nobody, even with a single worker.
fn a_stalled_client_does_not_block_the_others() {
    let dir = TempDir::new("stall");
    let program = dir.write("flow.sns", PROGRAM);
    let url = format!("sqlite:{}", dir.0.join("s.db").display());
    let svc = serve(&program, &url, &["--workers", "1"]);
    let mut stalled = Vec::new();
    for _ in 0..5 {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", svc.port)).unwrap();
        write!(
            s,
            "POST /api/instances HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"agent\"",
            svc.port
        )
        .unwrap();
        stalled.push(s);
        // And one that sends half a head.
        let mut h = std::net::TcpStream::connect(("127.0.0.1", svc.port)).unwrap();
        write!(h, "GET /api/inst").unwrap();
        stalled.push(h);
    }
    std::thread::sleep(Duration::from_millis(200));
    let stalled_at = Instant::now();
    for _ in 0..5 {
        let t = Instant::now();
        let body = create(&svc, "interviewer");
        assert_eq!(body["status"], "paused");
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "took {:?}",
            t.elapsed()
        );
    }
    // The stalled body is cut off with 408 after the body deadline (10 s),
    // and the half head's connection is closed.
    let mut answer = String::new();
    let first = &mut stalled[0];
    first
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    std::io::Read::read_to_string(first, &mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    let waited = stalled_at.elapsed();
    assert!(
        waited > Duration::from_secs(8) && waited < Duration::from_secs(19),
        "{waited:?}"
    );
    let half = &mut stalled[1];
    half.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut rest = Vec::new();
    let closed = std::io::Read::read_to_end(half, &mut rest);
    assert!(
        closed.is_ok(),
        "the half head's connection was not closed: {closed:?}"
    );
}

/// `kill -9` in the middle of a resume leaves the instance at its last
/// committed state, answerable by the next process.
fn a_process_killed_mid_resume_leaves_the_last_committed_state(kind: StoreKind) {
    let fx = setup("killed", kind, "flow.sns", PROGRAM);
    // A short lease: the killed run's claim on the step runs out quickly
    // (see tests/serve_steps.rs for the wait itself).
    let mut a = serve(
        &fx.program,
        &fx.store.url,
        &["--max-steps", "100000000000", "--lease", "0.2"],
    );
    let id = id_of(&create(&a, "spinner"));
    let (port, rid) = (a.port, id.clone());
    let running = std::thread::spawn(move || {
        call(
            port,
            "POST",
            &format!("/api/instances/{rid}/resume"),
            Some(json!({"value": "go"})),
        )
    });
    std::thread::sleep(Duration::from_millis(500));
    a.kill();
    assert!(
        running.join().unwrap().is_err(),
        "the killed process answered"
    );
    std::thread::sleep(Duration::from_millis(300));
    let b = serve(&fx.program, &fx.store.url, &[]);
    let (_, body) = b.call("GET", &format!("/api/instances/{id}"), None);
    assert_eq!(body["version"], 1, "{}: {body}", fx.store.name);
    assert_eq!(body["status"], "paused");
    assert_eq!(body["pause_reason"], "go?");
    let (_, audit) = b.call("GET", &format!("/api/instances/{id}/audit"), None);
    assert_eq!(audit["events"].as_array().unwrap().len(), 1, "{audit}");
    // Still answerable; a pause request made while it waits is
    // honoured as soon as it runs again.
    let (status, _) = b.call("POST", &format!("/api/instances/{id}/pause"), None);
    assert_eq!(status, 200);
    let (status, body) = resume(&b, &id, json!("go"), Some(1));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["pause_kind"], "host", "{}: {body}", fx.store.name);
    assert_eq!(body["version"], 2);
}

fn the_default_store_is_a_file_beside_the_program_and_bad_urls_fail_clearly() {
    let dir = TempDir::new("default-store");
    let program = dir.write("flow.sns", PROGRAM);
    let bin = env!("CARGO_BIN_EXE_sense");
    let mut child = std::process::Command::new(bin)
        .arg("serve")
        .arg(&program)
        .args(["--port", "0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.contains("store sqlite:"), "{line}");
    assert!(dir.0.join("flow.sns.db").is_file(), "{line}");
    for (url, says) in [
        ("mysql://x/y", "bad store URL"),
        (
            "postgres://u@127.0.0.1:1/x?connect_timeout=2",
            "cannot open the store",
        ),
    ] {
        let out = std::process::Command::new(bin)
            .arg("serve")
            .arg(&program)
            .args(["--store", url, "--port", "0"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{url}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{url}: {err}");
    }
    let out = std::process::Command::new(bin)
        .args(["serve", "/nonexistent/flow.sns", "--port", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
}

/// A run that does not pause within the step budget is paused (kind
/// `budget`) instead of holding a worker, and continues when resumed.
fn a_runaway_agent_pauses_on_its_step_budget() {
    let dir = TempDir::new("budget");
    let program = dir.write("flow.sns", PROGRAM);
    let url = format!("sqlite:{}", dir.0.join("b.db").display());
    let svc = serve(&program, &url, &["--max-steps", "5000"]);
    let id = id_of(&create(&svc, "spinner"));
    let mut last_n = 0;
    for version in 1..4 {
        let (status, body) = resume(&svc, &id, json!("go"), Some(version));
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["pause_kind"], "budget", "{body}");
        let (_, detail) = svc.call("GET", &format!("/api/instances/{id}"), None);
        let me = detail["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["subject"] == true)
            .unwrap()
            .clone();
        let n = me["frames"][0]["locals"]["n"].as_i64().unwrap();
        assert!(
            n > last_n,
            "the loop goes on from where it stopped: {n} after {last_n}"
        );
        last_n = n;
    }
}

/// Server-sent events: the state now, then every change — also changes
/// made through another process — and the stream ends when the instance
/// completes.
fn event_streams_report_every_change_until_the_end(kind: StoreKind) {
    let fx = setup("events", kind, "flow.sns", PROGRAM);
    let a = serve(&fx.program, &fx.store.url, &[]);
    let b = serve(&fx.program, &fx.store.url, &[]);
    let id = id_of(&create(&a, "interviewer"));
    let mut s = std::net::TcpStream::connect(("127.0.0.1", a.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
            s,
            "GET /api/instances/{id}/events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            a.port
        )
        .unwrap();
    let mut reader = std::io::BufReader::new(s);
    let mut next_state = || -> Json {
        let mut line = String::new();
        loop {
            line.clear();
            let n = std::io::BufRead::read_line(&mut reader, &mut line).unwrap();
            assert!(n > 0, "the stream ended early");
            if let Some(data) = line.strip_prefix("data: ") {
                return serde_json::from_str(data.trim_end()).unwrap();
            }
        }
    };
    let first = next_state();
    assert_eq!(
        (first["version"].as_i64(), first["status"].as_str()),
        (Some(1), Some("paused"))
    );
    for (v, answer) in [(1, "Ada"), (2, "3"), (3, "yes")] {
        let (status, _) = resume(&b, &id, json!(answer), Some(v));
        assert_eq!(status, 200);
        let state = next_state();
        assert_eq!(state["version"], v + 1, "{}: {state}", fx.store.name);
    }
    // The last state was `completed`: the stream is over.
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(reader.get_mut(), &mut rest);
    assert!(!rest.contains("data: "), "{rest:?}");
}

/// `sense serve PROGRAM --store STORE --port 0 EXTRA…`, this crate's binary.
/// The data issue under the service (issue 23): an agent that pauses
/// inside `try`, inside `except` and inside `finally`, answered through
/// the API (each answer restores the instance from the store in a fresh
/// runtime), with a Map for an answer and JSON it parses.
const DATA_PROGRAM: &str = r#"
import json

agent handler:
    seen = {}
    try:
        seen["first"] = ask_human("a JSON object, please")
        parsed = json.loads(seen["first"])
        seen["count"] = len(parsed)
    except SenseRuntimeError as e:
        seen["error"] = e.class
        seen["retry"] = ask_human(f"not JSON ({e.message}); a map then?")
    finally:
        seen["done"] = ask_human("anything to add?")
    print("keys:", seen.keys())
    print("retry has b:", "b" in seen.get("retry", {}))
"#;

fn pauses_inside_try_except_finally_under_the_service(kind: StoreKind) {
    let fx = setup("data", kind, "data.sns", DATA_PROGRAM);
    let svc = serve(&fx.program, &fx.store.url, &[]);
    let first = create(&svc, "handler");
    assert_eq!(first["pause_reason"], "a JSON object, please", "{first}");
    let id = id_of(&first);
    let (status, body) = resume(&svc, &id, json!("not json"), None);
    assert_eq!(status, 200, "{}: {body}", fx.store.name);
    let reason = body["pause_reason"].as_str().unwrap_or_default();
    assert!(reason.starts_with("not JSON ("), "{body}");
    // A JSON object in the request arrives as a Map.
    let (status, body) = resume(&svc, &id, json!({"a": 1, "b": [2, 3]}), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["pause_reason"], "anything to add?", "{body}");
    let (status, body) = resume(&svc, &id, json!("no"), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "completed", "{body}");
    assert_eq!(
        body["output"], "keys: [first, error, retry, done]\nretry has b: true\n",
        "{}",
        fx.store.name
    );
}

fn serve(program: &std::path::Path, store: &str, extra: &[&str]) -> Service {
    Service::start(env!("CARGO_BIN_EXE_sense"), program, store, extra)
}

fn main() {
    sense_testkit::trials::run(sense_testkit::trials! {
        plain:
            a_changed_program_leaves_old_instances_resumable,
            http_limits_and_access_checks,
            a_stalled_client_does_not_block_the_others,
            the_default_store_is_a_file_beside_the_program_and_bad_urls_fail_clearly,
            a_runaway_agent_pauses_on_its_step_budget;
        per_store:
            answers_run_the_agent_to_the_uninterrupted_result,
            a_stale_version_is_409_and_changes_nothing,
            concurrent_answers_through_two_processes_apply_once,
            messages_wake_waiting_agents_and_long_polls_see_other_processes,
            pause_stops_a_running_agent_from_any_process,
            delete_and_listing,
            a_process_killed_mid_resume_leaves_the_last_committed_state,
            event_streams_report_every_change_until_the_end,
            pauses_inside_try_except_finally_under_the_service;
    });
}
