//! Issue 18 item 1, the host side: values that contain themselves or share
//! sub-arrays cross into the host (pause reasons, globals, host-function
//! arguments — what the C ABI converts too) in bounded time and size.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::quiet;
use sense_agents::{HostReturn, HostValue, State};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Nodes in a host value (each list and each leaf).
fn nodes(v: &HostValue) -> usize {
    match v {
        HostValue::List(items) => 1 + items.iter().map(nodes).sum::<usize>(),
        _ => 1,
    }
}

const SELF_CYCLE: &str = "c = []\npush(c, c)\npush(c, c)\n";
const TWO_CYCLE: &str = "p = []\nq = [p]\npush(p, q)\n";
const DAG: &str = "d = [1]\nfor i in range(30):\n    d = [d, d]\n";

#[test]
fn a_cycle_reads_as_an_elision_where_it_recurs() {
    let mut rt = quiet();
    rt.run_source("c.sns", SELF_CYCLE).unwrap();
    let c = rt.global("c").unwrap();
    assert_eq!(c.to_string(), "[[...], [...]]");
    rt.run_source("p.sns", TWO_CYCLE).unwrap();
    assert_eq!(rt.global("p").unwrap().to_string(), "[[[...]]]");
}

#[test]
fn shared_sub_arrays_are_copied_within_a_fixed_budget() {
    let mut rt = quiet();
    rt.run_source("d.sns", DAG).unwrap();
    let t = Instant::now();
    let d = rt.global("d").unwrap();
    // 2^31 nodes as a tree; the copy stops after about a million more
    // elements than the sixty distinct ones.
    let n = nodes(&d);
    assert!(n < 3 << 20, "{n} nodes");
    assert!(n > 1 << 20, "{n} nodes: the budget is for real sharing too");
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}

#[test]
fn an_array_without_sharing_is_copied_whole() {
    let mut rt = quiet();
    rt.run_source(
        "big.sns",
        "big = []\nfor i in range(1500000):\n    push(big, [i])\n",
    )
    .unwrap();
    let HostValue::List(items) = rt.global("big").unwrap() else {
        panic!("not a list")
    };
    assert_eq!(items.len(), 1_500_000);
    assert_eq!(
        items[1_499_999],
        HostValue::List(vec![HostValue::Int(1_499_999)])
    );
}

#[test]
fn cyclic_and_shared_pause_reasons_and_host_arguments() {
    for (name, setup, var) in [
        ("self", SELF_CYCLE, "c"),
        ("two", TWO_CYCLE, "p"),
        ("dag", DAG, "d"),
    ] {
        let mut rt = quiet();
        let seen = Arc::new(Mutex::new(0usize));
        let sink = seen.clone();
        rt.register_fn("take", Some(1), move |args| {
            *sink.lock().unwrap() = nodes(&args[0]);
            Ok(HostReturn::Value(HostValue::Nil))
        });
        let indented: String = setup.lines().map(|l| format!("    {l}\n")).collect();
        let src = format!("agent a:\n{indented}    take({var})\n    x = pause({var})\n");
        rt.run_source(&format!("{name}.sns"), &src).unwrap();
        let id = rt.agent("a").unwrap();
        let t = Instant::now();
        let State::Paused { reason, .. } = rt.start(id).unwrap() else {
            panic!("{name}: not paused")
        };
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "{name}: {:?}",
            t.elapsed()
        );
        assert!(
            nodes(&reason) < 3 << 20,
            "{name}: reason of {} nodes",
            nodes(&reason)
        );
        let taken = *seen.lock().unwrap();
        assert!(
            taken > 0 && taken < 3 << 20,
            "{name}: host argument of {taken} nodes"
        );
        // The agents report (what `sense show` and the console use).
        let report = rt.agents();
        assert!(nodes(&report[0].pause_reason) < 3 << 20);
    }
}

#[test]
fn equality_over_shared_arrays_is_fast_and_cycles_end_cleanly() {
    let mut rt = quiet();
    let out = Arc::new(Mutex::new(String::new()));
    let sink = out.clone();
    rt.set_output(move |s| sink.lock().unwrap().push_str(s));
    let t = Instant::now();
    rt.run_source(
        "eq.sns",
        "d = [1]\ne = [1]\nfor i in range(30):\n    d = [d, d]\n    e = [e, e]\nprint(d == e, d == [d, 1])\n",
    )
    .unwrap();
    assert_eq!(*out.lock().unwrap(), "true false\n");
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    // Two distinct cycles compare like Python: a recursion error, not a hang.
    let err = rt
        .run_source(
            "cyc.sns",
            "c = []\npush(c, c)\nk = []\npush(k, k)\nprint(c == k)\n",
        )
        .unwrap_err();
    assert!(err.rendered().contains("recursion"), "{}", err.rendered());
}

#[test]
fn a_report_with_many_locals_on_one_shared_value_is_bounded_as_a_whole() {
    let mut rt = quiet();
    let names: Vec<String> = (0..40).map(|i| format!("v{i}")).collect();
    let mut src =
        String::from("agent a:\n    d = [1]\n    for i in range(30):\n        d = [d, d]\n");
    for n in &names {
        src.push_str(&format!("    {n} = d\n"));
    }
    src.push_str("    x = ask_human(\"q\")\n");
    rt.run_source("many.sns", &src).unwrap();
    let id = rt.agent("a").unwrap();
    rt.start(id).unwrap();
    let t = Instant::now();
    let report = rt.agents();
    let total: usize = report[0].frames[0]
        .locals
        .iter()
        .map(|(_, v)| nodes(v))
        .sum();
    assert!(total < 3 << 20, "{total} nodes over 40 locals");
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}
