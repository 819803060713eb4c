//! The heap ceiling (issue 18, item 3): a program that allocates without
//! bound stops with a `SenseRuntimeError` under the default ceiling instead
//! of growing until the operating system kills the process.
// Test code may unwrap and index (the workspace lints forbid it in library code).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use sense_agents::{Config, ErrorClass, Runtime};

#[test]
fn unbounded_allocation_stops_under_the_default_ceiling() {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    assert_eq!(rt.config_mut().max_heap, sense_eval::vm::DEFAULT_MAX_HEAP);
    let err = rt
        .run_source(
            "grow.sns",
            "rows = []\nwhile true:\n    push(rows, range(100000))\n",
        )
        .unwrap_err();
    assert_eq!(err.class(), Some(ErrorClass::Runtime));
    assert!(
        err.display_text().contains("out of memory") && err.display_text().contains("--max-heap"),
        "{err}"
    );
    // The runtime is still usable, and the garbage goes once unreachable.
    rt.run_source("after.sns", "rows = 0\nx = len(range(1000))\n")
        .unwrap();
    assert_eq!(rt.global("x"), Some(sense_agents::HostValue::Int(1000)));
}

#[test]
fn many_small_objects_hit_a_small_ceiling() {
    let mut rt = Runtime::with_config(Config {
        max_heap: 8 << 20,
        ..Config::default()
    });
    rt.set_output(|_| {});
    let err = rt
        .run_source(
            "grow.sns",
            "a = []\ni = 0\nwhile true:\n    push(a, \"item \" + str(i))\n    i = i + 1\n",
        )
        .unwrap_err();
    assert!(err.display_text().contains("out of memory"), "{err}");
    assert!(matches!(err.line(), Some(3 | 4)), "{err}");
}

#[test]
fn one_huge_allocation_is_refused_before_it_is_made() {
    let mut rt = Runtime::with_config(Config {
        max_heap: 4 << 20,
        ..Config::default()
    });
    rt.set_output(|_| {});
    let err = rt
        .run_source("big.sns", "r = range(1000000)\n")
        .unwrap_err();
    assert!(err.display_text().contains("out of memory"), "{err}");
    rt.run_source("small.sns", "r = range(1000)\n").unwrap();
}
