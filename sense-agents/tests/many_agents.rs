//! 100,000 agents paused at once in one process: no thread per agent, and
//! they are all freed when dropped. Its own test binary, so no other test
//! thread disturbs the thread count.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

use sense_agents::{HostValue, Runtime};

fn status_field(name: &str) -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix(name)
                    .map(|n| n.trim().trim_end_matches(" kB").trim().parse().unwrap_or(0))
            })
        })
        .unwrap_or(0)
}

#[test]
fn a_hundred_thousand_paused_agents_create_no_threads() {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    let threads_before = status_field("Threads:");
    let rss_before = status_field("VmRSS:");
    rt.run_source(
        "m.sns",
        "agents = []\nfor i in range(100000):\n    agent a:\n        x = pause(\"waiting\")\n    start(a)\n    push(agents, a)\n",
    )
    .unwrap();
    let rss_after = status_field("VmRSS:");
    assert_eq!(
        status_field("Threads:"),
        threads_before,
        "no thread may be created per agent"
    );
    if rss_after > rss_before {
        eprintln!(
            "100,000 paused agents: RSS grew {} kB, about {} bytes per agent",
            rss_after - rss_before,
            (rss_after - rss_before) * 1024 / 100_000
        );
    }
    rt.run_source(
        "n.sns",
        "c = 0\nfor a in agents:\n    if a.status == \"paused\":\n        c = c + 1\n",
    )
    .unwrap();
    assert_eq!(rt.global("c"), Some(HostValue::Int(100_000)));
    // Dropping every reference frees them all.
    rt.run_source("o.sns", "agents = nil\na = nil").unwrap();
    let (before_gc, _) = rt.heap_live();
    rt.collect_garbage();
    let (after_gc, _) = rt.heap_live();
    assert!(after_gc + 100_000 <= before_gc, "{before_gc} -> {after_gc}");
}
