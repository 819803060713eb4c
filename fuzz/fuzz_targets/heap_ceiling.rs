//! Random sequences of host calls — set_global, send, call, snapshot,
//! restore — on a runtime with a small heap ceiling (issue 27): whatever
//! the sequence, each call either succeeds or fails cleanly, and the
//! process's resident memory stays within a fixed multiple of the ceiling
//! above what it was before the first call.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sense_agents::{Config, HostValue, Runtime};

/// The ceiling under test.
const CEILING: usize = 4 << 20;
/// Resident memory may grow by at most this many ceilings (the heap's
/// estimate is not exact, the allocator keeps freed memory, and a
/// snapshot and a restored runtime exist beside the live one).
const RSS_FACTOR: usize = 16;

const PROGRAM: &str = "\
agent sink:
    pause(\"never\")
def grow(s, n):
    out = []
    for i in range(n):
        push(out, s + str(i))
    return len(out)
";

#[derive(Arbitrary, Debug)]
enum Op {
    /// `set_global("gN", "x" * size KiB)`.
    SetGlobal { slot: u8, kib: u8 },
    /// `send(sink, "x" * size KiB)`.
    Send { kib: u8 },
    /// `grow("x" * kib KiB, n)` from the host.
    Call { kib: u8, n: u16 },
    /// Snapshot, then restore into a fresh runtime that replaces this one.
    RoundTrip,
}

fn runtime() -> Runtime {
    let mut rt = Runtime::with_config(Config {
        max_heap: CEILING,
        max_steps: Some(100_000),
        ..Config::default()
    });
    rt.set_output(|_| {});
    rt.set_memory_store(sense_agents::memory::open_sqlite_in_memory);
    rt
}

/// Resident set size in bytes (Linux), 0 where it cannot be read.
fn rss() -> usize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<usize>().ok())
        .map_or(0, |pages| pages * 4096)
}

fuzz_target!(|ops: Vec<Op>| {
    let before = rss();
    let mut rt = runtime();
    if rt.run_source("p.sns", PROGRAM).is_err() {
        return;
    }
    for op in ops.iter().take(256) {
        match op {
            Op::SetGlobal { slot, kib } => {
                let text = "x".repeat(usize::from(*kib) * 1024);
                let _ = rt.set_global(&format!("g{}", slot % 16), text.as_str());
            }
            Op::Send { kib } => {
                if let Ok(sink) = rt.agent("sink") {
                    let _ = rt.send(sink, "x".repeat(usize::from(*kib) * 1024).as_str());
                }
            }
            Op::Call { kib, n } => {
                let s = HostValue::from("x".repeat(usize::from(*kib) * 1024).as_str());
                let _ = rt.call("grow", &[s, HostValue::Int(i64::from(*n))]);
            }
            Op::RoundTrip => {
                if let Ok(bytes) = rt.snapshot() {
                    let mut fresh = runtime();
                    if fresh.restore_snapshot(&bytes).is_ok() {
                        rt = fresh;
                    }
                }
            }
        }
        let grown = rss().saturating_sub(before);
        assert!(
            grown <= RSS_FACTOR * CEILING + (64 << 20),
            "resident memory grew by {grown} bytes under a {CEILING}-byte ceiling after {op:?}"
        );
    }
});
