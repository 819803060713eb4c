//! A small connection pool: both engines' clients are blocking and not
//! `Sync`, so each thread borrows one connection for one transaction.
//! Connections that failed are dropped instead of being returned, and a
//! new one is opened on the next borrow (so a restarted database server is
//! picked up again).

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

/// Opens a new connection.
pub(crate) type Connect<C, E> = Box<dyn Fn() -> Result<C, E> + Send + Sync>;

/// At most `max` connections, opened on demand.
pub(crate) struct Pool<C, E> {
    idle: Mutex<(Vec<C>, usize)>,
    freed: Condvar,
    max: usize,
    connect: Connect<C, E>,
}

impl<C, E> Pool<C, E> {
    pub(crate) fn new(max: usize, connect: Connect<C, E>) -> Self {
        Pool {
            idle: Mutex::new((Vec::new(), 0)),
            freed: Condvar::new(),
            max: max.max(1),
            connect,
        }
    }

    /// Runs `f` with a connection. When `f` fails with an error for which
    /// `broken` says the connection is unusable, the connection is closed.
    pub(crate) fn with<T>(
        &self,
        broken: impl Fn(&C, &E) -> bool,
        f: impl FnOnce(&mut C) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut conn = self.take()?;
        let result = f(&mut conn);
        match &result {
            Err(e) if broken(&conn, e) => self.discard(),
            _ => self.give_back(conn),
        }
        result
    }

    fn take(&self) -> Result<C, E> {
        let mut g = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(c) = g.0.pop() {
                return Ok(c);
            }
            if g.1 < self.max {
                g.1 += 1;
                drop(g);
                return (self.connect)().inspect_err(|_| self.discard());
            }
            g = self
                .freed
                .wait_timeout(g, Duration::from_millis(200))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn give_back(&self, c: C) {
        let mut g = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        g.0.push(c);
        self.freed.notify_one();
    }

    fn discard(&self) {
        let mut g = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        g.1 = g.1.saturating_sub(1);
        self.freed.notify_one();
    }
}
