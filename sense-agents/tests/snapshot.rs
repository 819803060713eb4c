//! Snapshots through the host API: everything a paused runtime holds comes
//! back; damaged, truncated and hostile bytes are refused with an error —
//! never a panic, a hang or an unbounded allocation.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::{loaded, run_main, runtime};
use sense_agents::{AgentStatus, HostReturn, HostValue, PauseKind, Runtime, State};
use sense_testkit::Rng;
use std::sync::{Arc, Mutex};

fn restored(bytes: &[u8]) -> (Runtime, Arc<Mutex<String>>) {
    let (mut rt, out) = runtime();
    rt.restore_snapshot(bytes).unwrap();
    (rt, out)
}

const PROGRAM: &str = r#"
shared = [1, 2]
loop = [shared]
push(loop, loop)
def make_counter():
    n = 0
    def next():
        n = n + 1
        return n
    return next
counter = make_counter()
counter()
reversible action book(room: String):
    print("booked", room)
    ref = room + "-1"
rollback:
    print("cancelled", ref)
booking = book("blue")
booking.verify()
memory notes
notes.remember("k", shared)
agent done:
    x = 1
start(done)
agent broken:
    y = 1 / 0
test "broken agent":
    start(broken)
agent worker:
    total = 0
    for i in range(3):
        got = pause("step " + str(i))
        total = total + got + counter()
        push(shared, total)
    print("worker total", total, "counter at", counter())
agent inbox:
    print("received", receive(), receive())
send(inbox, "early")
start(inbox)
"#;

#[test]
fn every_kind_of_state_survives_a_round_trip() {
    let (mut rt, _) = runtime();
    rt.run_source("prog.sns", PROGRAM).unwrap();
    let w = rt.agent("worker").unwrap();
    assert!(matches!(rt.start(w).unwrap(), State::Paused { .. }));
    let bytes = rt.snapshot().unwrap();

    let (mut rt2, out2) = restored(&bytes);
    let w2 = rt2.agent("worker").unwrap();
    assert_eq!(rt2.status(w2).unwrap(), AgentStatus::Paused);
    assert_eq!(rt2.pause_reason(w2).unwrap(), HostValue::from("step 0"));
    assert_eq!(
        rt2.status(rt2.agent("done").unwrap()).unwrap(),
        AgentStatus::Completed
    );
    assert_eq!(
        rt2.status(rt2.agent("broken").unwrap()).unwrap(),
        AgentStatus::Failed
    );
    let inbox = rt2.agent("inbox").unwrap();
    assert_eq!(
        rt2.pause_kind(inbox).unwrap(),
        Some(PauseKind::WaitingMessage)
    );
    // Closures keep their captured scope; shared and cyclic arrays keep
    // their identity; action instances, memories and the audit log are there.
    rt2.run_source(
        "check.sns",
        "print(counter(), loop[0] == shared, loop[1] == loop, booking.state, notes.recall(\"k\") == shared)\npush(shared, 99)\nprint(loop[0])\n",
    )
    .unwrap();
    assert_eq!(
        *out2.lock().unwrap(),
        "2 true true verified true\n[1, 2, 99]\n"
    );
    assert_eq!(rt2.audit_log(), rt.audit_log());
    assert_eq!(rt2.test_results().len(), 1);
    // The worker continues exactly where it paused, with its locals.
    for v in [10, 20] {
        assert!(matches!(rt2.resume(w2, v).unwrap(), State::Paused { .. }));
    }
    assert_eq!(rt2.resume(w2, 30).unwrap(), State::Completed);
    assert!(
        out2.lock()
            .unwrap()
            .ends_with("worker total 72 counter at 6\n"),
        "{}",
        out2.lock().unwrap()
    );
    // The mailbox came along too.
    rt2.send(inbox, "late").unwrap();
    rt2.resume(inbox, HostValue::Nil).unwrap();
    assert!(out2.lock().unwrap().ends_with("received early late\n"));
    // And a committed action can still be rolled back after another round trip.
    rt2.run_source("commit.sns", "booking.commit()").unwrap();
    let bytes2 = rt2.snapshot().unwrap();
    let (mut rt3, out3) = restored(&bytes2);
    rt3.run_source("undo.sns", "booking.rollback()\nprint(booking.state)")
        .unwrap();
    assert_eq!(*out3.lock().unwrap(), "cancelled blue-1\nrolled_back\n");
}

#[test]
fn snapshots_are_deterministic_and_restorable_twice() {
    let (mut rt, _) = runtime();
    rt.run_source("prog.sns", PROGRAM).unwrap();
    let a = rt.snapshot().unwrap();
    let b = rt.snapshot().unwrap();
    assert_eq!(a, b);
    let (rt2, _) = restored(&a);
    assert_eq!(
        rt2.snapshot().unwrap(),
        a,
        "restore then snapshot gives the same bytes"
    );
}

#[test]
fn host_functions_must_be_registered_before_restoring() {
    let (mut rt, _) = runtime();
    rt.register_fn("approve", Some(1), |args| {
        Ok(HostReturn::Suspend(args[0].clone()))
    });
    run_main(
        &mut rt,
        "agent a:\n    print(\"answer\", approve(\"ok?\"))\n",
    );
    let a = rt.agent("a").unwrap();
    rt.start(a).unwrap();
    let bytes = rt.snapshot().unwrap();

    let err = Runtime::restore(&bytes).err().expect("refused");
    assert_eq!(
        err.display_text(),
        "cannot restore snapshot: it uses the host function 'approve', which is not registered (register it before restoring)"
    );
    let (mut rt2, out) = runtime();
    rt2.register_fn("approve", Some(1), |_| {
        Ok(HostReturn::Value(HostValue::Nil))
    });
    rt2.restore_snapshot(&bytes).unwrap();
    let a2 = rt2.agent("a").unwrap();
    assert_eq!(rt2.pause_kind(a2).unwrap(), Some(PauseKind::HostFunction));
    assert_eq!(rt2.resume(a2, "yes").unwrap(), State::Completed);
    assert_eq!(*out.lock().unwrap(), "answer yes\n");
}

#[test]
fn restoring_needs_a_fresh_runtime() {
    let (mut rt, _) = loaded("x = 1");
    let bytes = rt.snapshot().unwrap();
    let err = rt.restore_snapshot(&bytes).unwrap_err();
    assert!(err.display_text().contains("fresh runtime"), "{err}");
}

/// FNV-1a, as the format's checksum, so tests can forge valid-looking damage.
fn fnv(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn reseal(bytes: &mut [u8]) {
    let sum = fnv(&bytes[20..]);
    bytes[12..20].copy_from_slice(&sum.to_le_bytes());
}

fn sample() -> Vec<u8> {
    let (mut rt, _) = runtime();
    rt.run_source("prog.sns", PROGRAM).unwrap();
    let w = rt.agent("worker").unwrap();
    rt.start(w).unwrap();
    rt.snapshot().unwrap()
}

#[test]
fn code_from_other_source_is_refused() {
    let mut bytes = sample();
    // The code fingerprint is the payload's first field (a varint):
    // flipping its lowest bit keeps the encoding well-formed.
    bytes[20] ^= 1;
    reseal(&mut bytes);
    let err = Runtime::restore(&bytes).err().expect("refused");
    assert!(
        err.display_text().contains("taken against different code"),
        "{err}"
    );
}

#[test]
fn truncation_at_every_offset_is_an_error() {
    let bytes = sample();
    for n in 0..bytes.len() {
        let mut cut = bytes[..n].to_vec();
        assert!(Runtime::restore(&cut).is_err(), "truncated at {n}");
        if cut.len() > 20 {
            reseal(&mut cut);
            assert!(
                Runtime::restore(&cut).is_err(),
                "truncated and resealed at {n}"
            );
        }
    }
}

#[test]
fn random_corruption_never_panics() {
    let bytes = sample();
    let mut rng = Rng(0x5eed_5e45e);
    let mut accepted = 0;
    for round in 0..3000 {
        let mut damaged = bytes.clone();
        let flips = 1 + (rng.bits() % 4) as usize;
        for _ in 0..flips {
            let at = 20 + (rng.bits() as usize) % (damaged.len() - 20);
            damaged[at] ^= 1 << (rng.bits() % 8);
        }
        // Unsealed damage is caught by the checksum.
        assert!(Runtime::restore(&damaged).is_err(), "round {round}");
        // Resealed damage must be caught by decoding or validation — or be
        // harmless: then running the restored runtime must not panic either.
        reseal(&mut damaged);
        if let Ok(mut rt) = Runtime::restore(&damaged) {
            accepted += 1;
            rt.set_output(|_| {});
            rt.config_mut().max_steps = Some(10_000);
            for report in rt.agents() {
                let id = rt.agent_id(&report);
                if report.status == AgentStatus::Paused {
                    let _ = rt.resume(id, 1);
                }
            }
            let _ = rt.run_source("after.sns", "print(shared, counter())");
        }
    }
    eprintln!("{accepted} of 3000 resealed corruptions restored and ran without harm");
}

/// Restoring the checked-in snapshot `tests/fixtures/NAME` fails with an
/// error containing `expected`, and restores nothing.
fn assert_fixture_refused(name: &str, expected: &str) {
    let path = format!("{}/../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap();
    let (mut rt, _) = runtime();
    let err = rt.restore_snapshot(&bytes).unwrap_err().to_string();
    assert!(err.contains(expected), "{name}: {err}");
    assert!(rt.subject().is_none(), "{name}: nothing was restored");
}

/// A snapshot written by an earlier build (format version 1, before the
/// model layer became extension objects and the fused instructions of
/// issue 15 changed the compiled code) is refused with a message naming
/// both versions, never restored against code it was not taken with.
#[test]
fn the_checked_in_v1_snapshot_is_refused_by_version() {
    assert_fixture_refused(
        "snapshot_v1.bin",
        "cannot restore snapshot: it has format version 1; this build reads version 5",
    );
}

/// A snapshot of a format-2 build (before tools, actions, policy and the
/// audit log moved to sense-agents and their instructions became
/// `Declare`) is refused with both versions named.
#[test]
fn the_checked_in_v2_snapshot_is_refused_by_version() {
    assert_fixture_refused(
        "snapshot_v2.bin",
        "cannot restore snapshot: it has format version 2; this build reads version 5",
    );
}

/// A snapshot of a format-3 build (before the compile-time frame slots of
/// issue 24: function locals moved from call scopes into the fiber's
/// slots) is refused with both versions named.
#[test]
fn the_checked_in_v3_snapshot_is_refused_by_version() {
    assert_fixture_refused(
        "snapshot_v3.bin",
        "cannot restore snapshot: it has format version 3; this build reads version 5 \
         (the snapshot format changed: restore it with the build that took it)",
    );
}

/// A snapshot of a format-4 build (before the register-form instructions
/// of issue 24's second stage changed the compiled code) is refused with
/// both versions named.
#[test]
fn the_checked_in_v4_snapshot_is_refused_by_version() {
    assert_fixture_refused(
        "snapshot_v4.bin",
        "cannot restore snapshot: it has format version 4; this build reads version 5 \
         (the snapshot format changed: restore it with the build that took it)",
    );
}

/// A snapshot written by the `sense` command of a format-5 build must keep
/// loading. If a change to the compiler or the format breaks this, bump
/// `FORMAT_VERSION` deliberately and write a new fixture with
/// `sense start examples/interview.sns interviewer --state tests/fixtures/snapshot_vN.bin`.
#[test]
fn the_checked_in_v5_snapshot_still_restores() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/snapshot_v5.bin"
    );
    let bytes = std::fs::read(path).unwrap();
    let (mut rt, out) = restored(&bytes);
    let id = rt.subject().expect("the fixture records its agent");
    for answer in ["Ada", "3"] {
        assert!(matches!(
            rt.resume(id, answer).unwrap(),
            State::Paused { .. }
        ));
    }
    assert_eq!(rt.resume(id, "yes").unwrap(), State::Completed);
    assert_eq!(
        *out.lock().unwrap(),
        "summary: [name=Ada, years of experience=3, ready to start=yes]\n"
    );
}

#[test]
fn a_global_set_before_restoring_is_kept_and_wins_over_the_snapshots() {
    let (rt, _) = loaded("limit = 1\nagent a:\n    pause()\n    print(limit, key)\n");
    let bytes = rt.snapshot().unwrap();
    let (mut back, out) = runtime();
    back.set_global("limit", 7).unwrap();
    back.set_global("key", "k").unwrap();
    back.restore_snapshot(&bytes).unwrap();
    assert_eq!(back.global("limit"), Some(HostValue::Int(7)));
    assert_eq!(back.global("key"), Some(HostValue::from("k")));
    let a = back.agent("a").unwrap();
    back.start(a).unwrap();
    back.resume(a, HostValue::Nil).unwrap();
    assert_eq!(out.lock().unwrap().as_str(), "7 k\n");
}

#[test]
fn keywords_and_non_identifiers_are_not_bindable() {
    let (mut rt, _) = runtime();
    for bad in ["if", "true", "nil", "def", "", "1bad"] {
        assert!(rt.set_global(bad, 1).is_err(), "{bad:?} was bound");
    }
    rt.set_global("ok_name", 1).unwrap();
}
