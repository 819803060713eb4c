//! Durable timers, deadlines and prompt long polls in `sense serve`, on
//! SQLite and on PostgreSQL: `time.sleep` inside an agent is woken by the
//! service itself — each wake-up once across a fleet of processes, within
//! a second even among 10,000 sleeping instances; `ask_human(question,
//! seconds)` resumes with nil at its deadline unless answered before; and
//! on PostgreSQL a change made by another process wakes a long poll at
//! once (LISTEN/NOTIFY) instead of at the next 200 ms poll.
//!
//! A test that runs on both stores is two trials, `NAME::sqlite` and
//! `NAME::postgres` (the second ignored without a server, see
//! `sense_testkit::trials`).

use sense_testkit::serve::{Service, create, id_of, resume, setup};
use sense_testkit::trials::StoreKind;
use serde_json::{Value as Json, json};
use std::time::{Duration, Instant};

const PROGRAM: &str = r#"
import time

agent sleeper:
    print("start")
    time.sleep(1)
    print("woke")
    time.sleep(0.5)
    print("done")

agent asker:
    a = ask_human("ok?", 1)
    print(f"answer: {a}")

agent patient:
    a = ask_human("ok?")
    print(f"answer: {a}")
"#;

fn serve(program: &std::path::Path, store: &str) -> Service {
    Service::start(env!("CARGO_BIN_EXE_sense"), program, store, &[])
}

/// Polls until the instance has `status` (or fails after `within`).
fn until_status(svc: &Service, id: &str, status: &str, within: Duration) -> Json {
    let start = Instant::now();
    loop {
        let (_, body) = svc.call("GET", &format!("/api/instances/{id}"), None);
        if body["status"] == status {
            return body;
        }
        assert!(
            start.elapsed() < within,
            "{id} is not {status} after {within:?}: {body}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The `woken` events of an instance's audit trail.
fn woken(svc: &Service, id: &str) -> Vec<Json> {
    let (_, body) = svc.call("GET", &format!("/api/instances/{id}/audit"), None);
    body["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "woken")
        .cloned()
        .collect()
}

fn sleepers_are_woken_once_across_processes(kind: StoreKind) {
    let fx = setup("timers", kind, "flow.sns", PROGRAM);
    let fleet = [
        serve(&fx.program, &fx.store.url),
        serve(&fx.program, &fx.store.url),
        serve(&fx.program, &fx.store.url),
    ];
    let ids: Vec<String> = (0..24)
        .map(|i| {
            let body = create(&fleet[i % 3], "sleeper");
            assert_eq!(body["pause_kind"], "timer", "{body}");
            assert!(body["wake_at"].as_i64().is_some(), "{body}");
            id_of(&body)
        })
        .collect();
    for id in &ids {
        let body = until_status(&fleet[0], id, "completed", Duration::from_secs(20));
        assert_eq!(
            body["output"], "start\nwoke\ndone\n",
            "{}: {body}",
            fx.store.name
        );
        let events = woken(&fleet[0], id);
        assert_eq!(
            events.len(),
            2,
            "{}: every timer fires once: {events:?}",
            fx.store.name
        );
        for e in &events {
            assert_eq!(e["detail"]["by"], "timer");
            let late = e["detail"]["late_ms"].as_i64().unwrap();
            assert!(
                (0..1000).contains(&late),
                "{}: woken {late} ms late",
                fx.store.name
            );
        }
    }
}

fn questions_with_a_deadline_resume_with_nil(kind: StoreKind) {
    let fx = setup("deadline", kind, "flow.sns", PROGRAM);
    let svc = serve(&fx.program, &fx.store.url);
    let answered = id_of(&create(&svc, "asker"));
    let expired = create(&svc, "asker");
    assert_eq!(expired["pause_kind"], "ask_human");
    assert_eq!(expired["pause_reason"], "ok?");
    assert!(expired["wake_at"].as_i64().is_some(), "{expired}");
    let expired = id_of(&expired);
    // Answered in time: the answer is taken, the deadline forgotten.
    let (status, body) = resume(&svc, &answered, json!("yes"), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["output"], "answer: yes\n");
    assert!(body.get("wake_at").is_none(), "{body}");
    // Not answered: the service resumes it with nil at the deadline.
    let body = until_status(&svc, &expired, "completed", Duration::from_secs(10));
    assert_eq!(body["output"], "answer: nil\n", "{}", fx.store.name);
    let events = woken(&svc, &expired);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["detail"]["by"], "deadline");
    // A late answer changes nothing.
    let (status, body) = resume(&svc, &expired, json!("late"), None);
    assert_eq!(status, 409, "{body}");
    assert_eq!(woken(&svc, &answered).len(), 0);
}

/// Instances sleeping for an hour fill the store; those due in a second
/// are still woken within a second of their time.
fn wake_up_latency_among_ten_thousand_sleepers(kind: StoreKind) {
    let fx = setup("latency", kind, "flow.sns", PROGRAM);
    let svc = serve(&fx.program, &fx.store.url);
    let template = id_of(&create(&svc, "sleeper"));
    {
        let direct = sense_store::open(&fx.store.url).unwrap();
        let inst = direct.load(&template).unwrap().unwrap();
        let hour_from_now = inst.summary.wake_at.unwrap() + 3_600_000;
        for chunk in 0..10 {
            let batch: Vec<_> = (0..1000)
                .map(|i| {
                    let mut r = sense_store::Record::paused(inst.snapshot.clone(), "1.0", "timer");
                    r.wake_at = Some(hour_from_now + i);
                    sense_store::NewInstance::new(
                        &format!("s{chunk}-{i}"),
                        "sleeper",
                        &inst.summary.program_name,
                        &inst.summary.program_hash,
                        r,
                    )
                })
                .collect();
            direct
                .create_many(&batch, &sense_store::Event::new("created", "{}"))
                .unwrap();
        }
        assert!(direct.count(None).unwrap() > 10_000);
    }
    let due: Vec<String> = (0..10).map(|_| id_of(&create(&svc, "sleeper"))).collect();
    let mut worst = 0;
    for id in &due {
        until_status(&svc, id, "completed", Duration::from_secs(20));
        for e in woken(&svc, id) {
            worst = worst.max(e["detail"]["late_ms"].as_i64().unwrap());
        }
    }
    eprintln!(
        "{}: worst wake-up latency among 10,000 sleepers: {worst} ms",
        fx.store.name
    );
    assert!(worst < 1000, "{}: {worst} ms", fx.store.name);
}

/// A change committed by another process ends a long poll at once: on
/// PostgreSQL it is announced (well under the 200 ms poll); on SQLite it
/// is polled.
fn long_polls_wake_promptly_on_changes_elsewhere(kind: StoreKind) {
    let fx = setup("listen", kind, "flow.sns", PROGRAM);
    let a = serve(&fx.program, &fx.store.url);
    let b = serve(&fx.program, &fx.store.url);
    let mut worst = Duration::ZERO;
    for _ in 0..8 {
        let id = id_of(&create(&a, "patient"));
        let (port, wid) = (a.port, id.clone());
        let waiting = std::thread::spawn(move || {
            let r = sense_testkit::serve::call(
                port,
                "GET",
                &format!("/api/instances/{wid}/wait?version=1&timeout=20"),
                None,
            );
            (r.unwrap(), Instant::now())
        });
        std::thread::sleep(Duration::from_millis(150));
        let sent = Instant::now();
        let (status, body) = resume(&b, &id, json!("yes"), None);
        let applied = Instant::now();
        assert_eq!(status, 200, "{body}");
        let ((status, woke), at) = waiting.join().unwrap();
        assert_eq!((status, &woke["version"]), (200, &json!(2)), "{woke}");
        // From the commit (at the latest when the answer came back).
        worst = worst.max(at.saturating_duration_since(applied.min(sent.max(applied))));
    }
    eprintln!(
        "{}: slowest long poll after a change elsewhere: {worst:?}",
        fx.store.name
    );
    let bound = match kind {
        StoreKind::Postgres => Duration::from_millis(100),
        StoreKind::Sqlite => Duration::from_millis(1000),
    };
    assert!(worst < bound, "{}: {worst:?}", fx.store.name);
}

fn main() {
    sense_testkit::trials::run(sense_testkit::trials! {
        plain: ;
        per_store:
            sleepers_are_woken_once_across_processes,
            questions_with_a_deadline_resume_with_nil,
            wake_up_latency_among_ten_thousand_sleepers,
            long_polls_wake_promptly_on_changes_elsewhere;
    });
}
