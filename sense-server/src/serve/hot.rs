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
//! it. At most `capacity` entries are kept; the least recently committed
//! one goes first.

use super::program::Captured;
use sense_agents::Runtime;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Runtimes kept per process unless `--hot-instances` says otherwise.
pub const DEFAULT_CAPACITY: usize = 4096;

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
    /// When it was put back (a counter), for eviction.
    touched: u64,
}

/// The runtimes of hot instances.
pub struct Hot {
    capacity: usize,
    entries: Mutex<(HashMap<String, Entry>, u64)>,
}

impl Hot {
    /// Keeps at most `capacity` runtimes (0: none).
    pub fn new(capacity: usize) -> Hot {
        Hot {
            capacity,
            entries: Mutex::new((HashMap::new(), 0)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (HashMap<String, Entry>, u64)> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True if a runtime of `id` is kept (at whatever version).
    pub fn holds(&self, id: &str) -> bool {
        self.capacity > 0 && self.lock().0.contains_key(id)
    }

    /// Takes out the runtime of `id` if it is the one committed as
    /// `version` of row `seq`; an entry for anything else is dropped.
    pub fn take(&self, id: &str, seq: i64, version: i64) -> Option<HotRuntime> {
        let entry = self.lock().0.remove(id)?;
        (entry.seq == seq && entry.version == version).then_some(entry.hot)
    }

    /// Forgets `id` (deleted here, or changed in a way the entry does not
    /// follow).
    pub fn forget(&self, id: &str) {
        self.lock().0.remove(id);
    }

    /// Keeps `hot`, the runtime whose state was just committed as
    /// `version` of row `seq` of `id`.
    pub fn put(&self, id: &str, seq: i64, version: i64, hot: HotRuntime) {
        if self.capacity == 0 {
            return;
        }
        let evicted;
        {
            let mut g = self.lock();
            let (entries, clock) = &mut *g;
            *clock += 1;
            let touched = *clock;
            evicted = if entries.len() >= self.capacity && !entries.contains_key(id) {
                let oldest = entries
                    .iter()
                    .min_by_key(|(_, e)| e.touched)
                    .map(|(k, _)| k.clone());
                oldest.and_then(|k| entries.remove(&k))
            } else {
                None
            };
            entries.insert(
                id.to_string(),
                Entry {
                    seq,
                    version,
                    hot,
                    touched,
                },
            );
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
        cache.put("a", 1, 3, hot());
        assert!(cache.take("a", 1, 4).is_none(), "a newer version");
        assert!(!cache.holds("a"), "a mismatched entry is dropped");
        cache.put("a", 1, 3, hot());
        assert!(cache.take("a", 2, 3).is_none(), "a re-created instance");
        cache.put("a", 1, 3, hot());
        assert!(cache.take("a", 1, 3).is_some());
        assert!(cache.take("a", 1, 3).is_none(), "taken out for the run");
    }

    #[test]
    fn the_least_recently_committed_goes_first() {
        let cache = Hot::new(2);
        cache.put("a", 1, 1, hot());
        cache.put("b", 2, 1, hot());
        cache.put("a", 1, 2, hot());
        cache.put("c", 3, 1, hot());
        assert!(cache.holds("a") && cache.holds("c"));
        assert!(!cache.holds("b"));
        let none = Hot::new(0);
        none.put("a", 1, 1, hot());
        assert!(!none.holds("a"));
    }
}
