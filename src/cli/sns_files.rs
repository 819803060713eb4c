//! The files `sense fmt` and `sense test` work on: the path given, or the
//! wanted files under it when it is a directory, shown as the reference
//! shows paths.

use std::path::{Path, PathBuf};

/// How a command looks for its files under a directory.
pub(super) struct Search {
    /// Whether a file found under the directory is one of the command's.
    pub wanted: fn(&Path) -> bool,
    /// Whether symbolic links to directories are followed.
    pub follow_links: bool,
    /// The line printed for a directory that holds none, with `{}` for the
    /// directory.
    pub none_found: &'static str,
}

impl Search {
    /// `path` itself when it is a file, else the wanted files under it
    /// (tidied, in the order the directory walk met them). `Err` carries
    /// the exit status when there is nothing to do: 1 for a path that does
    /// not exist (said on stderr), 0 for a directory without wanted files
    /// (said on stdout).
    pub fn files(&self, path: &Path) -> Result<Vec<PathBuf>, i32> {
        if !path.exists() {
            eprintln!("SenseError: no such file or directory: {}", path.display());
            return Err(1);
        }
        if !path.is_dir() {
            return Ok(vec![tidy(path)]);
        }
        let mut found = Vec::new();
        self.walk(path, &mut found);
        if found.is_empty() {
            println!(
                "{}",
                self.none_found.replace("{}", &path.display().to_string())
            );
            return Err(0);
        }
        Ok(found.iter().map(|p| tidy(p)).collect())
    }

    fn walk(&self, dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let is_dir = if self.follow_links {
                p.is_dir()
            } else {
                e.file_type().is_ok_and(|t| t.is_dir())
            };
            if is_dir {
                self.walk(&p, out);
            } else if (self.wanted)(&p) {
                out.push(p);
            }
        }
    }
}

/// `path` without `.` components, as the reference prints paths
/// (`./a.sns` is shown as `a.sns`).
fn tidy(path: &Path) -> PathBuf {
    let tidy: PathBuf = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if tidy.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        tidy
    }
}
