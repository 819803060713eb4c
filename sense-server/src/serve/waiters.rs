//! Long polling: `GET /api/instances/{id}/wait?version=N` is parked here
//! (its connection task awaits a one-shot channel; no thread is held) until the instance is no longer at
//! version N (it paused again, completed, failed or was deleted) or the
//! timeout passes. Changes made by this process wake waiters at once;
//! changes made by other processes of the fleet are seen by one batched
//! version query per [`CHECK_EVERY`] for all parked waiters together.

use super::http::Reply;
use super::json;
use sense_store::Store;
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Most requests parked at once; more get 503.
pub const MAX_WAITERS: usize = 10_000;
/// How often the store is asked about changes made elsewhere.
const CHECK_EVERY: Duration = Duration::from_millis(200);
/// Ids per version query.
const BATCH: usize = 500;

struct Waiter {
    id: String,
    version: i64,
    deadline: Instant,
    answer: tokio::sync::oneshot::Sender<Reply>,
}

#[derive(Default)]
struct Parked {
    waiters: Vec<Waiter>,
    changed: HashSet<String>,
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

    /// Starts the thread that answers parked requests.
    pub fn serve(self: &Arc<Self>, store: Arc<dyn Store>, program_hash: String) {
        let waiters = Arc::clone(self);
        std::thread::Builder::new()
            .name("sense-serve-waiters".into())
            .spawn(move || waiters.run(&*store, &program_hash))
            .ok();
    }

    fn run(&self, store: &dyn Store, hash: &str) {
        let mut last_check = Instant::now();
        loop {
            let to_check: Option<HashSet<String>> = {
                let mut p = self.lock();
                if p.waiters.is_empty() {
                    p = self.wake.wait(p).unwrap_or_else(PoisonError::into_inner);
                } else if p.changed.is_empty() {
                    p = self
                        .wake
                        .wait_timeout(p, Duration::from_millis(50))
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                (last_check.elapsed() >= CHECK_EVERY && !p.waiters.is_empty()).then(|| {
                    last_check = Instant::now();
                    p.waiters.iter().map(|w| w.id.clone()).collect()
                })
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
