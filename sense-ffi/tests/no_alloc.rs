//! The hand-off allocates nothing for scalars: a resume with an Int and a
//! read of an Int or String pause value, through `Runtime::resume_ref` +
//! `Runtime::pause_reason_ref` and through `Runtime::resume` →
//! `State::Paused`, counted by a global allocator that tallies every
//! allocation made on the current thread (other test threads do not
//! disturb the count). It lives in sense-ffi because a global allocator
//! needs `unsafe`, which the other library crates forbid; the C functions'
//! own no-allocation test is a unit test of this crate (`resume_scalar.rs`).
#![warn(clippy::undocumented_unsafe_blocks)]

use sense_agents::{AgentId, AgentStatus, HostValue, PauseKind, Runtime, State, ValueRef};
// The counting allocator of this crate's unit tests, the same file: the
// crate builds no rlib, so an integration test cannot reach its modules.
#[path = "../src/alloc_count.rs"]
mod alloc_count;
use alloc_count::allocations_in;

const ECHO: &str = "agent worker:\n    x = 0\n    while true:\n        x = pause(x + 1)\n";
const ASKS: &str = "agent worker:\n    while true:\n        n = pause(\"more?\")\n";

fn started(src: &str) -> (Runtime, AgentId) {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    rt.run_source("m.sns", src).expect("program runs");
    let a = rt.agent("worker").expect("worker");
    assert!(matches!(rt.start(a).expect("start"), State::Paused { .. }));
    // Warm up: the first round trips may grow the fiber's stacks.
    for i in 0..100 {
        rt.resume_ref(a, ValueRef::Int(i)).expect("warm-up");
    }
    (rt, a)
}

/// Runs `round_trip(i)` for `i` in 0..1000 (after `started`'s warm-up)
/// and asserts that none of them allocated.
fn assert_round_trips_allocate_nothing(mut round_trip: impl FnMut(i64)) {
    let n = allocations_in(|| {
        for i in 0..1000 {
            round_trip(i);
        }
    });
    assert_eq!(n, 0, "1,000 round trips allocated {n} times");
}

#[test]
fn resume_ref_with_an_int_and_reading_an_int_pause_value_allocate_nothing() {
    let (mut rt, a) = started(ECHO);
    let mut sum = 0;
    assert_round_trips_allocate_nothing(|i| {
        let status = rt.resume_ref(a, ValueRef::Int(i)).expect("resume");
        assert_eq!(status, AgentStatus::Paused);
        match rt.pause_reason_ref(a).expect("reason") {
            ValueRef::Int(v) => sum += v - i,
            other => panic!("expected an Int pause value, got {other:?}"),
        }
    });
    assert_eq!(sum, 1000, "each pause value is the resume value plus one");
}

#[test]
fn reading_a_string_pause_value_allocates_nothing() {
    let (mut rt, a) = started(ASKS);
    assert_round_trips_allocate_nothing(|i| {
        assert_eq!(
            rt.resume_ref(a, ValueRef::Int(i)).expect("resume"),
            AgentStatus::Paused
        );
        assert_eq!(
            rt.pause_reason_ref(a).expect("reason"),
            ValueRef::Str("more?")
        );
    });
}

#[test]
fn resume_returning_state_paused_with_an_int_allocates_nothing() {
    let (mut rt, a) = started(ECHO);
    assert_round_trips_allocate_nothing(|i| {
        let s = rt.resume(a, i).expect("resume");
        assert_eq!(
            s,
            State::Paused {
                reason: HostValue::Int(i + 1),
                kind: PauseKind::SelfPause
            }
        );
    });
}

#[test]
fn the_counter_sees_allocations() {
    // The guard against a counter that never counts: copying a String
    // pause value out does allocate.
    let (rt, a) = started(ASKS);
    let n = allocations_in(|| {
        assert_eq!(
            rt.pause_reason(a).expect("reason"),
            HostValue::from("more?")
        );
    });
    assert!(n >= 1, "copying a String out was not counted");
}
