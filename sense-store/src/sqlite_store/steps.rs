//! [`Steps`] on SQLite: leases and the version history (migration 0002).

use super::SqliteStore;
use crate::steps::{Claim, Steps, VersionInfo, oldest_kept};
use crate::{StoreError, now_ms};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use std::sync::atomic::Ordering;

const VERSION_COLUMNS: &str =
    "version, status, pause_reason, pause_kind, error, output, created_at, length(snapshot)";

/// The same columns of the current version, in `sense_instances`.
const CURRENT_COLUMNS: &str =
    "version, status, pause_reason, pause_kind, error, output, updated_at, length(snapshot)";

/// Copies version `expected` of `id` (the state a commit is about to
/// replace) into the history, and drops the versions the retention `keep`
/// (0: all; the current version counts as one) no longer covers; inside
/// the commit's transaction, before its update.
pub(super) fn keep_previous(
    tx: &Transaction<'_>,
    id: &str,
    expected: i64,
    keep: u32,
) -> Result<(), rusqlite::Error> {
    if keep != 1 {
        tx.prepare_cached(
            "INSERT OR REPLACE INTO sense_versions (instance_id, version, status, pause_reason, \
         pause_kind, error, output, created_at, snapshot) \
         SELECT id, version, status, pause_reason, pause_kind, error, output, updated_at, snapshot \
         FROM sense_instances WHERE id = ?1 AND version = ?2",
        )?
        .execute(params![id, expected])?;
    }
    let oldest = oldest_kept(expected + 1, keep);
    if oldest > 1 {
        tx.prepare_cached("DELETE FROM sense_versions WHERE instance_id = ?1 AND version < ?2")?
            .execute(params![id, oldest])?;
    }
    Ok(())
}

/// Drops the history and lease of a deleted instance.
pub(super) fn forget(tx: &Transaction<'_>, id: &str) -> Result<(), rusqlite::Error> {
    tx.execute("DELETE FROM sense_versions WHERE instance_id = ?1", [id])?;
    tx.execute("DELETE FROM sense_leases WHERE instance_id = ?1", [id])?;
    Ok(())
}

/// Runs `f` with `synchronous = NORMAL`: a lease need not survive a power
/// cut (a runner that loses power loses its run too, and the step is
/// claimed again), so its write skips the sync a commit of an answer makes.
/// In write-ahead-log mode the next FULL commit syncs it anyway.
fn without_sync<T>(
    c: &mut Connection,
    f: impl FnOnce(&mut Connection) -> Result<T, rusqlite::Error>,
) -> Result<T, rusqlite::Error> {
    c.pragma_update(None, "synchronous", "NORMAL")?;
    let result = f(c);
    c.pragma_update(None, "synchronous", "FULL")?;
    result
}

fn claim(
    c: &mut Connection,
    id: &str,
    version: i64,
    holder: &str,
    ttl_ms: i64,
) -> Result<Claim, rusqlite::Error> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current = super::current_version(&tx, id)?;
    if current.unwrap_or(0) != version {
        return Ok(Claim::Stale { current });
    }
    let now = now_ms();
    let lease: Option<(i64, String, i64)> = tx
        .query_row(
            "SELECT version, holder, expires_at FROM sense_leases WHERE instance_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    if let Some((v, other, expires_at)) = lease
        && v == version
        && expires_at > now
        && other != holder
    {
        return Ok(Claim::Held {
            holder: other,
            expires_at,
        });
    }
    let expires_at = now.saturating_add(ttl_ms);
    tx.execute(
        "INSERT OR REPLACE INTO sense_leases (instance_id, version, holder, expires_at) \
         VALUES (?1, ?2, ?3, ?4)",
        params![id, version, holder, expires_at],
    )?;
    tx.commit()?;
    Ok(Claim::Claimed { expires_at })
}

impl Steps for SqliteStore {
    fn claim(
        &self,
        id: &str,
        version: i64,
        holder: &str,
        ttl_ms: i64,
    ) -> Result<Claim, StoreError> {
        self.write(|c| without_sync(c, |c| claim(c, id, version, holder, ttl_ms)))
    }

    fn release(&self, id: &str, version: i64, holder: &str) -> Result<(), StoreError> {
        self.write(|c| {
            without_sync(c, |c| {
                c.execute(
                    "DELETE FROM sense_leases WHERE instance_id = ?1 AND version = ?2 AND holder = ?3",
                    params![id, version, holder],
                )
                .map(drop)
            })
        })
    }

    fn set_keep_versions(&self, keep: Option<u32>) {
        self.keep
            .store(keep.map_or(0, |k| k.max(1)), Ordering::Relaxed);
    }

    fn history(&self, id: &str) -> Result<Vec<VersionInfo>, StoreError> {
        self.with(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {VERSION_COLUMNS} FROM sense_versions WHERE instance_id = ?1 \
                 UNION ALL SELECT {CURRENT_COLUMNS} FROM sense_instances WHERE id = ?1 \
                 ORDER BY version"
            ))?;
            let rows = st.query_map([id], |r| crate::rows::version_info(r))?;
            rows.collect()
        })
    }

    fn load_version(
        &self,
        id: &str,
        version: i64,
    ) -> Result<Option<(VersionInfo, Vec<u8>)>, StoreError> {
        self.with(|c| {
            c.query_row(
                &format!(
                    "SELECT {VERSION_COLUMNS}, snapshot FROM sense_versions \
                     WHERE instance_id = ?1 AND version = ?2 \
                     UNION ALL SELECT {CURRENT_COLUMNS}, snapshot FROM sense_instances \
                     WHERE id = ?1 AND version = ?2"
                ),
                params![id, version],
                |r| Ok((crate::rows::version_info(r)?, r.get(8)?)),
            )
            .optional()
        })
    }
}
