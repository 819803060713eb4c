//! Memories (`memory NAME`, `persistent memory NAME`) and their methods
//! (AGENTS.md §6), and the JSON form of values a persistent memory stores.

use super::Vm;
use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::kind::Declaration;
use crate::memory_log::{self, Json, ctime, default_path};
use crate::object::{MemoryObj, Method, Obj};
use crate::proto::DeclInfo;
use crate::value::Value;

/// The `memory` declaration (built in).
pub(crate) struct MemoryDecl;

/// The registered instance.
pub(crate) static MEMORY_DECL: MemoryDecl = MemoryDecl;

impl Declaration for MemoryDecl {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn declare(
        &self,
        vm: &mut Vm,
        decl: &DeclInfo,
        _value: Value,
        file: crate::proto::FileId,
    ) -> EvalResult<()> {
        vm.declare_memory(decl, file)
    }
}

impl Vm {
    /// `memory NAME` / `persistent memory NAME`.
    pub(crate) fn declare_memory(
        &mut self,
        info: &DeclInfo,
        file: crate::proto::FileId,
    ) -> EvalResult<()> {
        let name = self.interner.name(info.name).to_string();
        let mem = if info.flag {
            let path = match &info.text {
                Some(p) => std::path::PathBuf::from(p),
                None => {
                    let dir = self.files.get(file.0 as usize).and_then(|f| f.dir.clone());
                    default_path(&name, self.config.memory_dir.as_deref(), dir.as_deref())
                }
            };
            let db =
                memory_log::open(self.config.memory_store, &path).map_err(EvalError::runtime)?;
            MemoryObj {
                name,
                kind: None,
                entries: Vec::new(),
                path: Some(path.display().to_string()),
                db: Some(db),
            }
        } else {
            MemoryObj {
                name,
                kind: info.text.clone(),
                entries: Vec::new(),
                path: None,
                db: None,
            }
        };
        let r = self.heap.alloc(Obj::Memory(Box::new(mem)));
        self.define_here(info.name, Value::Obj(r));
        Ok(())
    }

    /// The entries of memory `v` (key and value, in order), or `None`
    /// when `v` is not a memory.
    pub fn memory_items(&mut self, v: Value) -> EvalResult<Option<Vec<(String, Value)>>> {
        let Some(r) = self.memory_ref(v) else {
            return Ok(None);
        };
        let mut items = Vec::new();
        for key in self.memory_keys(r)? {
            let v = self.memory_recall(r, &key)?;
            items.push((key, v));
        }
        Ok(Some(items))
    }

    pub(crate) fn memory_ref(&self, v: Value) -> Option<ObjRef> {
        match v {
            Value::Obj(r) if matches!(self.heap.get(r), Obj::Memory(_)) => Some(r),
            _ => None,
        }
    }

    /// The memory behind `r`; a persistent memory's database is (re)opened
    /// on first use — after a restore, it opens here, not while decoding.
    fn memory(&mut self, r: ObjRef) -> EvalResult<&MemoryObj> {
        if let Obj::Memory(m) = self.heap.get_mut(r)
            && m.db.is_none()
            && let Some(path) = &m.path
        {
            m.db = Some(
                memory_log::open(self.config.memory_store, std::path::Path::new(path))
                    .map_err(EvalError::runtime)?,
            );
        }
        match self.heap.get(r) {
            Obj::Memory(m) => Ok(m),
            _ => Err(EvalError::runtime("not a memory")),
        }
    }

    fn memory_keys(&mut self, r: ObjRef) -> EvalResult<Vec<String>> {
        let m = self.memory(r)?;
        match &m.db {
            Some(db) => db.keys().map_err(EvalError::runtime),
            None => Ok(m.entries.iter().map(|(k, _)| k.clone()).collect()),
        }
    }

    fn memory_recall(&mut self, r: ObjRef, key: &str) -> EvalResult<Value> {
        let m = self.memory(r)?;
        match &m.db {
            Some(db) => match db.recall(key, None).map_err(EvalError::runtime)? {
                Some(j) => self.value_from_json(&j),
                None => Ok(Value::Nil),
            },
            None => Ok(m
                .entries
                .iter()
                .find(|(k, _)| k == key)
                .map_or(Value::Nil, |(_, v)| *v)),
        }
    }

    /// Calls a memory method bound at `line`.
    pub(crate) fn call_memory_method(
        &mut self,
        r: ObjRef,
        method: Method,
        args: &[Value],
        line: u32,
    ) -> EvalResult<Value> {
        let key = |vm: &Vm, v: Value| -> EvalResult<String> {
            vm.str_of(v).map(str::to_string).ok_or_else(|| {
                EvalError::runtime(format!(
                    "memory key must be a String, got {}",
                    vm.type_name(v)
                ))
            })
        };
        let _ = line;
        match method {
            Method::Remember => {
                let k = key(self, crate::builtins::arg(args, 0))?;
                let persistent = self.memory(r)?.path.is_some();
                if persistent {
                    // Arrays that share sub-arrays would expand to 2^depth
                    // JSON values: bound the work (issue 8). A JSON value
                    // takes at least 16 bytes in memory, so this also keeps
                    // the tree within the string cap's memory.
                    let limit = (self.config.max_string_len / 16).max(1024);
                    let json =
                        self.to_json(crate::builtins::arg(args, 1), 0, &mut (limit, limit))?;
                    self.memory(r)?
                        .db
                        .as_ref()
                        .map_or(Ok(()), |db| db.remember(&k, &json))
                        .map_err(EvalError::runtime)?;
                } else if let Obj::Memory(m) = self.heap.get_mut(r) {
                    match m.entries.iter_mut().find(|(ek, _)| *ek == k) {
                        Some(slot) => slot.1 = crate::builtins::arg(args, 1),
                        None => m.entries.push((k, crate::builtins::arg(args, 1))),
                    }
                }
                Ok(Value::Nil)
            }
            Method::Recall => {
                let k = key(self, crate::builtins::arg(args, 0))?;
                self.memory_recall(r, &k)
            }
            Method::Forget => {
                let k = key(self, crate::builtins::arg(args, 0))?;
                if let Some(db) = &self.memory(r)?.db {
                    db.forget(&k).map_err(EvalError::runtime)?;
                } else if let Obj::Memory(m) = self.heap.get_mut(r) {
                    m.entries.retain(|(ek, _)| *ek != k);
                }
                Ok(Value::Nil)
            }
            Method::Keys => {
                let keys = self.memory_keys(r)?;
                let mut items = Vec::with_capacity(keys.len());
                for k in keys {
                    items.push(self.new_str(k)?);
                }
                self.new_array(items)
            }
            Method::History => {
                let k = key(self, crate::builtins::arg(args, 0))?;
                let rows = match &self.memory(r)?.db {
                    Some(db) => db.history(&k).map_err(EvalError::runtime)?,
                    None => Vec::new(),
                };
                let mut items = Vec::with_capacity(rows.len());
                for (version, op, value, ts) in rows {
                    let line = if op == "remember" {
                        let v = match value {
                            Some(j) => self.value_from_json(&j)?,
                            None => Value::Nil,
                        };
                        format!(
                            "[v{version}] remember '{k}' = {} ({})",
                            self.show(v)?,
                            ctime(ts)
                        )
                    } else {
                        format!("[v{version}] forget '{k}' ({})", ctime(ts))
                    };
                    items.push(self.new_str(line)?);
                }
                self.new_array(items)
            }
            Method::AsOf => {
                let k = key(self, crate::builtins::arg(args, 0))?;
                let Value::Int(version) = crate::builtins::arg(args, 1) else {
                    return Err(EvalError::runtime(format!(
                        "as_of() expects an Int version, got {}",
                        self.type_name(crate::builtins::arg(args, 1))
                    )));
                };
                let found = match &self.memory(r)?.db {
                    Some(db) => db.recall(&k, Some(version)).map_err(EvalError::runtime)?,
                    None => None,
                };
                match found {
                    Some(j) => self.value_from_json(&j),
                    None => Ok(Value::Nil),
                }
            }
            _ => Err(EvalError::runtime("not a memory method")),
        }
    }

    /// The JSON form of `v`. `budget` is (how many more values it may
    /// hold, the limit it started from): an error once it runs out.
    fn to_json(&self, v: Value, depth: usize, budget: &mut (usize, usize)) -> EvalResult<Json> {
        let bad = |t: &str| {
            EvalError::runtime(format!(
                "persistent memory can only store JSON-serializable values (Int/Float/String/Bool/Nil/Array of those): \
                 TypeError: Object of type {t} is not JSON serializable"
            ))
        };
        if depth > 200 {
            return Err(EvalError::runtime(crate::error::RECURSION_MESSAGE).lineless());
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
            Value::Str(_) => Json::String(self.str_of(v).unwrap_or("").to_string()),
            Value::Array(_) => {
                let items = self.array_of(v).cloned().unwrap_or_default();
                Json::Array(
                    items
                        .iter()
                        .map(|x| self.to_json(*x, depth + 1, budget))
                        .collect::<EvalResult<_>>()?,
                )
            }
            _ => return Err(bad(self.python_class_name(v))),
        })
    }

    /// The reference's host class of a value that `json.dumps` rejects
    /// (its TypeError names it).
    fn python_class_name(&self, v: Value) -> &'static str {
        match v {
            Value::Func(_) => "SenseFunction",
            Value::Native(_) => "BuiltinFunction",
            Value::Obj(r) => match self.heap.get(r) {
                Obj::Module(_) => "SenseModule",
                Obj::Bound(_) => "BuiltinFunction",
                Obj::Agent(_) => "SenseAgent",
                Obj::Tool(_) => "SenseToolDef",
                Obj::ActionDecl(_) => "SenseActionDef",
                Obj::Action(_) => "SenseAction",
                Obj::Future(_) => "SenseFuture",
                Obj::Memory(m) if m.path.is_some() => "SensePersistentMemory",
                Obj::Memory(_) => "SenseMemory",
                Obj::Ext(x) => x.kind().host_class(self, r),
                _ => self.type_name(v),
            },
            _ => self.type_name(v),
        }
    }

    fn value_from_json(&mut self, j: &Json) -> EvalResult<Value> {
        Ok(match j {
            Json::Null => Value::Nil,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Json::String(s) => self.new_str(s.as_str())?,
            Json::Array(items) => {
                let mut vals = Vec::with_capacity(items.len());
                for it in items {
                    vals.push(self.value_from_json(it)?);
                }
                self.new_array(vals)?
            }
            Json::Object(_) => self.new_str(j.to_string())?,
        })
    }
}
