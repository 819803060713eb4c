//! Snapshot and restore: time and size for one small paused agent and for
//! 10,000 paused agents. Sizes are printed once before measuring.

use criterion::{Criterion, criterion_group, criterion_main};
use sense::Runtime;
use std::hint::black_box;

fn quiet() -> Runtime {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    rt
}

fn small() -> Runtime {
    let mut rt = quiet();
    rt.run_source(
        "small.sns",
        "agent approver:\n    total = 0\n    for step in [\"plan\", \"check\", \"ship\"]:\n        answer = ask_human(\"ok to \" + step + \"?\")\n        total = total + 1\nstart(approver)\n",
    )
    .expect("runs");
    rt
}

fn many(count: usize) -> Runtime {
    let mut rt = quiet();
    rt.run_source(
        "many.sns",
        &format!(
            "agents = []\nfor i in range({count}):\n    agent worker:\n        n = i\n        x = pause(\"waiting\")\n    start(worker)\n    push(agents, worker)\n"
        ),
    )
    .expect("runs");
    rt
}

fn snapshots(c: &mut Criterion) {
    let mut group = c.benchmark_group("snapshot");
    group.sample_size(20);
    for (label, rt) in [
        ("one small paused agent", small()),
        ("10,000 paused agents", many(10_000)),
    ] {
        let bytes = rt.snapshot().expect("snapshot");
        eprintln!("snapshot of {label}: {} bytes", bytes.len());
        group.bench_function(format!("snapshot: {label}"), |b| {
            b.iter(|| black_box(rt.snapshot().expect("snapshot")))
        });
        group.bench_function(format!("restore: {label}"), |b| {
            b.iter(|| black_box(Runtime::restore(&bytes).expect("restore")))
        });
    }
    group.finish();
}

criterion_group!(benches, snapshots);
criterion_main!(benches);
