//! The persistent-memory seam (`sense_agents::memory::MemoryLog`): a host may keep
//! `persistent memory` logs in a store of its own instead of SQLite, and
//! the language core talks only to that store. ARCHITECTURE.md shows this
//! file as the worked example of a seam.
// Test code may unwrap, panic and index (the workspace's restriction
// lints forbid it in library code).
#![allow(clippy::restriction)]

use sense_agents::memory::{HistoryRow, Json, MemoryLog};
use sense_agents::{Config, Runtime};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// An append-only log in memory: `(path, key, value or None for a forget)`.
/// A `MemoryOpener` is a plain `fn`, so the entries live in a static and
/// each log filters them by the path it was opened with.
static ENTRIES: Mutex<Vec<(String, String, Option<Json>)>> = Mutex::new(Vec::new());

#[derive(Debug)]
struct InMemoryLog {
    path: String,
}

impl InMemoryLog {
    fn mine(&self) -> Vec<(String, Option<Json>)> {
        ENTRIES
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _, _)| *p == self.path)
            .map(|(_, k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn append(&self, key: &str, value: Option<Json>) {
        ENTRIES
            .lock()
            .unwrap()
            .push((self.path.clone(), key.to_string(), value));
    }
}

impl MemoryLog for InMemoryLog {
    fn remember(&self, key: &str, value: &Json) -> Result<(), String> {
        self.append(key, Some(value.clone()));
        Ok(())
    }

    fn forget(&self, key: &str) -> Result<(), String> {
        self.append(key, None);
        Ok(())
    }

    fn recall(&self, key: &str, version: Option<i64>) -> Result<Option<Json>, String> {
        let upto = version.map_or(usize::MAX, |v| v.max(0) as usize);
        let entries = self.mine();
        let seen = entries.get(..upto.min(entries.len())).unwrap_or_default();
        Ok(seen
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.clone()))
    }

    fn keys(&self) -> Result<Vec<String>, String> {
        let mut live: Vec<String> = Vec::new();
        for (k, v) in self.mine() {
            live.retain(|x| *x != k);
            if v.is_some() {
                live.push(k);
            }
        }
        Ok(live)
    }

    fn history(&self, key: &str) -> Result<Vec<HistoryRow>, String> {
        Ok(self
            .mine()
            .into_iter()
            .enumerate()
            .filter(|(_, (k, _))| k == key)
            .map(|(i, (_, v))| {
                let op = if v.is_some() { "remember" } else { "forget" };
                (i as i64 + 1, op.to_string(), v, 0.0)
            })
            .collect())
    }
}

fn open_in_memory(path: &Path) -> Result<Box<dyn MemoryLog>, String> {
    Ok(Box::new(InMemoryLog {
        path: path.display().to_string(),
    }))
}

#[test]
fn a_host_store_replaces_sqlite() {
    let dir = std::env::temp_dir().join(format!("sense-memory-store-{}", std::process::id()));
    let path = dir.join("notes.db");
    let mut rt = Runtime::with_config(Config::default());
    rt.set_memory_store(open_in_memory);
    let out = Arc::new(Mutex::new(String::new()));
    let sink = out.clone();
    rt.set_output(move |s| sink.lock().unwrap().push_str(s));
    let program = format!(
        "persistent memory notes: {:?}\n\
         notes.remember(\"a\", 1)\n\
         notes.remember(\"b\", [2, \"x\"])\n\
         notes.remember(\"a\", 3)\n\
         notes.forget(\"b\")\n\
         print(notes.recall(\"a\"), notes.recall(\"b\"), notes.keys())\n",
        path.display().to_string()
    );
    rt.run_source("notes.sns", &program).unwrap();
    assert_eq!(out.lock().unwrap().as_str(), "3 nil [a]\n");
    // Everything went to the host's store, and no SQLite file was made.
    let ours: Vec<_> = ENTRIES
        .lock()
        .unwrap()
        .iter()
        .filter(|(p, _, _)| *p == path.display().to_string())
        .map(|(_, k, v)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(ours.len(), 4, "{ours:?}");
    assert!(!path.exists(), "the SQLite log must not be used");
}

/// Memories are a kind of this crate: the language core alone refuses a
/// `memory` declaration with a message that says so.
#[test]
fn a_bare_core_vm_refuses_memory_declarations() {
    for text in ["memory notes\n", "persistent memory notes: \"n.db\"\n"] {
        let mut vm = sense_eval::Vm::new(sense_eval::Config::default());
        let src = sense_syntax::SourceFile::new("p.sns", text);
        let err = vm.run_main(src, None, None).unwrap_err();
        assert!(
            err.display()
                .contains("'memory' declarations are not available in this runtime"),
            "{}",
            err.display()
        );
    }
}

/// What the fuzzers rely on (`fuzz/src/lib.rs`): with
/// `memory::open_sqlite_in_memory` as the store, neither a program nor a
/// snapshot restored from bytes creates a file at the path a memory
/// names, and a restored memory opens again (fresh and empty).
#[test]
fn the_in_memory_sqlite_store_writes_no_file_even_after_a_restore() {
    let dir = std::env::temp_dir().join(format!("sense-memory-none-{}", std::process::id()));
    let path = dir.join("deep").join("notes.db");
    let runtime = || {
        let mut rt = Runtime::with_config(Config::default());
        rt.set_memory_store(sense_agents::memory::open_sqlite_in_memory);
        rt
    };
    let out = Arc::new(Mutex::new(String::new()));
    let mut rt = runtime();
    let sink = out.clone();
    rt.set_output(move |s| sink.lock().unwrap().push_str(s));
    let program = format!(
        "persistent memory notes: {:?}\n\
         agent a:\n    pause(\"wait\")\n    notes.remember(\"k\", 2)\n    print(notes.recall(\"k\"), notes.keys())\n\
         notes.remember(\"k\", 1)\n\
         print(notes.recall(\"k\"))\n",
        path.display().to_string()
    );
    rt.run_source("notes.sns", &program).unwrap();
    let a = rt.agent("a").unwrap();
    rt.start(a).unwrap();
    let bytes = rt.snapshot().unwrap();

    let mut back = runtime();
    let sink = out.clone();
    back.set_output(move |s| sink.lock().unwrap().push_str(s));
    back.restore_snapshot(&bytes).unwrap();
    let a = back.agent("a").unwrap();
    back.resume(a, sense_agents::HostValue::Nil).unwrap();
    assert_eq!(out.lock().unwrap().as_str(), "1\n2 [k]\n");
    assert!(!dir.exists(), "{} was created", dir.display());
}
