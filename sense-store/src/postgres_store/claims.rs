//! Claims of steps on PostgreSQL: one claim as one statement
//! ([`steps::CLAIM`](super::steps::CLAIM)), and a batch of concurrent
//! claims (see `group_commit`) as one statement over arrays, each row
//! decided exactly as alone.

use super::group_commit::Keyed;
use super::{PostgresStore, steps};
use crate::model::Summary;
use crate::steps::Claim;
use crate::{StoreError, now_ms};
use postgres::Row;

/// How many times a claim that lost to a concurrent one runs again to
/// read the winner's lease.
const CLAIM_ATTEMPTS: u32 = 4;

/// One claim waiting for its batch.
pub(super) struct ClaimRequest {
    pub(super) id: String,
    pub(super) version: i64,
    pub(super) holder: String,
    pub(super) ttl_ms: i64,
}

impl Keyed for ClaimRequest {
    fn key(&self) -> &str {
        &self.id
    }
}

/// What a claim came to: as `Store::claim_loading` returns it.
pub(super) type ClaimOutcome = Result<(Claim, Option<Summary>), StoreError>;

/// [`steps::CLAIM`] for many instances at once (one element of each array
/// per claim; `$5` is now). The leases are written in the order of the
/// instances' ids, so two processes' batches never wait for each other
/// in opposite orders. Returns, per claim, its id and then the columns of
/// [`steps::CLAIM`].
const CLAIM_MANY: &str = concat!(
    "WITH quick AS ( \
       SELECT set_config('synchronous_commit', 'off', true)), \
     b AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[]) \
       AS b(n_id, n_version, n_holder, n_expires)), \
     cur AS (SELECT ",
    summary_columns!(),
    " FROM sense_instances WHERE id IN (SELECT n_id FROM b)), \
     taken AS ( \
       INSERT INTO sense_leases (instance_id, version, holder, expires_at) \
       SELECT b.n_id, b.n_version, b.n_holder, b.n_expires FROM b, quick \
       WHERE COALESCE((SELECT version FROM cur WHERE cur.id = b.n_id), 0) = b.n_version \
       ORDER BY b.n_id \
       ON CONFLICT (instance_id) DO UPDATE \
       SET version = EXCLUDED.version, holder = EXCLUDED.holder, \
       expires_at = EXCLUDED.expires_at \
       WHERE sense_leases.version <> EXCLUDED.version \
       OR sense_leases.expires_at <= $5::bigint OR sense_leases.holder = EXCLUDED.holder \
       RETURNING instance_id) \
     SELECT b.n_id, cur.version, (SELECT count(*) FROM taken WHERE taken.instance_id = b.n_id), \
     l.holder, l.expires_at, l.version, cur.* \
     FROM b LEFT JOIN sense_leases AS l ON l.instance_id = b.n_id \
     LEFT JOIN cur ON cur.id = b.n_id"
);

/// A claim decided by a statement, or `None`: run it again on its own.
type Decided = Option<(Claim, Option<Summary>)>;

/// What one row of a claim statement says, from column `at` on; `None`
/// when the claim lost to a claim that committed after the statement's
/// snapshot (the lease row it read is not that claim's: run it again) —
/// unless this was the `last` attempt, which reports the lease it read.
fn decide(
    row: &Row,
    at: usize,
    r: &ClaimRequest,
    now: i64,
    last: bool,
) -> Result<Decided, postgres::Error> {
    let current: Option<i64> = row.try_get(at)?;
    let taken: i64 = row.try_get(at + 1)?;
    let found = match current {
        Some(_) => Some(crate::rows::summary(row, at + 5)?),
        None => None,
    };
    if current.unwrap_or(0) != r.version {
        return Ok(Some((Claim::Stale { current }, found)));
    }
    if taken > 0 {
        let expires_at = now.saturating_add(r.ttl_ms);
        return Ok(Some((Claim::Claimed { expires_at }, found)));
    }
    let held_by: Option<String> = row.try_get(at + 2)?;
    let until: Option<i64> = row.try_get(at + 3)?;
    let lease_version: Option<i64> = row.try_get(at + 4)?;
    if !last && (held_by.is_none() || lease_version != Some(r.version)) {
        return Ok(None);
    }
    let held = Claim::Held {
        holder: held_by.unwrap_or_default(),
        expires_at: until.unwrap_or(now),
    };
    Ok(Some((held, found)))
}

impl PostgresStore {
    /// Runs one batch of claims: a batch of one as [`steps::CLAIM`], more
    /// as [`CLAIM_MANY`]. A claim the batch cannot decide (it lost to one
    /// committed meanwhile), or every claim of a batch whose statement
    /// failed, runs again on its own.
    pub(super) fn run_claims(&self, batch: &[ClaimRequest]) -> Vec<ClaimOutcome> {
        if batch.len() > 1 {
            match self.claim_many(batch) {
                Ok(decided) => {
                    return batch
                        .iter()
                        .zip(decided)
                        .map(|(r, d)| match d {
                            Some(done) => Ok(done),
                            None => self.claim_one(r),
                        })
                        .collect();
                }
                Err(_) => self.claims.count_retried(),
            }
        }
        batch.iter().map(|r| self.claim_one(r)).collect()
    }

    fn claim_many(&self, batch: &[ClaimRequest]) -> Result<Vec<Decided>, StoreError> {
        let now = now_ms();
        let ids: Vec<&str> = batch.iter().map(|r| r.id.as_str()).collect();
        let versions: Vec<i64> = batch.iter().map(|r| r.version).collect();
        let holders: Vec<&str> = batch.iter().map(|r| r.holder.as_str()).collect();
        let expiries: Vec<i64> = batch.iter().map(|r| now.saturating_add(r.ttl_ms)).collect();
        self.with_conn(|c| {
            let sql = c.prepared(CLAIM_MANY)?;
            let rows = c
                .client
                .query(&sql, &[&ids, &versions, &holders, &expiries, &now])?;
            let mut by_id = std::collections::HashMap::new();
            for row in rows {
                by_id.insert(row.try_get::<_, String>(0)?, row);
            }
            batch
                .iter()
                .map(|r| match by_id.get(&r.id) {
                    Some(row) => decide(row, 1, r, now, false),
                    None => Ok(None),
                })
                .collect()
        })
    }

    /// One claim as one statement, run again (up to [`CLAIM_ATTEMPTS`]
    /// times) while it cannot tell who won.
    fn claim_one(&self, r: &ClaimRequest) -> ClaimOutcome {
        self.with_conn(|c| {
            let sql = c.prepared(steps::CLAIM)?;
            let mut attempt = 0;
            loop {
                attempt += 1;
                let now = now_ms();
                let expires_at = now.saturating_add(r.ttl_ms);
                let row = c
                    .client
                    .query_one(&sql, &[&r.id, &r.version, &r.holder, &expires_at, &now])?;
                // A claim that lost to one committed after this
                // statement's snapshot was taken cannot see the winner's
                // lease row; the next attempt, with a new snapshot, sees
                // who holds the step (or takes it, if the lease is gone).
                let last = attempt >= CLAIM_ATTEMPTS;
                if let Some(done) = decide(&row, 0, r, now, last)? {
                    return Ok(done);
                }
            }
        })
    }
}
