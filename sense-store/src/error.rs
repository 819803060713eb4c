//! The store's error type.

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store URL is malformed or names an unknown engine.
    #[error("bad store URL {0}")]
    Url(String),
    /// An instance with this id already exists.
    #[error("an instance with id {0} already exists")]
    Duplicate(String),
    /// SQLite reported an error.
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL reported an error (or the connection failed).
    #[error("PostgreSQL: {}", with_causes(.0))]
    Postgres(#[from] postgres::Error),
    /// The connection to the database closed.
    #[error("the connection to the database closed: {0}")]
    Disconnected(String),
    /// A stored row does not hold what the schema promises.
    #[error("corrupt store row: {0}")]
    Corrupt(String),
    /// The database was written by a newer version of this crate.
    #[error("the store's schema is version {found}, newer than this program knows ({known})")]
    NewerSchema {
        /// The schema version found in the database.
        found: i64,
        /// The newest version this crate has migrations for.
        known: i64,
    },
}

impl StoreError {
    /// The outcome of a batch of creations that stopped at the first id
    /// already `taken` (`None`: it stored them all).
    pub(crate) fn unless_taken(taken: Option<String>) -> Result<(), StoreError> {
        match taken {
            Some(id) => Err(StoreError::Duplicate(id)),
            None => Ok(()),
        }
    }
}

/// An error with its causes (the `postgres` client's own text is only
/// the kind: "db error", "error performing TLS handshake").
fn with_causes(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}
