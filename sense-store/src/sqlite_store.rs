//! The SQLite store: one database file, shared by threads through a small
//! pool and by processes on the same machine through SQLite's own locking
//! (write-ahead log, `BEGIN IMMEDIATE` for writes, a busy timeout).

use crate::model::{
    AuditEvent, Commit, Due, Event, Instance, ListQuery, NewInstance, Record, Summary,
};
use crate::pool::Pool;
use crate::{Status, Store, StoreError, now_ms};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

mod steps;

/// The migrations, in order; the schema version is the count applied.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/sqlite/0001_instances.sql"),
    include_str!("../migrations/sqlite/0002_leases_history.sql"),
    include_str!("../migrations/sqlite/0003_timers.sql"),
];

const SUMMARY_COLUMNS: &str = "seq, id, agent, program_name, program_hash, status, pause_reason, \
     pause_kind, error, output, version, pause_requested, created_at, updated_at, length(snapshot), wake_at";

/// Instances in one SQLite file.
pub struct SqliteStore {
    path: PathBuf,
    pool: Pool<Connection, rusqlite::Error>,
    /// Write transactions of this process, one at a time: SQLite allows
    /// one writer per file anyway, and waiting here is a queue, where
    /// waiting in SQLite's busy handler is sleep-and-retry (long tails).
    writer: Mutex<()>,
    /// Versions kept per instance in the history (0: all).
    keep: AtomicU32,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

fn connect(path: &Path) -> Result<Connection, rusqlite::Error> {
    let conn = Connection::open(path)?;
    // Writers from other threads and processes wait instead of failing.
    conn.busy_timeout(Duration::from_secs(30))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: a committed answer survives a power cut, not only a crash.
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(conn)
}

impl SqliteStore {
    /// Opens (creating if needed) the database file at `path` and brings
    /// its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        create_owner_only(&path);
        let mut first = connect(&path)?;
        migrate(&mut first)?;
        let for_pool = path.clone();
        let store = SqliteStore {
            path,
            pool: Pool::new(8, Box::new(move || connect(&for_pool))),
            writer: Mutex::new(()),
            keep: AtomicU32::new(0),
        };
        Ok(store)
    }

    fn with<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, rusqlite::Error>,
    ) -> Result<T, StoreError> {
        Ok(self.pool.with(|_, _| false, f)?)
    }

    /// [`SqliteStore::with`] for a write transaction.
    fn write<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, rusqlite::Error>,
    ) -> Result<T, StoreError> {
        let _one_writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        self.with(f)
    }
}

/// Creates the database file, if it does not exist yet, readable and
/// writable by its owner only (0600), like `sense start`'s state files: it
/// holds the same answers. SQLite gives its `-wal` and `-shm` files the
/// database file's mode, so they are 0600 too (SQLite alone would create
/// all three 0644). An existing file keeps the mode its owner gave it.
#[cfg(unix)]
fn create_owner_only(path: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    // Names SQLite reads as an in-memory database or a URI are not files.
    let name = path.to_string_lossy();
    if name == ":memory:" || name.starts_with("file:") {
        return;
    }
    // An existing file is left as it is; any other failure (no such
    // directory, no permission) is SQLite's to report when it opens the
    // file, in its words.
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path);
}

#[cfg(not(unix))]
fn create_owner_only(_path: &Path) {
    // No mode bits here: a new file gets its directory's access rules.
}

fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute(
        "CREATE TABLE IF NOT EXISTS sense_schema (version INTEGER NOT NULL)",
        [],
    )?;
    let found: Option<i64> = tx
        .query_row("SELECT max(version) FROM sense_schema", [], |r| r.get(0))
        .optional()?
        .flatten();
    for (version, sql) in crate::schema::pending(found, MIGRATIONS)? {
        tx.execute_batch(sql)?;
        tx.execute("INSERT INTO sense_schema (version) VALUES (?1)", [version])?;
    }
    tx.commit()?;
    Ok(())
}

fn summary(r: &rusqlite::Row<'_>) -> Result<Summary, rusqlite::Error> {
    crate::rows::summary(r, 0)
}

fn audit(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
    version: i64,
    e: &Event,
) -> Result<(), rusqlite::Error> {
    tx.execute(
        "INSERT INTO sense_audit (instance_id, version, at, event, detail) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id, version, now_ms(), e.kind, e.detail],
    )?;
    Ok(())
}

fn current_version(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
) -> Result<Option<i64>, rusqlite::Error> {
    tx.query_row(
        "SELECT version FROM sense_instances WHERE id = ?1",
        [id],
        |r| r.get(0),
    )
    .optional()
}

impl Store for SqliteStore {
    fn create_many(&self, new: &[NewInstance], event: &Event) -> Result<(), StoreError> {
        let taken = self.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let now = now_ms();
            {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO sense_instances (id, agent, program_name, program_hash, status, \
                     pause_reason, pause_kind, error, output, version, created_at, updated_at, snapshot, \
                     wake_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1, ?10, ?10, ?11, ?12) ON CONFLICT (id) DO NOTHING",
                )?;
                let mut log = tx.prepare_cached(
                    "INSERT INTO sense_audit (instance_id, version, at, event, detail) VALUES (?1, 1, ?2, ?3, ?4)",
                )?;
                for n in new {
                    let r = &n.record;
                    let added = insert.execute(params![
                        n.id,
                        n.agent,
                        n.program_name,
                        n.program_hash,
                        r.status.as_str(),
                        r.pause_reason,
                        r.pause_kind,
                        r.error,
                        r.output,
                        now,
                        r.snapshot,
                        r.wake_at
                    ])?;
                    if added == 0 {
                        // Dropping the transaction rolls everything back.
                        return Ok(Some(n.id.clone()));
                    }
                    log.execute(params![n.id, now, event.kind, event.detail])?;
                }
            }
            tx.commit()?;
            Ok(None)
        })?;
        StoreError::unless_taken(taken)
    }

    fn load(&self, id: &str) -> Result<Option<Instance>, StoreError> {
        self.with(|c| {
            c.prepare_cached(&format!(
                "SELECT {SUMMARY_COLUMNS}, snapshot FROM sense_instances WHERE id = ?1"
            ))?
            .query_row([id], |r| {
                Ok(Instance {
                    summary: summary(r)?,
                    snapshot: r.get(16)?,
                })
            })
            .optional()
        })
    }

    fn summary(&self, id: &str) -> Result<Option<Summary>, StoreError> {
        self.with(|c| {
            c.prepare_cached(&format!(
                "SELECT {SUMMARY_COLUMNS} FROM sense_instances WHERE id = ?1"
            ))?
            .query_row([id], summary)
            .optional()
        })
    }

    fn list(&self, q: &ListQuery) -> Result<Vec<Summary>, StoreError> {
        self.with(|c| {
            let sql = format!(
                "SELECT {SUMMARY_COLUMNS} FROM sense_instances \
                 WHERE seq > ?1 AND (?2 IS NULL OR status = ?2) ORDER BY seq LIMIT ?3"
            );
            let mut st = c.prepare_cached(&sql)?;
            let rows = st.query_map(
                params![q.after, q.status.map(Status::as_str), q.effective_limit()],
                summary,
            )?;
            rows.collect()
        })
    }

    fn count(&self, status: Option<Status>) -> Result<u64, StoreError> {
        self.with(|c| {
            c.query_row(
                "SELECT count(*) FROM sense_instances WHERE ?1 IS NULL OR status = ?1",
                [status.map(Status::as_str)],
                |r| r.get::<_, i64>(0),
            )
        })
        .map(|n| n.max(0) as u64)
    }

    fn commit(
        &self,
        id: &str,
        expected: i64,
        r: &Record,
        event: &Event,
    ) -> Result<Commit, StoreError> {
        let keep = self.keep.load(Ordering::Relaxed);
        self.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            // Rolled back with the rest when the version does not match.
            steps::keep_previous(&tx, id, expected, keep)?;
            let n = tx
                .prepare_cached(
                    "UPDATE sense_instances SET status = ?1, pause_reason = ?2, pause_kind = ?3, \
                 error = ?4, output = ?5, snapshot = ?6, version = version + 1, updated_at = ?7, \
                 pause_requested = CASE WHEN ?8 THEN 0 ELSE pause_requested END, \
                 wake_at = ?11, wake_claimed_until = NULL \
                 WHERE id = ?9 AND version = ?10",
                )?
                .execute(params![
                    r.status.as_str(),
                    r.pause_reason,
                    r.pause_kind,
                    r.error,
                    r.output,
                    r.snapshot,
                    now_ms(),
                    r.clears_pause_request,
                    id,
                    expected,
                    r.wake_at
                ])?;
            if n == 0 {
                let current = current_version(&tx, id)?;
                return Ok(Commit::Conflict { current });
            }
            audit(&tx, id, expected + 1, event)?;
            tx.commit()?;
            Ok(Commit::Committed {
                version: expected + 1,
            })
        })
    }

    fn delete(&self, id: &str, expected: Option<i64>, event: &Event) -> Result<Commit, StoreError> {
        self.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let current = current_version(&tx, id)?;
            match (current, expected) {
                (None, _) => return Ok(Commit::Conflict { current: None }),
                (Some(v), Some(e)) if v != e => return Ok(Commit::Conflict { current }),
                (Some(v), _) => {
                    tx.execute("DELETE FROM sense_instances WHERE id = ?1", [id])?;
                    steps::forget(&tx, id)?;
                    audit(&tx, id, v + 1, event)?;
                }
            }
            tx.commit()?;
            Ok(Commit::Committed { version: 0 })
        })
    }

    fn request_pause(&self, id: &str, event: &Event) -> Result<bool, StoreError> {
        self.write(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let Some(v) = current_version(&tx, id)? else {
                return Ok(false);
            };
            tx.execute(
                "UPDATE sense_instances SET pause_requested = 1 WHERE id = ?1",
                [id],
            )?;
            audit(&tx, id, v, event)?;
            tx.commit()?;
            Ok(true)
        })
    }

    fn versions(&self, ids: &[String]) -> Result<Vec<(String, i64)>, StoreError> {
        self.with(|c| {
            let mut st =
                c.prepare_cached("SELECT id, version FROM sense_instances WHERE id = ?1")?;
            let mut out = Vec::with_capacity(ids.len());
            for id in ids {
                if let Some(v) = st.query_row([id], |r| r.get(1)).optional()? {
                    out.push((id.clone(), v));
                }
            }
            Ok(out)
        })
    }

    fn audit(&self, id: &str, after: i64, limit: u32) -> Result<Vec<AuditEvent>, StoreError> {
        self.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT seq, version, at, event, detail FROM sense_audit \
                 WHERE instance_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
            )?;
            let rows = st
                .query_map(params![id, after, i64::from(limit.clamp(1, 10_000))], |r| {
                    crate::rows::audit_event(r)
                })?;
            rows.collect()
        })
    }

    fn claim_due(&self, now: i64, hold_ms: i64, limit: u32) -> Result<Vec<Due>, StoreError> {
        self.write(|c| crate::sqlite_timers::claim_due(c, now, hold_ms, limit))
    }

    fn next_wake(&self) -> Result<Option<i64>, StoreError> {
        self.with(crate::sqlite_timers::next_wake)
    }

    fn size_bytes(&self) -> Result<u64, StoreError> {
        self.with(|c| {
            let pages: i64 = c.query_row("PRAGMA page_count", [], |r| r.get(0))?;
            let size: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0))?;
            Ok((pages * size).max(0) as u64)
        })
    }
}
