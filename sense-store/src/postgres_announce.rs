//! Announcing changes on PostgreSQL (the sending half of LISTEN/NOTIFY;
//! the listening half is `postgres_timers::Listener`).
//!
//! A `NOTIFY` inside each committing transaction would be simplest, but
//! PostgreSQL serialises the commits of notifying transactions on one
//! lock: measured here, 16 clients updating rows fell from about 5,000 to
//! about 400 commits a second with a notifying trigger. So each store
//! collects the ids it committed and a thread of its own announces them
//! in batches, one short transaction per batch, right after the commits.
//! An announcement can be lost (the process dies between the commit and
//! the batch): listeners also check every waiter now and then.

use crate::postgres_tls::Connect;
use postgres::Client;
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::Duration;

/// The channel the announcements go to.
pub(crate) const CHANNEL: &str = "sense_instances";

/// The shortest time between two announcements of one store: what a
/// waiter in another process may wait longer for a change.
const ANNOUNCE_INTERVAL: Duration = Duration::from_millis(5);

/// Longest payload sent (PostgreSQL's limit is 8,000 bytes); ids are
/// separated by spaces (an id never holds one).
const MAX_PAYLOAD: usize = 7_900;

/// The ids committed and not announced yet.
#[derive(Default)]
pub(crate) struct Announcer {
    pending: Mutex<Vec<String>>,
    added: Condvar,
}

impl Announcer {
    /// An announcer with its thread, which ends when the announcer is
    /// dropped (with its store).
    pub(crate) fn start(connect: Connect) -> Arc<Announcer> {
        let announcer = Arc::new(Announcer::default());
        let weak = Arc::downgrade(&announcer);
        std::thread::Builder::new()
            .name("sense-store-announce".into())
            .spawn(move || run(&weak, &connect))
            .ok();
        announcer
    }

    /// Instance `id` committed a change.
    pub(crate) fn changed(&self, id: &str) {
        self.changed_all([id]);
    }

    /// These instances committed changes (a batch of commits: one wake-up
    /// of the announcing thread, so usually one announcement, for all).
    pub(crate) fn changed_all<'a>(&self, ids: impl IntoIterator<Item = &'a str>) {
        let mut p = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let before = p.len();
        p.extend(ids.into_iter().map(str::to_string));
        let added = p.len() > before;
        drop(p);
        if added {
            self.added.notify_one();
        }
    }

    /// Waits (a while) for ids, and takes them.
    fn take(&self) -> Vec<String> {
        let mut p = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if p.is_empty() {
            p = self
                .added
                .wait_timeout(p, Duration::from_secs(1))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        std::mem::take(&mut *p)
    }
}

fn run(announcer: &Weak<Announcer>, connect: &Connect) {
    let mut client: Option<Client> = None;
    loop {
        let Some(a) = announcer.upgrade() else {
            return;
        };
        let mut ids = a.take();
        drop(a);
        if ids.is_empty() {
            continue;
        }
        ids.sort_unstable();
        ids.dedup();
        let payloads = payloads(&ids);
        // One attempt with the open connection, one with a new one; a
        // batch that still fails is dropped (listeners' periodic check
        // covers it).
        for _ in 0..2 {
            let c = match client.take() {
                Some(c) if !c.is_closed() => c,
                _ => match connect() {
                    Ok(c) => c,
                    Err(_) => break,
                },
            };
            let mut c = c;
            let sent = c.execute(
                "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p",
                &[&CHANNEL, &payloads],
            );
            client = Some(c);
            if sent.is_ok() {
                break;
            }
            client = None;
        }
        // At most one announcement per interval: under load the ids of
        // many commits go out together (each announcement is a
        // transaction here and a wake-up of every listening process).
        std::thread::sleep(ANNOUNCE_INTERVAL);
    }
}

/// The ids joined by spaces into payloads of at most [`MAX_PAYLOAD`].
fn payloads(ids: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for id in ids {
        if !cur.is_empty() && cur.len() + 1 + id.len() > MAX_PAYLOAD {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(id);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::payloads;

    #[test]
    fn ids_are_packed_into_bounded_payloads() {
        let ids: Vec<String> = (0..1000).map(|i| format!("{i:032x}")).collect();
        let p = payloads(&ids);
        assert!(p.iter().all(|s| s.len() <= super::MAX_PAYLOAD));
        let back: Vec<&str> = p.iter().flat_map(|s| s.split(' ')).collect();
        assert_eq!(back.len(), 1000);
        assert_eq!(back.first().copied(), Some(ids[0].as_str()));
        assert!(payloads(&[]).is_empty());
    }
}
