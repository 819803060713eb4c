//! What the docs promise, through the Rust API (issue 16): a resume value
//! for an agent waiting in `receive()` becomes a message; a pause handle
//! outliving its runtime reports the request was not made; restoring needs
//! only the host functions the saved code calls; agent ids of one runtime
//! never drive another's agents.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::{loaded, runtime};
use sense_agents::{HostReturn, HostValue, PauseKind, State};

#[test]
fn a_resume_value_reaches_an_agent_in_receive() {
    let (mut rt, out) =
        loaded("agent inbox:\n    while true:\n        print(\"got\", receive())\n");
    let a = rt.agent("inbox").unwrap();
    rt.start(a).unwrap();
    assert_eq!(rt.pause_kind(a).unwrap(), Some(PauseKind::WaitingMessage));
    rt.send(a, "first").unwrap();
    assert!(matches!(
        rt.resume(a, "second").unwrap(),
        State::Paused { .. }
    ));
    assert_eq!(*out.lock().unwrap(), "got first\ngot second\n");
    // Nil is "no value": nothing is queued.
    rt.resume(a, HostValue::Nil).unwrap();
    assert_eq!(*out.lock().unwrap(), "got first\ngot second\n");
}

#[test]
fn a_pause_handle_of_a_dropped_runtime_requests_nothing() {
    let (rt, _) = loaded("agent a:\n    pause()\n");
    let h = rt.pause_handle(rt.agent("a").unwrap()).unwrap();
    assert!(h.runtime_alive());
    drop(rt);
    assert!(!h.runtime_alive());
    assert!(!h.request());
    assert!(!h.is_requested());
}

#[test]
fn restore_needs_only_host_functions_the_code_calls() {
    let (mut rt, _) = runtime();
    rt.register_fn("spare", Some(0), |_| {
        Ok(HostReturn::Value(HostValue::Int(1)))
    });
    rt.run_source("m.sns", "agent a:\n    x = pause()\n    print(x)\n")
        .unwrap();
    let a = rt.agent("a").unwrap();
    rt.start(a).unwrap();
    let bytes = rt.snapshot().unwrap();
    let (mut later, out) = runtime();
    later.restore_snapshot(&bytes).unwrap();
    assert_eq!(later.resume(a, 5).unwrap(), State::Completed);
    assert_eq!(*out.lock().unwrap(), "5\n");
    let err = later.run_source("n.sns", "spare()").unwrap_err();
    assert!(err.display_text().contains("not available"), "{err}");
    later.register_fn("spare", Some(0), |_| {
        Ok(HostReturn::Value(HostValue::Int(2)))
    });
    later.run_source("n.sns", "y = spare()").unwrap();
    assert_eq!(later.global("y"), Some(HostValue::Int(2)));
}

#[test]
fn ids_do_not_cross_runtimes() {
    let (mut a, _) = runtime();
    let (mut b, out_b) = runtime();
    for rt in [&mut a, &mut b] {
        rt.run_source("m.sns", "agent w:\n    print(\"ran\")\n")
            .unwrap();
    }
    let wa = a.agent("w").unwrap();
    assert!(b.start(wa).is_err());
    assert!(b.status(wa).is_err());
    assert_eq!(*out_b.lock().unwrap(), "");
    let (index, serial) = wa.to_raw_parts();
    let forged = sense_agents::AgentId::from_raw_parts(index, serial + 1);
    assert!(a.status(forged).is_err());
}
