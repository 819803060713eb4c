//! Commits made at the same moment by many threads of one process: each
//! lands exactly as it would alone (on PostgreSQL they share statements:
//! group commit), and a commit the database refuses fails alone.

use super::{backend, create, paused};
use sense_store::testing::TempDatabase;
use sense_store::{Claim, Commit, Event, PostgresStore, Record, Store};
use sense_testkit::trials::{StoreKind, Trial, per_store, postgres_only, require_postgres_url};
use std::sync::{Arc, Barrier};

/// The trials of this file.
pub fn trials() -> Vec<Trial> {
    let mut t = Vec::new();
    t.extend(per_store(
        "concurrent_commits_of_many_instances_each_land_once",
        concurrent_commits_of_many_instances_each_land_once,
    ));
    t.push(postgres_only(
        "concurrent_commits_share_statements_on_postgres",
        concurrent_commits_share_statements_on_postgres,
    ));
    t.extend(per_store(
        "concurrent_claims_of_many_instances_have_one_winner_each",
        concurrent_claims_of_many_instances_have_one_winner_each,
    ));
    t.push(postgres_only(
        "a_refused_commit_in_a_batch_fails_alone",
        a_refused_commit_in_a_batch_fails_alone,
    ));
    t
}

const INSTANCES: usize = 24;
const ROUNDS: i64 = 3;

/// The state committed over version `v` of instance `i`.
fn record(i: usize, v: i64) -> Record {
    let mut r = paused(format!("i{i}v{}", v + 1).as_bytes(), &format!("q{}", v + 1));
    r.output = format!("out {i} {v}\n");
    r.wake_at = (i % 2 == 0).then_some(1_000 + v);
    r.clears_pause_request = i % 3 == 0;
    r
}

/// Each round, every instance is committed by one thread and the first
/// few by a second thread too (at the same version: one of the two must
/// lose), all released at once. Returns how many commits won.
fn commit_rounds(store: &Arc<dyn Store>) -> usize {
    let racers = INSTANCES + INSTANCES / 4;
    let mut wins = 0;
    for v in 1..=ROUNDS {
        let start = Arc::new(Barrier::new(racers));
        let threads: Vec<_> = (0..racers)
            .map(|t| {
                let (store, start) = (store.clone(), start.clone());
                std::thread::spawn(move || {
                    let i = t % INSTANCES;
                    start.wait();
                    let done = store.commit_summary(
                        &format!("g{i}"),
                        v,
                        &record(i, v),
                        &Event::new("resumed", &format!("{{\"t\":{t}}}")),
                    );
                    (i, done.expect("a commit failed"))
                })
            })
            .collect();
        let mut won = [0; INSTANCES];
        for t in threads {
            let (i, (commit, summary)) = t.join().expect("a committing thread panicked");
            match commit {
                Commit::Committed { version } => {
                    assert_eq!(version, v + 1);
                    let s = summary.expect("a commit returns the new summary");
                    assert_eq!(
                        (s.id.as_str(), s.version),
                        (format!("g{i}").as_str(), v + 1)
                    );
                    assert_eq!(s.output, record(i, v).output);
                    assert_eq!(s.wake_at, record(i, v).wake_at);
                    won[i] += 1;
                }
                Commit::Conflict { current } => assert_eq!(current, Some(v + 1)),
            }
        }
        assert!(won.iter().all(|&n| n == 1), "round {v}: wins {won:?}");
        wins += won.len();
    }
    wins
}

fn create_instances(store: &dyn Store) {
    for i in 0..INSTANCES {
        create(
            store,
            &format!("g{i}"),
            paused(format!("i{i}v1").as_bytes(), "q1"),
        );
        store
            .request_pause(&format!("g{i}"), &Event::new("pause_requested", "{}"))
            .unwrap();
    }
}

/// After [`commit_rounds`]: every version of every instance is in the
/// history with its own snapshot, each applied commit left one audit
/// event, and the pause requests were cleared where the state said so.
fn check_instances(store: &dyn Store, name: &str) {
    for i in 0..INSTANCES {
        let id = format!("g{i}");
        let s = store.summary(&id).unwrap().unwrap();
        assert_eq!(s.version, ROUNDS + 1, "{name} {id}");
        assert_eq!(s.pause_requested, i % 3 != 0, "{name} {id}");
        let versions: Vec<i64> = store
            .history(&id)
            .unwrap()
            .iter()
            .map(|v| v.version)
            .collect();
        assert_eq!(
            versions,
            (1..=ROUNDS + 1).collect::<Vec<_>>(),
            "{name} {id}"
        );
        for v in 1..=ROUNDS + 1 {
            let (_, snapshot) = store.load_version(&id, v).unwrap().unwrap();
            assert_eq!(snapshot, format!("i{i}v{v}").into_bytes(), "{name} {id}");
        }
        let events: Vec<(i64, String)> = store
            .audit(&id, 0, 100)
            .unwrap()
            .into_iter()
            .map(|e| (e.version, e.kind))
            .filter(|(_, e)| e != "pause_requested")
            .collect();
        let mut want = vec![(1, "created".to_string())];
        want.extend((2..=ROUNDS + 1).map(|v| (v, "resumed".to_string())));
        assert_eq!(events, want, "{name} {id}");
    }
}

fn concurrent_commits_of_many_instances_each_land_once(kind: StoreKind) {
    let b = backend(kind, "concurrent_commits_of_many_instances");
    create_instances(&*b.store);
    assert_eq!(commit_rounds(&b.store), INSTANCES * ROUNDS as usize);
    check_instances(&*b.store, b.name);
}

fn concurrent_commits_share_statements_on_postgres() {
    let db = TempDatabase::create(&require_postgres_url()).unwrap();
    let pg = Arc::new(PostgresStore::open(db.url()).unwrap());
    let store: Arc<dyn Store> = pg.clone();
    create_instances(&*store);
    let before = pg.commit_stats();
    commit_rounds(&store);
    check_instances(&*store, "postgres");
    let stats = pg.commit_stats();
    let (batches, commits) = (
        stats.batches - before.batches,
        stats.requests - before.requests,
    );
    // Every attempt is counted, losers included.
    assert_eq!(commits, (INSTANCES + INSTANCES / 4) as u64 * ROUNDS as u64);
    assert!(
        batches < commits,
        "{commits} concurrent commits took {batches} statements"
    );
    assert_eq!(stats.retried, 0);
}

/// PostgreSQL refuses text holding a NUL character: that commit's
/// statement fails, and so would the whole batch it shares — so the
/// batch runs again commit by commit and only that one fails.
fn a_refused_commit_in_a_batch_fails_alone() {
    let db = TempDatabase::create(&require_postgres_url()).unwrap();
    let pg = Arc::new(PostgresStore::open(db.url()).unwrap());
    for attempt in 0.. {
        let ids: Vec<String> = (0..16).map(|n| format!("r{attempt}x{n}")).collect();
        for id in &ids {
            create(&*pg, id, paused(b"v1", "q1"));
        }
        let start = Arc::new(Barrier::new(ids.len()));
        let threads: Vec<_> = ids
            .iter()
            .enumerate()
            .map(|(n, id)| {
                let (pg, start, id) = (pg.clone(), start.clone(), id.clone());
                std::thread::spawn(move || {
                    let mut r = paused(b"v2", "q2");
                    if n == 0 {
                        r.output = "bad \0 byte".into();
                    }
                    start.wait();
                    (n, pg.commit(&id, 1, &r, &Event::new("resumed", "{}")))
                })
            })
            .collect();
        for t in threads {
            match t.join().expect("a committing thread panicked") {
                (0, done) => assert!(done.is_err(), "the NUL byte was stored: {done:?}"),
                (n, done) => assert_eq!(done.unwrap(), Commit::Committed { version: 2 }, "{n}"),
            }
        }
        assert_eq!(pg.summary(&ids[0]).unwrap().unwrap().version, 1);
        // Until the refused commit did share a batch (all but certain at once).
        if pg.commit_stats().retried > 0 {
            break;
        }
        assert!(attempt < 20, "16 concurrent commits never shared a batch");
    }
}

/// Each round, three claimants per instance claim its current step at
/// once (released together): exactly one takes it, the others are told
/// who holds it. On PostgreSQL the claims also share statements.
fn concurrent_claims_of_many_instances_have_one_winner_each(kind: StoreKind) {
    let b = backend(kind, "concurrent_claims_of_many_instances");
    let pg = match kind {
        StoreKind::Postgres => Some(Arc::new(PostgresStore::open(&b.url).unwrap())),
        StoreKind::Sqlite => None,
    };
    let store: Arc<dyn Store> = match &pg {
        Some(pg) => pg.clone(),
        None => b.store.clone(),
    };
    create_instances(&*store);
    const CLAIMANTS: usize = 3;
    for v in 1..=ROUNDS {
        let start = Arc::new(Barrier::new(INSTANCES * CLAIMANTS));
        let threads: Vec<_> = (0..INSTANCES * CLAIMANTS)
            .map(|t| {
                let (store, start) = (store.clone(), start.clone());
                std::thread::spawn(move || {
                    let (i, holder) = (t % INSTANCES, format!("runner-{t}"));
                    start.wait();
                    let (claim, found) = store
                        .claim_loading(&format!("g{i}"), v, &holder, 60_000)
                        .expect("a claim failed");
                    assert_eq!(found.map(|s| s.version), Some(v));
                    (i, holder, claim)
                })
            })
            .collect();
        let mut winners: Vec<Option<String>> = vec![None; INSTANCES];
        let mut held = Vec::new();
        for t in threads {
            match t.join().expect("a claiming thread panicked") {
                (i, holder, Claim::Claimed { .. }) => {
                    assert!(winners[i].is_none(), "round {v}: g{i} claimed twice");
                    winners[i] = Some(holder);
                }
                (i, _, Claim::Held { holder, .. }) => held.push((i, holder)),
                (i, _, other) => panic!("round {v}: g{i}: {other:?}"),
            }
        }
        assert_eq!(held.len(), INSTANCES * (CLAIMANTS - 1), "{}", b.name);
        for (i, holder) in held {
            assert_eq!(Some(holder), winners[i], "{} round {v}: g{i}", b.name);
        }
        for i in 0..INSTANCES {
            let done = store
                .commit(
                    &format!("g{i}"),
                    v,
                    &record(i, v),
                    &Event::new("resumed", "{}"),
                )
                .unwrap();
            assert!(done.is_committed());
        }
    }
    if let Some(pg) = pg {
        let stats = pg.claim_stats();
        assert_eq!(
            stats.requests,
            (INSTANCES * CLAIMANTS) as u64 * ROUNDS as u64
        );
        assert!(
            stats.batches < stats.requests,
            "{} concurrent claims took {} statements",
            stats.requests,
            stats.batches
        );
    }
}
