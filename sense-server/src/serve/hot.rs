//! Hot instances: the runtimes of instances this process committed last,
//! kept in memory so that the next answer to one of them skips restoring
//! its snapshot.
//!
//! An entry is the runtime exactly as it was when its state was committed
//! as version `version` of the instance whose row is `seq` (a deleted and
//! re-created id gets a new row, so `seq` tells the two apart). It is used
//! only when the store still holds that same row at that same version —
//! checked against the summary loaded for the request, and again,
//! atomically, by the claim of the step from that version — so a change
//! committed by any other process (or another path of this one: a timer,
//! a message) makes the entry useless, never wrong. An entry is taken out
//! for the run (one request at a time uses a runtime) and put back only
//! after that run's commit succeeded; a run that failed to commit drops
//! it. At most `capacity` entries are kept, and runtimes whose snapshots
//! add up to at most [`SNAPSHOT_BUDGET`] bytes (a runtime's memory grows
//! with its heap, which its snapshot measures; one whose snapshot is over
//! a sixteenth of the budget is not kept); the least recently committed
//! one goes first.

use super::program::Captured;
use lru::LruCache;
use sense_agents::Runtime;
use std::sync::{Mutex, PoisonError};

/// Runtimes kept per process unless `--hot-instances` says otherwise.
pub const DEFAULT_CAPACITY: usize = 4096;

/// The most snapshot bytes the kept runtimes may add up to.
pub const SNAPSHOT_BUDGET: usize = 256 << 20;

/// A kept runtime and the output sink it prints to.
pub struct HotRuntime {
    /// The runtime, as committed.
    pub rt: Runtime,
    /// Where its output goes (emptied at each commit).
    pub out: Captured,
}

struct Entry {
    seq: i64,
    version: i64,
    hot: HotRuntime,
    /// Its snapshot's size.
    bytes: usize,
}

/// The entries, least recently committed first (an entry is taken out
/// for its run and put back after its commit), and their snapshot bytes.
struct Kept {
    entries: LruCache<String, Entry>,
    bytes: usize,
}

impl Kept {
    fn remove(&mut self, id: &str) -> Option<Entry> {
        let e = self.entries.pop(id)?;
        self.bytes = self.bytes.saturating_sub(e.bytes);
        Some(e)
    }

    /// Takes out the least recently committed entry.
    fn remove_oldest(&mut self) -> Option<Entry> {
        let (_, e) = self.entries.pop_lru()?;
        self.bytes = self.bytes.saturating_sub(e.bytes);
        Some(e)
    }
}

/// The runtimes of hot instances.
pub struct Hot {
    capacity: usize,
    budget: usize,
    kept: Mutex<Kept>,
}

impl Hot {
    /// Keeps at most `capacity` runtimes (0: none).
    pub fn new(capacity: usize) -> Hot {
        Hot::with_budget(capacity, SNAPSHOT_BUDGET)
    }

    /// Keeps at most `capacity` runtimes whose snapshots add up to at
    /// most `budget` bytes.
    pub fn with_budget(capacity: usize, budget: usize) -> Hot {
        Hot {
            capacity,
            budget,
            // Bounded by `put` (count and bytes), not by the cache.
            kept: Mutex::new(Kept {
                entries: LruCache::unbounded(),
                bytes: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True if a runtime of `id` is kept (at whatever version).
    pub fn holds(&self, id: &str) -> bool {
        self.capacity > 0 && self.lock().entries.contains(id)
    }

    /// Takes out the runtime of `id` if it is the one committed as
    /// `version` of row `seq`; an entry for anything else is dropped.
    pub fn take(&self, id: &str, seq: i64, version: i64) -> Option<HotRuntime> {
        let entry = self.lock().remove(id)?;
        (entry.seq == seq && entry.version == version).then_some(entry.hot)
    }

    /// Forgets `id` (deleted here, or changed in a way the entry does not
    /// follow).
    pub fn forget(&self, id: &str) {
        let gone = self.lock().remove(id);
        drop(gone);
    }

    /// Keeps `hot`, the runtime whose state was just committed as
    /// `version` of row `seq` of `id`, with a snapshot of `bytes`.
    pub fn put(&self, id: &str, seq: i64, version: i64, bytes: usize, hot: HotRuntime) {
        if self.capacity == 0 || bytes > self.budget / 16 {
            return;
        }
        let mut evicted = Vec::new();
        {
            let mut kept = self.lock();
            evicted.extend(kept.remove(id));
            while kept.entries.len() >= self.capacity || kept.bytes + bytes > self.budget {
                match kept.remove_oldest() {
                    Some(e) => evicted.push(e),
                    None => break,
                }
            }
            kept.bytes += bytes;
            let entry = Entry {
                seq,
                version,
                hot,
                bytes,
            };
            kept.entries.push(id.to_string(), entry);
        }
        // Freed outside the lock: dropping a runtime is not free.
        drop(evicted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hot() -> HotRuntime {
        HotRuntime {
            rt: Runtime::new(),
            out: Captured::default(),
        }
    }

    #[test]
    fn only_the_same_row_at_the_same_version_is_served() {
        let cache = Hot::new(4);
        cache.put("a", 1, 3, 10, hot());
        assert!(cache.take("a", 1, 4).is_none(), "a newer version");
        assert!(!cache.holds("a"), "a mismatched entry is dropped");
        cache.put("a", 1, 3, 10, hot());
        assert!(cache.take("a", 2, 3).is_none(), "a re-created instance");
        cache.put("a", 1, 3, 10, hot());
        assert!(cache.take("a", 1, 3).is_some());
        assert!(cache.take("a", 1, 3).is_none(), "taken out for the run");
    }

    #[test]
    fn the_least_recently_committed_goes_first() {
        let cache = Hot::new(2);
        cache.put("a", 1, 1, 10, hot());
        cache.put("b", 2, 1, 10, hot());
        cache.put("a", 1, 2, 10, hot());
        cache.put("c", 3, 1, 10, hot());
        assert!(cache.holds("a") && cache.holds("c"));
        assert!(!cache.holds("b"));
        let none = Hot::new(0);
        none.put("a", 1, 1, 10, hot());
        assert!(!none.holds("a"));
    }

    #[test]
    fn kept_snapshots_stay_within_the_budget() {
        let cache = Hot::with_budget(100, 1600);
        for (k, id) in ["a", "b", "c"].into_iter().enumerate() {
            cache.put(id, k as i64, 1, 100, hot());
        }
        // Over a sixteenth of the budget: not kept.
        cache.put("big", 9, 1, 101, hot());
        assert!(!cache.holds("big"));
        let small = Hot::with_budget(100, 3200);
        for (k, id) in ["a", "b", "c"].into_iter().enumerate() {
            small.put(id, k as i64, 1, 200, hot());
        }
        assert!(small.holds("a") && small.holds("c"));
        let tight = Hot::with_budget(100, 16 * 150);
        tight.put("a", 1, 1, 150, hot());
        for (k, id) in [
            "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q",
        ]
        .into_iter()
        .enumerate()
        {
            tight.put(id, k as i64 + 2, 1, 150, hot());
        }
        assert!(!tight.holds("a"), "the oldest goes when the bytes run out");
        assert!(tight.holds("q"));
    }
}
