//! Every store test runs against SQLite (a temporary file) and against a
//! real PostgreSQL server (a database created for the test and dropped
//! after it; see `sense_store::testing`), as two trials `NAME::sqlite` and
//! `NAME::postgres`. Without a server the second is reported as ignored,
//! with the reason; under `SENSE_TEST_ALL=1` it fails (see
//! `sense_testkit::trials`).
// Test code (a libtest-mimic harness, so clippy does not see `#[test]`
// functions): unwrapping, indexing and panicking fail the test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use sense_store::testing::TempDatabase;
use sense_store::{
    Claim, Commit, Event, ListQuery, NewInstance, Record, Status, Store, StoreError,
};
use sense_testkit::trials::{StoreKind, require_postgres_url};
use std::path::PathBuf;
use std::sync::Arc;

#[path = "store/group_commit.rs"]
mod group_commit;
#[path = "store/timers.rs"]
mod timers;

/// A store and what must outlive it.
struct Backend {
    name: &'static str,
    store: Arc<dyn Store>,
    url: String,
    _db: Option<TempDatabase>,
    _dir: Option<TempDir>,
}

struct TempDir(PathBuf);
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(test: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!(
        "sense-store-test-{test}-{}-{:?}",
        std::process::id(),
        std::time::SystemTime::now()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// The store of one trial: SQLite in a temporary directory, or a
/// database created for the test on the configured PostgreSQL server.
fn backend(kind: StoreKind, test: &str) -> Backend {
    let (url, db, dir) = match kind {
        StoreKind::Sqlite => {
            let dir = temp_dir(test);
            let url = format!("sqlite:{}", dir.0.join("store.db").display());
            (url, None, Some(dir))
        }
        StoreKind::Postgres => {
            let db = TempDatabase::create(&require_postgres_url()).unwrap();
            (db.url().to_string(), Some(db), None)
        }
    };
    Backend {
        name: kind.name(),
        store: Arc::from(sense_store::open(&url).unwrap()),
        url,
        _db: db,
        _dir: dir,
    }
}

fn paused(snapshot: &[u8], question: &str) -> Record {
    Record::paused(snapshot.to_vec(), &format!("{question:?}"), "ask_human")
}

/// New instances `{prefix}{i}` of the worker of `flow.sns`, for `i` in
/// `range`, each with the state `record(i)`.
fn new_instances(
    prefix: &str,
    range: std::ops::Range<i64>,
    record: impl Fn(i64) -> Record,
) -> Vec<NewInstance> {
    range
        .map(|i| {
            NewInstance::new(
                &format!("{prefix}{i}"),
                "worker",
                "flow.sns",
                "h",
                record(i),
            )
        })
        .collect()
}

fn create(store: &dyn Store, id: &str, record: Record) {
    let new = NewInstance::new(id, "worker", "flow.sns", "hash-1", record);
    store.create(&new, &Event::new("created", "{}")).unwrap();
}

fn create_load_and_summary_round_trip(kind: StoreKind) {
    let b = backend(kind, "create_load_and_summary_round_trip");
    let s = &*b.store;
    let mut rec = paused(&[0, 1, 2, 255], "Approve?");
    rec.output = "hello\n".into();
    create(s, "a", rec.clone());
    let got = s.load("a").unwrap().expect(b.name);
    assert_eq!(got.snapshot, vec![0, 1, 2, 255], "{}", b.name);
    let sum = got.summary;
    assert_eq!(sum.id, "a");
    assert_eq!(sum.agent, "worker");
    assert_eq!(sum.program_name, "flow.sns");
    assert_eq!(sum.program_hash, "hash-1");
    assert_eq!(sum.status, Status::Paused);
    assert_eq!(sum.pause_reason.as_deref(), Some("\"Approve?\""));
    assert_eq!(sum.pause_kind.as_deref(), Some("ask_human"));
    assert_eq!(sum.output, "hello\n");
    assert_eq!(sum.version, 1);
    assert_eq!(sum.snapshot_bytes, 4);
    assert!(!sum.pause_requested);
    assert!(sum.created_at > 0 && sum.updated_at == sum.created_at);
    assert_eq!(s.summary("a").unwrap(), Some(sum), "{}", b.name);
    assert_eq!(s.load("missing").unwrap(), None);
    assert_eq!(s.summary("missing").unwrap(), None);
    // The same id twice is refused and changes nothing.
    let dup = NewInstance::new("a", "other", "x.sns", "h", paused(b"x", "q"));
    let err = s.create(&dup, &Event::new("created", "{}")).unwrap_err();
    assert!(
        matches!(err, StoreError::Duplicate(ref id) if id == "a"),
        "{err}"
    );
    assert_eq!(s.load("a").unwrap().unwrap().summary.agent, "worker");
}

fn commit_checks_the_version_and_records_the_event(kind: StoreKind) {
    let b = backend(kind, "commit_checks_the_version");
    let s = &*b.store;
    create(s, "a", paused(b"v1", "q1"));
    let next = paused(b"v2", "q2");
    assert_eq!(
        s.commit("a", 1, &next, &Event::new("resumed", r#"{"value":1}"#))
            .unwrap(),
        Commit::Committed { version: 2 }
    );
    // A writer that still holds version 1 loses and changes nothing.
    let stale = paused(b"stale", "q?");
    assert_eq!(
        s.commit("a", 1, &stale, &Event::new("resumed", "{}"))
            .unwrap(),
        Commit::Conflict { current: Some(2) },
        "{}",
        b.name
    );
    let got = s.load("a").unwrap().unwrap();
    assert_eq!(got.snapshot, b"v2");
    assert_eq!(got.summary.pause_reason.as_deref(), Some("\"q2\""));
    assert_eq!(
        s.commit("nope", 1, &stale, &Event::new("resumed", "{}"))
            .unwrap(),
        Commit::Conflict { current: None }
    );
    let mut done = Record::finished(Status::Completed, b"v3".to_vec());
    done.output = "done\n".into();
    assert!(
        s.commit("a", 2, &done, &Event::new("resumed", "{}"))
            .unwrap()
            .is_committed()
    );
    let sum = s.summary("a").unwrap().unwrap();
    assert_eq!((sum.status, sum.version), (Status::Completed, 3));
    assert_eq!(sum.pause_reason, None);
    assert_eq!(sum.output, "done\n");
    let audit = s.audit("a", 0, 100).unwrap();
    let kinds: Vec<(&str, i64)> = audit.iter().map(|e| (e.kind.as_str(), e.version)).collect();
    assert_eq!(
        kinds,
        [("created", 1), ("resumed", 2), ("resumed", 3)],
        "{}",
        b.name
    );
    assert_eq!(audit[1].detail, r#"{"value":1}"#);
    // Paging through the audit trail.
    let rest = s.audit("a", audit[0].seq, 1).unwrap();
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0], audit[1]);
}

fn concurrent_commits_of_one_version_have_one_winner(kind: StoreKind) {
    let b = backend(kind, "concurrent_commits_have_one_winner");
    create(&*b.store, "a", paused(b"start", "q"));
    for round in 1..=5i64 {
        let threads: Vec<_> = (0..6)
            .map(|t| {
                let store = b.store.clone();
                std::thread::spawn(move || {
                    let rec = paused(format!("r{round}t{t}").as_bytes(), "q");
                    store
                        .commit("a", round, &rec, &Event::new("resumed", "{}"))
                        .unwrap()
                })
            })
            .collect();
        let outcomes: Vec<Commit> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let wins = outcomes.iter().filter(|c| c.is_committed()).count();
        assert_eq!(wins, 1, "{}: round {round}: {outcomes:?}", b.name);
        for c in &outcomes {
            if !c.is_committed() {
                assert_eq!(
                    *c,
                    Commit::Conflict {
                        current: Some(round + 1)
                    }
                );
            }
        }
    }
    assert_eq!(b.store.summary("a").unwrap().unwrap().version, 6);
    assert_eq!(b.store.audit("a", 0, 100).unwrap().len(), 6);
}

/// Load–modify–commit with retries from many threads and a second store
/// handle (as a second process would have): every increment counts once.
fn retried_read_modify_write_loses_no_update(kind: StoreKind) {
    let b = backend(kind, "retried_read_modify_write");
    create(&*b.store, "n", paused(&0u64.to_le_bytes(), "count"));
    let other: Arc<dyn Store> = Arc::from(sense_store::open(&b.url).unwrap());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let store = if t % 2 == 0 {
                b.store.clone()
            } else {
                other.clone()
            };
            std::thread::spawn(move || {
                for _ in 0..25 {
                    loop {
                        let got = store.load("n").unwrap().unwrap();
                        let n = u64::from_le_bytes(got.snapshot.try_into().unwrap());
                        let rec = paused(&(n + 1).to_le_bytes(), "count");
                        let ev = Event::new("resumed", "{}");
                        if store
                            .commit("n", got.summary.version, &rec, &ev)
                            .unwrap()
                            .is_committed()
                        {
                            break;
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let got = b.store.load("n").unwrap().unwrap();
    assert_eq!(
        u64::from_le_bytes(got.snapshot.try_into().unwrap()),
        200,
        "{}",
        b.name
    );
    assert_eq!(got.summary.version, 201);
}

fn list_pages_filters_and_counts(kind: StoreKind) {
    let b = backend(kind, "list_pages_filters_and_counts");
    let s = &*b.store;
    for i in 0..25 {
        let rec = if i % 5 == 0 {
            Record::finished(Status::Completed, vec![])
        } else {
            paused(b"x", "q")
        };
        create(s, &format!("i{i:02}"), rec);
    }
    assert_eq!(s.count(None).unwrap(), 25);
    assert_eq!(s.count(Some(Status::Completed)).unwrap(), 5);
    assert_eq!(s.count(Some(Status::Failed)).unwrap(), 0);
    let mut seen = Vec::new();
    let mut after = 0;
    loop {
        let page = s
            .list(&ListQuery {
                status: Some(Status::Paused),
                after,
                limit: 7,
            })
            .unwrap();
        if page.is_empty() {
            break;
        }
        assert!(page.len() <= 7);
        after = page.last().unwrap().seq;
        seen.extend(page.into_iter().map(|x| x.id));
    }
    let expected: Vec<String> = (0..25)
        .filter(|i| i % 5 != 0)
        .map(|i| format!("i{i:02}"))
        .collect();
    assert_eq!(seen, expected, "{}", b.name);
    let all = s.list(&ListQuery::default()).unwrap();
    assert_eq!(all.len(), 25);
    let done: Vec<String> = s
        .list(&ListQuery {
            status: Some(Status::Completed),
            ..Default::default()
        })
        .unwrap()
        .into_iter()
        .map(|x| x.id)
        .collect();
    assert_eq!(done, ["i00", "i05", "i10", "i15", "i20"]);
}

fn delete_checks_the_version_and_keeps_the_audit_trail(kind: StoreKind) {
    let b = backend(kind, "delete_checks_the_version");
    let s = &*b.store;
    create(s, "a", paused(b"x", "q"));
    let ev = Event::new("deleted", "{}");
    assert_eq!(
        s.delete("a", Some(7), &ev).unwrap(),
        Commit::Conflict { current: Some(1) }
    );
    assert!(s.summary("a").unwrap().is_some());
    assert!(s.delete("a", Some(1), &ev).unwrap().is_committed());
    assert_eq!(s.summary("a").unwrap(), None);
    assert_eq!(
        s.delete("a", None, &ev).unwrap(),
        Commit::Conflict { current: None }
    );
    let kinds: Vec<String> = s
        .audit("a", 0, 10)
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds, ["created", "deleted"], "{}", b.name);
    // The id can be used again.
    create(s, "a", paused(b"y", "q"));
    assert_eq!(s.load("a").unwrap().unwrap().snapshot, b"y");
}

fn pause_requests_are_kept_until_honoured(kind: StoreKind) {
    let b = backend(kind, "pause_requests");
    let s = &*b.store;
    create(s, "a", paused(b"x", "q"));
    let ev = Event::new("pause_requested", "{}");
    assert!(!s.request_pause("missing", &ev).unwrap());
    assert!(s.request_pause("a", &ev).unwrap());
    let sum = s.summary("a").unwrap().unwrap();
    assert!(sum.pause_requested);
    assert_eq!(sum.version, 1, "a request is not a new state");
    // An answer that ends in another ask keeps the request pending …
    s.commit("a", 1, &paused(b"y", "q2"), &Event::new("resumed", "{}"))
        .unwrap();
    assert!(
        s.summary("a").unwrap().unwrap().pause_requested,
        "{}",
        b.name
    );
    // … a pause of kind `host` honours it.
    let host = Record::paused(b"z".to_vec(), "\"paused by host\"", "host");
    s.commit("a", 2, &host, &Event::new("resumed", "{}"))
        .unwrap();
    assert!(
        !s.summary("a").unwrap().unwrap().pause_requested,
        "{}",
        b.name
    );
}

fn versions_of_many_ids(kind: StoreKind) {
    let b = backend(kind, "versions_of_many_ids");
    let s = &*b.store;
    create(s, "a", paused(b"x", "q"));
    create(s, "b", paused(b"x", "q"));
    s.commit("b", 1, &paused(b"y", "q"), &Event::new("resumed", "{}"))
        .unwrap();
    let mut v = s
        .versions(&["a".into(), "b".into(), "gone".into()])
        .unwrap();
    v.sort();
    assert_eq!(
        v,
        [("a".to_string(), 1), ("b".to_string(), 2)],
        "{}",
        b.name
    );
    assert!(s.size_bytes().unwrap() > 0);
}

fn migrations_run_once_and_refuse_a_newer_schema(kind: StoreKind) {
    let b = backend(kind, "migrations");
    create(&*b.store, "a", paused(b"x", "q"));
    // Opening again (as a second process does) keeps the data.
    let again = sense_store::open(&b.url).unwrap();
    assert!(again.summary("a").unwrap().is_some(), "{}", b.name);
    // A schema from the future is refused, not misread.
    if b.name == "sqlite" {
        let path = b.url.strip_prefix("sqlite:").unwrap();
        let c = rusqlite::Connection::open(path).unwrap();
        c.execute("INSERT INTO sense_schema (version) VALUES (99)", [])
            .unwrap();
    } else {
        let mut c = postgres::Client::connect(&b.url, postgres::NoTls).unwrap();
        c.execute("INSERT INTO sense_schema (version) VALUES (99)", &[])
            .unwrap();
    }
    let err = sense_store::open(&b.url).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::NewerSchema {
                found: 99,
                known: 3
            }
        ),
        "{}: {err}",
        b.name
    );
}

fn bad_urls_are_refused_clearly() {
    for url in [
        "mysql://x",
        "sqlite:",
        "",
        "postgres://u@127.0.0.1:1/x?connect_timeout=nope",
    ] {
        let err = sense_store::open(url).unwrap_err();
        assert!(matches!(err, StoreError::Url(_)), "{url}: {err}");
    }
    // A server that is not there: an error, not a hang.
    let err = sense_store::open("postgres://u@127.0.0.1:1/x?connect_timeout=2").unwrap_err();
    assert!(matches!(err, StoreError::Postgres(_)), "{err}");
    let err = sense_store::open("sqlite:/nonexistent-dir/x/y.db").unwrap_err();
    assert!(matches!(err, StoreError::Sqlite(_)), "{err}");
}

fn create_many_is_all_or_nothing(kind: StoreKind) {
    let b = backend(kind, "create_many");
    let s = &*b.store;
    let batch = new_instances("m", 0..50, |_| paused(b"x", "q"));
    s.create_many(&batch, &Event::new("created", "{}")).unwrap();
    assert_eq!(s.count(None).unwrap(), 50, "{}", b.name);
    assert_eq!(s.audit("m49", 0, 10).unwrap().len(), 1);
    // One duplicate anywhere in a batch stores none of it.
    let mut again = new_instances("m", 50..60, |_| paused(b"x", "q"));
    again.push(batch[3].clone());
    let err = s
        .create_many(&again, &Event::new("created", "{}"))
        .unwrap_err();
    assert!(
        matches!(err, StoreError::Duplicate(ref id) if id == "m3"),
        "{err}"
    );
    assert_eq!(s.count(None).unwrap(), 50, "{}", b.name);
    assert!(s.summary("m50").unwrap().is_none());
}

/// The SQLite file and its `-wal` and `-shm` files hold the same answers
/// as `sense start`'s state files, and are created owner-only like them.
#[cfg(unix)]
fn sqlite_files_are_created_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("owner-only");
    let path = dir.0.join("store.db");
    let store = sense_store::open(&format!("sqlite:{}", path.display())).unwrap();
    let new = NewInstance::new("a", "worker", "flow.sns", "h", paused(b"x", "q"));
    store.create(&new, &Event::new("created", "{}")).unwrap();
    for suffix in ["", "-wal", "-shm"] {
        let file = PathBuf::from(format!("{}{suffix}", path.display()));
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}: {mode:o}", file.display());
    }
    // A name SQLite reads as an in-memory database makes no file.
    if let Err(e) = sense_store::open("sqlite::memory:") {
        panic!("{e}");
    }
    assert!(!std::path::Path::new(":memory:").exists());
}

/// A claim that has to wait for a concurrent claim of the same step
/// (still in its transaction) names that claimant once it commits — its
/// lease row came into being after the waiting statement began.
fn a_claim_that_waits_names_the_claimant_that_won(kind: StoreKind) {
    let b = backend(kind, "claim_waits");
    let s = &*b.store;
    create(s, "a", paused(b"start", "q"));
    if b.name == "sqlite" {
        // One writer at a time: a claim never overlaps another there.
        assert!(matches!(
            s.claim("a", 1, "first", 60_000).unwrap(),
            Claim::Claimed { .. }
        ));
        match s.claim("a", 1, "second", 60_000).unwrap() {
            Claim::Held { holder, .. } => assert_eq!(holder, "first"),
            other => panic!("{other:?}"),
        }
        return;
    }
    let mut c = postgres::Client::connect(&b.url, postgres::NoTls).unwrap();
    let mut tx = c.transaction().unwrap();
    tx.execute(
        "INSERT INTO sense_leases (instance_id, version, holder, expires_at) \
         VALUES ('a', 1, 'winner', 9223372036854775807)",
        &[],
    )
    .unwrap();
    let store = b.store.clone();
    let waiting = std::thread::spawn(move || store.claim("a", 1, "loser", 60_000).unwrap());
    // Let the claim start and wait on the uncommitted lease row.
    std::thread::sleep(std::time::Duration::from_millis(300));
    tx.commit().unwrap();
    match waiting.join().unwrap() {
        Claim::Held { holder, .. } => assert_eq!(holder, "winner", "{}", b.name),
        other => panic!("{}: {other:?}", b.name),
    }
}

/// Of many claims of one step one wins; the others see who holds it; the
/// holder renews; a commit moves the step on (a claim of the old version
/// is stale); a released or expired lease is taken over; version 0 claims
/// the creation of an instance that does not exist yet.
fn one_claim_per_step(kind: StoreKind) {
    let b = backend(kind, "one_claim_per_step");
    let s = &*b.store;
    create(s, "a", paused(b"start", "q"));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let store = b.store.clone();
            std::thread::spawn(move || store.claim("a", 1, &format!("h{t}"), 60_000).unwrap())
        })
        .collect();
    let claims: Vec<Claim> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let winners = claims
        .iter()
        .filter(|c| matches!(c, Claim::Claimed { .. }))
        .count();
    assert_eq!(winners, 1, "{}: {claims:?}", b.name);
    let holder = (0..8)
        .map(|t| format!("h{t}"))
        .find(|h| matches!(s.claim("a", 1, h, 60_000).unwrap(), Claim::Claimed { .. }))
        .expect("the holder renews");
    for c in &claims {
        if let Claim::Held { holder: h, .. } = c {
            assert_eq!(*h, holder, "{}", b.name);
        }
    }
    // Released: the next claimant gets it.
    s.release("a", 1, &holder).unwrap();
    assert!(matches!(
        s.claim("a", 1, "other", 50).unwrap(),
        Claim::Claimed { .. }
    ));
    // Expired: taken over.
    std::thread::sleep(std::time::Duration::from_millis(120));
    assert!(matches!(
        s.claim("a", 1, "third", 60_000).unwrap(),
        Claim::Claimed { .. }
    ));
    // Committed: the step is in the past.
    let next = paused(b"next", "q2");
    assert!(
        s.commit("a", 1, &next, &Event::new("resumed", "{}"))
            .unwrap()
            .is_committed()
    );
    assert_eq!(
        s.claim("a", 1, "late", 60_000).unwrap(),
        Claim::Stale { current: Some(2) }
    );
    assert!(matches!(
        s.claim("a", 2, "late", 60_000).unwrap(),
        Claim::Claimed { .. }
    ));
    // Creation: version 0 of an id nobody has.
    assert!(matches!(
        s.claim("new", 0, "c1", 60_000).unwrap(),
        Claim::Claimed { .. }
    ));
    assert!(matches!(
        s.claim("new", 0, "c2", 60_000).unwrap(),
        Claim::Held { .. }
    ));
    assert_eq!(
        s.claim("a", 0, "c3", 60_000).unwrap(),
        Claim::Stale { current: Some(2) }
    );
    assert_eq!(
        s.claim("gone", 3, "c4", 60_000).unwrap(),
        Claim::Stale { current: None }
    );
}

/// Every committed version stays readable, the current one included; a
/// losing commit adds nothing; the retention drops the oldest; a delete
/// drops the history.
fn history_keeps_every_version_within_the_retention(kind: StoreKind) {
    let b = backend(kind, "history");
    let s = &*b.store;
    create(s, "a", paused(b"v1", "q1"));
    for v in 1..=3i64 {
        let rec = paused(format!("v{}", v + 1).as_bytes(), &format!("q{}", v + 1));
        assert!(
            s.commit("a", v, &rec, &Event::new("resumed", "{}"))
                .unwrap()
                .is_committed()
        );
    }
    // A losing commit copies nothing.
    let lost = paused(b"lost", "lost");
    assert!(
        !s.commit("a", 2, &lost, &Event::new("resumed", "{}"))
            .unwrap()
            .is_committed()
    );
    let history = s.history("a").unwrap();
    let seen: Vec<(i64, Option<String>)> = history
        .iter()
        .map(|v| (v.version, v.pause_reason.clone()))
        .collect();
    let want: Vec<(i64, Option<String>)> =
        (1..=4).map(|v| (v, Some(format!("\"q{v}\"")))).collect();
    assert_eq!(seen, want, "{}", b.name);
    for v in 1..=4i64 {
        let (info, snapshot) = s.load_version("a", v).unwrap().unwrap();
        assert_eq!(info.version, v);
        assert_eq!(snapshot, format!("v{v}").into_bytes(), "{}", b.name);
        assert_eq!(info.snapshot_bytes, 2);
    }
    assert!(s.load_version("a", 5).unwrap().is_none());
    // The versions in the history after keeping `keep` and committing
    // `v{n}` over version `n - 1`.
    let kept_after = |keep: u32, n: i64| -> Vec<i64> {
        s.set_keep_versions(Some(keep));
        let rec = paused(format!("v{n}").as_bytes(), &format!("q{n}"));
        assert!(
            s.commit("a", n - 1, &rec, &Event::new("resumed", "{}"))
                .unwrap()
                .is_committed()
        );
        s.history("a").unwrap().iter().map(|v| v.version).collect()
    };
    // Keep two: the current version and the one before.
    assert_eq!(kept_after(2, 5), [4, 5], "{}", b.name);
    // Keep one: no copies at all.
    assert_eq!(kept_after(1, 6), [6], "{}", b.name);
    assert!(
        s.delete("a", None, &Event::new("deleted", "{}"))
            .unwrap()
            .is_committed()
    );
    assert!(s.history("a").unwrap().is_empty(), "{}", b.name);
}

fn main() {
    let mut trials = sense_testkit::trials! {
        plain:
            bad_urls_are_refused_clearly,
            #[cfg(unix)] sqlite_files_are_created_owner_only;
        per_store:
            create_load_and_summary_round_trip,
            commit_checks_the_version_and_records_the_event,
            concurrent_commits_of_one_version_have_one_winner,
            retried_read_modify_write_loses_no_update,
            list_pages_filters_and_counts,
            delete_checks_the_version_and_keeps_the_audit_trail,
            pause_requests_are_kept_until_honoured,
            versions_of_many_ids,
            migrations_run_once_and_refuse_a_newer_schema,
            create_many_is_all_or_nothing,
            one_claim_per_step,
            a_claim_that_waits_names_the_claimant_that_won,
            history_keeps_every_version_within_the_retention;
    };
    trials.extend(group_commit::trials());
    trials.extend(timers::trials());
    sense_testkit::trials::run(trials);
}
