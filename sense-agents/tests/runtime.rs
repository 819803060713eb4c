//! The host API driven purely from Rust: start/resume round trips, pause
//! kinds, host functions (including ones that suspend), messaging, the
//! cross-thread pause request, stale handles, and many paused agents.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::{loaded, run_main, runtime};
use sense_agents::{AgentStatus, HostReturn, HostValue, PauseKind, Runtime, State};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn paused(reason: &str, kind: PauseKind) -> State {
    State::Paused {
        reason: HostValue::from(reason),
        kind,
    }
}

#[test]
fn start_pause_resume_complete() {
    let (mut rt, out) = loaded(
        "agent worker:\n    print(\"step 1\")\n    got = pause(\"need input\")\n    print(\"got \" + got)\n",
    );
    let w = rt.agent("worker").unwrap();
    assert_eq!(rt.status(w).unwrap(), AgentStatus::Created);
    assert_eq!(
        rt.start(w).unwrap(),
        paused("need input", PauseKind::SelfPause)
    );
    assert_eq!(rt.status(w).unwrap(), AgentStatus::Paused);
    assert_eq!(rt.pause_kind(w).unwrap(), Some(PauseKind::SelfPause));
    assert_eq!(rt.resume(w, "ok").unwrap(), State::Completed);
    assert_eq!(rt.status(w).unwrap(), AgentStatus::Completed);
    assert_eq!(rt.pause_kind(w).unwrap(), None);
    assert_eq!(rt.pause_reason(w).unwrap(), HostValue::from("need input"));
    assert_eq!(*out.lock().unwrap(), "step 1\ngot ok\n");
}

#[test]
fn ask_human_round_trip_keeps_locals_and_loop_position() {
    let (mut rt, out) = loaded(
        "agent survey:\n    total = 0\n    for q in [\"a?\", \"b?\", \"c?\"]:\n        total = total + ask_human(q)\n    print(total)\n",
    );
    let s = rt.agent("survey").unwrap();
    assert_eq!(rt.start(s).unwrap(), paused("a?", PauseKind::AskHuman));
    assert_eq!(rt.resume(s, 1).unwrap(), paused("b?", PauseKind::AskHuman));
    assert_eq!(rt.resume(s, 20).unwrap(), paused("c?", PauseKind::AskHuman));
    assert_eq!(rt.resume(s, 300).unwrap(), State::Completed);
    assert_eq!(*out.lock().unwrap(), "321\n");
}

#[test]
fn body_error_fails_the_agent_and_comes_back_as_err() {
    let (mut rt, _) = runtime();
    rt.run_source("m.sns", "agent b:\n    pause()\n    x = 1 / 0\n")
        .unwrap();
    let b = rt.agent("b").unwrap();
    rt.start(b).unwrap();
    let err = rt.resume(b, HostValue::Nil).unwrap_err();
    assert_eq!(err.class_name(), "SenseRuntimeError");
    assert_eq!(err.display_text(), "[line 3] division by zero");
    assert!(err.rendered().contains("x = 1 / 0"), "{}", err.rendered());
    assert_eq!(rt.status(b).unwrap(), AgentStatus::Failed);
    // Resuming again is a clean error, not a crash.
    let again = rt.resume(b, HostValue::Nil).unwrap_err();
    assert!(
        again.display_text().contains("status is 'failed'"),
        "{again}"
    );
}

#[test]
fn host_function_returns_values_and_errors() {
    let (mut rt, out) = runtime();
    rt.register_fn("lookup", Some(1), |args| match &args[0] {
        HostValue::Str(k) if k == "ada" => Ok(HostReturn::Value(HostValue::from(vec![1i64, 2]))),
        HostValue::Str(k) => Err(format!("no record for {k}")),
        other => Err(format!(
            "lookup() expects a String, got {}",
            other.type_name()
        )),
    });
    rt.run_source("m.sns", "print(lookup(\"ada\"), type_of(lookup))")
        .unwrap();
    assert_eq!(*out.lock().unwrap(), "[1, 2] Function\n");
    let err = rt.run_source("n.sns", "lookup(\"bob\")").unwrap_err();
    assert_eq!(err.to_string(), "SenseRuntimeError: no record for bob");
    let err = rt.run_source("o.sns", "lookup()").unwrap_err();
    assert_eq!(
        err.display_text(),
        "[line 1] 'lookup' expects 1 argument(s), got 0"
    );
}

#[test]
fn host_function_can_suspend_the_calling_agent() {
    let (mut rt, out) = runtime();
    rt.register_fn("approve", Some(1), |args| {
        Ok(HostReturn::Suspend(HostValue::Str(format!(
            "approve {}?",
            args[0]
        ))))
    });
    run_main(
        &mut rt,
        "def step(x):\n    return approve(x)\nagent a:\n    answer = step(\"deploy\")\n    print(\"answer:\", answer)\n",
    );
    let a = rt.agent("a").unwrap();
    assert_eq!(
        rt.start(a).unwrap(),
        paused("approve deploy?", PauseKind::HostFunction)
    );
    assert_eq!(rt.resume(a, true).unwrap(), State::Completed);
    assert_eq!(*out.lock().unwrap(), "answer: true\n");
    // Outside an agent, asking to suspend is an error.
    common::fails_with(
        &mut rt,
        "n.sns",
        "approve(1)",
        "not called from inside a running agent",
    );
}

#[test]
fn send_from_host_reaches_a_waiting_receive() {
    let (mut rt, out) =
        loaded("agent inbox:\n    while true:\n        print(\"got\", receive())\n");
    let a = rt.agent("inbox").unwrap();
    assert_eq!(
        rt.start(a).unwrap(),
        paused("waiting for a message", PauseKind::WaitingMessage)
    );
    // Resuming with nothing queued leaves it waiting.
    assert_eq!(
        rt.resume(a, HostValue::Nil).unwrap(),
        paused("waiting for a message", PauseKind::WaitingMessage)
    );
    rt.send(a, "one").unwrap();
    rt.send(a, 2).unwrap();
    assert_eq!(
        rt.resume(a, HostValue::Nil).unwrap(),
        paused("waiting for a message", PauseKind::WaitingMessage)
    );
    assert_eq!(*out.lock().unwrap(), "got one\ngot 2\n");
}

#[test]
fn pause_requested_from_another_thread_stops_a_running_loop() {
    let (mut rt, out) = runtime();
    let started = Arc::new(AtomicBool::new(false));
    let keep_going = Arc::new(AtomicBool::new(true));
    let s = started.clone();
    rt.register_fn("started", Some(0), move |_| {
        s.store(true, Ordering::SeqCst);
        Ok(HostReturn::Value(HostValue::Nil))
    });
    let k = keep_going.clone();
    rt.register_fn("keep_going", Some(0), move |_| {
        Ok(HostReturn::Value(HostValue::Bool(k.load(Ordering::SeqCst))))
    });
    run_main(
        &mut rt,
        "agent spinner:\n    started()\n    i = 0\n    while keep_going():\n        i = i + 1\n    print(\"stopped after\", i > 0)\n",
    );
    let a = rt.agent("spinner").unwrap();
    let handle = rt.pause_handle(a).unwrap();
    let requester = std::thread::spawn(move || {
        while !started.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(handle.request());
    });
    let state = rt.start(a).unwrap();
    requester.join().unwrap();
    assert_eq!(
        state,
        State::Paused {
            reason: HostValue::Nil,
            kind: PauseKind::HostRequest
        }
    );
    assert_eq!(rt.status(a).unwrap(), AgentStatus::Paused);
    // The loop really ran, and its local survives the pause.
    rt.run_source("peek.sns", "seen = spinner.i").unwrap();
    let Some(HostValue::Int(seen)) = rt.global("seen") else {
        panic!("could not read the agent's local")
    };
    assert!(seen > 0);
    keep_going.store(false, Ordering::SeqCst);
    assert_eq!(rt.resume(a, "ignored").unwrap(), State::Completed);
    assert!(
        out.lock().unwrap().ends_with("stopped after true\n"),
        "{}",
        out.lock().unwrap()
    );
}

#[test]
fn handles_to_collected_agents_report_an_error() {
    let (mut rt, _) = loaded("agent a:\n    pause()\n");
    let a = rt.agent("a").unwrap();
    rt.start(a).unwrap();
    rt.run_source("n.sns", "a = nil").unwrap();
    rt.collect_garbage();
    let err = rt.status(a).unwrap_err();
    assert_eq!(err.display_text(), "agent no longer exists");
    assert!(rt.agent("a").is_err());
}

#[test]
fn runtime_is_send() {
    fn assert_send<T: Send>() {}
    assert_send::<Runtime>();
    assert_send::<sense_agents::PauseHandle>();
    fn assert_sync<T: Sync>() {}
    assert_sync::<sense_agents::PauseHandle>();
}

#[test]
fn a_pause_request_to_a_finished_agent_is_refused() {
    let (mut rt, _out) = runtime();
    rt.run_source(
        "main.sns",
        "agent done:\n    x = 1\nagent broken:\n    x = 1 / 0\nagent waiting:\n    x = pause()\n",
    )
    .unwrap();
    let done = rt.agent("done").unwrap();
    let broken = rt.agent("broken").unwrap();
    let waiting = rt.agent("waiting").unwrap();
    assert_eq!(rt.start(done).unwrap(), State::Completed);
    assert!(rt.start(broken).is_err());
    // Completed and failed agents never run again: a request cannot stay
    // pending (it would make every safe point check the flags).
    for id in [done, broken] {
        let h = rt.pause_handle(id).unwrap();
        assert!(!h.request());
        assert!(!h.is_requested());
    }
    // A request pending when the agent completes is dropped with it.
    let h = rt.pause_handle(waiting).unwrap();
    assert!(matches!(
        rt.start(waiting).unwrap(),
        State::Paused {
            kind: PauseKind::SelfPause,
            ..
        }
    ));
    assert!(h.request());
    assert!(!h.request(), "already pending");
    // Resumed, it reaches no safe point before it completes: the request
    // is dropped with it.
    assert_eq!(rt.resume(waiting, 1).unwrap(), State::Completed);
    assert!(!h.is_requested());
    assert!(!h.request());
    // A restored runtime keeps refusing for finished agents.
    let bytes = rt.snapshot().unwrap();
    let back = Runtime::restore(&bytes).unwrap();
    let done = back.agent("done").unwrap();
    assert!(!back.pause_handle(done).unwrap().request());
}

#[test]
fn repl_echo_shows_the_last_expression_value() {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    assert_eq!(rt.eval_repl_echo("1 + 2\n").unwrap().as_deref(), Some("3"));
    // Assignments and nil show nothing; the scope persists.
    assert_eq!(rt.eval_repl_echo("x = [1, \"a\"]\n").unwrap(), None);
    assert_eq!(rt.eval_repl_echo("nil\n").unwrap(), None);
    assert_eq!(rt.eval_repl_echo("print(1)\n").unwrap(), None);
    assert_eq!(rt.eval_repl_echo("x\n").unwrap().as_deref(), Some("[1, a]"));
    assert_eq!(
        rt.eval_repl_echo("\"hi\"\n").unwrap().as_deref(),
        Some("\"hi\"")
    );
    // Only the last statement counts.
    assert_eq!(
        rt.eval_repl_echo("y = 2\ny * 10\n").unwrap().as_deref(),
        Some("20")
    );
    // An error leaves nothing behind for the next input.
    assert!(rt.eval_repl_echo("1 / 0\n").is_err());
    assert_eq!(rt.eval_repl_echo("z = 1\n").unwrap(), None);
    // The names the REPL sees: its own, then globals and builtins.
    let names = rt.visible_names();
    for n in ["x", "y", "z", "print", "len"] {
        assert!(names.iter().any(|v| v == n), "{n} missing");
    }
    // Plain eval_repl never echoes and leaves no value.
    rt.eval_repl("5\n").unwrap();
    assert_eq!(rt.eval_repl_echo("w = 0\n").unwrap(), None);
    // A snapshot rebuilds echo-compiled inputs as they were compiled.
    let bytes = rt.snapshot().unwrap();
    let mut restored = Runtime::new();
    restored.restore_snapshot(&bytes).unwrap();
    assert_eq!(restored.global("y"), Some(HostValue::Int(2)));
}
