//! Errors a program handles (issue 23) at the host boundary: a host
//! function's error is catchable; a host function that suspends inside
//! `try` resumes through a snapshot and the `finally` still runs; an
//! `Error` value reaches the host as an opaque value that prints as the
//! error; a resource limit is not catchable.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use sense_agents::{Config, HostReturn, HostValue, Runtime, State};
use std::sync::{Arc, Mutex};

fn quiet(rt: &mut Runtime) -> Arc<Mutex<String>> {
    let out = Arc::new(Mutex::new(String::new()));
    let sink = out.clone();
    rt.set_output(move |s| sink.lock().unwrap().push_str(s));
    out
}

#[test]
fn a_host_functions_error_is_catchable() {
    let mut rt = Runtime::new();
    let out = quiet(&mut rt);
    rt.register_fn("fetch", Some(1), |_| Err("service down".into()));
    rt.run_source(
        "m.sns",
        "saved = nil\ntry:\n    fetch(\"x\")\nexcept SenseRuntimeError as e:\n    print(e.class, e.message)\n    saved = e\n",
    )
    .unwrap();
    let text = out.lock().unwrap().clone();
    assert!(text.starts_with("SenseRuntimeError "), "{text}");
    assert!(text.contains("service down"), "{text}");
    let saved = rt.global("saved").unwrap();
    assert_eq!(saved.type_name(), "Error");
    // Like a builtin's, a host function's error reports no line.
    assert_eq!(saved.to_string(), "SenseRuntimeError: service down");
}

const SUSPENDING: &str = "\
agent worker:
    try:
        got = approve_it(\"go?\")
        print(\"got\", got)
        raise \"rejected: \" + got
    except SenseRuntimeError as e:
        print(\"caught\", e.message, e.line)
    finally:
        print(\"finally\")
";

fn with_host_fn(rt: &mut Runtime) {
    rt.register_fn("approve_it", Some(1), |args| {
        Ok(HostReturn::Suspend(args[0].clone()))
    });
}

#[test]
fn a_host_function_suspending_inside_try_resumes_after_a_snapshot() {
    let mut rt = Runtime::new();
    quiet(&mut rt);
    with_host_fn(&mut rt);
    rt.run_source("m.sns", SUSPENDING).unwrap();
    let w = rt.agent("worker").unwrap();
    let State::Paused { reason, .. } = rt.start(w).unwrap() else {
        panic!("the host function suspends the agent")
    };
    assert_eq!(reason, HostValue::from("go?"));
    let bytes = rt.snapshot().unwrap();
    drop(rt);

    let mut back = Runtime::new();
    let out = quiet(&mut back);
    with_host_fn(&mut back);
    back.restore_snapshot(&bytes).unwrap();
    let w = back.agent("worker").unwrap();
    assert_eq!(back.resume(w, "no").unwrap(), State::Completed);
    assert_eq!(
        out.lock().unwrap().as_str(),
        "got no\ncaught rejected: no 5\nfinally\n"
    );
}

#[test]
fn the_heap_ceiling_is_not_catchable() {
    let config = Config {
        max_heap: 4 << 20,
        ..Config::default()
    };
    let mut rt = Runtime::with_config(config);
    let out = quiet(&mut rt);
    common::fails_with(
        &mut rt,
        "m.sns",
        "xs = []\ntry:\n    while true:\n        push(xs, \"0123456789abcdef\" + str(len(xs)))\nexcept:\n    print(\"caught\")\nfinally:\n    print(\"finally\")\n",
        "out of memory",
    );
    assert_eq!(out.lock().unwrap().as_str(), "");
}
