//! Commits on PostgreSQL: one commit as one statement, and a batch of
//! concurrent commits (see `group_commit`) as one statement over arrays —
//! the same writes, row for row, in one transaction.

use super::group_commit::Keyed;
use super::{PostgresStore, summary};
use crate::model::{Commit, Summary};
use crate::{Record, StoreError, now_ms};
use std::collections::HashMap;

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

impl Keyed for Pending {
    fn key(&self) -> &str {
        &self.id
    }
}

/// A commit in one statement (one round trip, one WAL flush): the
/// conditional update of the instance, the copy of the state it replaces
/// into the history ($12; the snapshot the statement reads is the row
/// before the update), the versions older than the retention dropped
/// (below $13; 0 drops none) and the audit event — all only if the update
/// matched. A concurrent commit makes the update find the new version and
/// match nothing, so the statement writes nothing and returns no row;
/// otherwise it returns the instance's new summary.
pub(super) const COMMIT: &str = concat!(
    "WITH old AS ( \
       SELECT id, version, status, pause_reason, pause_kind, error, output, updated_at, snapshot \
       FROM sense_instances WHERE id = $9 AND version = $10), \
     upd AS ( \
       UPDATE sense_instances SET status = $1, pause_reason = $2, pause_kind = $3, \
       error = $4, output = $5, snapshot = $6, version = version + 1, updated_at = $7, \
       pause_requested = CASE WHEN $8 THEN FALSE ELSE pause_requested END, \
       wake_at = $11, wake_claimed_until = NULL \
       WHERE id = $9 AND version = $10 RETURNING ",
    summary_columns!(),
    "), \
     kept AS ( \
       INSERT INTO sense_versions (instance_id, version, status, pause_reason, pause_kind, \
       error, output, created_at, snapshot) \
       SELECT id, version, status, pause_reason, pause_kind, error, output, updated_at, snapshot \
       FROM old WHERE $12 AND EXISTS (SELECT 1 FROM upd) \
       ON CONFLICT (instance_id, version) DO NOTHING), \
     dropped AS ( \
       DELETE FROM sense_versions WHERE instance_id = $9 AND version < $13 \
       AND EXISTS (SELECT 1 FROM upd)), \
     logged AS ( \
       INSERT INTO sense_audit (instance_id, version, at, event, detail) \
       SELECT $9, version, $7, $14, $15 FROM upd) \
     SELECT * FROM upd"
);

/// [`COMMIT`] for many instances at once: each array parameter holds one
/// element per commit (`unnest` pairs them up into the rows of `b`). Only
/// the instances still at their expected version are written; the
/// statement returns the new summary of each one written.
const COMMIT_MANY: &str = concat!(
    "WITH b AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], \
       $5::text[], $6::bytea[], $7::bool[], $8::text[], $9::bigint[], $10::bigint[], \
       $11::bool[], $12::bigint[], $13::text[], $14::text[]) \
       AS b(n_status, n_reason, n_kind, n_error, n_output, n_snapshot, n_clears, n_id, \
       n_expected, n_wake_at, n_copy, n_oldest, n_event, n_detail)), \
     old AS ( \
       SELECT i.id, i.version, i.status, i.pause_reason, i.pause_kind, i.error, i.output, \
       i.updated_at, i.snapshot, b.n_copy \
       FROM sense_instances AS i JOIN b ON i.id = b.n_id AND i.version = b.n_expected), \
     upd AS ( \
       UPDATE sense_instances SET status = n_status, pause_reason = n_reason, \
       pause_kind = n_kind, error = n_error, output = n_output, snapshot = n_snapshot, \
       version = version + 1, updated_at = $15, \
       pause_requested = CASE WHEN n_clears THEN FALSE ELSE pause_requested END, \
       wake_at = n_wake_at, wake_claimed_until = NULL \
       FROM b WHERE id = n_id AND version = n_expected RETURNING ",
    summary_columns!(),
    "), \
     kept AS ( \
       INSERT INTO sense_versions (instance_id, version, status, pause_reason, pause_kind, \
       error, output, created_at, snapshot) \
       SELECT old.id, old.version, old.status, old.pause_reason, old.pause_kind, old.error, \
       old.output, old.updated_at, old.snapshot \
       FROM old JOIN upd ON upd.id = old.id WHERE old.n_copy \
       ON CONFLICT (instance_id, version) DO NOTHING), \
     dropped AS ( \
       DELETE FROM sense_versions AS v USING b JOIN upd ON upd.id = b.n_id \
       WHERE v.instance_id = b.n_id AND v.version < b.n_oldest), \
     logged AS ( \
       INSERT INTO sense_audit (instance_id, version, at, event, detail) \
       SELECT upd.id, upd.version, $15, b.n_event, b.n_detail FROM upd JOIN b ON b.n_id = upd.id) \
     SELECT * FROM upd"
);

impl PostgresStore {
    /// Runs one batch of commits (a batch of one as [`COMMIT`], more as
    /// [`COMMIT_MANY`]) and announces the instances it changed. Should the batch's statement fail (one commit's
    /// values refused, a deadlock with another process's batch), nothing
    /// of it was written, and each commit runs again on its own so that
    /// each gets its own outcome.
    pub(super) fn run_commits(&self, batch: &[Pending]) -> Vec<Outcome> {
        let many = match batch.len() {
            2.. => self
                .commit_many(batch)
                .inspect_err(|_| self.group.count_retried())
                .ok(),
            _ => None,
        };
        let outcomes = many.unwrap_or_else(|| batch.iter().map(|p| self.commit_one(p)).collect());
        // Announced together: one wake-up of the announcing thread.
        let committed = batch.iter().zip(&outcomes).filter_map(|(p, o)| match o {
            Ok((Commit::Committed { .. }, _)) => Some(p.id.as_str()),
            _ => None,
        });
        self.announcer.changed_all(committed);
        outcomes
    }

    fn commit_one(&self, p: &Pending) -> Outcome {
        let r = &p.record;
        self.with_conn(|c| {
            let sql = c.prepared(COMMIT)?;
            let row = c.client.query_opt(
                &sql,
                &[
                    &r.status.as_str(),
                    &r.pause_reason,
                    &r.pause_kind,
                    &r.error,
                    &r.output,
                    &r.snapshot,
                    &now_ms(),
                    &r.clears_pause_request,
                    &p.id,
                    &p.expected,
                    &r.wake_at,
                    &p.copy,
                    &p.oldest,
                    &p.event_kind,
                    &p.event_detail,
                ],
            )?;
            if let Some(row) = row {
                let committed = Commit::Committed {
                    version: p.expected + 1,
                };
                return Ok((committed, Some(summary(&row)?)));
            }
            let current = c
                .client
                .query_opt(
                    "SELECT version FROM sense_instances WHERE id = $1",
                    &[&p.id],
                )?
                .map(|r| r.get(0));
            Ok((Commit::Conflict { current }, None))
        })
    }

    fn commit_many(&self, batch: &[Pending]) -> Result<Vec<Outcome>, StoreError> {
        let column = |f: fn(&Pending) -> Option<&str>| batch.iter().map(f).collect::<Vec<_>>();
        let status = column(|p| Some(p.record.status.as_str()));
        let reason = column(|p| p.record.pause_reason.as_deref());
        let kind = column(|p| p.record.pause_kind.as_deref());
        let error = column(|p| p.record.error.as_deref());
        let output = column(|p| Some(p.record.output.as_str()));
        let ids = column(|p| Some(p.id.as_str()));
        let events = column(|p| Some(p.event_kind.as_str()));
        let details = column(|p| Some(p.event_detail.as_str()));
        let snapshots: Vec<&[u8]> = batch.iter().map(|p| p.record.snapshot.as_slice()).collect();
        let clears: Vec<bool> = batch
            .iter()
            .map(|p| p.record.clears_pause_request)
            .collect();
        let expected: Vec<i64> = batch.iter().map(|p| p.expected).collect();
        let wake_at: Vec<Option<i64>> = batch.iter().map(|p| p.record.wake_at).collect();
        let copy: Vec<bool> = batch.iter().map(|p| p.copy).collect();
        let oldest: Vec<i64> = batch.iter().map(|p| p.oldest).collect();
        self.with_conn(|c| {
            let sql = c.prepared(COMMIT_MANY)?;
            let rows = c.client.query(
                &sql,
                &[
                    &status,
                    &reason,
                    &kind,
                    &error,
                    &output,
                    &snapshots,
                    &clears,
                    &ids,
                    &expected,
                    &wake_at,
                    &copy,
                    &oldest,
                    &events,
                    &details,
                    &now_ms(),
                ],
            )?;
            let mut written = HashMap::new();
            for row in &rows {
                let s = summary(row)?;
                written.insert(s.id.clone(), s);
            }
            // The commits that matched nothing: where their instances are.
            let missed: Vec<&str> = batch
                .iter()
                .filter(|p| !written.contains_key(&p.id))
                .map(|p| p.id.as_str())
                .collect();
            let mut current = HashMap::new();
            if !missed.is_empty() {
                for row in c.client.query(
                    "SELECT id, version FROM sense_instances WHERE id = ANY($1)",
                    &[&missed],
                )? {
                    current.insert(row.try_get::<_, String>(0)?, row.try_get::<_, i64>(1)?);
                }
            }
            Ok(batch
                .iter()
                .map(|p| match written.remove(&p.id) {
                    Some(s) => Ok((
                        Commit::Committed {
                            version: p.expected + 1,
                        },
                        Some(s),
                    )),
                    None => Ok((
                        Commit::Conflict {
                            current: current.get(&p.id).copied(),
                        },
                        None,
                    )),
                })
                .collect())
        })
    }
}
