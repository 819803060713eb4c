//! Scopes: name → value maps with a parent link, the agent whose body
//! scope it is, and rarely used slots a higher crate attaches (values by
//! key, a boundary label).
//!
//! Small scopes (block and call scopes, nearly always a handful of names)
//! are a vector searched linearly; a small scope that outgrows it becomes a
//! hash map. Module and global scopes are dense tables indexed by symbol,
//! so reading a global — or finding that a name is not there, which every
//! assignment of a new local has to — is one indexed load.

use crate::heap::{ObjRef, ScopeRef, Tracer};
use crate::symbol::Symbol;
use crate::value::Value;
use rustc_hash::FxHashMap;

const SMALL_LIMIT: usize = 8;

/// The variables of one scope.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum VarMap {
    /// Few names: linear search.
    Small(Vec<(Symbol, Value)>),
    /// Many names. Boxed: the map is 32 bytes against a vector's 24, and
    /// unboxed it made every scope 72 bytes instead of 64 (more memory per
    /// paused agent, and a multiply instead of a shift on every scope
    /// access of every lookup). Serialized as the map itself.
    Big(Box<FxHashMap<Symbol, Value>>),
    /// Module and global scopes: slot `i` holds symbol `i`'s value.
    Dense(Vec<Option<Value>>),
}

impl Default for VarMap {
    fn default() -> Self {
        VarMap::Small(Vec::new())
    }
}

impl VarMap {
    /// The value bound to `sym` here.
    #[inline]
    pub fn get(&self, sym: Symbol) -> Option<Value> {
        match self {
            VarMap::Small(v) => v.iter().find(|(s, _)| *s == sym).map(|(_, v)| *v),
            VarMap::Dense(d) => d.get(sym.0 as usize).copied().flatten(),
            VarMap::Big(m) => big_get(m, sym),
        }
    }

    /// The binding of `sym` here, to update in place.
    #[inline]
    pub fn get_mut(&mut self, sym: Symbol) -> Option<&mut Value> {
        match self {
            VarMap::Small(v) => v.iter_mut().find(|(s, _)| *s == sym).map(|(_, v)| v),
            VarMap::Dense(d) => d.get_mut(sym.0 as usize).and_then(Option::as_mut),
            VarMap::Big(m) => big_get_mut(m, sym),
        }
    }

    /// Overwrites `sym` if bound here; returns whether it was.
    #[inline]
    pub fn set_existing(&mut self, sym: Symbol, val: Value) -> bool {
        match self {
            VarMap::Small(v) => {
                for (s, slot) in v.iter_mut() {
                    if *s == sym {
                        *slot = val;
                        return true;
                    }
                }
                false
            }
            VarMap::Dense(d) => match d.get_mut(sym.0 as usize) {
                Some(Some(slot)) => {
                    *slot = val;
                    true
                }
                _ => false,
            },
            VarMap::Big(m) => big_set_existing(m, sym, val),
        }
    }

    /// Binds `sym` here, overwriting any binding.
    #[inline]
    pub fn define(&mut self, sym: Symbol, val: Value) {
        // The common case (a parameter, a loop variable, a block's first
        // names) inline: a small scope with room. Exactly what the general
        // path does for it: overwrite the binding if there is one, else add.
        if let VarMap::Small(v) = self
            && v.len() < SMALL_LIMIT
        {
            match v.iter_mut().find(|(s, _)| *s == sym) {
                Some((_, slot)) => *slot = val,
                None => v.push((sym, val)),
            }
            return;
        }
        self.define_general(sym, val);
    }

    /// [`VarMap::define`] for every other case (out of line).
    #[inline(never)]
    fn define_general(&mut self, sym: Symbol, val: Value) {
        if self.set_existing(sym, val) {
            return;
        }
        match self {
            VarMap::Small(v) if v.len() < SMALL_LIMIT => v.push((sym, val)),
            VarMap::Small(v) => {
                let mut m: FxHashMap<Symbol, Value> = v.drain(..).collect();
                m.insert(sym, val);
                *self = VarMap::Big(Box::new(m));
            }
            VarMap::Dense(d) => {
                let i = sym.0 as usize;
                if d.len() <= i {
                    d.resize(i + 1, None);
                }
                if let Some(slot) = d.get_mut(i) {
                    *slot = Some(val);
                }
            }
            VarMap::Big(m) => {
                m.insert(sym, val);
            }
        }
    }

    /// Every binding, in no particular order for big maps.
    pub fn iter(&self) -> Box<dyn Iterator<Item = (Symbol, Value)> + '_> {
        match self {
            VarMap::Small(v) => Box::new(v.iter().copied()),
            VarMap::Dense(d) => Box::new(
                d.iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.map(|v| (Symbol(i as u32), v))),
            ),
            VarMap::Big(m) => Box::new(m.iter().map(|(s, v)| (*s, *v))),
        }
    }

    /// Number of bindings.
    pub fn len(&self) -> usize {
        match self {
            VarMap::Small(v) => v.len(),
            VarMap::Dense(d) => d.iter().filter(|v| v.is_some()).count(),
            VarMap::Big(m) => m.len(),
        }
    }

    /// True when nothing is bound.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

// The hash-map arms are out of line: inlined, the compiler computes the
// symbol's hash up front on every lookup, before it knows the scope is big
// (most are small), which cost every `Load` a dozen instructions.
#[inline(never)]
fn big_get(m: &FxHashMap<Symbol, Value>, sym: Symbol) -> Option<Value> {
    m.get(&sym).copied()
}

#[inline(never)]
fn big_get_mut(m: &mut FxHashMap<Symbol, Value>, sym: Symbol) -> Option<&mut Value> {
    m.get_mut(&sym)
}

#[inline(never)]
fn big_set_existing(m: &mut FxHashMap<Symbol, Value>, sym: Symbol, val: Value) -> bool {
    match m.get_mut(&sym) {
        Some(slot) => {
            *slot = val;
            true
        }
        None => false,
    }
}

/// The rarely used slots of a scope, boxed so plain scopes stay small.
/// What they mean is up to the higher crate that sets them (through
/// [`Vm::set_scope_value`](crate::vm::Vm::set_scope_value) and
/// [`Vm::set_scope_label`](crate::vm::Vm::set_scope_label)).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ScopeExtra {
    /// Values attached to the scope, by key (one value per key).
    pub values: Vec<(Box<str>, Value)>,
    /// The execution boundary the scope is, as its caller names it.
    pub label: Option<String>,
}

// A scope is 64 bytes: the heap's scope table is indexed with a shift,
// and every paused agent carries at least one.
const _: () = assert!(std::mem::size_of::<Scope>() <= 64);

/// One scope.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Scope {
    /// Variables bound here.
    pub vars: VarMap,
    /// Enclosing scope (`None` for globals, or on a free slot the next free index).
    pub parent: Option<ScopeRef>,
    /// Agent-layer slots.
    pub extra: Option<Box<ScopeExtra>>,
    /// The agent whose body scope this is (kept out of `extra`: every
    /// agent has one, and a million paused agents should not each carry
    /// a boxed `ScopeExtra`).
    pub task: Option<ObjRef>,
    free: bool,
    /// Something besides the frame that made it refers to it (a closure,
    /// an agent, a tool, a bound method, a child that is captured): it
    /// must live until the collector decides. Uncaptured block and call
    /// scopes are recycled as soon as their block or call ends. Not saved
    /// in snapshots: a restored heap counts every scope as captured.
    #[serde(skip)]
    captured: bool,
}

impl Scope {
    /// An empty scope under `parent`.
    pub fn new(parent: Option<ScopeRef>) -> Self {
        Scope {
            vars: VarMap::default(),
            parent,
            extra: None,
            task: None,
            free: false,
            captured: false,
        }
    }

    /// An empty dense scope (module and global scopes).
    pub fn new_big(parent: Option<ScopeRef>) -> Self {
        Scope {
            vars: VarMap::Dense(Vec::new()),
            parent,
            extra: None,
            task: None,
            free: false,
            captured: false,
        }
    }

    pub(crate) fn free(next: u32) -> Self {
        Scope {
            vars: VarMap::Small(Vec::new()),
            parent: Some(ScopeRef(next)),
            extra: None,
            task: None,
            free: true,
            captured: false,
        }
    }

    /// Marks it captured; returns whether it already was.
    pub(crate) fn capture(&mut self) -> bool {
        std::mem::replace(&mut self.captured, true)
    }

    /// True when something outside its frame refers to it.
    pub(crate) fn is_captured(&self) -> bool {
        self.captured
    }

    /// Turns a live scope into a free slot, keeping its variable storage
    /// for the next scope made there.
    #[inline]
    pub(crate) fn recycle(&mut self, next: u32) {
        match &mut self.vars {
            VarMap::Small(v) => v.clear(),
            VarMap::Big(_) | VarMap::Dense(_) => self.vars = VarMap::default(),
        }
        self.parent = Some(ScopeRef(next));
        if self.extra.is_some() {
            // Only then: an unconditional store calls the drop glue every time.
            self.extra = None;
        }
        self.task = None;
        self.free = true;
        self.captured = false;
    }

    /// Reuses a free slot as an empty scope under `parent`.
    pub(crate) fn reuse(&mut self, parent: ScopeRef) {
        self.parent = Some(parent);
        self.free = false;
    }

    pub(crate) fn is_free(&self) -> bool {
        self.free
    }

    pub(crate) fn free_next(&self) -> u32 {
        self.parent.map_or(u32::MAX, |p| p.0)
    }

    /// The extra slots, created on first use.
    pub fn extra_mut(&mut self) -> &mut ScopeExtra {
        self.extra.get_or_insert_with(Default::default)
    }

    pub(crate) fn trace(&self, t: &mut Tracer) {
        for (_, v) in self.vars.iter() {
            t.value(v);
        }
        if let Some(p) = self.parent {
            t.scope(p);
        }
        if let Some(x) = &self.extra {
            for (_, v) in &x.values {
                t.value(*v);
            }
        }
        if let Some(a) = self.task {
            t.obj(a);
        }
    }
}
