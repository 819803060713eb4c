//! Durable timers on SQLite: claiming due wake-ups. One write
//! transaction at a time per file (`BEGIN IMMEDIATE`), so the select and
//! the update of a claim are atomic for every process on the machine.

use crate::model::Due;
use rusqlite::{Connection, TransactionBehavior, params};

pub(crate) fn claim_due(
    c: &mut Connection,
    now: i64,
    hold_ms: i64,
    limit: u32,
) -> Result<Vec<Due>, rusqlite::Error> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let due = {
        // `wake_at <= ?1` implies `wake_at IS NOT NULL`: the partial index
        // on wake_at serves it, so the cost does not grow with the number
        // of instances asleep.
        let mut st = tx.prepare_cached(
            "UPDATE sense_instances SET wake_claimed_until = ?1 + ?2 WHERE id IN ( \
                 SELECT id FROM sense_instances WHERE wake_at <= ?1 AND status = 'paused' \
                 AND (wake_claimed_until IS NULL OR wake_claimed_until <= ?1) \
                 ORDER BY wake_at LIMIT ?3) \
             RETURNING id, version, wake_at",
        )?;
        let rows = st.query_map(params![now, hold_ms, i64::from(limit)], |r| {
            Ok(Due {
                id: r.get(0)?,
                version: r.get(1)?,
                wake_at: r.get(2)?,
            })
        })?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    tx.commit()?;
    Ok(due)
}

pub(crate) fn next_wake(c: &mut Connection) -> Result<Option<i64>, rusqlite::Error> {
    c.query_row(
        "SELECT min(wake_at) FROM sense_instances WHERE wake_at IS NOT NULL AND status = 'paused'",
        [],
        |r| r.get(0),
    )
}
