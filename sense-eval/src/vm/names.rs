//! Name resolution over the live scope chain (the book: scope.md "The assignment rule").

use super::Vm;
use crate::heap::ScopeRef;
use crate::symbol::Symbol;
use crate::value::Value;

impl Vm {
    /// Reads `sym` walking outwards from `env`.
    #[inline]
    pub(crate) fn lookup(&self, env: ScopeRef, sym: Symbol) -> Option<Value> {
        let mut scope = self.heap.scope(env);
        loop {
            if let Some(v) = scope.vars.get(sym) {
                return Some(v);
            }
            scope = self.heap.scope(scope.parent?);
        }
    }

    /// `Op::Bump`: finds `sym` as [`lookup`](Self::lookup) does and, when
    /// it holds an Int that `delta` can be added to without overflow,
    /// updates it in place. The binding found is the one `x = x + k`
    /// would overwrite (assignment writes the nearest binding, the one
    /// the read found), so this is the statement's whole effect.
    pub(crate) fn bump(&mut self, env: ScopeRef, sym: Symbol, delta: i64) -> Bumped {
        let mut s = Some(env);
        while let Some(cur) = s {
            let scope = self.heap.scope_mut(cur);
            if let Some(slot) = scope.vars.get_mut(sym) {
                if let Value::Int(x) = *slot
                    && let Some(r) = x.checked_add(delta)
                {
                    *slot = Value::Int(r);
                    return Bumped::Done;
                }
                return Bumped::Read(*slot);
            }
            s = scope.parent;
        }
        Bumped::Undefined
    }

    /// The single assignment rule: overwrite the nearest existing binding,
    /// else create one in the innermost scope.
    pub(crate) fn assign(&mut self, sym: Symbol, v: Value) {
        if self.assign_existing(self.env(), sym, v) {
            return;
        }
        let scope = self.define_scope();
        self.heap.scope_mut(scope).vars.define(sym, v);
    }

    /// Overwrites the nearest binding of `sym` from `env` outwards; false
    /// when there is none.
    #[inline]
    pub(crate) fn assign_existing(&mut self, env: ScopeRef, sym: Symbol, v: Value) -> bool {
        let mut s = Some(env);
        while let Some(cur) = s {
            let scope = self.heap.scope_mut(cur);
            if scope.vars.set_existing(sym, v) {
                return true;
            }
            s = scope.parent;
        }
        false
    }

    /// The scope a declaration defines into: the innermost block's scope,
    /// created now if the block has none yet (block scopes are lazy: a
    /// block that never defines a name never allocates one).
    pub(crate) fn define_scope(&mut self) -> ScopeRef {
        let Some(frame) = self.cur.frames.last() else {
            return self.globals;
        };
        let env = frame.env;
        let open_virtual = self.cur.blocks.len() > frame.block_base as usize
            && self.cur.blocks.last() == Some(&env);
        if open_virtual {
            let fresh = self.heap.new_scope(env);
            self.set_env(fresh);
            fresh
        } else {
            env
        }
    }

    /// Creates a scope under `parent`.
    pub(crate) fn child_scope(&mut self, parent: ScopeRef) -> ScopeRef {
        self.heap.new_scope(parent)
    }

    /// The current scope, marked captured (a closure, agent, tool, action
    /// or bound method is about to keep it).
    pub(crate) fn capture_env(&mut self, env: ScopeRef) -> ScopeRef {
        self.heap.capture_scope(env);
        env
    }
}

/// What [`Vm::bump`] did.
pub(crate) enum Bumped {
    /// Updated in place: the `AddInt`/`SubInt` and `StorePop` are skipped.
    Done,
    /// Not an Int (or it would overflow): the value read, for the
    /// ordinary path.
    Read(Value),
    /// Not bound anywhere.
    Undefined,
}
