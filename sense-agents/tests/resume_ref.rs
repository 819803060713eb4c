//! `Runtime::resume_ref`: the same semantics as `Runtime::resume`, with the
//! value as a view and only the settled status returned.
// Test helpers outside #[test] fns may unwrap and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::quiet_loaded;
use sense_agents::{AgentStatus, HostValue, PauseKind, ValueRef};

#[test]
fn every_scalar_and_a_string_arrive_as_the_pause_result() {
    let mut rt = quiet_loaded(
        "agent a:\n    got = []\n    while true:\n        v = pause(len(got))\n        push(got, v)\n",
    );
    let a = rt.agent("a").unwrap();
    rt.start(a).unwrap();
    for v in [
        ValueRef::Nil,
        ValueRef::Bool(true),
        ValueRef::Int(-7),
        ValueRef::Float(2.5),
        ValueRef::Str("héllo"),
    ] {
        assert_eq!(rt.resume_ref(a, v).unwrap(), AgentStatus::Paused);
    }
    assert_eq!(rt.pause_reason_ref(a).unwrap(), ValueRef::Int(5));
    assert_eq!(
        rt.member(a, "got").unwrap(),
        HostValue::List(vec![
            HostValue::Nil,
            HostValue::Bool(true),
            HostValue::Int(-7),
            HostValue::Float(2.5),
            HostValue::from("héllo"),
        ])
    );
}

#[test]
fn completion_is_reported() {
    let mut rt = quiet_loaded("agent a:\n    x = pause()\n    y = x * 2\n");
    let a = rt.agent("a").unwrap();
    rt.start(a).unwrap();
    assert_eq!(
        rt.resume_ref(a, ValueRef::Int(21)).unwrap(),
        AgentStatus::Completed
    );
    assert_eq!(rt.member(a, "y").unwrap(), HostValue::Int(42));
}

#[test]
fn lists_and_other_views_are_refused_and_the_agent_stays_paused() {
    let mut rt = quiet_loaded("agent a:\n    pause()\n");
    let a = rt.agent("a").unwrap();
    rt.start(a).unwrap();
    for v in [ValueRef::List, ValueRef::Other] {
        let e = rt.resume_ref(a, v).unwrap_err();
        assert!(e.to_string().contains("no contents"), "{e}");
    }
    assert_eq!(rt.status(a).unwrap(), AgentStatus::Paused);
}

#[test]
fn a_waiting_receive_gets_the_value_as_a_message() {
    let mut rt = quiet_loaded("agent a:\n    m = receive()\n    pause(m)\n");
    let a = rt.agent("a").unwrap();
    rt.start(a).unwrap();
    assert_eq!(rt.pause_kind(a).unwrap(), Some(PauseKind::WaitingMessage));
    // Nil is no message: it keeps waiting.
    assert_eq!(
        rt.resume_ref(a, ValueRef::Nil).unwrap(),
        AgentStatus::Paused
    );
    assert_eq!(rt.pause_kind(a).unwrap(), Some(PauseKind::WaitingMessage));
    assert_eq!(
        rt.resume_ref(a, ValueRef::Str("hi")).unwrap(),
        AgentStatus::Paused
    );
    assert_eq!(rt.pause_kind(a).unwrap(), Some(PauseKind::SelfPause));
    assert_eq!(rt.pause_reason_ref(a).unwrap(), ValueRef::Str("hi"));
}

#[test]
fn wrong_states_and_body_errors_are_errors() {
    let mut rt = quiet_loaded("agent a:\n    x = pause()\n    y = 1 / x\n");
    let a = rt.agent("a").unwrap();
    let e = rt.resume_ref(a, ValueRef::Int(1)).unwrap_err();
    assert!(e.to_string().contains("not 'paused'"), "{e}");
    rt.start(a).unwrap();
    assert!(rt.resume_ref(a, ValueRef::Int(0)).is_err());
    assert_eq!(rt.status(a).unwrap(), AgentStatus::Failed);
}
