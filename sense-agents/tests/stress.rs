//! Stress (issue 8): many threads hammer `PauseHandle::request()` on
//! several agents while one worker thread owns the `Runtime` and keeps
//! resuming them. Checks: every agent's own loop counters end exactly where
//! the program says (no lost or torn state, also at every pause along the
//! way); every request that `request()` accepted is honoured exactly once,
//! except at most one pending when the agent completed, which is dropped
//! with it (no lost wake-ups, no double pauses); nothing
//! deadlocks (the whole test is bounded in wall time).
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

mod common;

use common::quiet_loaded;
use sense_agents::{AgentStatus, Config, HostValue, PauseHandle, PauseKind, Runtime, State};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

const AGENTS: usize = 4;
const HAMMERS: usize = 8;
/// Loop iterations per agent.
const ITERATIONS: i64 = 20_000;
/// Each agent pauses itself every this many iterations.
const SELF_PAUSE_EVERY: i64 = 2_500;
/// Independent runs per test (different interleavings).
const ROUNDS: usize = 4;
/// Per-run wall-time bound (debug build, two shared cores).
const WALL: Duration = Duration::from_secs(5);

fn program() -> String {
    let mut src = String::new();
    for i in 0..AGENTS {
        src.push_str(&format!(
            "agent worker{i}:\n    count = 0\n    total = 0\n    while count < {ITERATIONS}:\n        count = count + 1\n        total = total + count\n        if count % {SELF_PAUSE_EVERY} == 0:\n            got = pause(count)\n            if got != count:\n                print(\"wrong resume value\", got, count)\n    print(\"worker{i}\", count, total)\n"
        ));
    }
    src
}

/// What the worker saw for one agent.
#[derive(Debug, Default, Clone)]
struct Seen {
    host_pauses: u64,
    self_pauses: u64,
    budget_pauses: u64,
    resumes: u64,
    final_count: i64,
    final_total: i64,
}

fn locals(rt: &Runtime, name: &str) -> Option<(i64, i64)> {
    let reports = rt.agents();
    let report = reports.iter().find(|r| r.name == name)?;
    let frame = report.frames.last()?;
    let get = |var: &str| {
        frame.locals.iter().find_map(|(n, v)| match v {
            HostValue::Int(i) if n == var => Some(*i),
            _ => None,
        })
    };
    Some((get("count")?, get("total")?))
}

/// Drives every agent to completion; returns what it saw per agent. Sets
/// `quiet` once every agent is halfway through its loop, so the
/// second half runs without host requests.
fn drive(mut rt: Runtime, names: Vec<String>, quiet: &AtomicBool) -> Vec<Seen> {
    let ids: Vec<_> = names.iter().map(|n| rt.agent(n).unwrap()).collect();
    let mut seen = vec![Seen::default(); ids.len()];
    let mut done = vec![false; ids.len()];
    let mut last_count = vec![0i64; ids.len()];
    let deadline = Instant::now() + WALL;
    while done.iter().any(|d| !d) {
        assert!(Instant::now() < deadline, "worker did not finish in time");
        if last_count.iter().all(|&c| c >= ITERATIONS / 2) {
            quiet.store(true, Ordering::Release);
        }
        for (i, id) in ids.iter().enumerate() {
            if done[i] {
                continue;
            }
            let state = match rt.status(*id).unwrap() {
                AgentStatus::Created => rt.start(*id),
                AgentStatus::Paused => {
                    seen[i].resumes += 1;
                    // A self-pause wants its own count back; other pauses
                    // ignore the value.
                    let (count, _) = locals(&rt, &names[i]).unwrap();
                    rt.resume(*id, count)
                }
                other => panic!("{}: unexpected status {other:?}", names[i]),
            };
            match state.unwrap_or_else(|e| panic!("{}: {}", names[i], e.rendered())) {
                State::Completed => {
                    done[i] = true;
                }
                State::Paused { reason, kind } => {
                    // Paused state is consistent and not torn: the loop
                    // counters obey total = count (count + 1) / 2, and the
                    // count never goes backwards.
                    let (count, total) = locals(&rt, &names[i]).unwrap();
                    assert_eq!(total, count * (count + 1) / 2, "{}: torn state", names[i]);
                    assert!(count >= last_count[i], "{}: count went back", names[i]);
                    last_count[i] = count;
                    assert_eq!(rt.pause_kind(*id).unwrap(), Some(kind));
                    match kind {
                        PauseKind::HostRequest => seen[i].host_pauses += 1,
                        PauseKind::Budget => seen[i].budget_pauses += 1,
                        PauseKind::SelfPause => {
                            seen[i].self_pauses += 1;
                            assert_eq!(reason, HostValue::Int(count));
                            assert_eq!(count % SELF_PAUSE_EVERY, 0);
                        }
                        other => panic!("{}: unexpected pause kind {other:?}", names[i]),
                    }
                }
            }
        }
    }
    for (i, name) in names.iter().enumerate() {
        // Completed agents keep their variables: read them through Sense.
        rt.run_source(
            "probe.sns",
            &format!("probe_count = {name}.count\nprobe_total = {name}.total\n"),
        )
        .unwrap();
        seen[i].final_count = rt.global("probe_count").and_then(|v| v.as_int()).unwrap();
        seen[i].final_total = rt.global("probe_total").and_then(|v| v.as_int()).unwrap();
    }
    seen
}

fn hammer_test(config: Config) {
    let config_budget = config.max_steps.is_some();
    let mut rt = Runtime::with_config(config);
    let out = Arc::new(std::sync::Mutex::new(String::new()));
    let sink = out.clone();
    rt.set_output(move |s| sink.lock().unwrap().push_str(s));
    rt.run_source("stress.sns", &program()).unwrap();
    let names: Vec<String> = (0..AGENTS).map(|i| format!("worker{i}")).collect();
    let handles: Vec<PauseHandle> = names
        .iter()
        .map(|n| rt.pause_handle(rt.agent(n).unwrap()).unwrap())
        .collect();
    // Requests that `request()` accepted, per agent.
    let accepted: Arc<Vec<AtomicU64>> = Arc::new((0..AGENTS).map(|_| AtomicU64::new(0)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    // Set by the worker for the second half of the run: with the hammers
    // quiet, a step budget is certain to run out before the agents finish
    // (while they hammer, a request may be pending at every safe point).
    let quiet = Arc::new(AtomicBool::new(false));

    let hammers: Vec<_> = (0..HAMMERS)
        .map(|t| {
            let handles = handles.clone();
            let accepted = accepted.clone();
            let stop = stop.clone();
            let quiet = quiet.clone();
            std::thread::spawn(move || {
                let mut calls = 0u64;
                let mut i = t;
                while !stop.load(Ordering::Acquire) {
                    if quiet.load(Ordering::Acquire) {
                        std::thread::sleep(Duration::from_micros(200));
                        continue;
                    }
                    i = (i + 1 + t) % handles.len();
                    if handles[i].request() {
                        accepted[i].fetch_add(1, Ordering::AcqRel);
                    }
                    calls += 1;
                    if calls % 4 == 0 {
                        std::thread::yield_now();
                    }
                    if calls % 256 == 0 {
                        std::thread::sleep(Duration::from_micros(50));
                    }
                }
                calls
            })
        })
        .collect();

    let (tx, rx) = mpsc::channel();
    let worker_names = names.clone();
    let worker_quiet = quiet.clone();
    let worker = std::thread::spawn(move || {
        let r = drive(rt, worker_names, &worker_quiet);
        let _ = tx.send(());
        r
    });
    if rx.recv_timeout(WALL + Duration::from_secs(5)).is_err() {
        stop.store(true, Ordering::Release);
        panic!("the worker is stuck (deadlock or livelock)");
    }
    stop.store(true, Ordering::Release);
    let seen = worker.join().expect("worker panicked");
    let calls: u64 = hammers.into_iter().map(|h| h.join().unwrap()).sum();

    let mut host_pauses = 0;
    for (i, s) in seen.iter().enumerate() {
        assert_eq!(s.final_count, ITERATIONS, "{}: {s:?}", names[i]);
        assert_eq!(
            s.final_total,
            ITERATIONS * (ITERATIONS + 1) / 2,
            "{}: {s:?}",
            names[i]
        );
        assert_eq!(
            s.self_pauses,
            (ITERATIONS / SELF_PAUSE_EVERY) as u64,
            "{}",
            names[i]
        );
        // No lost or invented wake-ups: each accepted request was honoured
        // once, except at most one that was pending when the agent
        // completed (dropped with it: a finished agent refuses requests).
        assert!(!handles[i].is_requested(), "{}", names[i]);
        assert!(
            !handles[i].request(),
            "{}: finished agents refuse",
            names[i]
        );
        let accepted = accepted[i].load(Ordering::Acquire);
        assert!(
            accepted == s.host_pauses || accepted == s.host_pauses + 1,
            "{}: {accepted} accepted, {s:?}",
            names[i]
        );
        host_pauses += s.host_pauses;
    }
    let printed = out.lock().unwrap().clone();
    assert!(!printed.contains("wrong"), "{printed}");
    for name in &names {
        let total = ITERATIONS * (ITERATIONS + 1) / 2;
        assert!(
            printed.contains(&format!("{name} {ITERATIONS} {total}\n")),
            "{printed}"
        );
    }
    assert!(calls > 0);
    assert!(host_pauses > 0, "no host request was ever honoured");
    if config_budget {
        assert!(seen.iter().all(|s| s.budget_pauses > 0), "{seen:?}");
    }
}

#[test]
fn hammered_pause_requests_lose_nothing() {
    for _ in 0..ROUNDS {
        hammer_test(Config::default());
    }
}

#[test]
fn hammered_pause_requests_with_a_step_budget() {
    // Budget pauses interleave with host and self pauses.
    for _ in 0..ROUNDS {
        hammer_test(Config {
            max_steps: Some(700),
            ..Config::default()
        });
    }
}

#[test]
fn a_request_made_while_paused_is_honoured_on_the_next_run() {
    let mut rt = quiet_loaded(
        "agent a:\n    n = 0\n    while n < 100:\n        n = n + 1\n        if n == 50:\n            pause(\"half\")\n",
    );
    let a = rt.agent("a").unwrap();
    let h = rt.pause_handle(a).unwrap();
    // Before start: taken at the first safe point.
    assert!(h.request());
    assert!(!h.request(), "a second request while one is pending");
    assert!(matches!(
        rt.start(a).unwrap(),
        State::Paused {
            kind: PauseKind::HostRequest,
            ..
        }
    ));
    assert!(!h.is_requested());
    assert!(matches!(
        rt.resume(a, HostValue::Nil).unwrap(),
        State::Paused {
            kind: PauseKind::SelfPause,
            ..
        }
    ));
    // While paused: taken when it runs again.
    assert!(h.request());
    assert!(matches!(
        rt.resume(a, HostValue::Nil).unwrap(),
        State::Paused {
            kind: PauseKind::HostRequest,
            ..
        }
    ));
    assert_eq!(rt.resume(a, HostValue::Nil).unwrap(), State::Completed);
    // After completion a request is refused: it could never be honoured.
    assert!(!h.request());
    assert!(!h.is_requested());
    rt.run_source("n.sns", "x = 1\nfor i in range(10):\n    x = x + i\n")
        .unwrap();
    assert_eq!(rt.global("x"), Some(HostValue::Int(46)));
}
