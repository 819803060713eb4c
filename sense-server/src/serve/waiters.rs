//! Long polling: `GET /api/instances/{id}/wait?version=N` is parked here
//! (its connection task awaits a one-shot channel; no thread is held) until the instance is no longer at
//! version N (it paused again, completed, failed or was deleted) or the
//! timeout passes. Changes made by this process wake waiters at once.
//! Changes made by other processes of the fleet: on PostgreSQL the
//! processes announce them (LISTEN/NOTIFY, [`Store::listen`]) and a
//! listener thread wakes the waiters at once — each new waiter's version
//! is checked once when parked (a change just before the park was
//! announced to nobody), and all of them every [`CHECK_WHILE_LISTENING`]
//! as a safety net; without a feed (SQLite, or while the listening
//! connection is being reopened) one batched version query per
//! [`CHECK_EVERY`] for all parked waiters together.

use super::http::Reply;
use super::json;
use sense_store::{ChangeFeed, Store};
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Most requests parked at once; more get 503.
pub const MAX_WAITERS: usize = 10_000;
/// How often the store is asked about changes made elsewhere.
const CHECK_EVERY: Duration = Duration::from_millis(200);
/// How often, while the database announces changes, every waiter is
/// checked anyway (an announcement is lost when its process dies right
/// after committing).
const CHECK_WHILE_LISTENING: Duration = Duration::from_secs(1);
/// How long the listener waits for announcements at a time, and waits
/// before reopening a broken feed.
const LISTEN_TICK: Duration = Duration::from_secs(1);
/// Ids per version query.
const BATCH: usize = 500;

struct Waiter {
    id: String,
    version: i64,
    deadline: Instant,
    answer: tokio::sync::oneshot::Sender<Reply>,
    /// Its version has been compared with the store's since it was parked.
    checked: bool,
}

#[derive(Default)]
struct Parked {
    waiters: Vec<Waiter>,
    changed: HashSet<String>,
    /// The database announces changes (see [`Waiters::listen`]).
    listening: bool,
    /// Check every waiter at the next turn (announcements were missed).
    check_all: bool,
    /// Announced by the database: checked at the next turn (an
    /// announcement can be older than the version a waiter parked on).
    announced: HashSet<String>,
}

/// The parked requests.
#[derive(Default)]
pub struct Waiters {
    parked: Mutex<Parked>,
    wake: Condvar,
}

impl Waiters {
    fn lock(&self) -> std::sync::MutexGuard<'_, Parked> {
        self.parked.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Parks a wait for instance `id` to leave `version` (or for
    /// `timeout`); the answer arrives on the returned channel. `None` when
    /// too many waits are parked.
    pub fn park(
        &self,
        id: &str,
        version: i64,
        timeout: Duration,
    ) -> Option<tokio::sync::oneshot::Receiver<Reply>> {
        let mut p = self.lock();
        if p.waiters.len() >= MAX_WAITERS {
            return None;
        }
        let (answer, receiver) = tokio::sync::oneshot::channel();
        p.waiters.push(Waiter {
            id: id.to_string(),
            version,
            deadline: Instant::now() + timeout,
            answer,
            checked: false,
        });
        drop(p);
        self.wake.notify_one();
        Some(receiver)
    }

    /// Instance `id` changed in this process.
    pub fn changed(&self, id: &str) {
        let mut p = self.lock();
        if p.waiters.iter().any(|w| w.id == id) {
            p.changed.insert(id.to_string());
            drop(p);
            self.wake.notify_one();
        }
    }

    /// Starts the thread that answers parked requests, and the listener
    /// when the store announces changes.
    pub fn serve(self: &Arc<Self>, store: Arc<dyn Store>, program_hash: String) {
        let waiters = Arc::clone(self);
        let for_listener = Arc::clone(&store);
        std::thread::Builder::new()
            .name("sense-serve-waiters".into())
            .spawn(move || waiters.run(&*store, &program_hash))
            .ok();
        if let Ok(Some(feed)) = for_listener.listen() {
            self.lock().listening = true;
            let waiters = Arc::clone(self);
            std::thread::Builder::new()
                .name("sense-serve-listen".into())
                .spawn(move || waiters.listen(feed, &*for_listener))
                .ok();
        }
    }

    /// Passes the database's announcements on; a broken feed is reopened
    /// (polling meanwhile), then every waiter is checked once.
    fn listen(&self, mut feed: Box<dyn ChangeFeed>, store: &dyn Store) {
        loop {
            match feed.next(LISTEN_TICK) {
                Ok(ids) if !ids.is_empty() => {
                    let mut p = self.lock();
                    for id in ids {
                        if p.waiters.iter().any(|w| w.id == id) {
                            p.announced.insert(id);
                        }
                    }
                    drop(p);
                    self.wake.notify_one();
                }
                Ok(_) => {}
                Err(_) => {
                    self.lock().listening = false;
                    feed = loop {
                        std::thread::sleep(LISTEN_TICK);
                        if let Ok(Some(f)) = store.listen() {
                            break f;
                        }
                    };
                    let mut p = self.lock();
                    p.listening = true;
                    p.check_all = true;
                }
            }
        }
    }

    fn run(&self, store: &dyn Store, hash: &str) {
        let mut last_check = Instant::now();
        loop {
            let to_check: Option<HashSet<String>> = {
                let mut p = self.lock();
                if p.waiters.is_empty() {
                    p = self.wake.wait(p).unwrap_or_else(PoisonError::into_inner);
                } else if p.changed.is_empty()
                    && p.announced.is_empty()
                    && !(p.listening && p.waiters.iter().any(|w| !w.checked))
                {
                    p = self
                        .wake
                        .wait_timeout(p, Duration::from_millis(50))
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                let every = if p.listening {
                    CHECK_WHILE_LISTENING
                } else {
                    CHECK_EVERY
                };
                let all = p.check_all || last_check.elapsed() >= every;
                let listening = p.listening;
                let mut ids: HashSet<String> = p
                    .waiters
                    .iter_mut()
                    .filter(|w| all || (listening && !w.checked))
                    .map(|w| {
                        w.checked = true;
                        w.id.clone()
                    })
                    .collect();
                ids.extend(std::mem::take(&mut p.announced));
                if all {
                    last_check = Instant::now();
                    p.check_all = false;
                }
                (!ids.is_empty()).then_some(ids)
            };
            // Asked with the lock released: requests keep being parked.
            let versions = to_check.and_then(|ids| {
                let ids: Vec<String> = ids.into_iter().collect();
                let mut found = HashMap::new();
                for chunk in ids.chunks(BATCH) {
                    found.extend(store.versions(chunk).ok()?);
                }
                Some((ids.into_iter().collect::<HashSet<_>>(), found))
            });
            let ready: Vec<(Waiter, bool)> = {
                let mut p = self.lock();
                let mut changed = std::mem::take(&mut p.changed);
                if let Some((asked, found)) = &versions {
                    for w in &p.waiters {
                        if asked.contains(&w.id) && found.get(&w.id) != Some(&w.version) {
                            changed.insert(w.id.clone());
                        }
                    }
                }
                let now = Instant::now();
                let (ready, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut p.waiters)
                    .into_iter()
                    .partition(|w| changed.contains(&w.id) || w.deadline <= now);
                p.waiters = keep;
                ready
                    .into_iter()
                    .map(|w| {
                        let c = changed.contains(&w.id);
                        (w, c)
                    })
                    .collect()
            };
            if !ready.is_empty() {
                answer(ready, store, hash);
            }
        }
    }
}

/// Answers resolved waiters (a client that went away is skipped).
fn answer(ready: Vec<(Waiter, bool)>, store: &dyn Store, hash: &str) {
    for (w, changed) in ready {
        let reply = match store.summary(&w.id) {
            Ok(Some(s)) => {
                let moved = s.version != w.version;
                let mut body = json::summary(&s, hash);
                body["changed"] = json!(changed || moved);
                Reply::json(200, &body)
            }
            Ok(None) => Reply::json(200, &json!({"id": w.id, "changed": true, "deleted": true})),
            Err(e) => Reply::error(503, "StoreError", e.to_string()),
        };
        let _ = w.answer.send(reply);
    }
}
