//! The seam for persistent memories (AGENTS.md §6): the language core
//! keeps `memory` objects and their in-process entries, and reaches a
//! `persistent memory`'s append-only log only through [`MemoryLog`]. The
//! storage itself (SQLite, in `sense-agents`) is registered by the host
//! as [`Config::memory_store`](crate::Config::memory_store), so this crate
//! needs no database library. Without one, declaring a persistent memory
//! is a runtime error that says so.

use std::path::{Path, PathBuf};

/// A stored value, as JSON.
pub type Json = serde_json::Value;

/// One entry of a key's history: version, operation, value, timestamp.
pub type HistoryRow = (i64, String, Option<Json>, f64);

/// An open persistent-memory log: appends and reads, never updates.
pub trait MemoryLog: Send + std::fmt::Debug {
    /// Appends a `remember` of `value` under `key`.
    fn remember(&self, key: &str, value: &Json) -> Result<(), String>;
    /// Appends a `forget` of `key`.
    fn forget(&self, key: &str) -> Result<(), String>;
    /// The current value of `key` (as of `version`, if given).
    fn recall(&self, key: &str, version: Option<i64>) -> Result<Option<Json>, String>;
    /// Keys whose latest entry is a `remember`, oldest first.
    fn keys(&self) -> Result<Vec<String>, String>;
    /// Every entry for `key`, oldest first.
    fn history(&self, key: &str) -> Result<Vec<HistoryRow>, String>;
}

/// Opens (creating if needed) the log at a path.
pub type MemoryOpener = fn(&Path) -> Result<Box<dyn MemoryLog>, String>;

/// Opens the log at `path` with the registered store, or says that none is.
pub(crate) fn open(store: Option<MemoryOpener>, path: &Path) -> Result<Box<dyn MemoryLog>, String> {
    match store {
        Some(open) => open(path),
        None => Err(
            "persistent memory is not available: this host registered no memory store".to_string(),
        ),
    }
}

/// Where a `persistent memory NAME` without an explicit path is stored:
/// `dir/NAME.sense_memory.db` when a memory directory is configured (the
/// host's setting or `SENSE_MEMORY_DIR`), else `.sense_memory/` beside the
/// declaring file, else the working directory.
pub fn default_path(name: &str, memory_dir: Option<&Path>, file_dir: Option<&Path>) -> PathBuf {
    let file = format!("{name}.sense_memory.db");
    if let Some(dir) = memory_dir {
        return dir.join(file);
    }
    if let Some(dir) = std::env::var_os("SENSE_MEMORY_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join(file);
    }
    if let Some(dir) = file_dir {
        return dir.join(".sense_memory").join(file);
    }
    PathBuf::from(file)
}

/// `time.ctime()` of a Unix timestamp, in UTC: `Mon Nov 30 03:44:42 2026`.
pub fn ctime(ts: f64) -> String {
    let secs = ts.floor() as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let weekday = (days + 4).rem_euclid(7); // 1970-01-01 was a Thursday
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS.get(weekday as usize).unwrap_or(&"?"),
        MONTHS.get((month - 1) as usize).unwrap_or(&"?"),
        d,
        h,
        m,
        s,
        year
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctime_formats_like_python() {
        assert_eq!(ctime(0.0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime(1_796_010_282.0), "Mon Nov 30 03:44:42 2026");
    }

    #[test]
    fn no_store_is_a_clear_error() {
        let err = open(None, Path::new("m.db")).unwrap_err();
        assert!(err.contains("no memory store"), "{err}");
    }
}
