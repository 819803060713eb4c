//! The heap ceiling (issue 18, item 3): a program that allocates without
//! bound stops with a `SenseRuntimeError` under the default ceiling instead
//! of growing until the operating system kills the process.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::{config, quiet, quiet_loaded, quiet_with, run_main};
use sense_agents::{Config, ErrorClass, Runtime};

/// A runtime with a heap ceiling of `bytes` whose output goes nowhere.
fn ceiling(bytes: usize) -> Runtime {
    quiet_with(config(|c| c.max_heap = bytes))
}

#[test]
fn unbounded_allocation_stops_under_the_default_ceiling() {
    let mut rt = quiet();
    assert_eq!(rt.config_mut().max_heap, sense_eval::vm::DEFAULT_MAX_HEAP);
    let err = rt
        .run_source(
            "grow.sns",
            "rows = []\nwhile true:\n    push(rows, range(100000))\n",
        )
        .unwrap_err();
    assert_eq!(err.class(), Some(ErrorClass::Runtime));
    assert!(
        // No CLI flag in the runtime's words: a C or Rust host has none
        // (issue 27); the CLI adds its own help line.
        err.display_text().contains("out of memory") && !err.display_text().contains("--max-heap"),
        "{err}"
    );
    // The runtime is still usable, and the garbage goes once unreachable.
    rt.run_source("after.sns", "rows = 0\nx = len(range(1000))\n")
        .unwrap();
    assert_eq!(rt.global("x"), Some(sense_agents::HostValue::Int(1000)));
}

#[test]
fn many_small_objects_hit_a_small_ceiling() {
    let mut rt = ceiling(8 << 20);
    let err = common::fails_with(
        &mut rt,
        "grow.sns",
        "a = []\ni = 0\nwhile true:\n    push(a, \"item \" + str(i))\n    i = i + 1\n",
        "out of memory",
    );
    assert!(matches!(err.line(), Some(3 | 4)), "{err}");
}

#[test]
fn one_huge_allocation_is_refused_before_it_is_made() {
    let mut rt = ceiling(4 << 20);
    common::fails_with(&mut rt, "big.sns", "r = range(1000000)\n", "out of memory");
    rt.run_source("small.sns", "r = range(1000)\n").unwrap();
}

/// Issue 27 item 5: a runtime refuses snapshot bytes larger than it could
/// ever have written under its limits, before decoding any of them, and
/// says how large it accepts (hosts bound their reads by the same number).
#[test]
fn snapshots_larger_than_the_limits_allow_are_refused_by_size() {
    let config = Config {
        max_heap: 1 << 20,
        max_source_len: 1 << 20,
        ..Config::default()
    };
    let limit = config.max_snapshot_len();
    assert_eq!(limit, (2 << 20) + (1 << 20) + (64 << 20));
    let mut rt = Runtime::with_config(config);
    let err = rt.restore_snapshot(&vec![0u8; limit + 1]).unwrap_err();
    assert!(
        err.display_text()
            .contains("more than the largest snapshot this runtime accepts"),
        "{err}"
    );
    // Bytes within the limit get as far as the header check.
    let err = rt.restore_snapshot(&[0u8; 64]).unwrap_err();
    assert!(!err.display_text().contains("largest snapshot"), "{err}");
}

/// Issue 27 item 1: memory a program causes outside its values counts too.
/// Each loop is bounded by a step budget, so without the charge it ends
/// in a budget error (having grown a few tens of megabytes) and the test
/// fails rather than taking the machine.
#[test]
fn mailboxes_and_the_audit_log_count_towards_the_ceiling() {
    let programs = [
        (
            "send.sns",
            "agent sink:\n    pause(\"never\")\ni = 0\nwhile true:\n    send(sink, i)\n    i = i + 1\n",
        ),
        (
            "tool.sns",
            "tool ping(x):\n    return x\ni = 0\nwhile true:\n    ping(i)\n    i = i + 1\n",
        ),
    ];
    for (name, source) in programs {
        let mut rt = quiet_with(Config {
            max_heap: 8 << 20,
            max_steps: Some(4_000_000),
            ..Config::default()
        });
        let err = rt.run_source(name, source).unwrap_err();
        assert!(
            err.display_text().contains("out of memory")
                && err.display_text().contains("over the heap limit of"),
            "{name}: {err}"
        );
    }
}

/// Issue 27 item 1: what a host adds is held to the ceiling even when no
/// Sense code runs — globals, messages, restored snapshots — and values a
/// host replaced are freed.
#[test]
fn host_values_and_restored_snapshots_count_towards_the_ceiling() {
    let small = || config(|c| c.max_heap = 4 << 20);
    let chunk = "x".repeat(256 * 1024);
    // Globals: 64 x 256 KiB cannot all fit in 4 MiB.
    let mut rt = quiet_with(small());
    rt.run_source("m.sns", "agent sink:\n    pause(\"never\")\n")
        .unwrap();
    let failed = (0..64).find_map(|i| rt.set_global(&format!("g{i}"), chunk.as_str()).err());
    let err = failed.expect("64 globals of 256 KiB fit in a 4 MiB heap");
    assert!(err.display_text().contains("out of memory"), "{err}");
    // Messages: 64 x 256 KiB into one mailbox (a fresh runtime).
    let mut rt = quiet_with(small());
    rt.run_source("m.sns", "agent sink:\n    pause(\"never\")\n")
        .unwrap();
    let sink = rt.agent("sink").unwrap();
    rt.send(sink, chunk.as_str()).unwrap();
    let failed = (0..64).find_map(|_| rt.send(sink, chunk.as_str()).err());
    assert!(failed.is_some(), "16 MiB of messages in a 4 MiB heap");

    // A snapshot of about 4 MiB does not restore into a 1 MiB heap.
    let big =
        quiet_loaded("s = \"x\"\nfor i in range(22):\n    s = s + s\nagent a:\n    pause(\"p\")\n");
    let bytes = big.snapshot().unwrap();
    let mut tiny = ceiling(1 << 20);
    let err = tiny.restore_snapshot(&bytes).unwrap_err();
    assert!(err.display_text().contains("out of memory"), "{err}");
    assert!(
        Runtime::restore(&bytes).is_ok(),
        "the default ceiling holds it"
    );
}

#[test]
fn globals_a_host_replaces_are_freed_without_sense_code_running() {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    run_main(&mut rt, "x = 1\n");
    let text = "y".repeat(1024);
    for _ in 0..250_000 {
        rt.set_global("g", text.as_str()).unwrap();
    }
    let (objects, _) = rt.heap_live();
    assert!(
        objects < 110_000,
        "{objects} objects live after 250,000 replacements"
    );
}

/// Issue 27 item 1: compiled code and source text count towards the
/// ceiling. One function whose body compiles to about ten times the
/// ceiling (its text is under it) is refused with a clean error instead
/// of being kept, and the runtime stays usable.
#[test]
fn compiled_code_counts_towards_the_ceiling() {
    let mut rt = ceiling(1 << 20);
    let mut body = String::from("def big():\n");
    for i in 0..50_000 {
        body.push_str(&format!("    x{} = {} + 1\n", i % 10, i % 1000));
    }
    assert!(body.len() < 1 << 20);
    let err = rt.run_source("big.sns", &body).unwrap_err();
    assert_eq!(err.class(), Some(ErrorClass::Runtime));
    let text = err.display_text();
    assert!(
        text.contains("out of memory: the program's code needs about")
            && text.contains("over the heap limit of 1 MiB")
            && !text.contains("--max-heap"),
        "{text}"
    );
    // Nothing of it was kept: a small program runs, and `big` is unknown.
    rt.run_source("small.sns", "y = 1 + 1\n").unwrap();
    assert_eq!(rt.global("y"), Some(sense_agents::HostValue::Int(2)));
    assert_eq!(rt.global("big"), None);
}

/// The code's charge follows the code: programs whose code is released
/// stop counting, and code kept alive keeps counting until the ceiling.
#[test]
fn released_code_stops_counting_towards_the_ceiling() {
    let mut rt = ceiling(4 << 20);
    // About 1 MiB of code each, nothing of it reachable after the run.
    let mut program = String::new();
    for i in 0..12_000 {
        program.push_str(&format!("x{} = {i} + 1\n", i % 10));
    }
    for _ in 0..12 {
        rt.run_source("snippet.sns", &program).unwrap();
        rt.release_unused_code();
    }
    // Not released: the fifth or so run no longer fits.
    let refused =
        (0..12).find_map(|i| rt.run_source("snippet.sns", &program).err().map(|e| (i, e)));
    let (i, err) = refused.expect("code kept alive reaches the ceiling");
    assert!(i >= 1, "the first run fits");
    assert!(err.display_text().contains("out of memory"), "{err}");
    rt.release_unused_code();
    rt.run_source("snippet.sns", &program).unwrap();
}
