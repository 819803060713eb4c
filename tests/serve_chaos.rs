//! Chaos: three `sense serve` processes on one PostgreSQL database, N
//! instances (SENSE_CHAOS_INSTANCES, default 2,000) of an agent that asks
//! three questions from nested calls inside loops and sleeps on a durable
//! timer between them, answered concurrently through random processes
//! while processes are `kill -9`ed and restarted at random (the timers are
//! woken by the fleet itself). Every instance must complete with exactly
//! the output of an uninterrupted run, and its audit trail must hold
//! exactly its three answers, in order, and one wake-up: none lost, none
//! applied twice, every timer fired exactly once. Every fourth instance,
//! once complete, is forked at its second question and the fork answered
//! differently; it must end with its own uninterrupted output.
//!
//! Clients answer with the version they saw, so a retry after a lost
//! response (the process died after committing) gets 409 instead of
//! applying the answer again; creates carry a client-chosen id for the
//! same reason.
//!
//! PostgreSQL only: without a server (`SENSE_TEST_POSTGRES_URL`) the test
//! is reported as ignored with the reason, and fails under
//! `SENSE_TEST_ALL=1` (see `sense_testkit::trials`).

use sense_testkit::Rng;
use sense_testkit::serve::{Service, TempDir, call, postgres_store};
use sense_testkit::trials::{postgres_only, require_postgres_url};
use serde_json::{Value as Json, json};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Every this many instances, one is forked at version 3 (question 2,
/// after the timer) once complete.
const FORK_EVERY: usize = 4;

/// Claims on steps last a second: a killed process's step is taken over
/// soon after.
const LEASE: &[&str] = &["--lease", "1"];

const PROGRAM: &str = r#"
import time

agent interviewer:
    answers = []
    def ask(topic, n):
        return ask_human("(" + str(n) + "/3) " + topic + "?")
    def collect(rounds):
        n = 1
        for r in range(len(rounds)):
            if r > 0:
                time.sleep(0.3)
            for topic in rounds[r]:
                answer = ask(topic, n)
                push(answers, topic + "=" + str(answer))
                n = n + 1
    collect([["name"], ["years", "ready"]])
    print("summary:", answers)
"#;

/// The answer instance `k` gives to question `n` (1–3).
fn answer(k: usize, n: u32) -> Json {
    match n {
        1 => json!(format!("user{k}")),
        2 => json!(k as i64 * 3 + 1),
        _ => json!(k.is_multiple_of(2)),
    }
}

/// The output of an uninterrupted run answered as instance `k`.
fn expected(k: usize) -> String {
    format!(
        "summary: [name=user{k}, years={}, ready={}]\n",
        k * 3 + 1,
        k.is_multiple_of(2)
    )
}

/// The fleet: the ports of the processes alive now.
struct Fleet {
    services: Mutex<Vec<Option<Service>>>,
    ports: Mutex<Vec<u16>>,
}

impl Fleet {
    fn port(&self, rng: &mut Rng) -> Option<u16> {
        let ports = self.ports.lock().unwrap();
        (!ports.is_empty()).then(|| ports[rng.below(ports.len() as u64) as usize])
    }

    fn refresh(&self) {
        let s = self.services.lock().unwrap();
        *self.ports.lock().unwrap() = s.iter().flatten().map(|x| x.port).collect();
    }
}

/// Calls any live process until one answers (a killed process drops its
/// connections; the client then tries another).
fn call_any(
    fleet: &Fleet,
    rng: &mut Rng,
    method: &str,
    path: &str,
    body: Option<Json>,
) -> (u16, Json) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(
            Instant::now() < deadline,
            "no process answered {method} {path} for 120 s"
        );
        if let Some(port) = fleet.port(rng)
            && let Ok((status, body)) = call(port, method, path, body.clone())
        {
            // 503: the store was briefly unreachable from that process.
            if status != 503 {
                return (status, body);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Drives instance `k` from creation to completion; returns how many of
/// its requests met a 409.
fn drive(fleet: &Fleet, rng: &mut Rng, k: usize) -> usize {
    let id = format!("chaos-{k}");
    let mut conflicts = 0;
    let mut state = loop {
        let (status, state) = call_any(
            fleet,
            rng,
            "POST",
            "/api/instances",
            Some(json!({"agent": "interviewer", "id": id})),
        );
        match status {
            200 => break state,
            // A killed process's claim on the creation: it runs out.
            409 if state["error"]["class"] == "StepInProgress" => {
                conflicts += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            409 => {
                conflicts += 1;
                break state["current"].clone();
            }
            _ => panic!("create {id}: {status} {state}"),
        }
    };
    if state.is_null() {
        state = call_any(fleet, rng, "GET", &format!("/api/instances/{id}"), None).1;
    }
    conflicts += finish(fleet, rng, &id, state, |n| answer(k, n));
    if k.is_multiple_of(FORK_EVERY) {
        conflicts += fork(fleet, rng, k);
    }
    conflicts
}

/// Instance `k`'s fork: the id, and the instance whose answers it gives
/// to questions 2 and 3.
fn fork_of(k: usize) -> (String, usize) {
    (format!("chaos-{k}-fork"), k + 100_000)
}

/// The output of a fork of instance `k` made at version 3 (question 2
/// asked: version 2 is the sleep after the first answer, woken into 3) and answered as [`fork_of`] says.
fn fork_expected(k: usize) -> String {
    let (_, other) = fork_of(k);
    format!(
        "summary: [name=user{k}, years={}, ready={}]\n",
        other * 3 + 1,
        other.is_multiple_of(2)
    )
}

/// Forks instance `k` at version 2 under a client-chosen id (a retry
/// after a lost answer gets 409 Duplicate and goes on with the fork that
/// exists) and drives the fork to completion; its conflicts.
fn fork(fleet: &Fleet, rng: &mut Rng, k: usize) -> usize {
    let (id, other) = fork_of(k);
    let (status, state) = call_any(
        fleet,
        rng,
        "POST",
        &format!("/api/instances/chaos-{k}/fork"),
        Some(json!({"version": 3, "id": id})),
    );
    let (state, conflicts) = match status {
        200 => (state, 0),
        409 => (
            call_any(fleet, rng, "GET", &format!("/api/instances/{id}"), None).1,
            1,
        ),
        _ => panic!("fork {id}: {status} {state}"),
    };
    conflicts + finish(fleet, rng, &id, state, |n| answer(other, n))
}

/// Answers instance `id` (as it stands in `state`) with `answers` until it
/// completes; how many of its requests met a 409.
fn finish(
    fleet: &Fleet,
    rng: &mut Rng,
    id: &str,
    mut state: Json,
    answers: impl Fn(u32) -> Json,
) -> usize {
    let mut conflicts = 0;
    while state["status"] == "paused" {
        if state["pause_kind"] == "timer" {
            // The fleet wakes it; wait for that (a wake-up claimed by a
            // process killed before committing is taken over later).
            let v = &state["version"];
            let path = format!("/api/instances/{id}/wait?version={v}&timeout=60");
            state = call_any(fleet, rng, "GET", &path, None).1;
            continue;
        }
        let reason = state["pause_reason"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let n: u32 = reason[1..2]
            .parse()
            .unwrap_or_else(|_| panic!("{id}: odd question {reason:?}"));
        let body = json!({"value": answers(n), "version": state["version"]});
        let (status, reply) = call_any(
            fleet,
            rng,
            "POST",
            &format!("/api/instances/{id}/resume"),
            Some(body),
        );
        match status {
            200 => state = reply,
            409 => {
                conflicts += 1;
                if reply["error"]["class"] == "StepInProgress" {
                    std::thread::sleep(Duration::from_millis(50));
                }
                state = call_any(fleet, rng, "GET", &format!("/api/instances/{id}"), None).1;
            }
            _ => panic!("resume {id}: {status} {reply}"),
        }
    }
    assert_eq!(state["status"], "completed", "{id}: {state}");
    conflicts
}

fn three_processes_killed_at_random_lose_and_repeat_no_answer() {
    let server = require_postgres_url();
    let count: usize = std::env::var("SENSE_CHAOS_INSTANCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let clients: usize = std::env::var("SENSE_CHAOS_CLIENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let bin = std::env::var("SENSE_CHAOS_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_sense").to_string());
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("chaos: {count} instances, {clients} clients, binary {bin}, seed {seed}");
    let dir = TempDir::new("chaos");
    let program = dir.write("interview.sns", PROGRAM);
    let store = postgres_store(&server);

    // The uninterrupted result, through the CLI, for a few instances.
    for k in [0, 1, 7] {
        let state = dir.0.join(format!("cli-{k}.state"));
        let run = |args: &[String]| {
            let out = std::process::Command::new(&bin)
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        run(&[
            "start".into(),
            program.display().to_string(),
            "interviewer".into(),
            "--state".into(),
            state.display().to_string(),
        ]);
        let mut last = String::new();
        for n in 1..=3 {
            last = run(&[
                "resume".into(),
                state.display().to_string(),
                answer(k, n).to_string(),
            ]);
            if last.contains("sleeping (time.sleep)") {
                std::thread::sleep(Duration::from_millis(350));
                run(&["resume".into(), state.display().to_string()]);
            }
        }
        assert_eq!(last, format!("{}completed\n", expected(k)));
    }

    let fleet = Arc::new(Fleet {
        services: Mutex::new(
            (0..3)
                .map(|_| Some(Service::start(&bin, &program, &store.url, LEASE)))
                .collect(),
        ),
        ports: Mutex::new(Vec::new()),
    });
    fleet.refresh();
    let done = Arc::new(AtomicBool::new(false));
    let kills = Arc::new(AtomicUsize::new(0));
    let chaos = {
        let (fleet, done, kills, program, url, bin) = (
            fleet.clone(),
            done.clone(),
            kills.clone(),
            program.clone(),
            store.url.clone(),
            bin.clone(),
        );
        std::thread::spawn(move || {
            let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200 + rng.below(600)));
                let victim = rng.below(3) as usize;
                // kill -9 mid-traffic: its in-flight resumes die uncommitted.
                let dead = fleet.services.lock().unwrap()[victim].take();
                fleet.refresh();
                drop(dead);
                kills.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(rng.below(300)));
                let fresh = Service::start(&bin, &program, &url, LEASE);
                fleet.services.lock().unwrap()[victim] = Some(fresh);
                fleet.refresh();
            }
        })
    };
    let next = Arc::new(AtomicUsize::new(0));
    let conflicts = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (fleet, next, conflicts) = (fleet.clone(), next.clone(), conflicts.clone());
            std::thread::spawn(move || {
                let mut rng = Rng(seed.wrapping_add(c as u64 * 7919) | 1);
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= count {
                        break;
                    }
                    conflicts.fetch_add(drive(&fleet, &mut rng, k), Ordering::Relaxed);
                }
            })
        })
        .collect();
    let mut failed = None;
    for w in workers {
        if let Err(e) = w.join() {
            failed = Some(e);
        }
    }
    done.store(true, Ordering::Relaxed);
    chaos.join().unwrap();
    if let Some(e) = failed {
        std::panic::resume_unwind(e);
    }
    let elapsed = started.elapsed();

    // Check every instance in the store directly.
    let check = sense_store::open(&store.url).unwrap();
    for k in 0..count {
        let id = format!("chaos-{k}");
        let (s, events, applied) = completed(check.as_ref(), &id);
        assert_eq!(s.output, expected(k), "{id}");
        assert_eq!(s.version, 5, "{id}: one version per answer and one wake-up");
        assert_eq!(
            applied,
            [answer(k, 1), answer(k, 2), answer(k, 3)],
            "{id}: {events:?}"
        );
        assert_eq!(
            events.iter().filter(|e| e.kind == "created").count(),
            1,
            "{id}"
        );
        assert_eq!(
            events.iter().filter(|e| e.kind == "woken").count(),
            1,
            "{id}: the timer fires once: {events:?}"
        );
    }
    // Forks: the first answer of the original, the others their own;
    // the original kept every version.
    let mut forks = 0;
    for k in (0..count).filter(|k| k.is_multiple_of(FORK_EVERY)) {
        let (id, other) = fork_of(k);
        let (s, _, applied) = completed(check.as_ref(), &id);
        assert_eq!(s.output, fork_expected(k), "{id}");
        assert_eq!(s.version, 3, "{id}: the fork's start and two answers");
        assert_eq!(applied, [answer(other, 2), answer(other, 3)], "{id}");
        let history = check.history(&format!("chaos-{k}")).unwrap();
        assert_eq!(history.len(), 5, "chaos-{k}: every version kept");
        forks += 1;
    }
    assert_eq!(
        check.count(None).unwrap(),
        (count + forks) as u64,
        "no stray instances"
    );
    let kills = kills.load(Ordering::Relaxed);
    eprintln!(
        "chaos: {count} instances completed in {:.1} s with {kills} kill -9s, {} conflicts retried",
        elapsed.as_secs_f64(),
        conflicts.load(Ordering::Relaxed)
    );
    assert!(
        kills >= 3 || elapsed < Duration::from_secs(3),
        "too few kills to mean anything: {kills}"
    );
}

fn main() {
    sense_testkit::trials::run(vec![postgres_only(
        "three_processes_killed_at_random_lose_and_repeat_no_answer",
        three_processes_killed_at_random_lose_and_repeat_no_answer,
    )]);
}

/// Instance `id` in the store, which must have completed: its summary,
/// its audit events and the values its answers resumed it with, in order.
fn completed(
    store: &dyn sense_store::Store,
    id: &str,
) -> (
    sense_store::Summary,
    Vec<sense_store::AuditEvent>,
    Vec<Json>,
) {
    let s = store
        .summary(id)
        .unwrap()
        .unwrap_or_else(|| panic!("{id} missing"));
    assert_eq!(s.status, sense_store::Status::Completed, "{id}");
    let events = store.audit(id, 0, 100).unwrap();
    let applied = events
        .iter()
        .filter(|e| e.kind == "resumed")
        .map(|e| serde_json::from_str::<Json>(&e.detail).unwrap()["value"].clone())
        .collect();
    (s, events, applied)
}
