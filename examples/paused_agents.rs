//! How much memory a paused agent costs: starts 1,000,000 agents (or the
//! count given), each paused at its first `pause()`, and prints the growth
//! of the process's resident memory per agent: after the program has
//! counted them (the figure recorded since the first measurement), and
//! right after starting them, before the count's garbage. No thread is
//! created for any of them.
//!
//! `cargo run --release --example paused_agents [COUNT]`
//!
//! The heap ceiling (`Config::max_heap`, 1 GiB by default, an estimate of
//! what values hold) is raised to 2 KB per agent on top of the default, so
//! that 10,000,000 agents (about 8 GB) are not refused as "out of memory".

use sense::{Config, Runtime};

fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let per_agent = 2048usize;
    let config = Config {
        max_heap: sense::eval::vm::DEFAULT_MAX_HEAP
            .saturating_add(per_agent.saturating_mul(count as usize)),
        ..Config::default()
    };
    let mut rt = Runtime::with_config(config);
    rt.set_output(|_| {});
    let before = status_kb("VmRSS:").unwrap_or(0);
    let threads_before = status_kb("Threads:").unwrap_or(0);
    let program = format!(
        "agents = []\nfor i in range({count}):\n    agent a:\n        x = pause(\"waiting\")\n    start(a)\n    push(agents, a)\n"
    );
    let started = std::time::Instant::now();
    if let Err(e) = rt.run_source("paused_agents.sns", &program) {
        eprintln!("{e}");
        std::process::exit(1);
    }
    let elapsed = started.elapsed();
    // Before the count below: reading each agent's `status` makes a string
    // that lives until the collector's next run.
    let started_rss = status_kb("VmRSS:").unwrap_or(0);
    let count_program = "paused = 0\nfor a in agents:\n    if a.status == \"paused\":\n        paused = paused + 1\n";
    if let Err(e) = rt.run_source("count.sns", count_program) {
        eprintln!("{e}");
        std::process::exit(1);
    }
    let after = status_kb("VmRSS:").unwrap_or(0);
    let paused = match rt.global("paused") {
        Some(sense::agents::HostValue::Int(n)) => n,
        other => {
            eprintln!("the program did not count its paused agents: {other:?}");
            std::process::exit(1);
        }
    };
    println!("paused agents:     {paused} of {count}");
    println!(
        "threads:           {} before, {} after",
        threads_before,
        status_kb("Threads:").unwrap_or(0)
    );
    println!(
        "resident memory:   {} KB before, {} KB after",
        before, after
    );
    println!(
        "per paused agent:  {} bytes (including the array that holds them)",
        (after.saturating_sub(before)) * 1024 / count.max(1)
    );
    println!(
        "  before counting: {} bytes (the count's status strings not yet made)",
        (started_rss.saturating_sub(before)) * 1024 / count.max(1)
    );
    println!("time to start all: {elapsed:?}");
}
