//! `sense serve`'s answers to requests found by probing it: long-poll
//! timeouts no `Duration` can hold, the `Authorization` scheme in any
//! case, two `Host` headers, a pause request for an instance still being
//! created, and integers beyond 64 bits. (The store's file modes are
//! checked in `sense-store/tests/store.rs`.) The tests that touch the
//! store run once per store, as trials `NAME::sqlite` and `NAME::postgres`
//! (see `sense_testkit::trials`).

use sense_testkit::serve::{Service, TempDir, call, create, id_of, raw, resume, setup};
use sense_testkit::trials::StoreKind;
use serde_json::{Value as Json, json};
use std::time::Duration;

const PROGRAM: &str = r#"
agent echo:
    while true:
        v = ask_human("value?")
        print(v)

agent slow_start:
    n = 0
    while true:
        n = n + 1
    ask_human("never")
"#;

fn serve(program: &std::path::Path, store: &str, extra: &[&str]) -> Service {
    Service::start(env!("CARGO_BIN_EXE_sense"), program, store, extra)
}

/// A request with the given extra header lines; its status and body.
fn with_headers(port: u16, method: &str, path: &str, headers: &str) -> (u16, Json) {
    raw(
        port,
        &format!(
            "{method} {path} HTTP/1.1\r\n{headers}Connection: close\r\nContent-Length: 0\r\n\r\n"
        ),
    )
    .unwrap_or_else(|e| panic!("{method} {path} with {headers:?}: {e}"))
}

/// The service's error shape: `{"error": {"class", "message"}}`.
fn assert_error(body: &Json, class: &str, says: &str) {
    assert_eq!(body["error"]["class"], class, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(says), "{body}");
}

fn long_poll_timeouts_out_of_range_are_400() {
    let dir = TempDir::new("wait-timeout");
    let program = dir.write("p.sns", PROGRAM);
    let url = format!("sqlite:{}", dir.0.join("w.db").display());
    let svc = serve(&program, &url, &[]);
    let id = id_of(&create(&svc, "echo"));
    for timeout in ["1e20", "-1", "NaN", "inf", "1e400", "61", "soon", ""] {
        let path = format!("/api/instances/{id}/wait?version=1&timeout={timeout}");
        let (status, body) = call(svc.port, "GET", &path, None)
            .unwrap_or_else(|e| panic!("timeout={timeout}: no answer ({e})"));
        assert_eq!(status, 400, "timeout={timeout}: {body}");
        assert_error(&body, "BadRequest", "timeout must be a number of seconds");
    }
    // In range: answered at the timeout, unchanged; the service is well.
    let path = format!("/api/instances/{id}/wait?version=1&timeout=0.2");
    let (status, body) = svc.call("GET", &path, None);
    assert_eq!((status, &body["changed"]), (200, &json!(false)), "{body}");
    let (status, body) = svc.call(
        "GET",
        &format!("/api/instances/{id}/wait?version=1&timeout=0"),
        None,
    );
    assert_eq!(status, 200, "{body}");
}

fn the_bearer_scheme_is_case_insensitive() {
    let dir = TempDir::new("bearer");
    let program = dir.write("p.sns", PROGRAM);
    let url = format!("sqlite:{}", dir.0.join("b.db").display());
    let svc = serve(&program, &url, &["--token", "s3cret"]);
    for (authorization, want) in [
        ("Bearer s3cret", 200),
        ("bearer s3cret", 200),
        ("BEARER  s3cret", 200),
        ("bEaReR\ts3cret", 200),
        ("Bearer wrong", 401),
        ("Basic s3cret", 401),
        ("Bearers3cret", 401),
        ("s3cret", 401),
    ] {
        let (status, body) = with_headers(
            svc.port,
            "GET",
            "/api/instances",
            &format!("Host: x\r\nAuthorization: {authorization}\r\n"),
        );
        assert_eq!(status, want, "{authorization:?}: {body}");
    }
}

fn two_host_headers_are_400() {
    let dir = TempDir::new("hosts");
    let program = dir.write("p.sns", PROGRAM);
    let url = format!("sqlite:{}", dir.0.join("h.db").display());
    let open = serve(&program, &url, &[]);
    let p = open.port;
    let good = format!("Host: 127.0.0.1:{p}\r\n");
    assert_eq!(with_headers(p, "GET", "/api/info", &good).0, 200);
    for hosts in [
        format!("{good}Host: evil.example\r\n"),
        format!("Host: evil.example\r\n{good}"),
        format!("{good}{good}"),
    ] {
        for path in ["/api/info", "/api/instances/x/events", "/"] {
            let (status, body) = with_headers(p, "GET", path, &hosts);
            assert_eq!(status, 400, "{path} {hosts:?}: {body}");
            assert_error(&body, "BadRequest", "more than one Host header");
        }
    }
    // With a token too: the Host is not what lets a request in there, but
    // a proxy could still route by the other one.
    let guarded = serve(&program, &url, &["--token", "t"]);
    let (status, _) = with_headers(
        guarded.port,
        "GET",
        "/api/info",
        "Host: a\r\nHost: b\r\nAuthorization: Bearer t\r\n",
    );
    assert_eq!(status, 400);
}

/// A pause request for an instance whose first run is still going on (it
/// is being created, not stored yet) is accepted: 202, and the instance
/// is stored paused (kind `host`) where the request stopped it.
fn pausing_an_instance_being_created_is_accepted(kind: StoreKind) {
    let fx = setup("pause-creating", kind, "p.sns", PROGRAM);
    let svc = serve(&fx.program, &fx.store.url, &["--max-steps", "100000000000"]);
    let port = svc.port;
    let creating = std::thread::spawn(move || {
        call(
            port,
            "POST",
            "/api/instances",
            Some(json!({"agent": "slow_start", "id": "slow"})),
        )
        .unwrap()
    });
    std::thread::sleep(Duration::from_millis(500));
    let (status, body) = svc.call("POST", "/api/instances/slow/pause", None);
    assert_eq!(status, 202, "{}: {body}", fx.store.name);
    assert_eq!(body["status"], "creating");
    assert_eq!(body["pause_requested"], true);
    let (status, created) = creating.join().unwrap();
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["status"], "paused", "{}: {created}", fx.store.name);
    assert_eq!(created["pause_kind"], "host");
    assert_eq!(created["version"], 1);
    // An id nobody is creating is still unknown.
    let (status, body) = svc.call("POST", "/api/instances/nobody/pause", None);
    assert_eq!(status, 404, "{body}");
}

fn integers_beyond_64_bits_are_refused_not_rounded(kind: StoreKind) {
    let fx = setup("big-ints", kind, "p.sns", PROGRAM);
    let svc = serve(&fx.program, &fx.store.url, &[]);
    let id = id_of(&create(&svc, "echo"));
    let path = format!("/api/instances/{id}/resume");
    for big in [
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "123456789012345678901234567890",
    ] {
        for body in [
            format!(r#"{{"value": {big}}}"#),
            format!(r#"{{"value": [1, [{big}]]}}"#),
        ] {
            let request = format!(
                "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\
                     Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                svc.port,
                body.len()
            );
            let (status, answer) = raw(svc.port, &request).unwrap();
            assert_eq!(status, 400, "{body}: {answer}");
            assert_error(&answer, "BadValue", "does not fit in 64 bits");
        }
    }
    // Nothing was applied; the largest Int and floats still are.
    let (_, now) = svc.call("GET", &format!("/api/instances/{id}"), None);
    assert_eq!(now["version"], 1, "{now}");
    let (status, body) = resume(&svc, &id, json!(i64::MAX), None);
    assert_eq!(status, 200, "{body}");
    let (status, body) = resume(&svc, &id, json!(1.5e20), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["output"], "9223372036854775807\n1.5e+20\n",
        "{}: {body}",
        fx.store.name
    );
}

fn main() {
    sense_testkit::trials::run(sense_testkit::trials! {
        plain:
            long_poll_timeouts_out_of_range_are_400,
            the_bearer_scheme_is_case_insensitive,
            two_host_headers_are_400;
        per_store:
            pausing_an_instance_being_created_is_accepted,
            integers_beyond_64_bits_are_refused_not_rounded;
    });
}
