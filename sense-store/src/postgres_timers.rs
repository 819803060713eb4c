//! Durable timers on PostgreSQL: claiming due wake-ups with
//! `FOR UPDATE SKIP LOCKED` (processes claiming at once take different
//! rows and never wait on each other), and the change feed behind long
//! polls (`LISTEN sense_instances`; every store announces its commits,
//! see `postgres_announce`).

use crate::StoreError;
use crate::model::{ChangeFeed, Due};
use postgres::Client;
use postgres::fallible_iterator::FallibleIterator;
use std::time::{Duration, Instant};

pub(crate) fn claim_due(
    c: &mut Client,
    now: i64,
    hold_ms: i64,
    limit: u32,
) -> Result<Vec<Due>, postgres::Error> {
    let rows = c.query(
        "UPDATE sense_instances SET wake_claimed_until = $1 + $2 WHERE id IN ( \
             SELECT id FROM sense_instances WHERE wake_at <= $1 AND status = 'paused' \
             AND (wake_claimed_until IS NULL OR wake_claimed_until <= $1) \
             ORDER BY wake_at LIMIT $3 FOR UPDATE SKIP LOCKED) \
         RETURNING id, version, wake_at",
        &[&now, &hold_ms, &i64::from(limit)],
    )?;
    rows.iter()
        .map(|r| {
            Ok(Due {
                id: r.try_get(0)?,
                version: r.try_get(1)?,
                wake_at: r.try_get(2)?,
            })
        })
        .collect()
}

pub(crate) fn next_wake(c: &mut Client) -> Result<Option<i64>, postgres::Error> {
    c.query_one(
        "SELECT min(wake_at) FROM sense_instances WHERE wake_at IS NOT NULL AND status = 'paused'",
        &[],
    )?
    .try_get(0)
}

use crate::postgres_announce::CHANNEL;

/// A connection of its own, listening.
pub(crate) struct Listener {
    client: Client,
}

impl Listener {
    pub(crate) fn new(mut client: Client) -> Result<Listener, StoreError> {
        client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
        Ok(Listener { client })
    }
}

impl ChangeFeed for Listener {
    fn next(&mut self, timeout: Duration) -> Result<Vec<String>, StoreError> {
        let mut ids = Vec::new();
        let deadline = Instant::now() + timeout;
        {
            let mut notes = self.client.notifications();
            // The first one waits up to the timeout; those already received
            // with it are taken without waiting.
            let mut wait = timeout;
            loop {
                let mut it = notes.timeout_iter(wait);
                match it.next()? {
                    Some(n) if n.channel() == CHANNEL => {
                        ids.extend(n.payload().split(' ').map(str::to_string));
                    }
                    Some(_) => {}
                    None => break,
                }
                if ids.len() >= 10_000 || Instant::now() >= deadline {
                    break;
                }
                wait = Duration::ZERO;
            }
        }
        if self.client.is_closed() {
            return Err(StoreError::Disconnected("LISTEN".into()));
        }
        Ok(ids)
    }
}
