//! Hand-off latency: one resume→pause round trip of a running agent, side
//! by side with the thread-per-agent design the reference uses (an OS
//! thread per agent and two signals), so criterion reports the ratio from
//! one run.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use sense::agents::{AgentStatus, HostValue, Runtime, State, ValueRef};
use std::hint::black_box;
use std::sync::Arc;

fn quiet() -> Runtime {
    let mut rt = Runtime::new();
    rt.set_output(|_| {});
    rt
}

/// Sense: `resume` an agent paused in `x = pause()` inside a loop; it runs
/// to the next `pause()` and comes back.
fn sense_round_trip(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let mut rt = quiet();
    rt.run_source(
        "bench.sns",
        "agent worker:\n    while true:\n        x = pause()\n",
    )
    .unwrap();
    let a = rt.agent("worker").unwrap();
    rt.start(a).unwrap();
    group.bench_function("sense: resume→pause round trip", |b| {
        b.iter(|| {
            let s = rt.resume(a, HostValue::Nil).unwrap();
            black_box(matches!(s, State::Paused { .. }));
        })
    });
    // The same round trip reporting only the status (the pause value stays
    // in the runtime, readable with `pause_reason_ref`).
    group.bench_function("sense: resume_ref→pause round trip", |b| {
        b.iter(|| {
            let s = rt.resume_ref(a, ValueRef::Nil).unwrap();
            black_box(s == AgentStatus::Paused);
        })
    });
}

/// The reference's design in Rust: the agent is an OS thread; the caller
/// and the agent hand control back and forth with a mutex and condvar.
fn thread_condvar_round_trip(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
) {
    use parking_lot::{Condvar, Mutex};
    struct Shared {
        turn: Mutex<u8>, // 0 = caller runs, 1 = agent runs, 2 = stop
        cv: Condvar,
    }
    let shared = Arc::new(Shared {
        turn: Mutex::new(0),
        cv: Condvar::new(),
    });
    let agent = {
        let s = shared.clone();
        std::thread::spawn(move || {
            let mut turn = s.turn.lock();
            loop {
                while *turn == 0 {
                    s.cv.wait(&mut turn);
                }
                if *turn == 2 {
                    return;
                }
                // "pause": hand control back to the caller.
                *turn = 0;
                s.cv.notify_all();
            }
        })
    };
    group.bench_function("thread per agent: parking_lot Mutex+Condvar", |b| {
        b.iter(|| {
            let mut turn = shared.turn.lock();
            *turn = 1; // "resume"
            shared.cv.notify_all();
            while *turn == 1 {
                shared.cv.wait(&mut turn);
            }
        })
    });
    *shared.turn.lock() = 2;
    shared.cv.notify_all();
    let _ = agent.join();
}

/// The same design with `thread::park`/`unpark` as the two signals.
fn thread_park_round_trip(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
) {
    use std::sync::atomic::{AtomicU8, Ordering};
    let turn = Arc::new(AtomicU8::new(0));
    let caller = std::thread::current();
    let agent = {
        let turn = turn.clone();
        std::thread::spawn(move || {
            loop {
                match turn.load(Ordering::Acquire) {
                    1 => {
                        turn.store(0, Ordering::Release);
                        caller.unpark();
                    }
                    2 => return,
                    _ => std::thread::park(),
                }
            }
        })
    };
    let agent_thread = agent.thread().clone();
    group.bench_function("thread per agent: park/unpark", |b| {
        b.iter(|| {
            turn.store(1, Ordering::Release);
            agent_thread.unpark();
            while turn.load(Ordering::Acquire) != 0 {
                std::thread::park();
            }
        })
    });
    turn.store(2, Ordering::Release);
    agent_thread.unpark();
    let _ = agent.join();
}

fn handoff(c: &mut Criterion) {
    let mut group = c.benchmark_group("handoff");
    sense_round_trip(&mut group);
    thread_condvar_round_trip(&mut group);
    thread_park_round_trip(&mut group);
    group.finish();

    let mut group = c.benchmark_group("agents");
    group.bench_function("sense: start→first pause of a fresh agent", |b| {
        b.iter_batched(
            || {
                let mut rt = quiet();
                rt.run_source("bench.sns", "agent fresh:\n    x = pause(\"ready\")\n")
                    .unwrap();
                let a = rt.agent("fresh").unwrap();
                (rt, a)
            },
            |(mut rt, a)| {
                black_box(rt.start(a).unwrap());
                rt
            },
            BatchSize::SmallInput,
        )
    });
    let mut rt = quiet();
    rt.run_source(
        "bench.sns",
        "agent clerk:\n    while true:\n        answer = ask_human(\"approve?\")\n",
    )
    .unwrap();
    let a = rt.agent("clerk").unwrap();
    rt.start(a).unwrap();
    group.bench_function("sense: ask_human round trip", |b| {
        b.iter(|| black_box(rt.resume(a, "yes").unwrap()))
    });
    let mut rt = quiet();
    rt.run_source(
        "bench.sns",
        "agent spinner:\n    i = 0\n    while true:\n        i = i + 1\n",
    )
    .unwrap();
    let a = rt.agent("spinner").unwrap();
    let handle = rt.pause_handle(a).unwrap();
    handle.request();
    rt.start(a).unwrap();
    group.bench_function(
        "sense: host pause request honoured at the next safe point",
        |b| {
            b.iter(|| {
                handle.request();
                black_box(rt.resume(a, HostValue::Nil).unwrap())
            })
        },
    );
    group.finish();
}

criterion_group!(benches, handoff);
criterion_main!(benches);
