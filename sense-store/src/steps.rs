//! One runner per step, and the history of an instance's versions.
//!
//! A *step* is the run that takes an instance from one committed version
//! to the next. Its id is the pair (instance id, version the run starts
//! from): every run of that step, in any process, has the same id, so it
//! serves as an idempotency key for what the run does outside the store.
//!
//! Before running a step a process *claims* it ([`Steps::claim`]): a lease
//! row with an expiry. Of many processes claiming the same step one gets
//! it; the others are told who holds it and run nothing. The lease ends
//! when the step commits (the instance's version moves on, so the lease
//! names a past step), when its holder releases it, or when it expires — a
//! killed runner's step is taken over by the next claim after the expiry.
//! The runner renews the lease while it runs. A lease is an optimisation
//! of side effects, not the guard of the store's state: the conditional
//! commit ([`crate::Store::commit`]) still decides which run's state is
//! kept, so even two runs of one step (a runner stalled past its expiry)
//! apply at most one answer.
//!
//! Every committed version's state is kept in a history (the newest
//! `keep` per instance, the current one included, or all), which can be
//! listed, read and forked into a new instance. A commit copies the state
//! it replaces into the history, in its transaction; the current state is
//! stored once, in the instance's row.

use crate::StoreError;
use crate::model::{Record, Status};

/// The outcome of [`Steps::claim`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The caller holds the step until `expires_at` (ms since the epoch).
    Claimed {
        /// When the lease ends unless renewed.
        expires_at: i64,
    },
    /// Another runner holds the step.
    Held {
        /// Who (the holder string it claimed with).
        holder: String,
        /// When its lease ends unless renewed.
        expires_at: i64,
    },
    /// The instance is not at the version claimed: at `current`, or gone
    /// (`None`; for a claim of version 0, it exists).
    Stale {
        /// Its version now, if it exists.
        current: Option<i64>,
    },
}

/// One version of an instance as the history keeps it (without its
/// snapshot).
#[derive(Clone, Debug, PartialEq)]
pub struct VersionInfo {
    /// The version number (1 is the state after creation).
    pub version: i64,
    /// Paused, completed or failed.
    pub status: Status,
    /// The pause reason as JSON text.
    pub pause_reason: Option<String>,
    /// The pause kind.
    pub pause_kind: Option<String>,
    /// The error message, when failed.
    pub error: Option<String>,
    /// Everything printed up to this version.
    pub output: String,
    /// When it was committed, ms since the Unix epoch.
    pub created_at: i64,
    /// Size of its snapshot.
    pub snapshot_bytes: i64,
}

impl VersionInfo {
    /// The state this version holds, as a [`Record`] for a new instance
    /// (a fork starts where this version stood), waking at `wake_at` (the
    /// caller reads it from the snapshot: a timer's or a deadline's time).
    pub fn record(&self, snapshot: Vec<u8>, wake_at: Option<i64>) -> Record {
        Record {
            status: self.status,
            pause_reason: self.pause_reason.clone(),
            pause_kind: self.pause_kind.clone(),
            error: self.error.clone(),
            output: self.output.clone(),
            snapshot,
            clears_pause_request: true,
            wake_at,
        }
    }
}

/// Leases on steps and the history of versions; every [`crate::Store`]
/// has them.
pub trait Steps {
    /// Claims the step that starts from `version` of instance `id` (0: the
    /// creation of an instance that does not exist yet) for `holder`,
    /// until `ttl_ms` from now. Claiming again with the same holder renews
    /// the lease.
    fn claim(&self, id: &str, version: i64, holder: &str, ttl_ms: i64)
    -> Result<Claim, StoreError>;

    /// Gives up `holder`'s lease on the step from `version` (a run that
    /// ended without committing); does nothing if it holds none.
    fn release(&self, id: &str, version: i64, holder: &str) -> Result<(), StoreError>;

    /// Keeps the newest `keep` versions of each instance in the history
    /// (at least 1: the current one); `None` keeps all. Applies from the
    /// next commit of each instance.
    fn set_keep_versions(&self, keep: Option<u32>);

    /// The versions the history holds for `id`, oldest first (empty if
    /// there is no such instance).
    fn history(&self, id: &str) -> Result<Vec<VersionInfo>, StoreError>;

    /// One version of `id` with its snapshot, if the history holds it.
    fn load_version(
        &self,
        id: &str,
        version: i64,
    ) -> Result<Option<(VersionInfo, Vec<u8>)>, StoreError>;
}

/// The oldest version to keep when `version` is the newest (current) and
/// `keep` the retention (`0`: keep all).
pub(crate) fn oldest_kept(version: i64, keep: u32) -> i64 {
    if keep == 0 {
        0
    } else {
        version - i64::from(keep) + 1
    }
}
