//! Interned identifiers.
//!
//! Every name the compiler sees becomes a [`Symbol`], a small integer, so
//! scopes compare names with one integer comparison. The interner belongs to
//! one VM; symbols from different VMs must not be mixed.

use rustc_hash::FxHashMap;

/// An interned name.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Symbol(pub u32);

/// The table of interned names.
#[derive(Default, Clone, Debug)]
pub struct Interner {
    names: Vec<Box<str>>,
    ids: FxHashMap<Box<str>, Symbol>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The symbol for `name`, interning it on first use.
    pub fn intern(&mut self, name: &str) -> Symbol {
        if let Some(&s) = self.ids.get(name) {
            return s;
        }
        let s = Symbol(self.names.len() as u32);
        self.names.push(name.into());
        self.ids.insert(name.into(), s);
        s
    }

    /// The symbol for `name` if it was interned.
    pub fn get(&self, name: &str) -> Option<Symbol> {
        self.ids.get(name).copied()
    }

    /// The text of `sym`.
    pub fn name(&self, sym: Symbol) -> &str {
        self.names.get(sym.0 as usize).map_or("?", |s| s)
    }

    /// Number of interned names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// All names in symbol order (for snapshots).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|s| &**s)
    }
}
