//! Group commit: the commits that concurrent answers of one process make at
//! the same moment go to PostgreSQL as one statement in one transaction.
//!
//! Why: under load the fleet is CPU-bound, not disk-bound (measured on a
//! 2-core machine at 2,000 answers/s: cores 99 % busy, a WAL flush of one
//! commit 0.12 ms idle). Each transaction costs the database a statement
//! start, a commit record, a WAL flush request and the wake-ups of the
//! backends queued on the WAL lock; a batch pays them once. Nothing is
//! acknowledged before its batch's transaction has committed, so an
//! answer is as durable as before.
//!
//! The leader/follower scheme needs no thread of its own: a committing
//! thread queues its commit; if no batch is running it becomes the leader
//! and runs everything queued (at most one commit per instance, at most
//! [`MAX_BATCH`]); the others wait for their outcome or, when the batch
//! that ran did not include them, for their turn to lead. One batch runs
//! at a time per store; the next one gathers while it runs. Without
//! contention a commit is a batch of one, run by its own thread.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// How many batches of one store run at once. (Measured with two: no
/// more answers a second than with one, and a longer tail: the batches
/// queue on the same WAL flushes.)
const LEADERS: usize = 1;

/// The most requests one statement carries.
pub(super) const MAX_BATCH: usize = 64;

/// What waits in a batch: one request per instance (a second request for
/// the same instance waits for the next batch: in one statement the two
/// would race for the same row).
pub(super) trait Keyed {
    /// The instance the request is for.
    fn key(&self) -> &str;
}

/// The queue and the outcomes of one kind of request (commits, claims) of
/// one store.
pub(super) struct Group<P, O> {
    state: Mutex<State<P, O>>,
    batches: AtomicU64,
    requests: AtomicU64,
    retried: AtomicU64,
}

impl<P, O> Default for Group<P, O> {
    fn default() -> Self {
        Group {
            state: Mutex::new(State {
                next_ticket: 0,
                queued: Vec::new(),
                outcomes: HashMap::new(),
                running: 0,
            }),
            batches: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            retried: AtomicU64::new(0),
        }
    }
}

/// How a PostgreSQL store's commits (or claims) were batched since it was
/// opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Batches run (each one statement, unless retried).
    pub batches: u64,
    /// Commits (or claims) they carried (`requests / batches`: the mean
    /// batch size).
    pub requests: u64,
    /// Batches of more than one whose statement failed, so that each of
    /// their requests ran again on its own.
    pub retried: u64,
}

struct State<P, O> {
    next_ticket: u64,
    queued: Vec<Waiter<P>>,
    outcomes: HashMap<u64, O>,
    /// Batches running now.
    running: usize,
}

/// A queued request and how to wake the thread waiting for it (each
/// waits on its own condition variable: a finished batch wakes the
/// threads whose outcomes it holds and the one that is to lead next, not
/// every waiting thread).
struct Waiter<P> {
    ticket: u64,
    pending: P,
    wake: Arc<Condvar>,
}

impl<P: Keyed, O> Group<P, O> {
    /// Runs `pending`, in a batch with whatever other threads run
    /// meanwhile. `run` runs one batch and returns its outcomes in order.
    pub(super) fn run(&self, pending: P, run: &dyn Fn(&[P]) -> Vec<O>) -> O {
        let wake = Arc::new(Condvar::new());
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.queued.push(Waiter {
            ticket,
            pending,
            wake: wake.clone(),
        });
        loop {
            if let Some(outcome) = state.outcomes.remove(&ticket) {
                return outcome;
            }
            let mine_queued = state.queued.iter().any(|w| w.ticket == ticket);
            if state.running >= LEADERS || !mine_queued {
                state = wake.wait(state).unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            // Lead: take a batch (this thread's request among it unless an
            // earlier one for the same instance is queued), run it unlocked.
            let (waiters, batch) = take_batch(&mut state.queued);
            state.running += 1;
            drop(state);
            let outcomes = run(&batch);
            self.batches.fetch_add(1, Ordering::Relaxed);
            self.requests
                .fetch_add(batch.len() as u64, Ordering::Relaxed);
            state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.running -= 1;
            for ((ticket, wake), outcome) in waiters.into_iter().zip(outcomes) {
                state.outcomes.insert(ticket, outcome);
                wake.notify_one();
            }
            // The oldest request still queued leads the next batch.
            if let Some(next) = state.queued.first() {
                next.wake.notify_one();
            }
        }
    }
}

impl<P, O> Group<P, O> {
    /// The counts so far.
    pub(super) fn stats(&self) -> BatchStats {
        BatchStats {
            batches: self.batches.load(Ordering::Relaxed),
            requests: self.requests.load(Ordering::Relaxed),
            retried: self.retried.load(Ordering::Relaxed),
        }
    }

    /// A batch's statement failed and its commits run one by one.
    pub(super) fn count_retried(&self) {
        self.retried.fetch_add(1, Ordering::Relaxed);
    }
}

/// Up to [`MAX_BATCH`] queued requests, oldest first, at most one per
/// instance: their tickets and wake-ups, and the requests.
fn take_batch<P: Keyed>(queued: &mut Vec<Waiter<P>>) -> (Vec<(u64, Arc<Condvar>)>, Vec<P>) {
    let mut ids = HashSet::new();
    let mut waiters = Vec::new();
    let mut batch = Vec::new();
    let mut rest = Vec::new();
    for w in queued.drain(..) {
        if batch.len() < MAX_BATCH && ids.insert(w.pending.key().to_string()) {
            waiters.push((w.ticket, w.wake));
            batch.push(w.pending);
        } else {
            rest.push(w);
        }
    }
    *queued = rest;
    (waiters, batch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Pending(String);
    impl Keyed for Pending {
        fn key(&self) -> &str {
            &self.0
        }
    }

    fn pending(id: &str) -> Pending {
        Pending(id.to_string())
    }

    #[test]
    fn a_batch_holds_one_commit_per_instance_and_at_most_the_maximum() {
        let waiter = |ticket, id: &str| Waiter {
            ticket,
            pending: pending(id),
            wake: Arc::new(Condvar::new()),
        };
        let mut queued: Vec<Waiter<Pending>> = (0..MAX_BATCH as u64 + 3)
            .map(|t| waiter(t, &format!("i{t}")))
            .collect();
        queued.insert(1, waiter(999, "i0"));
        let (waiters, batch) = take_batch(&mut queued);
        let tickets: Vec<u64> = waiters.iter().map(|(t, _)| *t).collect();
        assert_eq!(batch.len(), MAX_BATCH);
        assert_eq!(tickets[0], 0);
        assert!(!tickets.contains(&999), "a second commit of i0 waits");
        let left: Vec<u64> = queued.iter().map(|w| w.ticket).collect();
        assert_eq!(left[0], 999);
        assert_eq!(left.len(), 4);
    }

    #[test]
    fn concurrent_commits_share_batches_and_each_gets_its_own_outcome() {
        let group: Arc<Group<Pending, i64>> = Arc::new(Group::default());
        let batches = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..16)
            .map(|n| {
                let (group, batches) = (group.clone(), batches.clone());
                std::thread::spawn(move || {
                    let run = |batch: &[Pending]| {
                        batches.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        batch
                            .iter()
                            .map(|p| p.0.get(1..).and_then(|n| n.parse().ok()).unwrap_or(-1))
                            .collect()
                    };
                    // Two commits of one instance from two threads too.
                    let id = format!("i{}", n % 12);
                    let n = group.run(pending(&id), &run);
                    assert_eq!(format!("i{n}"), id, "another request's outcome");
                })
            })
            .collect();
        for t in threads {
            t.join().expect("a committing thread failed");
        }
        let n = batches.load(Ordering::SeqCst);
        assert!(n < 16, "16 concurrent commits ran in {n} batches");
    }
}
