//! The shared checks of both services: access, the checks before routing,
//! JSON bodies and the error shape.

use super::limits::{CONSOLE, SERVE};
use super::{Access, Reply, check_access, parse_object, precheck};
use hyper::header::{HeaderMap, HeaderValue};

fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
    let mut h = HeaderMap::new();
    for (name, value) in pairs {
        h.append(*name, HeaderValue::from_static(value));
    }
    h
}

fn status(r: Result<(), Reply>) -> u16 {
    match r {
        Ok(()) => 200,
        Err(reply) => reply.into_response().status().as_u16(),
    }
}

#[test]
fn loopback_without_a_token_takes_this_machine_only() {
    let access = Access {
        token: None,
        port: 4300,
    };
    let check = |pairs| status(check_access(&access, &headers(pairs)));
    assert_eq!(check(&[("host", "127.0.0.1:4300")]), 200);
    assert_eq!(check(&[("host", "LOCALHOST:4300")]), 200);
    assert_eq!(check(&[("host", "[::1]:4300")]), 200);
    assert_eq!(check(&[]), 403);
    assert_eq!(check(&[("host", "evil.example")]), 403);
    assert_eq!(check(&[("host", "127.0.0.1:4301")]), 403);
    assert_eq!(
        check(&[
            ("host", "127.0.0.1:4300"),
            ("origin", "http://127.0.0.1:4300")
        ]),
        200
    );
    assert_eq!(
        check(&[
            ("host", "127.0.0.1:4300"),
            ("origin", "http://evil.example")
        ]),
        403
    );
}

#[test]
fn a_token_is_required_whatever_the_host() {
    let access = Access {
        token: Some("s3cret".into()),
        port: 4400,
    };
    let check = |pairs| status(check_access(&access, &headers(pairs)));
    assert_eq!(check(&[("authorization", "Bearer s3cret")]), 200);
    assert_eq!(check(&[("authorization", "bearer  s3cret ")]), 200);
    assert_eq!(check(&[("authorization", "Bearer s3cre")]), 401);
    assert_eq!(check(&[("authorization", "Basic s3cret")]), 401);
    assert_eq!(check(&[("host", "127.0.0.1:4400")]), 401);
}

#[test]
fn two_hosts_and_long_targets_are_refused_before_routing() {
    let one = headers(&[("host", "127.0.0.1:1")]);
    let two = headers(&[("host", "127.0.0.1:1"), ("host", "evil.example")]);
    assert_eq!(status(precheck(&SERVE, &one, "/api/info")), 200);
    assert_eq!(status(precheck(&SERVE, &two, "/api/info")), 400);
    let long = format!("/{}", "x".repeat(CONSOLE.url));
    assert_eq!(status(precheck(&CONSOLE, &one, &long)), 414);
}

#[test]
fn bodies_are_json_objects_and_errors_have_one_shape() {
    assert!(matches!(parse_object(b"  \n"), Ok(m) if m.is_empty()));
    assert!(matches!(parse_object(br#"{"a": 1}"#), Ok(m) if m.len() == 1));
    for bad in [&b"[1, 2]"[..], b"{\"a\": ", b"nope"] {
        let Err(reply) = parse_object(bad) else {
            panic!("{bad:?} was accepted");
        };
        let body = reply.body_json();
        assert_eq!(body["error"]["class"], "BadRequest");
        let message = body["error"]["message"].as_str().unwrap_or("");
        assert!(!message.is_empty());
        assert_eq!(
            body["error"]["rendered"].as_str(),
            Some(format!("BadRequest: {message}").as_str())
        );
    }
}
