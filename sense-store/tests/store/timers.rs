//! Durable timers in the store (claiming due wake-ups, each once across
//! claimers) and PostgreSQL's change feed (LISTEN/NOTIFY).

use super::{backend, create, new_instances, paused};
use sense_store::{Event, Record, Store};
use sense_testkit::trials::{StoreKind, Trial, per_store, plain};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The trials of this file.
pub fn trials() -> Vec<Trial> {
    let mut t = Vec::new();
    t.extend(per_store(
        "due_instances_are_claimed_until_the_claim_runs_out",
        due_instances_are_claimed_until_the_claim_runs_out,
    ));
    t.extend(per_store(
        "concurrent_claimers_take_each_wake_up_once",
        concurrent_claimers_take_each_wake_up_once,
    ));
    t.extend(per_store(
        "commits_are_announced_where_the_engine_can",
        commits_are_announced_where_the_engine_can,
    ));
    t.push(plain(
        "claiming_is_fast_among_ten_thousand_sleepers",
        claiming_is_fast_among_ten_thousand_sleepers,
    ));
    t
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn sleeping(wake_at: i64) -> Record {
    let mut r = Record::paused(b"snap".to_vec(), "1.0", "timer");
    r.wake_at = Some(wake_at);
    r
}

fn due_instances_are_claimed_until_the_claim_runs_out(kind: StoreKind) {
    let b = backend(kind, "claim");
    let s = &*b.store;
    let now = now_ms();
    create(s, "past", sleeping(now - 10));
    create(s, "future", sleeping(now + 60_000));
    create(s, "asking", paused(b"x", "q"));
    assert_eq!(s.summary("past").unwrap().unwrap().wake_at, Some(now - 10));
    assert_eq!(s.next_wake().unwrap(), Some(now - 10), "{}", b.name);

    let due = s.claim_due(now, 1_000, 10).unwrap();
    assert_eq!(due.len(), 1, "{}", b.name);
    assert_eq!((due[0].id.as_str(), due[0].version), ("past", 1));
    // Held: nobody else gets it until the claim runs out.
    assert!(s.claim_due(now + 500, 1_000, 10).unwrap().is_empty());
    let again = s.claim_due(now + 1_000, 1_000, 10).unwrap();
    assert_eq!(again.len(), 1, "{}: an expired claim is taken over", b.name);

    // A commit replaces the wake-up (here: none) and ends the claim.
    let done = Record::paused(b"y".to_vec(), "\"next\"", "ask_human");
    assert!(
        s.commit("past", 1, &done, &Event::new("woken", "{}"))
            .unwrap()
            .is_committed()
    );
    assert_eq!(s.summary("past").unwrap().unwrap().wake_at, None);
    assert!(s.claim_due(now + 10_000, 1_000, 10).unwrap().is_empty());
    // The future one comes due in its time.
    let later = s.claim_due(now + 60_000, 1_000, 10).unwrap();
    assert_eq!(later.len(), 1);
    assert_eq!(later[0].id, "future");
}

fn concurrent_claimers_take_each_wake_up_once(kind: StoreKind) {
    let b = backend(kind, "claimers");
    let now = now_ms();
    let new = new_instances("i", 0..300, |i| sleeping(now - i % 7));
    b.store
        .create_many(&new, &Event::new("created", "{}"))
        .unwrap();
    // Four claimers, each with its own store (as four processes).
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let store: Arc<dyn Store> = Arc::from(sense_store::open(&b.url).unwrap());
            std::thread::spawn(move || {
                let mut got = Vec::new();
                loop {
                    let due = store.claim_due(now, 60_000, 7).unwrap();
                    if due.is_empty() {
                        break;
                    }
                    got.extend(due.into_iter().map(|d| d.id));
                }
                got
            })
        })
        .collect();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for h in handles {
        for id in h.join().unwrap() {
            *seen.entry(id).or_default() += 1;
        }
    }
    assert_eq!(seen.len(), 300, "{}: every due instance claimed", b.name);
    assert!(
        seen.values().all(|&n| n == 1),
        "{}: some claimed twice: {:?}",
        b.name,
        seen.iter().filter(|(_, n)| **n > 1).collect::<Vec<_>>()
    );
}

fn commits_are_announced_where_the_engine_can(kind: StoreKind) {
    let b = backend(kind, "listen");
    let feed = b.store.listen().unwrap();
    let Some(mut feed) = feed else {
        assert_eq!(kind, StoreKind::Sqlite, "only SQLite has no feed");
        return;
    };
    // Another process (another store on the same database) creates an
    // instance (not announced: nobody can be waiting on it yet) and
    // claims its wake-up (no new version: not announced either).
    let other = sense_store::open(&b.url).unwrap();
    create(&*other, "a", sleeping(now_ms() - 1));
    assert_eq!(other.claim_due(now_ms(), 1_000, 10).unwrap().len(), 1);
    assert!(feed.next(Duration::from_millis(300)).unwrap().is_empty());
    // A commit is announced at once.
    let r = Record::paused(b"z".to_vec(), "\"q\"", "ask_human");
    let started = Instant::now();
    other.commit("a", 1, &r, &Event::new("x", "{}")).unwrap();
    let ids = feed.next(Duration::from_secs(5)).unwrap();
    assert_eq!(ids, vec!["a".to_string()]);
    assert!(started.elapsed() < Duration::from_secs(1));
    // So is a delete (changes close together may come as one).
    other.commit("a", 2, &r, &Event::new("x", "{}")).unwrap();
    other
        .delete("a", None, &Event::new("deleted", "{}"))
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let got = feed.next(Duration::from_secs(5)).unwrap();
    assert!(got.iter().all(|id| id == "a") && !got.is_empty(), "{got:?}");
    // Many changes at once arrive whole.
    let ids: Vec<String> = (0..600).map(|i| format!("{i:032x}")).collect();
    let new: Vec<_> = ids
        .iter()
        .map(|id| sense_store::NewInstance::new(id, "w", "f.sns", "h", sleeping(0)))
        .collect();
    other
        .create_many(&new, &Event::new("created", "{}"))
        .unwrap();
    for id in &ids {
        other.commit(id, 1, &r, &Event::new("x", "{}")).unwrap();
    }
    let mut seen = std::collections::HashSet::new();
    let until = Instant::now() + Duration::from_secs(10);
    while seen.len() < ids.len() && Instant::now() < until {
        seen.extend(feed.next(Duration::from_secs(1)).unwrap());
    }
    assert_eq!(seen.len(), ids.len());
}

/// Claiming does not slow down with many instances asleep: the index on
/// `wake_at` finds the due ones (SQLite here; the PostgreSQL figure is in
/// BENCHMARKS.md).
fn claiming_is_fast_among_ten_thousand_sleepers() {
    let b = backend(StoreKind::Sqlite, "sleepers");
    let now = now_ms();
    let new = new_instances("s", 0..10_000, |i| sleeping(now + 3_600_000 + i));
    b.store
        .create_many(&new, &Event::new("created", "{}"))
        .unwrap();
    create(&*b.store, "due", sleeping(now - 1));
    let started = Instant::now();
    for _ in 0..20 {
        b.store.claim_due(now, 1, 64).unwrap();
    }
    let each = started.elapsed() / 20;
    assert!(each < Duration::from_millis(20), "a claim took {each:?}");
}
