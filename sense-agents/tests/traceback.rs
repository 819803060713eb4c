//! Tracebacks (issue 28): every error that leaves the VM carries the chain
//! of Sense frames it came through, outermost first, innermost last; one
//! caught by `try` and raised again from elsewhere carries where it left.
// Test code may unwrap and index (the workspace lints forbid it in library code).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use sense_agents::{Error, Runtime, State};

fn frames(e: &Error) -> Vec<(String, u32)> {
    e.traceback()
        .iter()
        .map(|f| (f.function.clone(), f.line))
        .collect()
}

fn owned(v: &[(&str, u32)]) -> Vec<(String, u32)> {
    v.iter().map(|(n, l)| ((*n).to_string(), *l)).collect()
}

#[test]
fn a_run_error_lists_every_call_innermost_last() {
    let mut rt = Runtime::new();
    let src = "def inner(x):\n    return x / 0\n\ndef outer(x):\n    y = 1\n    return inner(x)\n\nouter(2)\n";
    let err = rt.run_source("calls.sns", src).unwrap_err();
    assert_eq!(
        frames(&err),
        owned(&[("<main>", 8), ("outer", 6), ("inner", 2)])
    );
    assert!(err.traceback().iter().all(|f| f.file == "calls.sns"));
    let text = err.traceback_text();
    assert!(
        text.starts_with("stack traceback (most recent call last):\n"),
        "{text}"
    );
    assert!(text.ends_with("  calls.sns:2: in inner\n"), "{text}");
}

#[test]
fn an_agent_failing_after_a_resume_reports_its_own_frames() {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    let src = "def check(v):\n    if v == \"bad\":\n        raise \"refused: \" + v\n    return v\n\nagent worker:\n    got = pause(\"want\")\n    check(got)\n";
    rt.run_source("agent.sns", src).unwrap();
    let id = rt.agent("worker").unwrap();
    assert!(matches!(rt.start(id).unwrap(), State::Paused { .. }));
    let err = rt.resume(id, "bad").unwrap_err();
    assert!(err.display_text().contains("refused: bad"), "{err}");
    assert_eq!(frames(&err), owned(&[("worker", 8), ("check", 3)]));
}

#[test]
fn caught_errors_and_syntax_errors_carry_none_of_their_own() {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    let err = rt.run_source("s.sns", "x = (\n").unwrap_err();
    assert!(err.traceback().is_empty());
    assert_eq!(err.traceback_text(), "");
    // Caught inside, then a different error escapes from the top level.
    let src = "def f():\n    raise \"first\"\n\ntry:\n    f()\nexcept SenseRuntimeError as e:\n    x = 1\nundefined_name\n";
    let err = rt.run_source("c.sns", src).unwrap_err();
    assert_eq!(frames(&err), owned(&[("<main>", 8)]));
}

#[test]
fn a_host_call_shows_only_the_programs_frames() {
    let mut rt = Runtime::new();
    rt.run_source(
        "h.sns",
        "def helper(x):\n    return x / 0\n\ndef broken(x):\n    return helper(x)\n",
    )
    .unwrap();
    let err = rt.call("broken", &[1.into()]).unwrap_err();
    assert_eq!(frames(&err), owned(&[("broken", 5), ("helper", 2)]));
}

#[test]
fn an_agent_started_by_the_program_shows_the_starter_outside_it() {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    let src = "def check(v):\n    return 1 / v\n\nagent worker:\n    check(0)\n\ndef go():\n    start(worker)\n\ngo()\n";
    let err = rt.run_source("nest.sns", src).unwrap_err();
    assert_eq!(
        frames(&err),
        owned(&[("<main>", 10), ("go", 8), ("worker", 5), ("check", 2)])
    );
}
