//! Interpreter speed: recursion, loops, calls, strings, arrays, scopes,
//! and lexing + parsing + compiling a 1 MB program. The workloads are the
//! `.sns` files in `benches/data/` (the golden suite runs them too, so they
//! cannot rot).

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use sense::Runtime;

fn workload(name: &str) -> String {
    let path = format!("{}/benches/data/{name}.sns", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn run(source: &str) {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    rt.run_source("bench.sns", source).expect("workload runs");
}

/// A 1 MB program of functions, loops and expressions.
fn big_source() -> String {
    let mut s = String::with_capacity(1 << 20);
    let mut i = 0;
    while s.len() < 1 << 20 {
        s.push_str(&format!(
            "def f{i}(a, b: Int) -> Int:\n    \"doc {i}\"\n    total = 0\n    for x in range(a):\n        if x % 2 == 0 and not (x == b):\n            total = total + x * {i} - (b / 2 + 1.5)\n        else if x > 3:\n            total = total - 1\n    return total\nitems{i} = [1, \"two\", 3.0, nil, true, [{i}]]\n"
        ));
        i += 1;
    }
    s
}

fn interpreter(c: &mut Criterion) {
    let mut group = c.benchmark_group("interpreter");
    group.sample_size(20);
    for name in ["fib", "loop", "calls", "strings", "lists", "scopes"] {
        let src = workload(name);
        group.bench_function(name, |b| b.iter(|| run(&src)));
    }
    group.finish();

    let mut group = c.benchmark_group("frontend");
    group.sample_size(10);
    let big = big_source();
    group.bench_function("lex+parse+compile 1 MB", |b| {
        b.iter_batched(
            || {
                let mut rt = Runtime::new();
                rt.set_output(|_| {});
                rt
            },
            |mut rt| {
                // Compiling declares the functions; nothing heavy runs.
                rt.run_source("big.sns", &big).expect("compiles");
                rt
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, interpreter);
criterion_main!(benches);
