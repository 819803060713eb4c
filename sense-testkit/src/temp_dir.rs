//! Temporary directories that tests make and remove.

use std::path::PathBuf;

/// A directory removed when dropped.
pub struct TempDir(
    /// Its path.
    pub PathBuf,
);

impl TempDir {
    /// A fresh directory under the system's temporary directory, named
    /// after `test`.
    pub fn new(test: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "sense-{test}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// Writes `text` to the file `name` in it; the file's path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
