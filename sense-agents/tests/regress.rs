//! Regressions found while fuzzing and hardening the runtime (issue 8).
//! Each test's comment says what broke. Golden regressions live in
//! `tests/golden/regress/issue_8_*.sns`.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::config;

use sense_agents::{Config, HostValue, PauseKind, Runtime, State};
use std::sync::{Arc, Mutex};

/// A captured runtime whose `ask_human` outside agents sees the end of
/// input.
fn runtime_with(config: Config) -> (Runtime, Arc<Mutex<String>>) {
    let (mut rt, out) = common::capturing(config);
    rt.set_input(|| None);
    (rt, out)
}

/// Broke: the step counter was only reset when an *agent* ran out of
/// budget. After a top-level program used up `max_steps`, every later
/// program on the same runtime failed at its first loop iteration or call
/// with "step budget exhausted" — the runtime was unusable.
#[test]
fn step_budget_error_leaves_the_runtime_usable() {
    let (mut rt, out) = runtime_with(config(|c| c.max_steps = Some(500)));
    for _ in 0..3 {
        let err = rt
            .run_source("spin.sns", "while true:\n    x = 1\n")
            .unwrap_err();
        assert_eq!(
            err.display_text(),
            "[line 1] step budget exhausted (500 steps)"
        );
        rt.run_source(
            "ok.sns",
            "t = 0\nfor i in range(100):\n    t = t + i\nprint(t)\n",
        )
        .unwrap_or_else(|e| panic!("{}", e.rendered()));
    }
    assert_eq!(*out.lock().unwrap(), "4950\n4950\n4950\n");
}

fn shared_array_program(depth: usize) -> String {
    format!(
        "agent a:\n    x = [1]\n    for i in range({depth}):\n        x = [x, x]\n    pause(x)\n    print(\"resumed\")\nx = [1]\nfor i in range({depth}):\n    x = [x, x]\n"
    )
}

fn count_leaves(v: &HostValue) -> (usize, usize) {
    match v {
        HostValue::List(items) => items.iter().fold((0, 0), |(l, o), it| {
            let (l2, o2) = count_leaves(it);
            (l + l2, o + o2)
        }),
        HostValue::Opaque { .. } => (0, 1),
        _ => (1, 0),
    }
}

/// Broke: copying a Sense value out to the host (`State::Paused`'s reason,
/// `Runtime::global`, `Runtime::agents`, host-function arguments) copied
/// shared sub-arrays once per path, so an agent pausing with a 2^40-leaf
/// array of 41 objects ran the *host* out of memory. The copy is now
/// bounded (`max_array_len` items, at least 2^20); what does not fit
/// reads `[...]`.
#[test]
fn host_copies_of_shared_arrays_are_bounded() {
    let (mut rt, out) = runtime_with(config(|c| c.max_array_len = 10_000));
    rt.run_source("dag.sns", &shared_array_program(40)).unwrap();
    let a = rt.agent("a").unwrap();
    let state = rt.start(a).unwrap();
    let State::Paused { reason, kind } = state else {
        panic!("{state:?}");
    };
    assert_eq!(kind, PauseKind::SelfPause);
    let (leaves, cut) = count_leaves(&reason);
    // The bound is `max_array_len`, but at least 2^20 items.
    assert!(leaves > 0 && leaves <= 1 << 20, "{leaves}");
    assert!(cut > 0);
    let global = rt.global("x").unwrap();
    assert!(count_leaves(&global).0 <= 1 << 20);
    let reports = rt.agents();
    assert_eq!(reports.len(), 1);
    assert_eq!(rt.resume(a, HostValue::Nil).unwrap(), State::Completed);
    assert_eq!(*out.lock().unwrap(), "resumed\n");

    // Small shared arrays still come out whole.
    let (mut rt, _) = runtime_with(Config::default());
    rt.run_source("dag.sns", &shared_array_program(3)).unwrap();
    let a = rt.agent("a").unwrap();
    let State::Paused { reason, .. } = rt.start(a).unwrap() else {
        panic!("not paused");
    };
    assert_eq!(count_leaves(&reason), (8, 0));
    assert_eq!(
        reason.to_string(),
        "[[[[1], [1]], [[1], [1]]], [[[1], [1]], [[1], [1]]]]"
    );
}

/// Broke: `print`/`str` of an array with shared sub-arrays rendered each
/// shared part once per path (see also the golden case
/// `regress/issue_8_show_shared_arrays.sns`) and ran out of memory.
#[test]
fn printing_shared_arrays_stops_at_the_string_cap() {
    let (mut rt, out) = runtime_with(config(|c| c.max_string_len = 50_000));
    let err = rt
        .run_source(
            "dag.sns",
            "x = [1]\nfor i in range(40):\n    x = [x, x]\nprint(x)\n",
        )
        .unwrap_err();
    assert!(
        err.display_text().contains("string too large"),
        "{}",
        err.display_text()
    );
    assert_eq!(*out.lock().unwrap(), "");
}

/// Broke: `==` on two distinct arrays with shared sub-arrays did 2^depth
/// comparisons (see `regress/issue_8_equal_shared_arrays.sns`). Issue 8
/// bounded the work; issue 18 compares each pair of arrays once, so the
/// answer comes at once.
#[test]
fn comparing_shared_arrays_is_bounded() {
    let (mut rt, out) = runtime_with(config(|c| c.max_array_len = 1_000));
    let t = std::time::Instant::now();
    rt.run_source(
        "dag.sns",
        "x = [1]\ny = [1]\nfor i in range(60):\n    x = [x, x]\n    y = [y, y]\nprint(x == y)\n",
    )
    .unwrap();
    assert_eq!(*out.lock().unwrap(), "true\n");
    assert!(t.elapsed() < std::time::Duration::from_secs(10));
    out.lock().unwrap().clear();
    // Ordinary comparisons are unaffected.
    rt.run_source("eq.sns", "print([1, [2, 3]] == [1, [2, 3]], [1] == [2])\n")
        .unwrap();
    assert_eq!(*out.lock().unwrap(), "true false\n");
}

/// Broke: `import` read the path before checking it was a regular file,
/// so `import "/dev/zero"` allocated without end (see
/// `regress/issue_8_import_device.sns`).
#[test]
fn importing_a_device_is_a_clean_import_error() {
    let (mut rt, _) = runtime_with(Config::default());
    let err = rt
        .run_source("imp.sns", "import \"/dev/zero\" as z\n")
        .unwrap_err();
    assert_eq!(err.class_name(), "SenseImportError", "{err}");
    assert!(err.display_text().contains("module not found"), "{err}");
}

/// Broke (found by the `source` fuzz target): after a program whose inner
/// loop ended with `break`, a snapshot of the idle runtime did not
/// restore: "a scope reference points at a free slot".
#[test]
fn snapshot_after_break_out_of_a_nested_loop_restores() {
    let (mut rt, out) = runtime_with(Config::default());
    rt.run_source(
        "brk.sns",
        "for a in [1, 2]:\n    for b in [10, 20, 30]:\n        if b == 20:\n            break\n        print(a, b)\n",
    )
    .unwrap();
    assert_eq!(*out.lock().unwrap(), "1 10\n2 10\n");
    let bytes = rt.snapshot().unwrap();
    let (mut back, out2) = runtime_with(Config::default());
    back.restore_snapshot(&bytes)
        .unwrap_or_else(|e| panic!("{}", e.rendered()));
    back.run_source("more.sns", "print(\"restored\")\n")
        .unwrap();
    assert_eq!(*out2.lock().unwrap(), "restored\n");
    // `continue`, and `break` out of a loop inside a function called from
    // a loop body, too.
    for src in [
        "for a in [1, 2]:\n    for b in [10, 20]:\n        if b == 10:\n            continue\n",
        "def f():\n    for i in [1, 2]:\n        if true:\n            x = i\n            break\n    return 1\nfor j in [1, 2]:\n    if true:\n        y = f()\n",
        "while true:\n    if true:\n        for k in [1]:\n            if k == 1:\n                z = [k]\n                break\n        break\n",
    ] {
        let (mut rt, _) = runtime_with(Config::default());
        rt.run_source("loop.sns", src).unwrap();
        let bytes = rt.snapshot().unwrap();
        let (mut back, _) = runtime_with(Config::default());
        back.restore_snapshot(&bytes)
            .unwrap_or_else(|e| panic!("{src}: {}", e.rendered()));
    }
}

/// Broke (found by the `snapshot` fuzz target, reproducible from source):
/// an agent paused with itself as the reason made every rendering of it —
/// `print(a)`, and the host's `State::Paused` reason, `pause_reason()` and
/// `agents()` — recurse without limit and overflow the Rust stack (see
/// `regress/issue_8_agent_paused_with_itself.sns`).
#[test]
fn agent_paused_with_itself_as_the_reason() {
    let (mut rt, _) = runtime_with(Config::default());
    rt.run_source(
        "self.sns",
        "agent a:\n    got = pause(a)\n    print(\"resumed with\", got)\nagent b:\n    xs = [1]\n    push(xs, b)\n    pause(xs)\n",
    )
    .unwrap();
    let a = rt.agent("a").unwrap();
    let state = rt.start(a).unwrap();
    let State::Paused { reason, kind } = state else {
        panic!("{state:?}")
    };
    assert_eq!(kind, PauseKind::SelfPause);
    assert_eq!(reason.type_name(), "Agent");
    let _ = rt.pause_reason(a).unwrap();
    let _ = rt.agents();
    // The reason's own reason is left out, as the reference's host repr
    // of an agent leaves it out (issue 18): no recursion at all.
    let (mut rt2, out2) = runtime_with(Config::default());
    rt2.run_source(
        "self.sns",
        "agent a:\n    got = pause(a)\nagent b:\n    xs = [1]\n    push(xs, b)\n    pause(xs)\nstart(a)\nstart(b)\nprint(a)\nprint(b)\n",
    )
    .unwrap();
    assert_eq!(
        *out2.lock().unwrap(),
        "<agent a status=paused (<agent a status=paused>)>\n<agent b status=paused ([1, <agent b status=paused>])>\n"
    );
    let b = rt.agent("b").unwrap();
    assert!(matches!(rt.start(b).unwrap(), State::Paused { .. }));
    // Snapshots of such runtimes restore, and the agents resume.
    let bytes = rt.snapshot().unwrap();
    let (mut back, out) = runtime_with(Config::default());
    back.restore_snapshot(&bytes).unwrap();
    let _ = back.agents();
    let a = back.agent("a").unwrap();
    assert_eq!(back.resume(a, 3).unwrap(), State::Completed);
    assert_eq!(*out.lock().unwrap(), "resumed with 3\n");
}
