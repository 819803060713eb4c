//! The slots a higher crate attaches to scopes (see
//! [`ScopeExtra`](crate::scope::ScopeExtra)): values by key, looked up
//! along the scope chain (a policy, the model `set delegation` chose),
//! and a label naming the execution boundary a scope is (a tool's body).

use super::Vm;
use crate::heap::{ObjRef, ScopeRef};
use crate::value::Value;

impl Vm {
    /// The scope `s` is nested in (`None` for the global scope).
    pub fn scope_parent(&self, s: ScopeRef) -> Option<ScopeRef> {
        self.heap.scope(s).parent
    }

    /// The value attached to `s` under `key`.
    pub fn scope_value(&self, s: ScopeRef, key: &str) -> Option<Value> {
        let x = self.heap.scope(s).extra.as_ref()?;
        x.values.iter().find(|(k, _)| &**k == key).map(|(_, v)| *v)
    }

    /// The value under `key` of the innermost scope from `s` outwards that
    /// has one.
    pub fn find_scope_value(&self, s: ScopeRef, key: &str) -> Option<Value> {
        let mut at = Some(s);
        while let Some(cur) = at {
            if let Some(v) = self.scope_value(cur, key) {
                return Some(v);
            }
            at = self.scope_parent(cur);
        }
        None
    }

    /// Attaches `v` to `s` under `key` (replacing an earlier one).
    pub fn set_scope_value(&mut self, s: ScopeRef, key: &str, v: Value) {
        let x = self.heap.scope_mut(s).extra_mut();
        match x.values.iter_mut().find(|(k, _)| &**k == key) {
            Some(slot) => slot.1 = v,
            None => x.values.push((key.into(), v)),
        }
    }

    /// The label of `s`, if it is a labelled execution boundary.
    pub fn scope_label(&self, s: ScopeRef) -> Option<&str> {
        self.heap.scope(s).extra.as_ref()?.label.as_deref()
    }

    /// Labels `s` as an execution boundary (e.g. `tool:fetch`).
    pub fn set_scope_label(&mut self, s: ScopeRef, label: String) {
        self.heap.scope_mut(s).extra_mut().label = Some(label);
    }

    /// The task whose body scope `s` is.
    pub fn scope_task(&self, s: ScopeRef) -> Option<ObjRef> {
        self.heap.scope(s).task
    }

    /// The scope a declaration statement running now defines into.
    pub fn current_define_scope(&mut self) -> ScopeRef {
        self.define_scope()
    }
}
