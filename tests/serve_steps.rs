//! One runner per step, history and fork under `sense serve`, on SQLite
//! and on PostgreSQL (issue 26 items 1 and 3).
//!
//! The racer test counts side effects: each run of the agent writes its
//! answer to a `persistent memory` before pausing again, so a losing
//! request that ran the agent leaves a write for an answer the instance
//! never accepted. With one runner per step there is exactly one write per
//! applied answer.

use sense_testkit::serve::{Service, call, create, id_of, resume, setup};
use sense_testkit::trials::StoreKind;
use serde_json::{Value as Json, json};
use std::time::{Duration, Instant};

const PROGRAM: &str = r#"
persistent memory notes

agent taker:
    i = 0
    while i < 3:
        a = ask_human("q" + str(i))
        n = 0
        while n < 20000:
            n = n + 1
        notes.remember("k" + str(i), a)
        print("step", sense_step, "took", a)
        i = i + 1

agent reader:
    for k in ["k0", "k1", "k2"]:
        print(k, len(notes.history(k)), notes.recall(k))

agent spinner:
    ask_human("go?")
    notes.remember("spin", "started")
    n = 0
    while true:
        n = n + 1
"#;

/// Sixteen clients answer the same question at once, through two
/// processes on one store, three rounds: one answer is applied per round
/// and the agent ran once per applied answer (one memory write each).
fn sixteen_racers_run_the_agent_once_per_applied_answer(kind: StoreKind) {
    let fx = setup("racers", kind, "flow.sns", PROGRAM);
    // Two processes on one store.
    let [a, b] = [0, 1].map(|_| serve(&fx.program, &fx.store.url, &[]));
    let id = id_of(&create(&a, "taker"));
    let ports = [a.port, b.port];
    let mut applied = Vec::new();
    for round in 0..3 {
        let gate = std::sync::Arc::new(std::sync::Barrier::new(16));
        let threads: Vec<_> = (0..16)
            .map(|t| {
                let (port, id, gate) = (ports[t % 2], id.clone(), gate.clone());
                std::thread::spawn(move || {
                    let answer = format!("r{round}t{t}");
                    let req = json!({"value": answer, "version": round + 1});
                    gate.wait();
                    let path = format!("/api/instances/{id}/resume");
                    (answer, call(port, "POST", &path, Some(req)).unwrap())
                })
            })
            .collect();
        let results: Vec<(String, (u16, Json))> =
            threads.into_iter().map(|t| t.join().unwrap()).collect();
        let winners: Vec<&String> = results
            .iter()
            .filter(|(_, (s, _))| *s == 200)
            .map(|(a, _)| a)
            .collect();
        assert_eq!(
            winners.len(),
            1,
            "{}: round {round}: {results:?}",
            fx.store.name
        );
        for (_, (status, body)) in &results {
            if *status != 200 {
                assert_eq!(*status, 409, "{body}");
                let class = body["error"]["class"].as_str().unwrap_or_default();
                assert!(
                    class == "StepInProgress" || class == "VersionConflict",
                    "{body}"
                );
            }
        }
        applied.push(winners[0].clone());
    }
    let (_, body) = a.call("GET", &format!("/api/instances/{id}"), None);
    assert_eq!(body["status"], "completed", "{body}");
    // The step ids the program saw: instance and the version each run
    // started from.
    let expected: String = (0..3)
        .map(|i| format!("step {id}:{} took {}\n", i + 1, applied[i]))
        .collect();
    assert_eq!(body["output"], expected.as_str(), "{}", fx.store.name);
    // The side effects: one memory write per applied answer, holding it.
    let reader = create(&b, "reader");
    let writes: String = (0..3).map(|i| format!("k{i} 1 {}\n", applied[i])).collect();
    assert_eq!(reader["output"], writes.as_str(), "{}", fx.store.name);
}

/// Every version is kept and can be shown; a fork from a past version
/// answers the old question differently and leaves the original alone;
/// `--keep-versions` bounds the history.
fn history_shows_every_version_and_forks_start_from_any(kind: StoreKind) {
    let fx = setup("history", kind, "flow.sns", PROGRAM);
    let a = serve(&fx.program, &fx.store.url, &[]);
    let id = id_of(&create(&a, "taker"));
    for (v, answer) in [(1, "first"), (2, "second")] {
        let (status, body) = resume(&a, &id, json!(answer), Some(v));
        assert_eq!(status, 200, "{body}");
    }
    let (status, list) = a.call("GET", &format!("/api/instances/{id}/versions"), None);
    assert_eq!(status, 200, "{list}");
    let versions: Vec<(i64, String)> = list["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let reason = v["pause_reason"].as_str().unwrap_or_default().to_string();
            (v["version"].as_i64().unwrap(), reason)
        })
        .collect();
    let want = [(1, "q0"), (2, "q1"), (3, "q2")].map(|(v, r)| (v, r.to_string()));
    assert_eq!(versions, want, "{}: {list}", fx.store.name);
    let (status, v2) = a.call("GET", &format!("/api/instances/{id}/versions/2"), None);
    assert_eq!(status, 200, "{v2}");
    assert_eq!(v2["output"], format!("step {id}:1 took first\n"));
    assert!(
        v2["agents"].as_array().is_some_and(|a| !a.is_empty()),
        "{v2}"
    );
    let (status, missing) = a.call("GET", &format!("/api/instances/{id}/versions/9"), None);
    assert_eq!(status, 404, "{missing}");

    // Back to the question asked at version 2, answered differently.
    let (status, fork) = a.call(
        "POST",
        &format!("/api/instances/{id}/fork"),
        Some(json!({"version": 2, "id": "other-path"})),
    );
    assert_eq!(status, 200, "{}: {fork}", fx.store.name);
    assert_eq!(fork["id"], "other-path");
    assert_eq!(fork["version"], 1);
    assert_eq!(fork["pause_reason"], "q1");
    let (status, again) = a.call(
        "POST",
        &format!("/api/instances/{id}/fork"),
        Some(json!({"version": 2, "id": "other-path"})),
    );
    assert_eq!(
        (status, again["error"]["class"].clone()),
        (409, json!("Duplicate"))
    );
    let (status, body) = resume(&a, "other-path", json!("changed"), Some(1));
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["output"],
        format!("step {id}:1 took first\nstep other-path:1 took changed\n")
    );
    let (_, original) = a.call("GET", &format!("/api/instances/{id}"), None);
    assert_eq!(original["version"], 3);
    assert_eq!(original["pause_reason"], "q2");

    // Retention: the newest two versions, the current one included.
    drop(a);
    let kept = serve(&fx.program, &fx.store.url, &["--keep-versions", "2"]);
    let short = id_of(&create(&kept, "taker"));
    for (v, answer) in [(1, "x"), (2, "y")] {
        let (status, body) = resume(&kept, &short, json!(answer), Some(v));
        assert_eq!(status, 200, "{body}");
    }
    let (_, list) = kept.call("GET", &format!("/api/instances/{short}/versions"), None);
    let numbers: Vec<i64> = list["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, [2, 3], "{}: {list}", fx.store.name);
    let (status, gone) = kept.call("GET", &format!("/api/instances/{short}/versions/1"), None);
    assert_eq!(status, 404, "{gone}");
    assert!(
        gone["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no longer kept")),
        "{gone}"
    );
    // Deleting an instance deletes its history.
    let (status, _) = kept.call("DELETE", &format!("/api/instances/{short}"), None);
    assert_eq!(status, 200);
    let (status, _) = kept.call("GET", &format!("/api/instances/{short}/versions"), None);
    assert_eq!(status, 404);
}

/// A process killed while running a step holds its lease until it
/// expires: other processes answer 409 without running anything, then
/// take the step over and run it from the last commit.
fn a_killed_runners_step_is_taken_over_after_its_lease(kind: StoreKind) {
    let fx = setup("takeover", kind, "flow.sns", PROGRAM);
    let lease = ["--lease", "2", "--max-steps", "100000000000"];
    let mut a = serve(&fx.program, &fx.store.url, &lease);
    let b = serve(&fx.program, &fx.store.url, &lease);
    let id = id_of(&create(&a, "spinner"));
    let (port, rid) = (a.port, id.clone());
    let running = std::thread::spawn(move || {
        call(
            port,
            "POST",
            &format!("/api/instances/{rid}/resume"),
            Some(json!({"value": "go", "version": 1})),
        )
    });
    std::thread::sleep(Duration::from_millis(500));
    // While a runs (renewing its lease), b refuses at once.
    let (status, body) = resume(&b, &id, json!("go"), Some(1));
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["class"], "StepInProgress", "{body}");
    a.kill();
    let killed = Instant::now();
    assert!(
        running.join().unwrap().is_err(),
        "the killed process answered"
    );
    // b takes the step over once the lease has run out; it runs again
    // from version 1 (the spinner pauses on b's pause request).
    let (status, _) = b.call("POST", &format!("/api/instances/{id}/pause"), None);
    assert_eq!(status, 200);
    let taken = loop {
        let (status, body) = resume(&b, &id, json!("go"), Some(1));
        if status == 200 {
            break body;
        }
        assert_eq!(body["error"]["class"], "StepInProgress", "{body}");
        assert!(
            killed.elapsed() < Duration::from_secs(10),
            "never taken over"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    // Renewed every third of its 2 s, the lease outlives its holder by
    // more than a second.
    assert!(
        killed.elapsed() > Duration::from_secs(1),
        "taken over after {:?}",
        killed.elapsed()
    );
    assert_eq!(taken["version"], 2, "{}: {taken}", fx.store.name);
    assert_eq!(taken["pause_kind"], "host");
    // The step's side effect happened twice: once in the killed run, once
    // in the run that committed. That is the documented contract.
    let reader = create(&b, "reader");
    assert_eq!(reader["status"], "completed");
}

const COUNTER: &str = r#"
agent counter:
    n = 0
    log = ""
    while true:
        a = ask_human("n=" + str(n) + " log=" + log)
        n = n + 1
        log = log + str(a)
"#;

/// Answers `id` at `version` through `svc` with `value` and checks the
/// question it asks next: what a run from the stored state asks.
fn answer_and_check(svc: &Service, id: &str, version: i64, value: &str, expect: &str) {
    let (status, body) = resume(svc, id, json!(value), Some(version));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["version"], version + 1, "{body}");
    assert_eq!(body["pause_reason"], json!(expect), "{body}");
}

/// Each process keeps the runtimes of the instances it answered (`hot`);
/// two processes answering one instance alternately, and an instance
/// deleted and created again under its id by the other process, must
/// never be run from a kept runtime that is not the stored state.
fn hot_runtimes_never_run_a_stale_state(kind: StoreKind) {
    let fx = setup("hot", kind, "counter.sns", COUNTER);
    // Two processes on one store.
    let [a, b] = [0, 1].map(|_| serve(&fx.program, &fx.store.url, &[]));
    let id = id_of(&create(&a, "counter"));
    let mut log = String::new();
    // A, A, B, A, B, B, A: every answer after the first finds a kept
    // runtime in the process that answered last, and a stale one (or
    // none) in the other.
    for (k, svc) in [&a, &a, &b, &a, &b, &b, &a].into_iter().enumerate() {
        log.push_str(&k.to_string());
        let expect = format!("n={} log={log}", k + 1);
        answer_and_check(svc, &id, k as i64 + 1, &k.to_string(), &expect);
    }
    // `a` keeps the runtime of version 8. `b` deletes the instance and
    // creates it again under the same id, and answers it up to version 8
    // too: same id, same version, another state.
    let (status, body) = call(b.port, "DELETE", &format!("/api/instances/{id}"), None).unwrap();
    assert_eq!(status, 200, "{body}");
    let (status, body) = call(
        b.port,
        "POST",
        "/api/instances",
        Some(json!({"agent": "counter", "id": id})),
    )
    .unwrap();
    assert_eq!(status, 200, "{body}");
    let mut log = String::new();
    for v in 1..8 {
        log.push('x');
        answer_and_check(&b, &id, v, "x", &format!("n={v} log={log}"));
    }
    log.push('y');
    answer_and_check(&a, &id, 8, "y", &format!("n=8 log={log}"));
    // Versions that `a` moved on by itself stay served from memory, and
    // still right.
    log.push('z');
    answer_and_check(&a, &id, 9, "z", &format!("n=9 log={log}"));
}

fn serve(program: &std::path::Path, store: &str, extra: &[&str]) -> Service {
    Service::start(env!("CARGO_BIN_EXE_sense"), program, store, extra)
}

fn main() {
    sense_testkit::trials::run(sense_testkit::trials! {
        plain: ;
        per_store:
            sixteen_racers_run_the_agent_once_per_applied_answer,
            history_shows_every_version_and_forks_start_from_any,
            a_killed_runners_step_is_taken_over_after_its_lease,
            hot_runtimes_never_run_a_stale_state;
    });
}
