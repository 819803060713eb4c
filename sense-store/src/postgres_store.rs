//! The PostgreSQL store: one database shared by every process of a fleet.
//! Conditional writes are `UPDATE … WHERE id = $1 AND version = $2` in
//! PostgreSQL's default READ COMMITTED isolation: a second writer waits for
//! the first one's row lock, then sees the new version and matches nothing.
//!
//! Uses the blocking `postgres` client (the rest of the stack — the
//! runtime and the HTTP server — is blocking too), in the clear or over
//! TLS as the URL's `sslmode` says (see `postgres_tls`).

use crate::model::{
    AuditEvent, ChangeFeed, Commit, Due, Event, Instance, ListQuery, NewInstance, Record, Summary,
};
use crate::pool::Pool;
use crate::steps::Claim;
use crate::{Status, Store, StoreError, now_ms};
use postgres::{Client, Row, Statement, Transaction};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};

/// The columns [`summary`] reads, in its order.
macro_rules! summary_columns {
    () => {
        "seq, id, agent, program_name, program_hash, status, pause_reason, \
         pause_kind, error, output, version, pause_requested, created_at, updated_at, \
         octet_length(snapshot)::bigint, wake_at"
    };
}

mod claims;
mod commits;
mod group_commit;
pub use group_commit::BatchStats;
mod steps;

/// The migrations, in order; the schema version is the count applied.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/postgres/0001_instances.sql"),
    include_str!("../migrations/postgres/0002_leases_history.sql"),
    include_str!("../migrations/postgres/0003_timers.sql"),
];

/// Serialises concurrent migrations of processes starting together.
const MIGRATION_LOCK: i64 = 0x5e45_e000_0001;

const SUMMARY_COLUMNS: &str = summary_columns!();
const LOAD: &str = concat!(
    "SELECT ",
    summary_columns!(),
    ", snapshot FROM sense_instances WHERE id = $1"
);
const SUMMARY: &str = concat!(
    "SELECT ",
    summary_columns!(),
    " FROM sense_instances WHERE id = $1"
);

/// A pooled connection with the statements prepared on it: the hot paths
/// (load, claim, commit) send each statement once per connection, then
/// only its parameters — half the round trips of an unprepared query.
pub(crate) struct Conn {
    client: Client,
    prepared: HashMap<&'static str, Statement>,
}

impl Conn {
    /// `sql`, prepared on this connection (on first use).
    pub(crate) fn prepared(&mut self, sql: &'static str) -> Result<Statement, postgres::Error> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql)?;
        self.prepared.insert(sql, s.clone());
        Ok(s)
    }
}

/// Instances in a PostgreSQL database.
pub struct PostgresStore {
    pool: Pool<Conn, postgres::Error>,
    /// Opens a connection (TLS as the URL says), also for listening.
    connect: crate::postgres_tls::Connect,
    /// Announces committed changes to listeners.
    announcer: std::sync::Arc<crate::postgres_announce::Announcer>,
    /// Versions kept per instance in the history (0: all).
    keep: AtomicU32,
    /// Concurrent commits, gathered into one statement each batch.
    group: group_commit::Group<commits::Pending, commits::Outcome>,
    /// Concurrent claims, gathered the same way.
    claims: group_commit::Group<claims::ClaimRequest, claims::ClaimOutcome>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore").finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// How this store's commits were batched (group commit) since it was
    /// opened: concurrent answers of one process commit together.
    pub fn commit_stats(&self) -> BatchStats {
        self.group.stats()
    }

    /// How this store's claims of steps were batched, as
    /// [`PostgresStore::commit_stats`] for commits.
    pub fn claim_stats(&self) -> BatchStats {
        self.claims.stats()
    }
}

impl PostgresStore {
    /// Connects to the database `url` names (`postgres://user@host:port/db`)
    /// and brings its schema up to date. At most 16 connections per store.
    pub fn open(url: &str) -> Result<PostgresStore, StoreError> {
        let connect = crate::postgres_tls::connector(url)?;
        let mut first = connect()?;
        migrate(&mut first)?;
        let for_pool = connect.clone();
        let pool = Pool::new(
            16,
            Box::new(move || {
                Ok(Conn {
                    client: for_pool()?,
                    prepared: HashMap::new(),
                })
            }),
        );
        let announcer = crate::postgres_announce::Announcer::start(connect.clone());
        Ok(PostgresStore {
            pool,
            connect,
            announcer,
            keep: AtomicU32::new(0),
            group: group_commit::Group::default(),
            claims: group_commit::Group::default(),
        })
    }

    fn with<T>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        self.with_conn(|c| f(&mut c.client))
    }

    /// [`PostgresStore::with`], with the connection's prepared statements.
    fn with_conn<T>(
        &self,
        f: impl FnOnce(&mut Conn) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        Ok(self.pool.with(|c, _| c.client.is_closed(), f)?)
    }
}

fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS sense_schema (version BIGINT NOT NULL)")?;
    let found: Option<i64> = tx
        .query_one("SELECT max(version) FROM sense_schema", &[])?
        .get(0);
    for (version, sql) in crate::schema::pending(found, MIGRATIONS)? {
        tx.batch_execute(sql)?;
        tx.execute(
            "INSERT INTO sense_schema (version) VALUES ($1)",
            &[&version],
        )?;
    }
    tx.commit()?;
    Ok(())
}

fn summary(r: &Row) -> Result<Summary, postgres::Error> {
    crate::rows::summary(r, 0)
}

fn audit(
    tx: &mut Transaction<'_>,
    id: &str,
    version: i64,
    e: &Event,
) -> Result<(), postgres::Error> {
    tx.execute(
        "INSERT INTO sense_audit (instance_id, version, at, event, detail) VALUES ($1, $2, $3, $4, $5)",
        &[&id, &version, &now_ms(), &e.kind, &e.detail],
    )?;
    Ok(())
}

fn current_version(tx: &mut Transaction<'_>, id: &str) -> Result<Option<i64>, postgres::Error> {
    Ok(tx
        .query_opt(
            "SELECT version FROM sense_instances WHERE id = $1 FOR UPDATE",
            &[&id],
        )?
        .map(|r| r.get(0)))
}

impl Store for PostgresStore {
    fn create_many(&self, new: &[NewInstance], event: &Event) -> Result<(), StoreError> {
        let taken = self.with(|c| {
            let mut tx = c.transaction()?;
            let now = now_ms();
            let insert = tx.prepare(
                "INSERT INTO sense_instances (id, agent, program_name, program_hash, status, \
                 pause_reason, pause_kind, error, output, version, created_at, updated_at, snapshot, \
                 wake_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $10, $11, $12) ON CONFLICT (id) DO NOTHING",
            )?;
            let log = tx.prepare(
                "INSERT INTO sense_audit (instance_id, version, at, event, detail) VALUES ($1, 1, $2, $3, $4)",
            )?;
            for n in new {
                let r = &n.record;
                let added = tx.execute(
                    &insert,
                    &[
                        &n.id,
                        &n.agent,
                        &n.program_name,
                        &n.program_hash,
                        &r.status.as_str(),
                        &r.pause_reason,
                        &r.pause_kind,
                        &r.error,
                        &r.output,
                        &now,
                        &r.snapshot,
                        &r.wake_at,
                    ],
                )?;
                if added == 0 {
                    // Dropping the transaction rolls everything back.
                    return Ok(Some(n.id.clone()));
                }
                tx.execute(&log, &[&n.id, &now, &event.kind, &event.detail])?;
            }
            tx.commit()?;
            Ok(None)
        })?;
        StoreError::unless_taken(taken)
    }

    fn load(&self, id: &str) -> Result<Option<Instance>, StoreError> {
        self.with_conn(|c| {
            let load = c.prepared(LOAD)?;
            match c.client.query_opt(&load, &[&id])? {
                Some(r) => Ok(Some(Instance {
                    summary: summary(&r)?,
                    snapshot: r.try_get(16)?,
                })),
                None => Ok(None),
            }
        })
    }

    fn summary(&self, id: &str) -> Result<Option<Summary>, StoreError> {
        self.with_conn(|c| {
            let sql = c.prepared(SUMMARY)?;
            c.client
                .query_opt(&sql, &[&id])?
                .as_ref()
                .map(summary)
                .transpose()
        })
    }

    fn list(&self, q: &ListQuery) -> Result<Vec<Summary>, StoreError> {
        self.with(|c| {
            let sql = format!(
                "SELECT {SUMMARY_COLUMNS} FROM sense_instances \
                 WHERE seq > $1 AND ($2::text IS NULL OR status = $2) ORDER BY seq LIMIT $3"
            );
            let status = q.status.map(Status::as_str);
            c.query(&sql, &[&q.after, &status, &q.effective_limit()])?
                .iter()
                .map(summary)
                .collect()
        })
    }

    fn count(&self, status: Option<Status>) -> Result<u64, StoreError> {
        let status = status.map(Status::as_str);
        let n: i64 = self.with(|c| {
            Ok(c.query_one(
                "SELECT count(*) FROM sense_instances WHERE $1::text IS NULL OR status = $1",
                &[&status],
            )?
            .get(0))
        })?;
        Ok(n.max(0) as u64)
    }

    fn commit(
        &self,
        id: &str,
        expected: i64,
        r: &Record,
        event: &Event,
    ) -> Result<Commit, StoreError> {
        Ok(self.commit_summary(id, expected, r, event)?.0)
    }

    fn commit_summary(
        &self,
        id: &str,
        expected: i64,
        r: &Record,
        event: &Event,
    ) -> Result<(Commit, Option<Summary>), StoreError> {
        let keep = self.keep.load(Ordering::Relaxed);
        // The state replaced goes to the history unless only the current
        // one is kept; versions older than the retention are dropped.
        let oldest = match crate::steps::oldest_kept(expected + 1, keep) {
            o if o > 1 => o,
            _ => 0,
        };
        let pending = commits::Pending {
            id: id.to_string(),
            expected,
            record: r.clone(),
            event_kind: event.kind.clone(),
            event_detail: event.detail.clone(),
            copy: keep != 1,
            oldest,
        };
        self.group.run(pending, &|batch| self.run_commits(batch))
    }

    fn claim_loading(
        &self,
        id: &str,
        version: i64,
        holder: &str,
        ttl_ms: i64,
    ) -> Result<(Claim, Option<Summary>), StoreError> {
        let request = claims::ClaimRequest {
            id: id.to_string(),
            version,
            holder: holder.to_string(),
            ttl_ms,
        };
        self.claims.run(request, &|batch| self.run_claims(batch))
    }

    fn delete(&self, id: &str, expected: Option<i64>, event: &Event) -> Result<Commit, StoreError> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            let current = current_version(&mut tx, id)?;
            match (current, expected) {
                (None, _) => return Ok(Commit::Conflict { current: None }),
                (Some(v), Some(e)) if v != e => return Ok(Commit::Conflict { current }),
                (Some(v), _) => {
                    tx.execute("DELETE FROM sense_instances WHERE id = $1", &[&id])?;
                    steps::forget(&mut tx, id)?;
                    audit(&mut tx, id, v + 1, event)?;
                }
            }
            tx.commit()?;
            self.announcer.changed(id);
            Ok(Commit::Committed { version: 0 })
        })
    }

    fn request_pause(&self, id: &str, event: &Event) -> Result<bool, StoreError> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            let Some(v) = current_version(&mut tx, id)? else {
                return Ok(false);
            };
            tx.execute(
                "UPDATE sense_instances SET pause_requested = TRUE WHERE id = $1",
                &[&id],
            )?;
            audit(&mut tx, id, v, event)?;
            tx.commit()?;
            Ok(true)
        })
    }

    fn versions(&self, ids: &[String]) -> Result<Vec<(String, i64)>, StoreError> {
        self.with(|c| {
            Ok(c.query(
                "SELECT id, version FROM sense_instances WHERE id = ANY($1)",
                &[&ids],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
        })
    }

    fn audit(&self, id: &str, after: i64, limit: u32) -> Result<Vec<AuditEvent>, StoreError> {
        let limit = i64::from(limit.clamp(1, 10_000));
        self.with(|c| {
            c.query(
                "SELECT seq, version, at, event, detail FROM sense_audit \
                 WHERE instance_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                &[&id, &after, &limit],
            )?
            .iter()
            .map(crate::rows::audit_event)
            .collect()
        })
    }

    fn claim_due(&self, now: i64, hold_ms: i64, limit: u32) -> Result<Vec<Due>, StoreError> {
        self.with(|c| crate::postgres_timers::claim_due(c, now, hold_ms, limit))
    }

    fn next_wake(&self) -> Result<Option<i64>, StoreError> {
        self.with(crate::postgres_timers::next_wake)
    }

    fn listen(&self) -> Result<Option<Box<dyn ChangeFeed>>, StoreError> {
        let client = (self.connect)()?;
        Ok(Some(Box::new(crate::postgres_timers::Listener::new(
            client,
        )?)))
    }

    fn size_bytes(&self) -> Result<u64, StoreError> {
        let n: i64 = self.with(|c| {
            Ok(c.query_one(
                "SELECT (pg_total_relation_size('sense_instances') + \
                 pg_total_relation_size('sense_audit'))::bigint",
                &[],
            )?
            .get(0))
        })?;
        Ok(n.max(0) as u64)
    }
}
