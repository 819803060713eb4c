//! Agents inside host values (issue 16): a host takes an agent out of a
//! call result, a pause reason, a host function's argument or an array
//! element and drives it; passed back in, it is the same agent; an id of
//! another runtime, or of a collected agent, is a clear error.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::{quiet_loaded, run_main};
use sense_agents::{AgentId, AgentStatus, HostReturn, HostValue, Runtime, State};
use std::sync::{Arc, Mutex};

const TEAM: &str = "\
agent w:
    got = pause(\"w waits\")
    print(got)
agent boss:
    answer = pause([1, [w], \"x\"])
    note = answer.name
def pick():
    return [0, w]
def same(a):
    return a == w
";

fn agent_in(v: &HostValue) -> AgentId {
    AgentId::of_value(v).unwrap_or_else(|| panic!("not an agent: {v:?}"))
}

#[test]
fn an_agent_in_a_call_result_can_be_driven() {
    let mut rt = quiet_loaded(TEAM);
    let HostValue::List(items) = rt.call("pick", &[]).unwrap() else {
        panic!("a list")
    };
    assert_eq!(AgentId::of_value(&items[0]), None);
    assert_eq!(items[1].type_name(), "Agent");
    let w = agent_in(&items[1]);
    assert_eq!(w, rt.agent("w").unwrap(), "the same handle as by name");
    assert_eq!(rt.status(w).unwrap(), AgentStatus::Created);
    let State::Paused { reason, .. } = rt.start(w).unwrap() else {
        panic!("w pauses")
    };
    assert_eq!(reason, HostValue::from("w waits"));
}

#[test]
fn an_agent_in_a_pause_reason_can_be_driven() {
    let mut rt = quiet_loaded(TEAM);
    let boss = rt.agent("boss").unwrap();
    let State::Paused { reason, .. } = rt.start(boss).unwrap() else {
        panic!("boss pauses")
    };
    let HostValue::List(items) = &reason else {
        panic!("a list reason")
    };
    let HostValue::List(inner) = &items[1] else {
        panic!("a nested list")
    };
    let w = agent_in(&inner[0]);
    assert_eq!(rt.agent_name(w).unwrap(), "w");
    rt.start(w).unwrap();
    assert_eq!(rt.status(w).unwrap(), AgentStatus::Paused);
    // The copy out renders as `print` does (the status then).
    assert_eq!(reason.to_string(), "[1, [<agent w status=created>], x]");
    assert_eq!(
        inner[0].as_task().unwrap().text(),
        "<agent w status=created>"
    );
}

#[test]
fn an_agent_passed_back_in_is_the_same_agent() {
    let mut rt = quiet_loaded(TEAM);
    let w = rt.agent("w").unwrap();
    assert_eq!(rt.call("same", &[w.into()]).unwrap(), HostValue::Bool(true));
    // As a resume value: the boss reads the agent's name.
    let boss = rt.agent("boss").unwrap();
    rt.start(boss).unwrap();
    assert_eq!(rt.resume(boss, w).unwrap(), State::Completed);
    assert_eq!(rt.member(boss, "note").unwrap(), HostValue::from("w"));
    // As a global, and inside a list.
    rt.set_global("held", vec![HostValue::from(w)]).unwrap();
    rt.run_source("m2.sns", "check = held[0] == w").unwrap();
    assert_eq!(rt.global("check"), Some(HostValue::Bool(true)));
}

#[test]
fn a_host_function_receives_and_returns_agents() {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    rt.register_fn("relay", Some(1), move |args| {
        let HostValue::List(items) = &args[0] else {
            return Err("want a list".into());
        };
        let id = AgentId::of_value(&items[0]).ok_or("want an agent")?;
        log.lock().unwrap().push(id);
        Ok(HostReturn::Value(id.into()))
    });
    run_main(
        &mut rt,
        "agent w:\n    n = 1\nback = relay([w])\nok = back == w\nname = back.name\n",
    );
    let w = rt.agent("w").unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![w]);
    assert_eq!(rt.global("ok"), Some(HostValue::Bool(true)));
    assert_eq!(rt.global("name"), Some(HostValue::from("w")));
}

#[test]
fn an_agent_of_another_runtime_is_refused() {
    let mut a = quiet_loaded(TEAM);
    let mut b = quiet_loaded(TEAM);
    let wa = a.agent("w").unwrap();
    let err = b.call("same", &[wa.into()]).unwrap_err().to_string();
    assert!(
        err.contains("not an agent of this runtime") && err.contains("another runtime"),
        "{err}"
    );
    assert!(b.status(wa).is_err(), "the id does not drive b's w");
    let boss = b.agent("boss").unwrap();
    b.start(boss).unwrap();
    assert!(b.resume(boss, wa).is_err());
    assert_eq!(
        b.status(boss).unwrap(),
        AgentStatus::Paused,
        "still waiting"
    );
    // It still works where it came from.
    assert_eq!(a.call("same", &[wa.into()]).unwrap(), HostValue::Bool(true));
}

#[test]
fn a_collected_agent_is_refused() {
    let mut rt = quiet_loaded("agent w:\n    n = 1\ndef id(x):\n    return x\n");
    let w = rt.agent("w").unwrap();
    rt.run_source("m2.sns", "w = nil").unwrap();
    rt.collect_garbage();
    let err = rt.call("id", &[w.into()]).unwrap_err().to_string();
    assert!(err.contains("not an agent of this runtime"), "{err}");
}

#[test]
fn a_forged_agent_value_is_refused() {
    let mut rt = quiet_loaded(TEAM);
    let w = rt.agent("w").unwrap();
    let (index, serial) = w.to_raw_parts();
    for (i, s) in [(index, serial + 1000), (index + 1, serial), (u32::MAX, 0)] {
        let forged = AgentId::from_raw_parts(i, s);
        assert!(rt.call("same", &[forged.into()]).is_err(), "{i} {s}");
    }
}

#[test]
fn host_made_agent_values_compare_by_agent() {
    let rt = quiet_loaded(TEAM);
    let w = rt.agent("w").unwrap();
    let out = rt.global("w").unwrap();
    assert_eq!(out, HostValue::from(w), "equal whatever the printed form");
    assert_eq!(out.to_string(), "<agent w status=created>");
    assert_eq!(
        HostValue::from(w).to_string(),
        format!("<agent #{}>", w.serial())
    );
}
