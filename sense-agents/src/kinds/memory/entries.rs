//! The entries of an in-process `memory`: insertion order in a vector
//! (what a snapshot saves, unchanged), with an index by key so that
//! `remember` and `recall` take constant time however many keys there are
//! (issue 27: a linear scan made 100,000 keys take 80 seconds).
//!
//! Order is the reference's: a new key goes last, remembering a key again
//! keeps its place, and `forget` removes it (remembered again, it goes
//! last). `forget` shifts the later entries, so it is linear in their
//! number.

use sense_eval::Value;
use std::collections::HashMap;

/// Keys and values in insertion order, indexed by key.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Entries {
    items: Vec<(String, Value)>,
    /// Where each key's entry is in `items`; rebuilt after decoding.
    #[serde(skip)]
    index: HashMap<String, usize>,
}

impl Entries {
    /// Rebuilds the index (after decoding a snapshot). A damaged snapshot
    /// that repeats a key keeps its first entry, as a scan would find it.
    pub(crate) fn reindex(&mut self) {
        self.index.clear();
        for (i, (k, _)) in self.items.iter().enumerate() {
            self.index.entry(k.clone()).or_insert(i);
        }
    }

    /// The value of `key`, if remembered.
    pub fn get(&self, key: &str) -> Option<Value> {
        let i = *self.index.get(key)?;
        self.items.get(i).map(|(_, v)| *v)
    }

    /// Remembers `value` under `key`, in `key`'s place or last.
    pub fn set(&mut self, key: String, value: Value) {
        if let Some(slot) = self.index.get(&key).and_then(|&i| self.items.get_mut(i)) {
            slot.1 = value;
            return;
        }
        self.index.insert(key.clone(), self.items.len());
        self.items.push((key, value));
    }

    /// Forgets `key` (nothing when it is not remembered).
    pub fn remove(&mut self, key: &str) {
        let Some(at) = self.index.remove(key) else {
            return;
        };
        if at < self.items.len() {
            self.items.remove(at);
        }
        for (k, _) in self.items.iter().skip(at) {
            if let Some(i) = self.index.get_mut(k) {
                *i -= 1;
            }
        }
    }

    /// Every entry, in order.
    pub fn iter(&self) -> impl Iterator<Item = &(String, Value)> {
        self.items.iter()
    }

    /// How many keys are remembered.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no key is remembered.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Estimated bytes held: each key twice (entry and index) and a value.
    pub fn heap_bytes(&self) -> usize {
        self.items
            .iter()
            .map(|(k, _)| 2 * k.len() + std::mem::size_of::<Value>() + std::mem::size_of::<usize>())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: Option<Value>) -> Option<i64> {
        match v {
            Some(Value::Int(n)) => Some(n),
            _ => None,
        }
    }

    fn keys(e: &Entries) -> Vec<&str> {
        e.iter().map(|(k, _)| k.as_str()).collect()
    }

    #[test]
    fn order_and_values_follow_remember_and_forget() {
        let mut e = Entries::default();
        for (k, v) in [("a", 1), ("b", 2), ("c", 3), ("a", 4)] {
            e.set(k.to_string(), Value::Int(v));
        }
        assert_eq!(keys(&e), ["a", "b", "c"]);
        assert_eq!(int(e.get("a")), Some(4));
        e.remove("a");
        e.remove("zz");
        assert_eq!(keys(&e), ["b", "c"]);
        assert!(e.get("a").is_none());
        assert_eq!(int(e.get("c")), Some(3));
        e.set("a".to_string(), Value::Int(5));
        assert_eq!(keys(&e), ["b", "c", "a"]);
        e.set("c".to_string(), Value::Int(6));
        assert_eq!(int(e.get("c")), Some(6));
        assert_eq!(e.len(), 3);
    }

    #[test]
    fn a_decoded_copy_answers_like_the_original() {
        let mut e = Entries::default();
        for i in 0..100 {
            e.set(format!("k{i}"), Value::Int(i));
        }
        e.remove("k10");
        let bytes = sense_eval::kind::to_bytes(&e).unwrap();
        // The saved form is the plain list of pairs (snapshots unchanged).
        let plain: Vec<(String, Value)> = sense_eval::kind::from_bytes(&bytes).unwrap();
        assert_eq!(plain.len(), 99);
        let mut d: Entries = sense_eval::kind::from_bytes(&bytes).unwrap();
        d.reindex();
        assert_eq!(int(d.get("k50")), Some(50));
        assert!(d.get("k10").is_none());
        assert_eq!(keys(&d), keys(&e));
    }
}
