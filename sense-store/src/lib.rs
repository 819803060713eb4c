//! Durable storage for paused Sense agents.
//!
//! A paused agent is plain data: `Runtime::snapshot` (sense-agents)
//! bytes plus a little metadata (status, pause reason, a version number).
//! This crate keeps such *instances* in a database so that many processes,
//! on one machine or many, can serve the same agents:
//!
//! * [`SqliteStore`] — one file, for a service on one machine;
//! * [`PostgresStore`] — a shared PostgreSQL database, for a fleet.
//!
//! Both implement [`Store`]. Every change goes through
//! [`Store::commit`], which writes the new state only if the instance is
//! still at the version the caller loaded, in the same transaction as the
//! check: two processes that resume the same instance at once cannot both
//! win, and an answer is never lost or applied twice. Each change also
//! appends an [`AuditEvent`] in that transaction.
//!
//! Every store also implements [`Steps`]: leases that let one process run
//! each step of an instance (the others are refused before they run
//! anything), and the history of every committed version.
//!
//! The schema is created and upgraded by migrations embedded in the crate
//! ([`open`] runs them).
//!
//! ```
//! use sense_store::{Event, NewInstance, Record, Status, Store};
//! let dir = std::env::temp_dir().join(format!("sense-store-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let store = sense_store::open(&format!("sqlite:{}", dir.join("doc.db").display())).unwrap();
//! let record = Record::paused(b"snapshot bytes".to_vec(), "\"Approve?\"", "ask_human");
//! let new = NewInstance::new("i-1", "approver", "flow.sns", "h1", record);
//! store.create(&new, &Event::new("created", "{}")).unwrap();
//! let loaded = store.load("i-1").unwrap().unwrap();
//! assert_eq!(loaded.summary.version, 1);
//! let done = Record::finished(Status::Completed, b"later".to_vec());
//! assert!(store.commit("i-1", 1, &done, &Event::new("resumed", "{}")).unwrap().is_committed());
//! // A second writer that also loaded version 1 loses.
//! assert!(!store.commit("i-1", 1, &done, &Event::new("resumed", "{}")).unwrap().is_committed());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
mod model;
mod pool;
mod postgres_announce;
mod postgres_store;
mod postgres_timers;
mod postgres_tls;
mod rows;
mod schema;
mod sqlite_store;
mod sqlite_timers;
mod steps;
pub mod testing;

pub use error::StoreError;
pub use model::{
    AuditEvent, ChangeFeed, Commit, Due, Event, Instance, ListQuery, NewInstance, Record, Status,
    Summary,
};
pub use postgres_store::{BatchStats, PostgresStore};
pub use sqlite_store::SqliteStore;
pub use steps::{Claim, Steps, VersionInfo};

/// A place where instances live. Implementations are safe to share
/// between threads; every method is one transaction.
pub trait Store: Steps + Send + Sync + std::fmt::Debug {
    /// Stores a new instance at version 1 and records `event` for it.
    /// Fails with [`StoreError::Duplicate`] if the id exists.
    fn create(&self, new: &NewInstance, event: &Event) -> Result<(), StoreError> {
        // A batch of one: the same statements, in one transaction.
        self.create_many(std::slice::from_ref(new), event)
    }

    /// Stores many new instances in one transaction (bulk imports, and
    /// filling a store for benchmarks): all or none. Fails with
    /// [`StoreError::Duplicate`] (storing none) if any id exists.
    fn create_many(&self, new: &[NewInstance], event: &Event) -> Result<(), StoreError>;

    /// The instance with its snapshot, or `None` if there is none.
    fn load(&self, id: &str) -> Result<Option<Instance>, StoreError>;

    /// The instance without its snapshot, or `None`.
    fn summary(&self, id: &str) -> Result<Option<Summary>, StoreError>;

    /// Instances in creation order, optionally of one status, starting
    /// after the `seq` in [`ListQuery::after`].
    fn list(&self, query: &ListQuery) -> Result<Vec<Summary>, StoreError>;

    /// How many instances there are (of one status, if given).
    fn count(&self, status: Option<Status>) -> Result<u64, StoreError>;

    /// Replaces the instance's state with `record` and records `event`,
    /// only if it is still at version `expected`; the version then goes
    /// up by one. The check and the write are one transaction.
    fn commit(
        &self,
        id: &str,
        expected: i64,
        record: &Record,
        event: &Event,
    ) -> Result<Commit, StoreError>;

    /// [`Store::commit`], also returning the instance as committed (its
    /// summary, when the commit happened), read in the same transaction
    /// where the engine allows (PostgreSQL: the same statement).
    fn commit_summary(
        &self,
        id: &str,
        expected: i64,
        record: &Record,
        event: &Event,
    ) -> Result<(Commit, Option<Summary>), StoreError> {
        let done = self.commit(id, expected, record, event)?;
        let summary = if done.is_committed() {
            self.summary(id)?
        } else {
            None
        };
        Ok((done, summary))
    }

    /// [`Steps::claim`], also returning the instance's summary as the
    /// claim found it (`None`: absent) — one statement where the engine
    /// allows (PostgreSQL), so an answer that knows the version it
    /// answers needs no read before its claim.
    fn claim_loading(
        &self,
        id: &str,
        version: i64,
        holder: &str,
        ttl_ms: i64,
    ) -> Result<(Claim, Option<Summary>), StoreError> {
        let claim = self.claim(id, version, holder, ttl_ms)?;
        Ok((claim, self.summary(id)?))
    }

    /// Deletes the instance (if at version `expected`, when given) and
    /// records `event`; its audit trail is kept.
    fn delete(&self, id: &str, expected: Option<i64>, event: &Event) -> Result<Commit, StoreError>;

    /// Marks the instance so that the process running it (now or next)
    /// pauses it at its next safe point, and records `event`. Returns
    /// false if there is no such instance.
    fn request_pause(&self, id: &str, event: &Event) -> Result<bool, StoreError>;

    /// Current versions of those of `ids` that exist (for waiting on
    /// changes made by other processes).
    fn versions(&self, ids: &[String]) -> Result<Vec<(String, i64)>, StoreError>;

    /// The audit trail of an instance, oldest first, after audit `seq`
    /// `after`, at most `limit` events.
    fn audit(&self, id: &str, after: i64, limit: u32) -> Result<Vec<AuditEvent>, StoreError>;

    /// Claims up to `limit` paused instances whose wake-up time is at or
    /// before `now` (Unix milliseconds) and that no process holds, for
    /// `hold_ms`: until then no other claim returns them, so across a
    /// fleet each wake-up is taken by one process. The claim is one
    /// atomic update (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so claimers
    /// never wait on each other). The next commit of the instance
    /// replaces its wake-up time and ends the claim; a claimer that dies
    /// leaves it to be claimed again when `hold_ms` has passed.
    fn claim_due(&self, now: i64, hold_ms: i64, limit: u32) -> Result<Vec<Due>, StoreError>;

    /// The earliest wake-up time of any instance (Unix milliseconds), so
    /// a waker can sleep until then.
    fn next_wake(&self) -> Result<Option<i64>, StoreError>;

    /// A feed of changes announced by the database, or `None` when the
    /// engine has none (SQLite: callers poll [`Store::versions`]).
    fn listen(&self) -> Result<Option<Box<dyn ChangeFeed>>, StoreError> {
        Ok(None)
    }

    /// Bytes the database takes on disk (SQLite: the file; PostgreSQL:
    /// the instance and audit tables with their indexes).
    fn size_bytes(&self) -> Result<u64, StoreError>;
}

/// Opens the store a URL names, creating or upgrading its schema:
/// `sqlite:PATH` (`sqlite://PATH` also works) or
/// `postgres://user@host:port/db` (`postgresql://` also works).
pub fn open(url: &str) -> Result<Box<dyn Store>, StoreError> {
    if let Some(path) = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
    {
        if path.is_empty() {
            return Err(StoreError::Url(format!("{url}: no file path")));
        }
        return Ok(Box::new(SqliteStore::open(path)?));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Box::new(PostgresStore::open(url)?));
    }
    Err(StoreError::Url(format!(
        "{url}: expected sqlite:PATH or postgres://…"
    )))
}

/// Milliseconds since the Unix epoch (timestamps in the store).
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
