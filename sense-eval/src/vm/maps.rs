//! What the VM does with map values: building them (literals, natives,
//! host values), reading and writing entries, and the errors of both.
//!
//! A map is `Value::Obj(r)` with `Obj::Map` behind `r`. Natives and kinds
//! of higher crates build one with [`Vm::new_map`] and read one with
//! [`Vm::map_of`] / [`Vm::map_get`]; keys go in as values
//! ([`Vm::map_key`] checks their type) and come out as values
//! ([`Vm::key_value`]).

use super::Vm;
use crate::error::{EvalError, EvalResult};
use crate::map::{ENTRY_BYTES, KeyRef, MapKey, MapObj};
use crate::object::Obj;
use crate::value::Value;

impl Vm {
    /// The key that value `k` stands for: a String, Int or Bool; anything
    /// else is a `SenseTypeError`.
    pub fn map_key(&self, k: Value) -> EvalResult<MapKey> {
        self.map_key_ref(k).map(KeyRef::to_owned_key)
    }

    /// [`Vm::map_key`] borrowed: a String key is its text in the heap, so
    /// a lookup allocates nothing.
    pub fn map_key_ref(&self, k: Value) -> EvalResult<KeyRef<'_>> {
        match k {
            Value::Str(_) => Ok(KeyRef::Str(self.str_of(k).unwrap_or(""))),
            Value::Int(i) => Ok(KeyRef::Int(i)),
            Value::Bool(b) => Ok(KeyRef::Bool(b)),
            _ => Err(EvalError::type_error(format!(
                "map keys must be String, Int or Bool, got {}",
                self.type_name(k)
            ))),
        }
    }

    /// A key as a value (a fresh String for a String key).
    pub fn key_value(&mut self, k: &MapKey) -> EvalResult<Value> {
        Ok(match k {
            MapKey::Str(s) => self.new_str(s.as_ref())?,
            MapKey::Int(i) => Value::Int(*i),
            MapKey::Bool(b) => Value::Bool(*b),
        })
    }

    /// The map behind `v`, if it is one.
    #[inline]
    pub fn map_of(&self, v: Value) -> Option<&MapObj> {
        match v {
            Value::Obj(r) => match self.heap.get(r) {
                Obj::Map(m) => Some(m),
                _ => None,
            },
            _ => None,
        }
    }

    /// The map behind `v`, mutably.
    pub fn map_of_mut(&mut self, v: Value) -> Option<&mut MapObj> {
        match v {
            Value::Obj(r) => match self.heap.get_mut(r) {
                Obj::Map(m) => Some(m),
                _ => None,
            },
            _ => None,
        }
    }

    /// True when `v` is a map.
    #[inline]
    pub fn is_map(&self, v: Value) -> bool {
        self.map_of(v).is_some()
    }

    /// A new map value of `entries` (later duplicates replace earlier
    /// ones, keeping the first one's place). Keys are checked as
    /// [`Vm::map_key`] does; the size is bounded like an array's.
    pub fn new_map(&mut self, entries: Vec<(Value, Value)>) -> EvalResult<Value> {
        self.check_new_map(entries.len())?;
        let mut m = MapObj::new();
        for (k, v) in entries {
            let key = self.map_key(k)?;
            m.insert(key, v);
        }
        self.alloc_map(m)
    }

    /// Stores a map built in Rust as a new map value (size checked).
    pub fn alloc_map(&mut self, m: MapObj) -> EvalResult<Value> {
        self.check_new_map(m.len())?;
        Ok(Value::Obj(self.heap.alloc(Obj::Map(m))))
    }

    /// The value at key `k` of map `m`: `None` when absent (errors: `m`
    /// not a map, `k` not a key type).
    pub fn map_get(&self, m: Value, k: Value) -> EvalResult<Option<Value>> {
        let key = self.map_key_ref(k)?;
        let map = self.map_of(m).ok_or_else(|| {
            EvalError::runtime(format!("expected a Map, got {}", self.type_name(m)))
        })?;
        Ok(map.get_ref(key))
    }

    /// `m[k] = v`: inserts or replaces, within the size bound and the
    /// heap ceiling.
    pub fn map_set(&mut self, m: Value, k: Value, v: Value) -> EvalResult<()> {
        let key = self.map_key_ref(k)?;
        let Some(map) = self.map_of(m) else {
            return Err(EvalError::runtime(format!(
                "expected a Map, got {}",
                self.type_name(m)
            )));
        };
        // A key already there is replaced in place: no owned key is made.
        if let Some(at) = map.index_of(key) {
            if let Some(map) = self.map_of_mut(m)
                && let Some((_, slot)) = map.entries.get_index_mut(at)
            {
                *slot = v;
            }
            return Ok(());
        }
        let key = key.to_owned_key();
        let n = map.len() + 1;
        self.check_map_len(n)?;
        let bytes = ENTRY_BYTES + key.heap_bytes();
        self.check_heap_room(bytes)?;
        self.heap.charge(bytes);
        if let Some(map) = self.map_of_mut(m) {
            map.insert(key, v);
        }
        Ok(())
    }

    /// `m[k]` for the `Index` instruction: a missing key is an error.
    pub(crate) fn map_index(&self, m: Value, k: Value) -> EvalResult<Value> {
        match self.map_get(m, k)? {
            Some(v) => Ok(v),
            None => Err(self.key_not_found(k)),
        }
    }

    /// `key 'k' not found`.
    pub(crate) fn key_not_found(&self, k: Value) -> EvalError {
        let shown = self.map_key(k).map(|k| k.text()).unwrap_or_default();
        EvalError::runtime(format!("key '{shown}' not found"))
    }

    /// The keys of map `m` as a new array (what `for k in m:` walks).
    pub(crate) fn map_keys(&mut self, m: Value) -> EvalResult<Value> {
        let keys: Vec<MapKey> = self
            .map_of(m)
            .map(|m| m.entries.keys().cloned().collect())
            .unwrap_or_default();
        self.check_new_array(keys.len())?;
        let mut items = Vec::with_capacity(keys.len());
        for k in &keys {
            items.push(self.key_value(k)?);
        }
        self.new_array(items)
    }

    /// The `MakeMap` instruction: `2 * n` values (key, value, …) on the
    /// stack become a map.
    pub(crate) fn make_map(&mut self, n: usize) -> EvalResult<()> {
        let Some(at) = self.cur.stack.len().checked_sub(2 * n) else {
            return Err(super::call::underflow());
        };
        let flat: Vec<Value> = self.cur.stack.drain(at..).collect();
        let entries = flat.chunks(2).map(|p| match p {
            [k, v] => (*k, *v),
            _ => (Value::Nil, Value::Nil),
        });
        let v = self.new_map(entries.collect())?;
        self.cur.stack.push(v);
        Ok(())
    }

    fn check_map_len(&self, n: usize) -> EvalResult<()> {
        if n > self.config.max_array_len {
            return Err(EvalError::runtime(format!(
                "map too large ({n} entries; the limit is {})",
                self.config.max_array_len
            )));
        }
        Ok(())
    }

    fn check_new_map(&self, n: usize) -> EvalResult<()> {
        self.check_map_len(n)?;
        self.check_heap_room(n.saturating_mul(ENTRY_BYTES))
    }
}
