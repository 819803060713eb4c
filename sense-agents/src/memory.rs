//! Persistent memory: an append-only log in an embedded SQLite database
//! (the book: models.md). Never UPDATE or DELETE — that one rule is what makes
//! `history()` and `as_of()` possible.
//!
//! The `Memory` kind ([`crate::kinds::memory`]) reaches a persistent
//! memory's storage only through the [`MemoryLog`] trait; this SQLite log
//! is its default store ([`open_sqlite`]; a host may choose another with
//! [`Runtime::set_memory_store`]). The seam's types are re-exported here.
//!
//! [`Runtime::set_memory_store`]: crate::Runtime::set_memory_store

pub use crate::kinds::memory::{
    HistoryRow, Json, MemoryLog, MemoryObj, MemoryOpener, default_path,
};
use rusqlite::{Connection, OptionalExtension, params};
use std::path::Path;

/// An open persistent-memory database.
#[derive(Debug)]
pub struct Db {
    conn: Connection,
}

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

fn db_error(e: rusqlite::Error) -> String {
    format!("persistent memory error: {e}")
}

impl Db {
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Db, String> {
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        if path != Path::new(":memory:") {
            create_owner_only(path)?;
        }
        let conn = Connection::open(path)
            .map_err(|e| format!("cannot open persistent memory {}: {e}", path.display()))?;
        let _ = conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()));
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS memory_log (
                version   INTEGER PRIMARY KEY AUTOINCREMENT,
                key       TEXT NOT NULL,
                op        TEXT NOT NULL,
                value     TEXT,
                timestamp REAL NOT NULL
            );
            -- Every read asks for a key's latest entry (or all of them):
            -- without this index each is a scan of the whole log, and
            -- `keys()` one scan per entry. Files made elsewhere gain it on
            -- first open; it changes no row.
            CREATE INDEX IF NOT EXISTS memory_log_key_version ON memory_log (key, version);",
        )
        .map_err(db_error)?;
        Ok(Db { conn })
    }

    /// Appends a `remember`.
    pub fn remember(&self, key: &str, value: &Json) -> Result<(), String> {
        self.conn
            .execute(
                "INSERT INTO memory_log (key, op, value, timestamp) VALUES (?1, 'remember', ?2, ?3)",
                params![key, value.to_string(), now()],
            )
            .map(|_| ())
            .map_err(db_error)
    }

    /// Appends a `forget`.
    pub fn forget(&self, key: &str) -> Result<(), String> {
        self.conn
            .execute(
                "INSERT INTO memory_log (key, op, value, timestamp) VALUES (?1, 'forget', NULL, ?2)",
                params![key, now()],
            )
            .map(|_| ())
            .map_err(db_error)
    }

    /// The current value of `key` (as of `version`, if given).
    pub fn recall(&self, key: &str, version: Option<i64>) -> Result<Option<Json>, String> {
        let row: Option<(String, Option<String>)> = match version {
            None => self
                .conn
                .query_row(
                    "SELECT op, value FROM memory_log WHERE key=?1 ORDER BY version DESC LIMIT 1",
                    params![key],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional(),
            Some(v) => self
                .conn
                .query_row(
                    "SELECT op, value FROM memory_log WHERE key=?1 AND version<=?2 ORDER BY version DESC LIMIT 1",
                    params![key, v],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional(),
        }
        .map_err(db_error)?;
        match row {
            Some((op, Some(text))) if op == "remember" => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| format!("persistent memory holds a value that is not JSON: {e}")),
            _ => Ok(None),
        }
    }

    /// Keys whose latest entry is a `remember`, oldest first.
    pub fn keys(&self) -> Result<Vec<String>, String> {
        // One pass over the (key, version) index: SQLite takes the bare
        // column `op` from the row holding MAX(version) of each group.
        let mut stmt = self
            .conn
            .prepare(
                "SELECT key FROM (SELECT key, op, MAX(version) AS latest FROM memory_log GROUP BY key)
                 WHERE op = 'remember' ORDER BY latest",
            )
            .map_err(db_error)?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(db_error)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(db_error)
    }

    /// Every entry for `key`: `(version, op, value, timestamp)`.
    pub fn history(&self, key: &str) -> Result<Vec<HistoryRow>, String> {
        let mut stmt = self
            .conn
            .prepare("SELECT version, op, value, timestamp FROM memory_log WHERE key=?1 ORDER BY version ASC")
            .map_err(db_error)?;
        let rows = stmt
            .query_map(params![key], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, f64>(3)?,
                ))
            })
            .map_err(db_error)?;
        let mut out = Vec::new();
        for row in rows {
            let (v, op, text, ts) = row.map_err(db_error)?;
            let value = text.and_then(|t| serde_json::from_str(&t).ok());
            out.push((v, op, value, ts));
        }
        Ok(out)
    }
}

/// Creates the database file owner-only (0600) when it does not exist yet:
/// it holds what agents remembered, as private as a state file. SQLite
/// gives the `-wal` and `-shm` files it makes beside it the database's
/// mode. An existing file keeps the mode its owner gave it.
fn create_owner_only(path: &Path) -> Result<(), String> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!(
            "cannot create persistent memory {}: {e}",
            path.display()
        )),
    }
}

/// Opens the SQLite log at `path`: the [`MemoryOpener`] a
/// [`Runtime`](crate::Runtime) uses unless the host sets another.
pub fn open_sqlite(path: &Path) -> Result<Box<dyn MemoryLog>, String> {
    Ok(Box::new(Db::open(path)?))
}

/// A [`MemoryOpener`] that ignores
/// the path and opens a fresh, empty SQLite database in memory: nothing is
/// written to disk, and nothing outlives the memory object. For hosts that
/// run untrusted programs or snapshots (the fuzzers) and for tests.
pub fn open_sqlite_in_memory(_path: &Path) -> Result<Box<dyn MemoryLog>, String> {
    Ok(Box::new(Db::open(Path::new(":memory:"))?))
}

impl MemoryLog for Db {
    fn remember(&self, key: &str, value: &Json) -> Result<(), String> {
        Db::remember(self, key, value)
    }

    fn forget(&self, key: &str) -> Result<(), String> {
        Db::forget(self, key)
    }

    fn recall(&self, key: &str, version: Option<i64>) -> Result<Option<Json>, String> {
        Db::recall(self, key, version)
    }

    fn keys(&self) -> Result<Vec<String>, String> {
        Db::keys(self)
    }

    fn history(&self, key: &str) -> Result<Vec<HistoryRow>, String> {
        Db::history(self, key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_semantics() {
        let dir = std::env::temp_dir().join(format!("sense-mem-test-{}", std::process::id()));
        let db = Db::open(&dir.join("m.db")).unwrap();
        db.remember("a", &Json::from(1)).unwrap();
        db.remember("b", &Json::from("x")).unwrap();
        db.remember("a", &Json::from(2)).unwrap();
        db.forget("b").unwrap();
        assert_eq!(db.recall("a", None).unwrap(), Some(Json::from(2)));
        assert_eq!(db.recall("a", Some(1)).unwrap(), Some(Json::from(1)));
        assert_eq!(db.recall("b", None).unwrap(), None);
        assert_eq!(db.keys().unwrap(), vec!["a".to_string()]);
        assert_eq!(db.history("a").unwrap().len(), 2);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[cfg(unix)]
    #[test]
    fn new_databases_and_their_wal_files_are_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("sense-mem-mode-{}", std::process::id()));
        let path = dir.join("m.db");
        let db = Db::open(&path).unwrap();
        db.remember("secret", &Json::from(1)).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        for suffix in ["-wal", "-shm"] {
            let side = dir.join(format!("m.db{suffix}"));
            if side.exists() {
                assert_eq!(mode(&side), 0o600, "{}", side.display());
            }
        }
        assert!(dir.join("m.db-wal").exists(), "the log is in WAL mode");
        drop(db);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn in_memory_opener_writes_no_file_and_starts_empty() {
        let dir = std::env::temp_dir().join(format!("sense-mem-none-{}", std::process::id()));
        let path = dir.join("sub").join("m.db");
        let log = open_sqlite_in_memory(&path).unwrap();
        log.remember("a", &Json::from(1)).unwrap();
        assert_eq!(log.recall("a", None).unwrap(), Some(Json::from(1)));
        assert!(!dir.exists(), "an in-memory log created {}", dir.display());
        let again = open_sqlite_in_memory(&path).unwrap();
        assert_eq!(
            again.keys().unwrap(),
            Vec::<String>::new(),
            "each open is fresh"
        );
    }

    /// Appends `n` entries over `n / 2` keys (every 7th a forget) in one
    /// transaction, and returns the keys `keys()` must give, oldest first.
    fn fill(db: &Db, n: usize) -> Vec<String> {
        let tx = db.conn.unchecked_transaction().unwrap();
        let mut latest: std::collections::HashMap<String, (usize, bool)> = Default::default();
        for i in 0..n {
            let key = format!("k{}", i % (n / 2));
            let remember = i % 7 != 3;
            let (op, value) = if remember {
                ("remember", Some(i.to_string()))
            } else {
                ("forget", None)
            };
            tx.execute(
                "INSERT INTO memory_log (key, op, value, timestamp) VALUES (?1, ?2, ?3, 0)",
                params![key, op, value],
            )
            .unwrap();
            latest.insert(key, (i, remember));
        }
        tx.commit().unwrap();
        let mut live: Vec<(usize, String)> = latest
            .into_iter()
            .filter(|(_, (_, remember))| *remember)
            .map(|(k, (i, _))| (i, k))
            .collect();
        live.sort();
        live.into_iter().map(|(_, k)| k).collect()
    }

    /// Issue 18 item 7: `keys()` was one scan per entry (17.8 s at 32,000).
    /// `SENSE_KEYS_BENCH=1` also times the old query, side by side.
    #[test]
    fn keys_over_32000_entries_is_fast_and_right() {
        let dir = std::env::temp_dir().join(format!("sense-mem-keys-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let bench = std::env::var_os("SENSE_KEYS_BENCH").is_some();
        let sizes: &[usize] = if bench {
            &[2_000, 8_000, 32_000]
        } else {
            &[32_000]
        };
        for &n in sizes {
            let db = Db::open(&dir.join(format!("m{n}.db"))).unwrap();
            let expected = fill(&db, n);
            let t = std::time::Instant::now();
            let keys = db.keys().unwrap();
            let took = t.elapsed();
            assert_eq!(keys, expected);
            eprintln!("keys() over {n} entries: {:.4} s", took.as_secs_f64());
            assert!(took.as_secs_f64() < 5.0, "keys() took {took:?}");
            if bench {
                // The old query, on a copy of the log without the index.
                db.conn
                    .execute_batch("DROP INDEX memory_log_key_version")
                    .unwrap();
                let t = std::time::Instant::now();
                let mut stmt = db
                    .conn
                    .prepare(
                        "SELECT key FROM memory_log m1 WHERE op = 'remember'
                         AND version = (SELECT MAX(version) FROM memory_log m2 WHERE m2.key = m1.key)
                         ORDER BY version",
                    )
                    .unwrap();
                let old: Vec<String> = stmt
                    .query_map([], |r| r.get(0))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                eprintln!(
                    "old query over {n} entries: {:.4} s",
                    t.elapsed().as_secs_f64()
                );
                assert_eq!(old, expected);
            }
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
