//! State files of `sense start` / `sense resume`: one writer at a time,
//! private temporary files, permissions kept, nothing left behind.
//!
//! Guarantees, and how they are kept:
//! - **One writer per state file.** `sense resume` takes an exclusive
//!   advisory lock on the state file before it reads it and keeps it until
//!   the new state is in place, so two resumes of one file never both apply
//!   an answer to the same old state. A second writer does not wait: it
//!   fails at once with a clear message and changes nothing (like a stale
//!   version in `sense serve`): waiting would apply its answer to whatever
//!   question the agent asks *next*, which is not what the human answered.
//!   Because a commit replaces the file (a new inode), a locker re-checks
//!   after locking that the path still names the file it locked.
//! - **Private temporary files.** Each write goes to a temporary file of its
//!   own in the same directory; on Linux it is an anonymous `O_TMPFILE` that
//!   only gets a name (`.NAME.sense-tmp-…`) for the instant between its
//!   final `linkat` and the `rename` over the state, so `kill -9` almost
//!   never leaves a file behind. Elsewhere (or on a file system without
//!   `O_TMPFILE`) it is a `tempfile` with the same prefix.
//! - **Stale temporaries are removed.** A writer locks its temporary file
//!   for as long as it lives; the next write of the same state removes every
//!   `.NAME.sense-tmp-…` it can lock (its writer is dead).
//! - **Permissions.** A rewrite keeps the state file's permission bits; a new
//!   state file is created owner-only (0600): it holds every answer a human
//!   gave.
//! - **Only regular files.** Which paths may hold a state (no FIFOs or
//!   devices, symbolic links followed to their target) is
//!   `state_path.rs`; every open here goes through it and never blocks.
//! - **Durability.** The temporary file is synced before the rename and the
//!   directory after it.

use std::fs::{File, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why a state file could not be locked.
pub enum LockFailure {
    /// Another process holds the lock (a concurrent start or resume).
    InUse,
    /// The file does not exist.
    Missing,
    /// Any other I/O error.
    Io(io::Error),
}

/// An exclusive lock on a state file, held until dropped.
pub struct StateLock {
    file: File,
}

impl StateLock {
    /// Locks the file at `path` without waiting.
    pub fn acquire(path: &Path) -> Result<StateLock, LockFailure> {
        loop {
            let file = match super::state_path::open_regular(path) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(LockFailure::Missing),
                Err(e) => return Err(LockFailure::Io(e)),
            };
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Err(LockFailure::InUse),
                Err(TryLockError::Error(e)) => return Err(LockFailure::Io(e)),
            }
            // A writer that committed between our open and our lock has
            // replaced the file: the lock we hold is on the old one.
            if same_file(&file, path) {
                return Ok(StateLock { file });
            }
        }
    }

    /// The locked file's bytes, refused when there are more than `limit`.
    pub fn read(&self, limit: usize) -> io::Result<Vec<u8>> {
        super::state_path::read_bounded(&self.file, limit)
    }

    fn permissions(&self) -> io::Result<std::fs::Permissions> {
        Ok(self.file.metadata()?.permissions())
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    // Elsewhere a file that is open cannot be replaced by a rename, so the
    // path still names the locked file whenever it exists.
    path.exists()
}

/// Replaces the state at `path` with `bytes`. `held` is the caller's lock on
/// the current file (its permission bits are kept); without one, a new
/// file is created owner-only. Returns a lock on the new file, held from
/// before it had a name: a caller that keeps it keeps the state to itself.
pub fn commit(path: &Path, bytes: &[u8], held: Option<&StateLock>) -> io::Result<StateLock> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let prefix = temp_prefix(path)?;
    remove_stale_temporaries(&dir, &prefix);
    let permissions = match held {
        Some(lock) => Some(lock.permissions()?),
        None => owner_only(),
    };
    #[cfg(target_os = "linux")]
    if let Some(done) = anonymous::commit(path, &dir, &prefix, bytes, permissions.clone()) {
        return done;
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    if let Some(p) = owner_only() {
        builder.permissions(p);
    }
    let (file, temp_path) = builder.tempfile_in(&dir)?.into_parts();
    file.try_lock().map_err(io::Error::from)?;
    fill(&file, bytes, permissions)?;
    // Dropping `temp_path` removes the name if the rename failed.
    std::fs::rename(&temp_path, path)?;
    sync_directory(&dir);
    Ok(StateLock { file })
}

/// Writes the new state into the temporary and makes it durable.
fn fill(
    mut file: &File,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> io::Result<()> {
    file.write_all(bytes)?;
    if let Some(p) = permissions {
        file.set_permissions(p)?;
    }
    file.sync_all()
}

/// `.NAME.sense-tmp-`: hidden, and tied to one state file so that cleaning
/// up after one state never touches another's temporaries.
fn temp_prefix(path: &Path) -> io::Result<String> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "the state path names no file")
    })?;
    Ok(format!(".{}.sense-tmp-", name.to_string_lossy()))
}

#[cfg(unix)]
fn owner_only() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn owner_only() -> Option<std::fs::Permissions> {
    // No mode bits here: a new file gets its directory's access rules.
    None
}

/// Removes `prefix*` files in `dir` whose writer is gone (their lock is
/// free). Best effort: a file that cannot be examined is left alone.
fn remove_stale_temporaries(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(prefix) {
            continue;
        }
        let path = entry.path();
        // Never waits on a FIFO or device planted under such a name, and
        // leaves anything but a regular file alone.
        let Ok(file) = super::state_path::open_regular(&path) else {
            continue;
        };
        if file.try_lock().is_ok() && old_enough(&file) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// On Linux a temporary is locked before it has a name, so a free lock
/// always means a dead writer. A named `tempfile` exists for a moment
/// before its writer locks it, so there only old files count as stale.
fn old_enough(file: &File) -> bool {
    if cfg!(target_os = "linux") {
        return true;
    }
    file.metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age.as_secs() >= 60)
}

fn sync_directory(dir: &Path) {
    // Directories cannot be opened as files everywhere (Windows); where they
    // can, syncing makes the rename itself durable.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(target_os = "linux")]
mod anonymous {
    //! `O_TMPFILE` files: no name until the commit, so a killed writer
    //! leaves nothing behind.

    use rustix::fs::{AtFlags, CWD, Mode, OFlags};
    use std::fs::File;
    use std::io;
    use std::os::fd::AsRawFd;
    use std::path::Path;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// Writes `bytes` to an unnamed file in `dir` and renames it over
    /// `path`; `None` where the file system or kernel offers no
    /// `O_TMPFILE` (or `/proc` is missing), so the caller falls back.
    pub fn commit(
        path: &Path,
        dir: &Path,
        prefix: &str,
        bytes: &[u8],
        permissions: Option<std::fs::Permissions>,
    ) -> Option<io::Result<super::StateLock>> {
        let file = File::from(
            rustix::fs::open(
                dir,
                OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
                Mode::RUSR | Mode::WUSR,
            )
            .ok()?,
        );
        // Locked before it has a name: a free lock on a `prefix…` file
        // always means its writer is dead.
        if let Err(e) = file.try_lock() {
            return Some(Err(e.into()));
        }
        if let Err(e) = super::fill(&file, bytes, permissions) {
            return Some(Err(e));
        }
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let name = dir.join(format!(
            "{prefix}{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
        rustix::fs::linkat(CWD, &proc_path, CWD, &name, AtFlags::SYMLINK_FOLLOW).ok()?;
        if let Err(e) = std::fs::rename(&name, path) {
            let _ = std::fs::remove_file(&name);
            return Some(Err(e));
        }
        super::sync_directory(dir);
        Some(Ok(super::StateLock { file }))
    }
}
