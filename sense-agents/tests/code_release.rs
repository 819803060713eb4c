//! Releasing the code of programs nothing refers to (issue 16, bug 3):
//! survivors keep working after the store is compacted — functions,
//! paused agents in the middle of it, errors that point into it — and
//! snapshots taken afterwards restore.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::runtime;
use sense_agents::{HostValue, Runtime, State};

#[test]
fn survivors_work_after_compaction() {
    let (mut rt, out) = runtime();
    rt.run_source("garbage0.sns", "def g(x):\n    return x\ny = g(1)\n")
        .unwrap();
    rt.run_source(
        "agent.sns",
        "def helper(n):\n    return n * 10\nagent a:\n    n = pause(\"n?\")\n    print(helper(n))\n",
    )
    .unwrap();
    let a = rt.agent("a").unwrap();
    assert!(matches!(rt.start(a).unwrap(), State::Paused { .. }));
    common::run_junk(&mut rt, 50);
    rt.run_source("keep.sns", "def k(x):\n    return x + 1000\n")
        .unwrap();
    let err = rt.run_source("bad.sns", "q = 1\nq = 1 / 0\n").unwrap_err();
    assert_eq!(err.line(), Some(2));
    // Everything but `agent.sns` (its agent is paused there), `keep.sns`
    // (k is live) and the last `junk.sns` (g is live) goes: some of it
    // already went by itself (every few runs).
    rt.release_unused_code();
    assert_eq!(rt.release_unused_code(), 0, "nothing more to release");
    let units = rt.snapshot().unwrap();
    let (mut fresh, _) = runtime();
    fresh
        .run_source("one.sns", "def k(x):\n    return x + 1000\n")
        .unwrap();
    assert!(
        units.len() < fresh.snapshot().unwrap().len() + 1200,
        "the snapshot holds only the survivors"
    );

    let bytes = rt.snapshot().unwrap();
    assert_eq!(rt.resume(a, 4).unwrap(), State::Completed);
    rt.run_source("use.sns", "print(k(1), g(1))").unwrap();
    assert_eq!(*out.lock().unwrap(), "40\n1001 50\n");

    let (mut later, out2) = runtime();
    later.restore_snapshot(&bytes).unwrap();
    let a2 = later.agent("a").unwrap();
    assert_eq!(later.resume(a2, 5).unwrap(), State::Completed);
    later.run_source("use.sns", "print(k(2), g(2))").unwrap();
    assert_eq!(*out2.lock().unwrap(), "50\n1002 51\n");
    Runtime::restore(&later.snapshot().unwrap()).expect("a restored runtime snapshots again");
}

#[test]
fn a_failed_agents_error_keeps_its_source() {
    let (mut rt, _) = runtime();
    rt.run_source("f.sns", "def bad():\n    return 1 / 0\n")
        .unwrap();
    rt.run_source("a.sns", "agent a:\n    bad()\n").unwrap();
    let a = rt.agent("a").unwrap();
    let err = rt.start(a).unwrap_err();
    assert!(err.rendered().contains("f.sns:2"), "{}", err.rendered());
    rt.run_source("drop.sns", "def bad():\n    return 0\n")
        .unwrap();
    for _ in 0..40 {
        rt.run_source("n.sns", "n = 1").unwrap();
    }
    rt.release_unused_code();
    let bytes = rt.snapshot().unwrap();
    let mut later = Runtime::restore(&bytes).unwrap();
    later.set_output(|_| {});
    later.run_source("x.sns", "x = bad()").unwrap();
    assert_eq!(later.global("x"), Some(HostValue::Int(0)));
}
