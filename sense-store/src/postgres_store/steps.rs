//! [`Steps`] on PostgreSQL: leases and the version history (migration
//! 0002). A claim is one statement around an upsert: of concurrent claims
//! of one step the first takes the row lock and writes; the others, in
//! READ COMMITTED, re-check its condition against the new row and write
//! nothing. A commit, with its copy into the history, is one statement
//! too (`COMMIT`, beside the other statements of `sense_instances`).

use super::PostgresStore;
use crate::StoreError;
use crate::steps::{Claim, Steps, VersionInfo};
use postgres::Transaction;
use std::sync::atomic::Ordering;

const VERSION_COLUMNS: &str = "version, status, pause_reason, pause_kind, error, output, \
     created_at, octet_length(snapshot)::bigint";

/// The same columns of the current version, in `sense_instances`.
const CURRENT_COLUMNS: &str = "version, status, pause_reason, pause_kind, error, output, \
     updated_at, octet_length(snapshot)::bigint";

/// A claim in one statement. The lease is taken only if the instance is
/// at the version claimed (0: absent) and the lease row is free, names
/// another version, has expired or is the caller's own (a renewal). The
/// transaction commits without waiting for its WAL flush
/// (`synchronous_commit` off for it alone): a lease is visible to every
/// other claim at once, so one runner per step holds as before; what a
/// database crash could lose is a lease taken in its last moments, after
/// which a step could be claimed twice — the conditional commit still
/// applies only one of the two runs. Returns the instance's version
/// (NULL: absent), whether the lease was taken, the lease row as it was
/// (its holder, expiry and version, for an answer that lost), and the
/// instance's summary columns (NULL: absent) as the claim found them.
pub(super) const CLAIM: &str = concat!(
    "WITH quick AS ( \
       SELECT set_config('synchronous_commit', 'off', true)), \
     cur AS (SELECT ",
    summary_columns!(),
    " FROM sense_instances WHERE id = $1), \
     taken AS ( \
       INSERT INTO sense_leases (instance_id, version, holder, expires_at) \
       SELECT $1::text, $2::bigint, $3::text, $4::bigint FROM quick \
       WHERE COALESCE((SELECT version FROM cur), 0) = $2::bigint \
       ON CONFLICT (instance_id) DO UPDATE \
       SET version = EXCLUDED.version, holder = EXCLUDED.holder, \
       expires_at = EXCLUDED.expires_at \
       WHERE sense_leases.version <> EXCLUDED.version \
       OR sense_leases.expires_at <= $5::bigint OR sense_leases.holder = EXCLUDED.holder \
       RETURNING 1) \
     SELECT (SELECT version FROM cur), (SELECT count(*) FROM taken), l.holder, l.expires_at, \
     l.version, cur.* FROM (SELECT 1) AS one LEFT JOIN sense_leases AS l ON l.instance_id = $1 \
     LEFT JOIN cur ON TRUE"
);

/// Drops the history and lease of a deleted instance.
pub(super) fn forget(tx: &mut Transaction<'_>, id: &str) -> Result<(), postgres::Error> {
    tx.execute("DELETE FROM sense_versions WHERE instance_id = $1", &[&id])?;
    tx.execute("DELETE FROM sense_leases WHERE instance_id = $1", &[&id])?;
    Ok(())
}

impl Steps for PostgresStore {
    fn claim(
        &self,
        id: &str,
        version: i64,
        holder: &str,
        ttl_ms: i64,
    ) -> Result<Claim, StoreError> {
        Ok(crate::Store::claim_loading(self, id, version, holder, ttl_ms)?.0)
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
            .map(crate::rows::version_info)
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
                Some(r) => Ok(Some((crate::rows::version_info(&r)?, r.try_get(8)?))),
                None => Ok(None),
            }
        })
    }
}
