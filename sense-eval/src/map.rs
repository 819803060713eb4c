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
use std::hash::{Hash, Hasher};

/// How a map hashes its keys. foldhash (the hasher hashbrown itself
/// defaults to) over the default SipHash: a short string key costs a few
/// instructions per word instead of SipHash's rounds, and the per-process
/// random seed still keeps colliding keys hard to construct. The order of
/// a map is its insertion order whatever the hasher.
pub type KeyHasher = foldhash::fast::RandomState;

/// A map key: the content of a String, Int or Bool value.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MapKey {
    /// A String key.
    Str(Box<str>),
    /// An Int key.
    Int(i64),
    /// A Bool key (distinct from the Ints 0 and 1).
    Bool(bool),
}

/// A key borrowed from a value (a String's text in the heap), for lookups
/// that need no owned [`MapKey`]: it hashes and compares exactly as the
/// owned key with the same content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRef<'a> {
    /// A String key.
    Str(&'a str),
    /// An Int key.
    Int(i64),
    /// A Bool key.
    Bool(bool),
}

impl KeyRef<'_> {
    /// The owned key with this content.
    pub fn to_owned_key(self) -> MapKey {
        match self {
            KeyRef::Str(s) => MapKey::Str(s.into()),
            KeyRef::Int(i) => MapKey::Int(i),
            KeyRef::Bool(b) => MapKey::Bool(b),
        }
    }
}

// `MapKey` and `KeyRef` hash through this one function, so a borrowed
// key finds the owned one (indexmap's `Equivalent` contract).
impl Hash for KeyRef<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            KeyRef::Str(s) => {
                state.write_u8(0);
                s.hash(state);
            }
            KeyRef::Int(i) => {
                state.write_u8(1);
                i.hash(state);
            }
            KeyRef::Bool(b) => {
                state.write_u8(2);
                b.hash(state);
            }
        }
    }
}

impl Hash for MapKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_ref_key().hash(state);
    }
}

impl indexmap::Equivalent<MapKey> for KeyRef<'_> {
    fn equivalent(&self, key: &MapKey) -> bool {
        *self == key.as_ref_key()
    }
}

impl MapKey {
    /// The key borrowed (for hashing and comparing with a [`KeyRef`]).
    pub fn as_ref_key(&self) -> KeyRef<'_> {
        match self {
            MapKey::Str(s) => KeyRef::Str(s),
            MapKey::Int(i) => KeyRef::Int(*i),
            MapKey::Bool(b) => KeyRef::Bool(*b),
        }
    }

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
    pub entries: IndexMap<MapKey, Value, KeyHasher>,
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

    /// The value at a borrowed key.
    #[inline]
    pub fn get_ref(&self, key: KeyRef<'_>) -> Option<Value> {
        self.entries.get(&key).copied()
    }

    /// The position of a borrowed key.
    #[inline]
    pub fn index_of(&self, key: KeyRef<'_>) -> Option<usize> {
        self.entries.get_index_of(&key)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_borrowed_key_finds_the_owned_one_of_the_same_content_only() {
        let mut m = MapObj::new();
        m.insert(MapKey::Str("k1".into()), Value::Int(1));
        m.insert(MapKey::Int(1), Value::Int(2));
        m.insert(MapKey::Bool(true), Value::Int(3));
        let int_of = |v: Option<Value>| match v {
            Some(Value::Int(i)) => Some(i),
            _ => None,
        };
        assert_eq!(int_of(m.get_ref(KeyRef::Str("k1"))), Some(1));
        assert_eq!(int_of(m.get_ref(KeyRef::Int(1))), Some(2));
        assert_eq!(int_of(m.get_ref(KeyRef::Bool(true))), Some(3));
        // Content, not kind-blind: "1" is not 1, and true is not 1.
        assert_eq!(int_of(m.get_ref(KeyRef::Str("1"))), None);
        assert_eq!(int_of(m.get_ref(KeyRef::Bool(false))), None);
        assert_eq!(m.index_of(KeyRef::Bool(true)), Some(2));
        for k in m.entries.keys() {
            assert_eq!(k.as_ref_key().to_owned_key(), *k);
        }
    }
}
