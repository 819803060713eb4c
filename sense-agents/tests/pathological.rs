//! Pathological inputs (issue 8): each ends with a clean Sense error (or the
//! documented outcome) — never a crash, a stack overflow or a hang — in a
//! debug build on the default 2 MiB test thread, and the runtime stays
//! usable afterwards (another small program runs on the same `Runtime`).
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::config;

use sense_agents::{AgentStatus, Config, Error, ErrorClass, HostValue, PauseKind, Runtime, State};
use std::sync::{Arc, Mutex};

/// A captured runtime whose `ask_human` outside agents sees the end of
/// input.
fn runtime_with(config: Config) -> (Runtime, Arc<Mutex<String>>) {
    let (mut rt, out) = common::capturing(config);
    rt.set_input(|| None);
    (rt, out)
}

fn runtime() -> (Runtime, Arc<Mutex<String>>) {
    runtime_with(Config::default())
}

/// The runtime still runs programs: a loop, a call, a string and an array.
fn still_usable(rt: &mut Runtime, out: &Arc<Mutex<String>>) {
    out.lock().unwrap().clear();
    rt.run_source(
        "after.sns",
        "def add(a, b):\n    return a + b\ntotal = 0\nfor i in range(10):\n    total = add(total, i)\nprint(\"after\", total, [1, 2] + [3], \"a\" + \"b\")\n",
    )
    .unwrap_or_else(|e| panic!("runtime unusable afterwards: {}", e.rendered()));
    assert_eq!(*out.lock().unwrap(), "after 45 [1, 2, 3] ab\n");
}

/// The error of running `src` as `file` (it must fail).
fn failure(rt: &mut Runtime, file: &str, src: &str) -> Error {
    rt.run_source(file, src).unwrap_err()
}

/// Asserts the error's text mentions `part` (and shows the text if not).
fn assert_mentions(err: &Error, part: &str) {
    assert!(err.display_text().contains(part), "{}", err.display_text());
}

/// Under `config`, the first program of `grow` fails with exactly
/// `message` and the second with an error mentioning `kind`; the runtime
/// stays usable.
fn assert_capped(config: Config, grow: [&str; 2], message: &str, kind: &str) {
    let (mut rt, out) = runtime_with(config);
    let err = failure(&mut rt, "grow.sns", grow[0]);
    assert_eq!(err.display_text(), message);
    assert_mentions(&failure(&mut rt, "grow2.sns", grow[1]), kind);
    still_usable(&mut rt, &out);
}

fn nested(open: &str, close: &str, n: usize) -> String {
    let mut s = String::from("x = ");
    s.push_str(&open.repeat(n));
    s.push('1');
    s.push_str(&close.repeat(n));
    s.push('\n');
    s
}

#[test]
fn nested_brackets_100k_is_a_syntax_error_with_a_position() {
    for (open, close) in [("[", "]"), ("(", ")"), ("-", ""), ("not ", "")] {
        let (mut rt, out) = runtime();
        let src = nested(open, close, 100_000);
        let err = failure(&mut rt, "deep.sns", &src);
        assert_eq!(err.class(), Some(ErrorClass::Syntax), "{open}: {err}");
        assert!(
            err.display_text().contains("too deeply nested"),
            "{open}: {}",
            err.display_text()
        );
        assert_eq!(err.line(), Some(1), "{open}: {err}");
        assert!(
            err.column().is_some(),
            "{open}: no column: {}",
            err.rendered()
        );
        assert!(err.rendered().contains("deep.sns:1:"), "{}", err.rendered());
        still_usable(&mut rt, &out);
    }
    // Unclosed: 100k opening brackets and nothing else.
    let (mut rt, out) = runtime();
    let err = failure(&mut rt, "open.sns", &"[".repeat(100_000));
    assert_eq!(err.class(), Some(ErrorClass::Syntax), "{err}");
    assert_eq!(err.line(), Some(1), "{err}");
    still_usable(&mut rt, &out);
}

#[test]
fn long_operator_and_postfix_chains_are_clean_errors() {
    // Chains parse iteratively but build left-nested trees: 100k links
    // must be refused (or handled) without overflowing the stack when
    // compiled or dropped.
    let chains = [
        format!("x = 1{}\n", " + 1".repeat(100_000)),
        format!("x = \"a\"{}\n", " + \"a\"".repeat(100_000)),
        format!("x = 1{}\n", " and 1".repeat(100_000)),
        format!("x = 1{}\n", " < 2".repeat(100_000)),
        format!("def f():\n    return f\nx = f{}\n", "()".repeat(100_000)),
        format!("xs = [1]\nx = xs{}\n", "[0]".repeat(100_000)),
        format!("x = a{}\n", ".b".repeat(100_000)),
    ];
    for src in &chains {
        let (mut rt, out) = runtime();
        match rt.run_source("chain.sns", src) {
            Ok(()) => {}
            Err(e) => assert!(e.class().is_some(), "{}", e.rendered()),
        }
        still_usable(&mut rt, &out);
    }
    // 1,000 links (the parser's chain limit) still work.
    let (mut rt, out) = runtime();
    rt.run_source(
        "ok.sns",
        &format!("x = 0{}\nprint(x)\n", " + 1".repeat(999)),
    )
    .unwrap_or_else(|e| panic!("{}", e.rendered()));
    assert_eq!(*out.lock().unwrap(), "999\n");
}

#[test]
fn million_deep_nested_array_built_at_run_time() {
    // Built by a loop, so no parser limit applies: printing, comparing,
    // copying out to the host, collecting and snapshotting it must all
    // stay off the Rust stack or stop at their depth limits.
    let (mut rt, out) = runtime();
    rt.run_source(
        "deep.sns",
        "x = [1]\ny = [1]\nfor i in range(1000000):\n    x = [x]\n    y = [y]\n",
    )
    .unwrap();
    for probe in ["print(x)", "s = str(x)", "print(x == y)"] {
        let err = failure(&mut rt, "probe.sns", probe);
        assert!(
            err.display_text()
                .contains("maximum recursion depth exceeded"),
            "{probe}: {}",
            err.rendered()
        );
    }
    let host = rt.global("x").unwrap();
    assert_eq!(host.type_name(), "Array");
    drop(host);
    let bytes = rt.snapshot().unwrap();
    let (mut back, back_out) = runtime();
    back.restore_snapshot(&bytes).unwrap();
    back.run_source("n.sns", "n = 0\nwhile len(x) == 1 and type_of(x[0]) == \"Array\":\n    x = x[0]\n    n = n + 1\nprint(n)\n")
        .unwrap();
    assert_eq!(*back_out.lock().unwrap(), "1000000\n");
    // Dropping the structure and collecting it.
    rt.run_source("free.sns", "x = nil\ny = nil\n").unwrap();
    rt.collect_garbage();
    still_usable(&mut rt, &out);
}

#[test]
fn nested_blocks_are_a_syntax_error_too() {
    // 5,000 nested `if` blocks, each indented one more space.
    let mut src = String::new();
    for i in 0..5_000 {
        src.push_str(&" ".repeat(i));
        src.push_str("if true:\n");
    }
    src.push_str(&" ".repeat(5_000));
    src.push_str("x = 1\n");
    let (mut rt, out) = runtime();
    let err = failure(&mut rt, "blocks.sns", &src);
    assert_eq!(err.class(), Some(ErrorClass::Syntax), "{err}");
    assert!(err.line().is_some(), "{err}");
    still_usable(&mut rt, &out);
}

const RECURSE: &str = "def down(n):\n    if n == 0:\n        return 0\n    return down(n - 1) + 1\nprint(down(1000000))\n";

#[test]
fn million_deep_recursion_hits_the_default_depth_limit() {
    let (mut rt, out) = runtime();
    let err = failure(&mut rt, "rec.sns", RECURSE);
    assert_eq!(err.class(), Some(ErrorClass::Runtime), "{err}");
    assert_eq!(
        err.to_string(),
        "SenseRuntimeError: maximum recursion depth exceeded"
    );
    still_usable(&mut rt, &out);
}

#[test]
fn million_deep_recursion_with_the_limit_raised_does_not_overflow_the_rust_stack() {
    // Sense calls do not recurse in Rust, so a million frames live on the
    // heap; this runs on the test's 2 MiB thread in a debug build.
    let (mut rt, out) = runtime_with(config(|c| c.max_depth = 1_000_000 + 10));
    let r = rt.run_source("rec.sns", RECURSE);
    match r {
        Ok(()) => assert_eq!(*out.lock().unwrap(), "1000000\n"),
        // A clean Sense error (a memory or size cap) is acceptable too.
        Err(e) => assert!(e.class().is_some(), "not a Sense error: {}", e.rendered()),
    }
    // Depth exactly at the raised limit is an error, not a crash.
    let (mut rt2, out2) = runtime_with(config(|c| c.max_depth = 1_000_000));
    let err = rt2
        .run_source("rec.sns", &RECURSE.replace("1000000", "1000001"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "SenseRuntimeError: maximum recursion depth exceeded"
    );
    still_usable(&mut rt, &out);
    still_usable(&mut rt2, &out2);
}

#[test]
fn deep_recursion_inside_an_agent_pauses_and_resumes_at_the_bottom() {
    let (mut rt, out) = runtime_with(config(|c| c.max_depth = 200_000));
    rt.run_source(
        "rec.sns",
        "agent diver:\n    def down(n):\n        if n == 0:\n            return pause(\"bottom\")\n        return down(n - 1) + 1\n    result = down(100000)\n    print(result)\n",
    )
    .unwrap();
    let a = rt.agent("diver").unwrap();
    assert_eq!(
        rt.start(a).unwrap(),
        State::Paused {
            reason: HostValue::from("bottom"),
            kind: PauseKind::SelfPause
        }
    );
    // Snapshot and restore a 100k-frame fiber, then finish it there.
    let bytes = rt.snapshot().unwrap();
    let (mut back, back_out) = runtime_with(config(|c| c.max_depth = 200_000));
    back.restore_snapshot(&bytes).unwrap();
    let b = back.agent("diver").unwrap();
    assert_eq!(back.resume(b, 5).unwrap(), State::Completed);
    assert_eq!(*back_out.lock().unwrap(), "100005\n");
    assert_eq!(rt.resume(a, 0).unwrap(), State::Completed);
    assert_eq!(*out.lock().unwrap(), "100000\n");
    still_usable(&mut rt, &out);
}

#[test]
fn gigabyte_string_by_doubling_is_a_size_error() {
    let (mut rt, out) = runtime();
    let err = rt
        .run_source(
            "big.sns",
            "s = \"x\"\nn = 0\nwhile n < 40:\n    s = s + s\n    n = n + 1\nprint(len(s))\n",
        )
        .unwrap_err();
    assert_eq!(err.class(), Some(ErrorClass::Runtime), "{err}");
    assert_eq!(
        err.display_text(),
        "[line 4] string too large (536870912 bytes; the limit is 268435456)"
    );
    drop(rt.run_source("free.sns", "s = nil"));
    still_usable(&mut rt, &out);
}

/// Strings without bound: by doubling, and (capped too) `str()` of a big
/// array.
const STRING_GROWTH: [&str; 2] = [
    "s = \"x\"\nwhile true:\n    s = s + s\n",
    "a = range(2000)\ns = str(a)\n",
];

#[test]
fn string_cap_is_configurable() {
    let message = "[line 3] string too large (1024 bytes; the limit is 1000)";
    let config = config(|c| c.max_string_len = 1000);
    assert_capped(config, STRING_GROWTH, message, "string too large");
}

/// Arrays without bound: by doubling, and by pushing.
const ARRAY_GROWTH: [&str; 2] = [
    "a = [1]\nwhile true:\n    a = a + a\n",
    "b = []\nwhile true:\n    push(b, 1)\n",
];

#[test]
fn gigabyte_range_and_array_growth_are_size_errors() {
    let (mut rt, out) = runtime();
    let err = failure(&mut rt, "range.sns", "xs = range(1000000000)\n");
    assert_eq!(err.class(), Some(ErrorClass::Runtime), "{err}");
    assert!(
        err.display_text()
            .ends_with("array too large (1000000000 elements; the limit is 67108864)"),
        "{}",
        err.display_text()
    );
    // The loop form of the same request.
    let err = failure(
        &mut rt,
        "range2.sns",
        "for i in range(1000000000):\n    x = i\n",
    );
    assert_mentions(&err, "array too large");
    still_usable(&mut rt, &out);

    let message = "[line 3] array too large (1024 elements; the limit is 1000)";
    let config = config(|c| c.max_array_len = 1000);
    assert_capped(config, ARRAY_GROWTH, message, "array too large");
}

#[test]
fn infinite_loop_at_top_level_is_a_budget_error() {
    let (mut rt, out) = runtime_with(config(|c| c.max_steps = Some(10_000)));
    let err = failure(&mut rt, "spin.sns", "n = 0\nwhile true:\n    n = n + 1\n");
    assert_eq!(err.class(), Some(ErrorClass::Runtime), "{err}");
    assert_eq!(
        err.display_text(),
        "[line 2] step budget exhausted (10000 steps)"
    );
    // Infinite recursion under the same budget: the depth limit or the
    // budget, whichever comes first, is a clean error.
    let err = failure(&mut rt, "rec.sns", "def f():\n    return f()\nf()\n");
    assert_eq!(err.class(), Some(ErrorClass::Runtime), "{err}");
    still_usable(&mut rt, &out);
}

#[test]
fn infinite_loop_in_an_agent_pauses_for_budget_and_resume_continues() {
    let (mut rt, out) = runtime_with(config(|c| c.max_steps = Some(1_000)));
    rt.run_source(
        "spin.sns",
        "agent spinner:\n    n = 0\n    while true:\n        n = n + 1\n",
    )
    .unwrap();
    let a = rt.agent("spinner").unwrap();
    let mut last = 0;
    for round in 0..5 {
        let state = rt.start_or_resume(a, round);
        assert!(
            matches!(
                state,
                State::Paused {
                    kind: PauseKind::Budget,
                    ..
                }
            ),
            "round {round}: {state:?}"
        );
        assert_eq!(rt.status(a).unwrap(), AgentStatus::Paused);
        assert_eq!(rt.pause_kind(a).unwrap(), Some(PauseKind::Budget));
        // The loop went on from where it was: n only grows.
        let n = agent_var(&rt, "spinner.n");
        assert!(n > last, "round {round}: n = {n}, before {last}");
        last = n;
    }
    // The same budget pause survives a snapshot.
    let bytes = rt.snapshot().unwrap();
    let (mut back, _) = runtime_with(config(|c| c.max_steps = Some(1_000)));
    back.restore_snapshot(&bytes).unwrap();
    let b = back.agent("spinner").unwrap();
    assert_eq!(back.pause_kind(b).unwrap(), Some(PauseKind::Budget));
    assert!(matches!(
        back.resume(b, HostValue::Nil).unwrap(),
        State::Paused {
            kind: PauseKind::Budget,
            ..
        }
    ));
    still_usable(&mut rt, &out);
}

/// `start` the first time, `resume` after.
trait Drive {
    fn start_or_resume(&mut self, a: sense_agents::AgentId, round: i64) -> State;
}

impl Drive for Runtime {
    fn start_or_resume(&mut self, a: sense_agents::AgentId, round: i64) -> State {
        let r = if round == 0 {
            self.start(a)
        } else {
            self.resume(a, round)
        };
        r.unwrap_or_else(|e| panic!("round {round}: {}", e.rendered()))
    }
}

/// An agent member, read by running `probe = <expr>` on the runtime.
fn agent_var(rt: &Runtime, expr: &str) -> i64 {
    let (agent, var) = expr.split_once('.').unwrap();
    let _ = (agent, var);
    let reports = rt.agents();
    let report = reports.iter().find(|r| r.name == agent).unwrap();
    for frame in &report.frames {
        for (name, value) in &frame.locals {
            if name == var
                && let HostValue::Int(n) = value
            {
                return *n;
            }
        }
    }
    panic!("{expr} not found in {report:?}")
}

/// Issue 27 item 4: `remember` on an in-process memory scanned every key,
/// so 100,000 keys took 80 s (optimised). Indexed, they take about a
/// second here even in a debug build; order and overwrites stay the
/// reference's.
#[test]
fn remembering_100k_keys_in_a_memory_is_not_quadratic() {
    let (mut rt, out) = runtime();
    let t = std::time::Instant::now();
    rt.run_source(
        "mem.sns",
        "memory m\nfor i in range(100000):\n    m.remember(\"k\" + str(i), i)\n\
         m.remember(\"k5\", -5)\nm.forget(\"k1\")\nm.remember(\"k1\", 1)\n\
         ks = m.keys()\nprint(len(ks), ks[0], ks[5], ks[99999], m.recall(\"k5\"), m.recall(\"k99998\"))\n",
    )
    .unwrap_or_else(|e| panic!("{}", e.rendered()));
    let took = t.elapsed();
    assert_eq!(*out.lock().unwrap(), "100000 k0 k6 k1 -5 99998\n");
    assert!(
        took < std::time::Duration::from_secs(30),
        "100,000 remembers took {took:?}"
    );
}
