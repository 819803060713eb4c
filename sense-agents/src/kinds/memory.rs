//! The `Memory` kind (the book: models.md): `memory NAME` (an in-process map)
//! and `persistent memory NAME` (an append-only log), their members and
//! methods (`remember`, `recall`, `forget`, `keys`, `history`, `as_of`),
//! the `memory` declaration, and the [`MemoryLog`] seam through which a
//! persistent memory reaches its storage (SQLite by default, see
//! [`crate::memory`]; a host may register its own with
//! [`Runtime::set_memory_store`](crate::Runtime::set_memory_store)).

use sense_eval::heap::{ObjRef, ScopeRef};
use sense_eval::kind::{self, ExtObject, ObjectKind, Render};
use sense_eval::proto::{DeclInfo, FileId};
use sense_eval::{EvalError, EvalResult, HostValue, Value, Vm};
use std::path::{Path, PathBuf};

mod entries;
pub use entries::Entries;

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

/// The store a VM's persistent memories open their logs with (kept as
/// host-layer state on the VM, so it survives a restore).
#[derive(Clone, Copy)]
pub(crate) struct MemoryStore(pub(crate) MemoryOpener);

/// Opens the log at `path` with the VM's store, or says that none is.
fn open(vm: &Vm, path: &Path) -> EvalResult<Box<dyn MemoryLog>> {
    match vm.ext_state_ref::<MemoryStore>() {
        Some(store) => (store.0)(path).map_err(EvalError::runtime),
        None => Err(EvalError::runtime(
            "persistent memory is not available: this host registered no memory store",
        )),
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

/// A `memory` (in-process map) or `persistent memory` (a log behind the
/// [`MemoryLog`] seam).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct MemoryObj {
    /// Its name.
    pub name: String,
    /// The optional kind string of an in-process memory.
    pub kind: Option<String>,
    /// In-process entries, in insertion order, indexed by key.
    pub entries: Entries,
    /// Persistent memories: the database path.
    pub path: Option<String>,
    /// Persistent memories: the open database; not part of a snapshot
    /// (after a restore it reopens on first use).
    #[serde(skip)]
    pub db: Option<Box<dyn MemoryLog>>,
}

/// The kind's behaviour.
pub struct MemoryKind;

/// The registered instance.
pub static MEMORY: MemoryKind = MemoryKind;

crate::kinds::declaration!(
    /// The `memory` declaration.
    MemoryDecl => MEMORY_DECL, "memory", declare_memory
);

super::ext_object! {
    MemoryObj => MEMORY, "a memory", trace: |d, t| {
        for (_, v) in d.entries.iter() {
            t.value(*v);
        }
    };
    fn heap_bytes(&self) -> usize {
        self.entries.heap_bytes()
    }
}

impl ObjectKind for MemoryKind {
    super::kind_names!(name: "memory", type_name: "Memory");

    fn host_class(&self, vm: &Vm, obj: ObjRef) -> &'static str {
        match vm.ext_ref::<MemoryObj>(obj) {
            Some(m) if m.path.is_some() => "SensePersistentMemory",
            _ => "SenseMemory",
        }
    }

    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        let m = MemoryObj::of(vm, obj)?;
        match &m.path {
            Some(path) => out.push_str(&format!("<memory {} (persistent, {path})>", m.name)),
            None => out.push_str(&format!(
                "<memory {} ({} entries)>",
                m.name,
                m.entries.len()
            )),
        }
        Ok(())
    }

    fn object_name(&self, vm: &Vm, obj: ObjRef) -> String {
        vm.ext_ref::<MemoryObj>(obj)
            .map_or_else(String::new, |m| m.name.clone())
    }

    fn member(&self, vm: &mut Vm, obj: ObjRef, name: &str, line: u32) -> EvalResult<Value> {
        let m = MemoryObj::of(vm, obj)?;
        let (mem_name, kind, path) = (m.name.clone(), m.kind.clone(), m.path.clone());
        let persistent = path.is_some();
        let method = match name {
            "remember" | "recall" | "forget" | "keys" => true,
            "history" | "as_of" => persistent,
            _ => false,
        };
        if method {
            return Ok(vm.bind_method(obj, name, line));
        }
        match (name, persistent) {
            ("name", _) => vm.new_str(mem_name),
            ("kind", false) => match kind {
                Some(k) => vm.new_str(k),
                None => Ok(Value::Nil),
            },
            ("path", true) => vm.new_str(path.unwrap_or_default()),
            _ => Err(EvalError::runtime(format!(
                "memory '{mem_name}' has no member '{name}'"
            ))),
        }
    }

    fn method_arity(&self, method: &str) -> usize {
        match method {
            "recall" | "forget" | "history" => 1,
            "remember" | "as_of" => 2,
            _ => 0,
        }
    }

    fn call_method(
        &self,
        vm: &mut Vm,
        obj: ObjRef,
        method: &str,
        args: &[Value],
        _env: ScopeRef,
        _line: u32,
    ) -> EvalResult<Value> {
        call(vm, obj, method, args)
    }

    fn decode(&self, bytes: &[u8]) -> Result<Box<dyn ExtObject>, String> {
        let mut m = kind::from_bytes::<MemoryObj>(bytes)?;
        m.entries.reindex();
        Ok(Box::new(m))
    }
}

/// `memory NAME` / `persistent memory NAME`.
fn declare_memory(vm: &mut Vm, info: &DeclInfo, _value: Value, file: FileId) -> EvalResult<()> {
    let name = vm.interner().name(info.name).to_string();
    let mem = if info.flag {
        let path = match &info.text {
            Some(p) => PathBuf::from(p),
            None => {
                let dir = vm.file_dir(file).map(Path::to_path_buf);
                default_path(&name, vm.config().memory_dir.as_deref(), dir.as_deref())
            }
        };
        let db = open(vm, &path)?;
        MemoryObj {
            name,
            kind: None,
            entries: Entries::default(),
            path: Some(path.display().to_string()),
            db: Some(db),
        }
    } else {
        MemoryObj {
            name,
            kind: info.text.clone(),
            entries: Entries::default(),
            path: None,
            db: None,
        }
    };
    let v = vm.alloc_ext(mem);
    vm.define_here(info.name, v);
    Ok(())
}

/// The entries of memory `v` (key and value, in order), or `None` when
/// `v` is not a memory.
pub fn items(vm: &mut Vm, v: Value) -> EvalResult<Option<Vec<(String, Value)>>> {
    let r = match v {
        Value::Obj(r) if vm.ext_ref::<MemoryObj>(r).is_some() => r,
        _ => return Ok(None),
    };
    let mut items = Vec::new();
    for key in keys(vm, r)? {
        let v = recall(vm, r, &key)?;
        items.push((key, v));
    }
    Ok(Some(items))
}

/// A memory's entries for the host, in order: an in-process memory's map,
/// or the current value of every key of a persistent memory's log (the
/// database is opened if it is not yet).
pub fn host_entries(vm: &mut Vm, r: ObjRef) -> EvalResult<Vec<(String, HostValue)>> {
    memory(vm, r)?;
    let m = MemoryObj::of(vm, r)?;
    let Some(db) = &m.db else {
        // One budget for all entries, as for an agents report.
        let values: Vec<Value> = m.entries.iter().map(|(_, v)| *v).collect();
        let hosts = vm.to_host_all(&values);
        return Ok(m
            .entries
            .iter()
            .map(|(k, _)| k.clone())
            .zip(hosts)
            .collect());
    };
    let mut out = Vec::new();
    for key in db.keys().map_err(EvalError::runtime)? {
        let value = db.recall(&key, None).map_err(EvalError::runtime)?;
        out.push((key, value.map_or(HostValue::Nil, json_to_host)));
    }
    Ok(out)
}

/// The memory behind `r`; a persistent memory's database is (re)opened
/// on first use — after a restore, it opens here, not while decoding.
fn memory(vm: &mut Vm, r: ObjRef) -> EvalResult<&MemoryObj> {
    let reopen = match vm.ext_ref::<MemoryObj>(r) {
        Some(m) if m.db.is_none() => m.path.clone(),
        Some(_) => None,
        None => return Err(EvalError::runtime("not a memory")),
    };
    if let Some(path) = reopen {
        let db = open(vm, Path::new(&path))?;
        if let Some(m) = vm.ext_mut::<MemoryObj>(r) {
            m.db = Some(db);
        }
    }
    MemoryObj::of(vm, r)
}

fn keys(vm: &mut Vm, r: ObjRef) -> EvalResult<Vec<String>> {
    let m = memory(vm, r)?;
    match &m.db {
        Some(db) => db.keys().map_err(EvalError::runtime),
        None => Ok(m.entries.iter().map(|(k, _)| k.clone()).collect()),
    }
}

fn recall(vm: &mut Vm, r: ObjRef, key: &str) -> EvalResult<Value> {
    let m = memory(vm, r)?;
    match &m.db {
        Some(db) => match db.recall(key, None).map_err(EvalError::runtime)? {
            Some(j) => value_from_json(vm, &j),
            None => Ok(Value::Nil),
        },
        None => Ok(m.entries.get(key).unwrap_or(Value::Nil)),
    }
}

/// Runs method `method` of memory `r`.
fn call(vm: &mut Vm, r: ObjRef, method: &str, args: &[Value]) -> EvalResult<Value> {
    let arg = |i: usize| args.get(i).copied().unwrap_or(Value::Nil);
    let key = |vm: &Vm, v: Value| -> EvalResult<String> {
        vm.str_of(v).map(str::to_string).ok_or_else(|| {
            EvalError::runtime(format!(
                "memory key must be a String, got {}",
                vm.type_name(v)
            ))
        })
    };
    match method {
        "remember" => {
            let k = key(vm, arg(0))?;
            let persistent = memory(vm, r)?.path.is_some();
            if persistent {
                // Arrays that share sub-arrays would expand to 2^depth
                // JSON values: bound the work (issue 8). A JSON value
                // takes at least 16 bytes in memory, so this also keeps
                // the tree within the string cap's memory.
                let limit = (vm.config().max_string_len / 16).max(1024);
                let json = to_json(vm, arg(1), 0, &mut (limit, limit))?;
                memory(vm, r)?
                    .db
                    .as_ref()
                    .map_or(Ok(()), |db| db.remember(&k, &json))
                    .map_err(EvalError::runtime)?;
            } else if let Some(m) = vm.ext_mut::<MemoryObj>(r) {
                m.entries.set(k, arg(1));
            }
            Ok(Value::Nil)
        }
        "recall" => {
            let k = key(vm, arg(0))?;
            recall(vm, r, &k)
        }
        "forget" => {
            let k = key(vm, arg(0))?;
            if let Some(db) = &memory(vm, r)?.db {
                db.forget(&k).map_err(EvalError::runtime)?;
            } else if let Some(m) = vm.ext_mut::<MemoryObj>(r) {
                m.entries.remove(&k);
            }
            Ok(Value::Nil)
        }
        "keys" => {
            let keys = keys(vm, r)?;
            let mut items = Vec::with_capacity(keys.len());
            for k in keys {
                items.push(vm.new_str(k)?);
            }
            vm.new_array(items)
        }
        "history" => {
            let k = key(vm, arg(0))?;
            let rows = match &memory(vm, r)?.db {
                Some(db) => db.history(&k).map_err(EvalError::runtime)?,
                None => Vec::new(),
            };
            let mut items = Vec::with_capacity(rows.len());
            for (version, op, value, ts) in rows {
                let line = if op == "remember" {
                    let v = match value {
                        Some(j) => value_from_json(vm, &j)?,
                        None => Value::Nil,
                    };
                    format!(
                        "[v{version}] remember '{k}' = {} ({})",
                        vm.show(v)?,
                        ctime(ts)
                    )
                } else {
                    format!("[v{version}] forget '{k}' ({})", ctime(ts))
                };
                items.push(vm.new_str(line)?);
            }
            vm.new_array(items)
        }
        "as_of" => {
            let k = key(vm, arg(0))?;
            let Value::Int(version) = arg(1) else {
                return Err(EvalError::runtime(format!(
                    "as_of() expects an Int version, got {}",
                    vm.type_name(arg(1))
                )));
            };
            let found = match &memory(vm, r)?.db {
                Some(db) => db.recall(&k, Some(version)).map_err(EvalError::runtime)?,
                None => None,
            };
            match found {
                Some(j) => value_from_json(vm, &j),
                None => Ok(Value::Nil),
            }
        }
        _ => Err(EvalError::runtime("not a memory method")),
    }
}

/// The JSON form of `v`. `budget` is (how many more values it may hold,
/// the limit it started from): an error once it runs out.
fn to_json(vm: &Vm, v: Value, depth: usize, budget: &mut (usize, usize)) -> EvalResult<Json> {
    let bad = |t: &str| {
        EvalError::runtime(format!(
            "persistent memory can only store JSON-serializable values (Int/Float/String/Bool/Nil/Array of those): \
             TypeError: Object of type {t} is not JSON serializable"
        ))
    };
    if depth > 200 {
        return Err(EvalError::runtime(sense_eval::error::RECURSION_MESSAGE).lineless());
    }
    let Some(left) = budget.0.checked_sub(1) else {
        return Err(EvalError::runtime(format!(
            "persistent memory value too large (more than {} values)",
            budget.1
        )));
    };
    budget.0 = left;
    Ok(match v {
        Value::Nil => Json::Null,
        Value::Bool(b) => Json::Bool(b),
        Value::Int(i) => Json::from(i),
        Value::Float(f) => serde_json::Number::from_f64(f)
            .map(Json::Number)
            .ok_or_else(|| bad("Float"))?,
        Value::Str(_) => Json::String(vm.str_of(v).unwrap_or("").to_string()),
        Value::Array(_) => {
            let items = vm.array_of(v).cloned().unwrap_or_default();
            Json::Array(
                items
                    .iter()
                    .map(|x| to_json(vm, *x, depth + 1, budget))
                    .collect::<EvalResult<_>>()?,
            )
        }
        _ => return Err(bad(vm.host_class(v))),
    })
}

fn value_from_json(vm: &mut Vm, j: &Json) -> EvalResult<Value> {
    Ok(match j {
        Json::Null => Value::Nil,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => vm.new_str(s.as_str())?,
        Json::Array(items) => {
            let mut vals = Vec::with_capacity(items.len());
            for it in items {
                vals.push(value_from_json(vm, it)?);
            }
            vm.new_array(vals)?
        }
        Json::Object(_) => vm.new_str(j.to_string())?,
    })
}

fn json_to_host(j: Json) -> HostValue {
    match j {
        Json::Null => HostValue::Nil,
        Json::Bool(b) => HostValue::Bool(b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => HostValue::Int(i),
            None => HostValue::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => HostValue::Str(s),
        Json::Array(items) => HostValue::List(items.into_iter().map(json_to_host).collect()),
        Json::Object(_) => HostValue::Str(j.to_string()),
    }
}

/// `time.ctime()` of a Unix timestamp (kept here, where it first was).
pub use crate::utc::ctime;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_store_is_a_clear_error() {
        let vm = Vm::new(sense_eval::Config::default());
        let err = open(&vm, Path::new("m.db")).unwrap_err();
        assert!(
            err.display().contains("no memory store"),
            "{}",
            err.display()
        );
    }
}
