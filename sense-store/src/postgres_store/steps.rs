//! [`Steps`] on PostgreSQL: leases and the version history (migration
//! 0002). A claim is one upsert: of concurrent claims of one step the
//! first takes the row lock and writes; the others, in READ COMMITTED,
//! re-check its condition against the new row and write nothing.

use super::PostgresStore;
use crate::steps::{Claim, Steps, VersionInfo, oldest_kept};
use crate::{Status, StoreError, now_ms};
use postgres::{Row, Transaction};
use std::sync::atomic::Ordering;

const VERSION_COLUMNS: &str = "version, status, pause_reason, pause_kind, error, output, \
     created_at, octet_length(snapshot)::bigint";

/// The same columns of the current version, in `sense_instances`.
const CURRENT_COLUMNS: &str = "version, status, pause_reason, pause_kind, error, output, \
     updated_at, octet_length(snapshot)::bigint";

/// Copies version `expected` of `id` (the state a commit is about to
/// replace) into the history, and drops the versions the retention `keep`
/// (0: all; the current version counts as one) no longer covers; inside
/// the commit's transaction, before its update.
pub(super) fn keep_previous(
    tx: &mut Transaction<'_>,
    id: &str,
    expected: i64,
    keep: u32,
) -> Result<(), postgres::Error> {
    if keep != 1 {
        tx.execute(
            "INSERT INTO sense_versions (instance_id, version, status, pause_reason, \
         pause_kind, error, output, created_at, snapshot) \
         SELECT id, version, status, pause_reason, pause_kind, error, output, updated_at, snapshot \
         FROM sense_instances WHERE id = $1 AND version = $2 \
         ON CONFLICT (instance_id, version) DO NOTHING",
            &[&id, &expected],
        )?;
    }
    let oldest = oldest_kept(expected + 1, keep);
    if oldest > 1 {
        tx.execute(
            "DELETE FROM sense_versions WHERE instance_id = $1 AND version < $2",
            &[&id, &oldest],
        )?;
    }
    Ok(())
}

/// Drops the history and lease of a deleted instance.
pub(super) fn forget(tx: &mut Transaction<'_>, id: &str) -> Result<(), postgres::Error> {
    tx.execute("DELETE FROM sense_versions WHERE instance_id = $1", &[&id])?;
    tx.execute("DELETE FROM sense_leases WHERE instance_id = $1", &[&id])?;
    Ok(())
}

fn version_info(r: &Row) -> Result<VersionInfo, postgres::Error> {
    let status: String = r.try_get(1)?;
    Ok(VersionInfo {
        version: r.try_get(0)?,
        // As in listings: an unknown status is read as failed.
        status: Status::parse(&status).unwrap_or(Status::Failed),
        pause_reason: r.try_get(2)?,
        pause_kind: r.try_get(3)?,
        error: r.try_get(4)?,
        output: r.try_get(5)?,
        created_at: r.try_get(6)?,
        snapshot_bytes: r.try_get(7)?,
    })
}

impl Steps for PostgresStore {
    fn claim(
        &self,
        id: &str,
        version: i64,
        holder: &str,
        ttl_ms: i64,
    ) -> Result<Claim, StoreError> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            let now = now_ms();
            let expires_at = now.saturating_add(ttl_ms);
            let taken = tx.execute(
                "INSERT INTO sense_leases (instance_id, version, holder, expires_at) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (instance_id) DO UPDATE \
                 SET version = EXCLUDED.version, holder = EXCLUDED.holder, \
                 expires_at = EXCLUDED.expires_at \
                 WHERE sense_leases.version <> EXCLUDED.version \
                 OR sense_leases.expires_at <= $5 OR sense_leases.holder = EXCLUDED.holder",
                &[&id, &version, &holder, &expires_at, &now],
            )?;
            // Checked after the lease is written: a commit that moved the
            // version on before that statement is seen here.
            let current: Option<i64> = tx
                .query_opt("SELECT version FROM sense_instances WHERE id = $1", &[&id])?
                .map(|r| r.get(0));
            if current.unwrap_or(0) != version {
                // Dropping the transaction takes the lease back.
                return Ok(Claim::Stale { current });
            }
            if taken == 0 {
                let row = tx.query_opt(
                    "SELECT holder, expires_at FROM sense_leases WHERE instance_id = $1",
                    &[&id],
                )?;
                let (holder, expires_at) =
                    row.map_or((String::new(), now), |r| (r.get(0), r.get(1)));
                return Ok(Claim::Held { holder, expires_at });
            }
            tx.commit()?;
            Ok(Claim::Claimed { expires_at })
        })
    }

    fn release(&self, id: &str, version: i64, holder: &str) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "DELETE FROM sense_leases WHERE instance_id = $1 AND version = $2 AND holder = $3",
                &[&id, &version, &holder],
            )?;
            Ok(())
        })
    }

    fn set_keep_versions(&self, keep: Option<u32>) {
        self.keep
            .store(keep.map_or(0, |k| k.max(1)), Ordering::Relaxed);
    }

    fn history(&self, id: &str) -> Result<Vec<VersionInfo>, StoreError> {
        self.with(|c| {
            c.query(
                &format!(
                    "SELECT {VERSION_COLUMNS} FROM sense_versions WHERE instance_id = $1 \
                     UNION ALL SELECT {CURRENT_COLUMNS} FROM sense_instances WHERE id = $1 \
                     ORDER BY version"
                ),
                &[&id],
            )?
            .iter()
            .map(version_info)
            .collect()
        })
    }

    fn load_version(
        &self,
        id: &str,
        version: i64,
    ) -> Result<Option<(VersionInfo, Vec<u8>)>, StoreError> {
        self.with(|c| {
            let row = c.query_opt(
                &format!(
                    "SELECT {VERSION_COLUMNS}, snapshot FROM sense_versions \
                     WHERE instance_id = $1 AND version = $2 \
                     UNION ALL SELECT {CURRENT_COLUMNS}, snapshot FROM sense_instances \
                     WHERE id = $1 AND version = $2"
                ),
                &[&id, &version],
            )?;
            match row {
                Some(r) => Ok(Some((version_info(&r)?, r.try_get(8)?))),
                None => Ok(None),
            }
        })
    }
}
