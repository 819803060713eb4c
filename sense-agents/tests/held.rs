//! Held values (retained references): any value kept alive by the host,
//! read back and called, across rebinding and collections; released ids
//! stay invalid.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{quiet, run_main};
use sense_agents::HostValue;

#[test]
fn a_closure_returned_by_a_call_is_held_through_collections() {
    let mut rt = quiet();
    run_main(
        &mut rt,
        "def make_counter(start):\n    n = start\n    def next():\n        n = n + 1\n        return n\n    return next\n",
    );
    let make = rt.hold_global("make_counter").unwrap();
    let (shown, counter) = rt.call_held_and_hold(make, &[HostValue::Int(10)]).unwrap();
    assert_eq!(shown.type_name(), "Function");
    // Nothing in Sense refers to the closure any more; many collections.
    run_main(
        &mut rt,
        "junk = []\nfor i in range(2000):\n    push(junk, [i])\njunk = nil\n",
    );
    rt.collect_garbage();
    assert_eq!(rt.call_held(counter, &[]).unwrap(), HostValue::Int(11));
    rt.collect_garbage();
    assert_eq!(rt.call_held(counter, &[]).unwrap(), HostValue::Int(12));
    assert_eq!(rt.held_count(), 2);
    rt.release_held(counter).unwrap();
    rt.release_held(make).unwrap();
    assert_eq!(rt.held_count(), 0);
}

#[test]
fn held_values_read_back_and_ids_are_not_reused() {
    let mut rt = quiet();
    let list = HostValue::List(vec![HostValue::Int(1), HostValue::from("two")]);
    let a = rt.hold_value(&list).unwrap();
    assert_eq!(rt.held_value(a).unwrap(), list);
    rt.release_held(a).unwrap();
    assert!(rt.release_held(a).is_err(), "released twice");
    assert!(rt.held_value(a).is_err());
    let b = rt.hold_value(&HostValue::Nil).unwrap();
    assert_ne!(a, b, "a released id was given again");
    assert_eq!(rt.held_value(b).unwrap(), HostValue::Nil);
    // Calling what is not callable is a Sense error, not a crash.
    let err = rt.call_held(b, &[]).unwrap_err();
    assert!(
        err.display_text().contains("not callable"),
        "{}",
        err.display_text()
    );
    assert!(rt.hold_global("no_such_name").is_err());
    // Builtins can be held and called.
    let len = rt.hold_global("len").unwrap();
    assert_eq!(rt.call_held(len, &[list]).unwrap(), HostValue::Int(2));
}

#[test]
fn restoring_a_snapshot_releases_held_values() {
    let mut rt = quiet();
    run_main(&mut rt, "x = 1\n");
    let bytes = rt.snapshot().unwrap();
    let mut back = quiet();
    let h = back.hold_value(&HostValue::Int(5)).unwrap();
    back.restore_snapshot(&bytes).unwrap();
    assert!(back.held_value(h).is_err());
    assert_eq!(back.held_count(), 0);
}

#[test]
fn a_held_function_keeps_its_code_when_unused_code_is_released() {
    let mut rt = quiet();
    rt.run_source("first.sns", "def triple(x):\n    return x * 3\n")
        .unwrap();
    let f = rt.hold_global("triple").unwrap();
    run_main(&mut rt, "triple = nil\n");
    // Many programs later (code is released every few runs), the held
    // function's code is still there.
    for i in 0..80 {
        rt.run_source("n.sns", &format!("x{i} = {i}\n")).unwrap();
    }
    rt.release_unused_code();
    assert_eq!(
        rt.call_held(f, &[HostValue::Int(5)]).unwrap(),
        HostValue::Int(15)
    );
}
