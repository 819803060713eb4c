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

use crate::model::{Commit, Summary};
use crate::{Record, StoreError};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

/// How many batches of one store run at once. (Measured with two: no
/// more answers a second than with one, and a longer tail: the batches
/// queue on the same WAL flushes.)
const LEADERS: usize = 1;

/// The most commits one statement carries.
pub(super) const MAX_BATCH: usize = 64;

/// One commit waiting for its batch: what `Store::commit_summary` was
/// given, owned (it may be run by another thread).
pub(super) struct Pending {
    pub(super) id: String,
    pub(super) expected: i64,
    pub(super) record: Record,
    pub(super) event_kind: String,
    pub(super) event_detail: String,
    /// Copy the replaced state into the history.
    pub(super) copy: bool,
    /// Drop history versions below this one (0: none).
    pub(super) oldest: i64,
}

/// What a commit came to: as `Store::commit_summary` returns it.
pub(super) type Outcome = Result<(Commit, Option<Summary>), StoreError>;

/// The queue and the outcomes of one store's commits.
#[derive(Default)]
pub(super) struct GroupCommit {
    state: Mutex<State>,
    finished: Condvar,
    statements: AtomicU64,
    commits: AtomicU64,
    retried: AtomicU64,
}

/// How a PostgreSQL store's commits were batched since it was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitStats {
    /// Batches run (each one statement, unless retried).
    pub batches: u64,
    /// Commits they carried (`commits / batches`: the mean batch size).
    pub commits: u64,
    /// Batches of more than one whose statement failed, so that each of
    /// their commits ran again on its own.
    pub retried: u64,
}

#[derive(Default)]
struct State {
    next_ticket: u64,
    queued: Vec<(u64, Pending)>,
    outcomes: HashMap<u64, Outcome>,
    /// Batches running now.
    running: usize,
}

impl GroupCommit {
    /// Commits `pending`, in a batch with whatever other threads commit
    /// meanwhile. `run` runs one batch and returns its outcomes in order.
    pub(super) fn commit(
        &self,
        pending: Pending,
        run: &dyn Fn(&[Pending]) -> Vec<Outcome>,
    ) -> Outcome {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.queued.push((ticket, pending));
        loop {
            if let Some(outcome) = state.outcomes.remove(&ticket) {
                return outcome;
            }
            let mine_queued = state.queued.iter().any(|(t, _)| *t == ticket);
            if state.running >= LEADERS || !mine_queued {
                state = self
                    .finished
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            // Lead: take a batch (this thread's commit among it unless an
            // earlier one of the same instance is queued), run it unlocked.
            let (tickets, batch) = take_batch(&mut state.queued);
            state.running += 1;
            drop(state);
            let outcomes = run(&batch);
            self.statements.fetch_add(1, Ordering::Relaxed);
            self.commits
                .fetch_add(batch.len() as u64, Ordering::Relaxed);
            state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.running -= 1;
            state.outcomes.extend(tickets.into_iter().zip(outcomes));
            self.finished.notify_all();
        }
    }
}

impl GroupCommit {
    /// The counts so far.
    pub(super) fn stats(&self) -> CommitStats {
        CommitStats {
            batches: self.statements.load(Ordering::Relaxed),
            commits: self.commits.load(Ordering::Relaxed),
            retried: self.retried.load(Ordering::Relaxed),
        }
    }

    /// A batch's statement failed and its commits run one by one.
    pub(super) fn count_retried(&self) {
        self.retried.fetch_add(1, Ordering::Relaxed);
    }
}

/// Up to [`MAX_BATCH`] queued commits, oldest first, at most one per
/// instance (a second commit of one instance waits for the next batch:
/// in one statement the two would race for the same row).
fn take_batch(queued: &mut Vec<(u64, Pending)>) -> (Vec<u64>, Vec<Pending>) {
    let mut ids = HashSet::new();
    let mut tickets = Vec::new();
    let mut batch = Vec::new();
    let mut rest = Vec::new();
    for (ticket, p) in queued.drain(..) {
        if batch.len() < MAX_BATCH && ids.insert(p.id.clone()) {
            tickets.push(ticket);
            batch.push(p);
        } else {
            rest.push((ticket, p));
        }
    }
    *queued = rest;
    (tickets, batch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn pending(id: &str) -> Pending {
        Pending {
            id: id.to_string(),
            expected: 1,
            record: Record::paused(Vec::new(), "null", "self"),
            event_kind: "resumed".into(),
            event_detail: "{}".into(),
            copy: true,
            oldest: 0,
        }
    }

    #[test]
    fn a_batch_holds_one_commit_per_instance_and_at_most_the_maximum() {
        let mut queued: Vec<(u64, Pending)> = (0..MAX_BATCH as u64 + 3)
            .map(|t| (t, pending(&format!("i{t}"))))
            .collect();
        queued.insert(1, (999, pending("i0")));
        let (tickets, batch) = take_batch(&mut queued);
        assert_eq!(batch.len(), MAX_BATCH);
        assert_eq!(tickets[0], 0);
        assert!(!tickets.contains(&999), "a second commit of i0 waits");
        let left: Vec<u64> = queued.iter().map(|(t, _)| *t).collect();
        assert_eq!(left[0], 999);
        assert_eq!(left.len(), 4);
    }

    #[test]
    fn concurrent_commits_share_batches_and_each_gets_its_own_outcome() {
        let group = Arc::new(GroupCommit::default());
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
                            .map(|p| {
                                let n: i64 = p.id[1..].parse().unwrap_or(-1);
                                Ok((Commit::Committed { version: n }, None))
                            })
                            .collect()
                    };
                    // Two commits of one instance from two threads too.
                    let id = format!("i{}", n % 12);
                    match group.commit(pending(&id), &run) {
                        Ok((Commit::Committed { version }, None)) => {
                            assert_eq!(format!("i{version}"), id)
                        }
                        _ => panic!("wrong outcome for {id}"),
                    }
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
