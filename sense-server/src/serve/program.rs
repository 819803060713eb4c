//! The program a service runs: read once at startup, hashed so that
//! instances started from another version of it can be told apart, and
//! fresh or restored runtimes whose output is captured per run.

use sense_agents::Runtime;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// Most output kept per instance; older output is dropped (with a marker).
pub const OUTPUT_LIMIT: usize = 64 * 1024;

/// The program file as the service loaded it.
pub struct Program {
    /// The path as given (used as the file name in diagnostics).
    pub name: String,
    /// The path as given: the program's imports resolve against its
    /// directory, as under `sense run` (the service never changes its
    /// working directory, so a relative path keeps its meaning).
    pub path: PathBuf,
    /// Its source text.
    pub source: String,
    /// The first 16 hex digits of the source's SHA-256.
    pub hash: String,
    /// Limits for every run.
    pub config: sense_agents::Config,
}

impl Program {
    /// Reads and parses `path` (a syntax error is reported at startup,
    /// not at the first request).
    pub fn load(path: &Path, config: sense_agents::Config) -> Result<Program, String> {
        let source = std::fs::read_to_string(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!("no such file or directory: {}", path.display())
            } else {
                format!("cannot read {}: {e}", path.display())
            }
        })?;
        let name = path.display().to_string();
        let file = sense_syntax::SourceFile::new(name.clone(), source.clone());
        if let Err(e) = sense_syntax::parse_file(&file) {
            return Err(format!("{}: {e}", path.display()));
        }
        let digest = Sha256::digest(source.as_bytes());
        let hash = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        Ok(Program {
            name,
            path: path.to_path_buf(),
            source,
            hash,
            config,
        })
    }

    /// Runs the program's top level in `rt`: its text as read at startup,
    /// its imports resolved against its directory.
    pub fn run_top_level(&self, rt: &mut Runtime) -> Result<(), sense_agents::Error> {
        rt.run_file_text(&self.path, &self.source)
    }

    /// A runtime with this program's limits whose output goes to `out`,
    /// whose `ask_human` outside agents reads end of input, and which knows
    /// the `sense` command's model providers and MCP client (registered
    /// before any restore, so instances paused between model calls resume).
    pub fn runtime(&self, out: &Captured) -> Runtime {
        self.runtime_for_step(out, None)
    }

    /// [`Program::runtime`] for a run of a durable step: its model calls
    /// send `Idempotency-Key` headers made from `step` (see
    /// `sense_providers::register_for_step`).
    pub fn runtime_for_step(&self, out: &Captured, step: Option<&str>) -> Runtime {
        let mut rt = Runtime::with_config(self.config.clone());
        Program::bind(&mut rt, out, step);
        rt
    }

    /// Points `rt` (fresh, or kept from an earlier step of its instance)
    /// at `out` and at `step`: its providers are registered again, so
    /// that the model calls of this step carry this step's keys.
    pub fn bind(rt: &mut Runtime, out: &Captured, step: Option<&str>) {
        match step {
            Some(step) => sense_providers::register_for_step(rt, step),
            None => sense_providers::register_defaults(rt),
        }
        let sink = out.clone();
        rt.set_output(move |s| sink.push(s));
        rt.set_input(|| None);
    }
}

/// Output captured during one run.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<String>>);

impl Captured {
    fn push(&self, s: &str) {
        let mut g = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // One run may print at most the limit; the rest is dropped here so
        // a chatty loop cannot grow memory without bound.
        if g.len() < OUTPUT_LIMIT {
            g.push_str(s);
        }
    }

    /// The text so far.
    pub fn take(&self) -> String {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// `earlier` followed by `more`, keeping the last [`OUTPUT_LIMIT`] bytes.
pub fn append_output(earlier: &str, more: &str) -> String {
    let mut s = String::with_capacity(earlier.len() + more.len());
    s.push_str(earlier);
    s.push_str(more);
    if s.len() > OUTPUT_LIMIT {
        let mut cut = s.len() - OUTPUT_LIMIT + 64;
        while !s.is_char_boundary(cut) {
            cut += 1;
        }
        s = format!("[earlier output dropped]\n{}", &s[cut..]);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_bounded() {
        let big = "é".repeat(OUTPUT_LIMIT);
        let s = append_output(&big, "end\n");
        assert!(s.len() <= OUTPUT_LIMIT);
        assert!(s.starts_with("[earlier output dropped]\n"));
        assert!(s.ends_with("end\n"));
        assert_eq!(append_output("a\n", "b\n"), "a\nb\n");
    }
}
