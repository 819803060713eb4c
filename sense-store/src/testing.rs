//! Helpers for tests that need a real database (this crate's, and those
//! of programs built on it): a throw-away PostgreSQL database on a
//! server the caller names. (The workspace's tests find the server in
//! `SENSE_TEST_POSTGRES_URL` and report a test that needs one as ignored
//! when it is not set; that rule lives in its test kit.)

use crate::StoreError;
use postgres::{Client, NoTls};

/// A database created for one test on the server at a URL, dropped
/// (with any open connections) when this is dropped.
#[derive(Debug)]
pub struct TempDatabase {
    server_url: String,
    name: String,
    url: String,
}

impl TempDatabase {
    /// Creates a fresh, uniquely named database on the server `server_url`
    /// points at.
    pub fn create(server_url: &str) -> Result<TempDatabase, StoreError> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "sense_test_{}_{}_{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let mut admin = Client::connect(server_url, NoTls)?;
        admin.batch_execute(&format!("CREATE DATABASE {name}"))?;
        let url = with_database(server_url, &name);
        Ok(TempDatabase {
            server_url: server_url.to_string(),
            name,
            url,
        })
    }

    /// The URL of the new database.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for TempDatabase {
    fn drop(&mut self) {
        if let Ok(mut admin) = Client::connect(&self.server_url, NoTls) {
            let _ = admin.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// `url` with its database name replaced by `db` (query string kept).
fn with_database(url: &str, db: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host_part = match base[scheme_end..].find('/') {
        Some(i) => &base[..scheme_end + i],
        None => base,
    };
    match query {
        Some(q) => format!("{host_part}/{db}?{q}"),
        None => format!("{host_part}/{db}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn database_name_is_replaced() {
        assert_eq!(
            super::with_database("postgres://u@h:1/postgres", "x"),
            "postgres://u@h:1/x"
        );
        assert_eq!(
            super::with_database("postgres://u@h:1", "x"),
            "postgres://u@h:1/x"
        );
        assert_eq!(
            super::with_database("postgresql://u@h/db?sslmode=disable", "x"),
            "postgresql://u@h/x?sslmode=disable"
        );
    }
}
