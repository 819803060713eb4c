//! Map values: insertion-ordered tables from String, Int or Bool keys to
//! any value (`{"a": 1, "b": [2]}`).
//!
//! A key is stored by its content ([`MapKey`]), not as a heap handle, so
//! two equal strings are one key and lookups hash the text itself. Reading
//! a key back out (`for k in m`, `m.keys()`) makes a fresh String value;
//! strings are immutable, so nobody can tell. The values are ordinary
//! [`Value`]s, traced by the collector like an array's elements.
//!
//! This module holds the data only; what the VM does with maps (building
//! them, indexing, printing, methods) lives in `vm/maps.rs` and the files
//! named there.

use crate::value::Value;
use indexmap::IndexMap;

/// A map key: the content of a String, Int or Bool value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum MapKey {
    /// A String key.
    Str(Box<str>),
    /// An Int key.
    Int(i64),
    /// A Bool key (distinct from the Ints 0 and 1).
    Bool(bool),
}

impl MapKey {
    /// The key as `print` shows it (strings unquoted).
    pub fn text(&self) -> String {
        match self {
            MapKey::Str(s) => s.to_string(),
            MapKey::Int(i) => i.to_string(),
            MapKey::Bool(b) => b.to_string(),
        }
    }

    /// Bytes the key owns beyond its slot (heap accounting).
    pub fn heap_bytes(&self) -> usize {
        match self {
            MapKey::Str(s) => s.len(),
            MapKey::Int(_) | MapKey::Bool(_) => 0,
        }
    }
}

/// A map object: its entries in insertion order.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct MapObj {
    /// Key → value, in the order the keys were first inserted.
    pub entries: IndexMap<MapKey, Value>,
}

/// What one entry costs beyond its key's text: the key and value words
/// and the index's hash slot, roughly.
pub const ENTRY_BYTES: usize =
    std::mem::size_of::<MapKey>() + std::mem::size_of::<Value>() + 2 * std::mem::size_of::<usize>();

impl MapObj {
    /// An empty map.
    pub fn new() -> Self {
        MapObj::default()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value at `key`.
    pub fn get(&self, key: &MapKey) -> Option<Value> {
        self.entries.get(key).copied()
    }

    /// Inserts or replaces; a new key goes last, a replaced one keeps its
    /// place (as Python's dict does).
    pub fn insert(&mut self, key: MapKey, value: Value) {
        self.entries.insert(key, value);
    }

    /// Removes `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &MapKey) -> Option<Value> {
        self.entries.shift_remove(key)
    }

    /// The values, in order (what the collector traces).
    pub fn values(&self) -> impl Iterator<Item = Value> + '_ {
        self.entries.values().copied()
    }

    /// Estimated bytes the map owns beyond its slot.
    pub fn heap_bytes(&self) -> usize {
        let keys: usize = self.entries.keys().map(MapKey::heap_bytes).sum();
        self.entries
            .capacity()
            .saturating_mul(ENTRY_BYTES)
            .saturating_add(keys)
            .saturating_add(16)
    }
}
