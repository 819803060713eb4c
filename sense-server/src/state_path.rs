//! Which paths may hold a state, and how one is opened and read without
//! waiting or running out of memory.
//!
//! - **Regular files only.** A state path must name a regular file or
//!   nothing yet. A FIFO, a device, a directory or a socket is refused with
//!   a clear message before anything runs or is written: replacing
//!   `/dev/null` (as root) or waiting forever on a FIFO is never right.
//! - **Symbolic links are followed.** A link (or a chain of them) is
//!   resolved, and the state is written to its target in place, atomically
//!   (the temporary file is made beside the target and renamed over it), so
//!   the link stays a link and keeps pointing at the current state. The
//!   target's mode follows the rule of any state: a rewrite keeps it, a
//!   new file is owner-only.
//! - **Opened without blocking.** The file is opened `O_NONBLOCK` and
//!   `O_NOFOLLOW` and its type checked on the open descriptor, so a path
//!   swapped for a FIFO after the first check cannot make the command hang.
//! - **Bounded reads.** A state larger than the largest snapshot the
//!   runtime accepts is refused from its size, before it is read.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// How many links a chain may have before it is taken for a loop (the
/// kernel's own limit for path resolution).
const MAX_LINKS: usize = 40;

/// The path a state is read from and written to: `path` itself, or the
/// final target of the symbolic link(s) it names. Refuses a path that
/// exists and is not a regular file, naming what it is.
pub fn resolve(path: &Path) -> Result<PathBuf, String> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let meta = match std::fs::symlink_metadata(&current) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(format!("cannot examine {}: {e}", current.display())),
        };
        if !meta.file_type().is_symlink() {
            return match what_it_is(&meta.file_type()) {
                None => Ok(current),
                Some(what) => Err(not_regular(path, &current, what)),
            };
        }
        let target = std::fs::read_link(&current)
            .map_err(|e| format!("cannot read the link {}: {e}", current.display()))?;
        current = match current.parent() {
            Some(dir) => dir.join(target),
            None => target,
        };
    }
    Err(format!(
        "{} is a chain of more than {MAX_LINKS} symbolic links (a loop?); nothing was written",
        path.display()
    ))
}

fn not_regular(asked: &Path, resolved: &Path, what: &str) -> String {
    let through = if asked == resolved {
        String::new()
    } else {
        format!(" (through the link {})", asked.display())
    };
    format!(
        "{}{through} is {what}, not a regular file; a state must be a regular file or a new path \
         (nothing was written)",
        resolved.display()
    )
}

/// What a file type is, in words, when it is not a regular file.
fn what_it_is(t: &std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    if t.is_symlink() {
        return Some("a symbolic link");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// Opens an existing regular file for reading without waiting on it (a
/// FIFO or device is refused with `InvalidInput`, never blocked on) and
/// without following a final symbolic link (resolve it first).
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    match what_it_is(&meta.file_type()) {
        None => Ok(file),
        Some(what) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is {what}, not a regular file", path.display()),
        )),
    }
}

#[cfg(target_os = "linux")]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(File::from(fd))
}

#[cfg(not(target_os = "linux"))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    // Without a non-blocking open here, check the type first: only a file
    // swapped in between the two calls can still block.
    let meta = std::fs::symlink_metadata(path)?;
    if let Some(what) = what_it_is(&meta.file_type()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is {what}, not a regular file", path.display()),
        ));
    }
    File::open(path)
}

/// The whole of `file`, refused (`InvalidData`) without reading it when it
/// holds more than `limit` bytes; a file that grows while it is read is
/// cut at `limit + 1` bytes and refused too.
pub fn read_bounded(file: &File, limit: usize) -> io::Result<Vec<u8>> {
    let too_large = |size: u64| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "it holds {size} bytes, more than the largest snapshot this runtime accepts \
                 ({limit} bytes: twice the heap ceiling plus the source limit and a margin)"
            ),
        )
    };
    let size = file.metadata()?.len();
    if size > limit as u64 {
        return Err(too_large(size));
    }
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(size as usize)
        .map_err(io::Error::other)?;
    file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn devices_are_refused_without_being_opened_for_writing() {
        // /dev/null is only examined and opened read-only here.
        let err = resolve(Path::new("/dev/null")).unwrap_err();
        assert!(err.contains("is a character device"), "{err}");
        assert!(err.contains("nothing was written"), "{err}");
        let err = open_regular(Path::new("/dev/null")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn directories_are_refused_and_missing_paths_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let err = resolve(dir.path()).unwrap_err();
        assert!(err.contains("is a directory"), "{err}");
        let missing = dir.path().join("new.state");
        assert_eq!(resolve(&missing).unwrap(), missing);
    }

    #[test]
    fn links_resolve_to_their_final_target_and_loops_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.state");
        std::fs::write(&target, "x").unwrap();
        std::os::unix::fs::symlink("real.state", dir.path().join("a")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("b")).unwrap();
        assert_eq!(resolve(&dir.path().join("b")).unwrap(), target);
        std::os::unix::fs::symlink("loop2", dir.path().join("loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", dir.path().join("loop2")).unwrap();
        let err = resolve(&dir.path().join("loop1")).unwrap_err();
        assert!(err.contains("symbolic links"), "{err}");
    }

    #[test]
    fn reads_over_the_limit_are_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.state");
        let f = File::create(&path).unwrap();
        // Sparse: no disk space, and read_bounded must not read it.
        f.set_len(1 << 40).unwrap();
        let err = read_bounded(&open_regular(&path).unwrap(), 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("largest snapshot"), "{err}");
        std::fs::write(&path, "small").unwrap();
        assert_eq!(
            read_bounded(&open_regular(&path).unwrap(), 5).unwrap(),
            b"small"
        );
    }
}
