//! What a paused agent costs in memory, counted exactly: 10,000 agents
//! each paused at its first `pause()` (the program of
//! `examples/paused_agents.rs`), tallied by a global allocator, with no
//! resident-set noise. Issue 24's goal is at most 800 bytes per paused
//! agent; the bound below is the figure measured when it was written
//! plus a margin, so growth shows up here before it shows up in a
//! million-agent run.
//!
//! The tally is what glibc's malloc takes for every small block (header
//! and rounding included, see `src/alloc_count.rs`), plus each agent's
//! share of the heap arena's tables (an object slot, scope slots) and of
//! the array holding the agents, counted by element size: those tables
//! are large blocks whose unwritten capacity costs no memory. It lives in
//! sense-ffi because a global allocator needs `unsafe`, which the other
//! library crates forbid.
#![warn(clippy::undocumented_unsafe_blocks)]

use sense_agents::{HostValue, Runtime};
// The counting allocator of this crate's unit tests, the same file: the
// crate builds no rlib, so an integration test cannot reach its modules.
#[path = "../src/alloc_count.rs"]
mod alloc_count;
use alloc_count::small_bytes;

/// Agents started by the measured run.
const AGENTS: usize = 10_000;
/// The bound, in bytes per paused agent: 584 measured (BENCHMARKS.md,
/// "Memory per paused agent (issue 24)") plus a margin, well under the
/// goal of 800.
const BOUND: usize = 640;

fn program(count: usize) -> String {
    format!(
        "for i in range({count}):\n    agent a:\n        x = pause(\"waiting\")\n    start(a)\n    push(agents, a)\n"
    )
}

/// Bytes held in small blocks, and live heap objects and scopes, after a
/// collection.
fn measure(rt: &mut Runtime) -> (i64, usize, usize) {
    rt.collect_garbage();
    let (objs, scopes) = rt.heap_live();
    (small_bytes(), objs, scopes)
}

#[test]
fn a_paused_agent_costs_at_most_the_bound() {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    // A first run grows what every run shares (names, free lists, the
    // collector's tables), so the measured run adds only its agents.
    rt.run_source("warm.sns", &format!("agents = []\n{}", program(100)))
        .expect("the warm-up runs");
    let (bytes0, objs0, scopes0) = measure(&mut rt);
    rt.run_source("measured.sns", &program(AGENTS))
        .expect("the measured run runs");
    let (bytes1, objs1, scopes1) = measure(&mut rt);
    rt.run_source(
        "count.sns",
        "paused = 0\nfor a in agents:\n    if a.status == \"paused\":\n        paused = paused + 1\n",
    )
    .expect("the count runs");
    assert_eq!(
        rt.global("paused"),
        Some(HostValue::Int((AGENTS + 100) as i64)),
        "every agent is paused"
    );

    let small = usize::try_from(bytes1 - bytes0).expect("the run holds more than before");
    let slots = (objs1 - objs0) * size_of::<sense_eval::object::Obj>()
        + (scopes1 - scopes0) * size_of::<sense_eval::scope::Scope>()
        + AGENTS * size_of::<sense_eval::Value>();
    let per_agent = (small + slots) / AGENTS;
    eprintln!(
        "a paused agent: {per_agent} bytes ({} in blocks, {} in table slots: {} objects, {} scopes each)",
        small / AGENTS,
        slots / AGENTS,
        (objs1 - objs0) as f64 / AGENTS as f64,
        (scopes1 - scopes0) as f64 / AGENTS as f64,
    );
    assert!(
        per_agent <= BOUND,
        "a paused agent costs {per_agent} bytes, over the bound of {BOUND}"
    );
}
