//! What embedding hosts need beyond running programs: reading an agent's
//! members, keeping agents alive while the host holds them, and telling a
//! host function which agent called it.
//!
//! Held objects are collection roots that are *not* saved in snapshots
//! (like pause handles, they belong to the host's side of the runtime).

use super::Vm;
use crate::error::EvalResult;
use crate::heap::ObjRef;
use crate::object::Obj;
use crate::value::Value;
use std::sync::{Arc, Mutex};

/// The agent (heap slot and serial) whose code called the running host
/// function, if the call came from inside an agent. Shared with host
/// function closures, which read it while they run.
pub type CallerSlot = Arc<Mutex<Option<(ObjRef, u64)>>>;

impl Vm {
    /// `task.name` as Sense reads it (the task kind's member: for an
    /// agent, `status`, `name`, `pause_reason`, `doc`, or a variable of its
    /// scope or a scope it sees).
    pub fn task_member_named(&mut self, task: ObjRef, name: &str) -> EvalResult<Value> {
        let Some(sym) = self.interner.get(name) else {
            // No code uses the name: it is no variable, and no member.
            return Err(self.refusal(Some(task), crate::kind::Refusal::NoMember { name }));
        };
        self.task_member(task, sym)
    }

    /// Keeps `obj` (and all it reaches) alive until [`Vm::unhold`]; holds
    /// are counted.
    pub fn hold(&mut self, obj: ObjRef) {
        self.hooks.held.push(obj);
    }

    /// Drops one hold of `obj`. False if it was not held.
    pub fn unhold(&mut self, obj: ObjRef) -> bool {
        match self.hooks.held.iter().rposition(|&h| h == obj) {
            Some(i) => {
                self.hooks.held.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// How many holds `obj` has.
    pub fn hold_count(&self, obj: ObjRef) -> usize {
        self.hooks.held.iter().filter(|&&h| h == obj).count()
    }

    /// The slot naming the agent that called the running host function
    /// (see [`CallerSlot`]).
    pub fn caller_slot(&self) -> CallerSlot {
        self.hooks.caller.clone()
    }

    /// Records the caller of a host function about to run (the agent
    /// whose fiber is current, if any).
    pub(crate) fn set_caller(&self) -> Option<(ObjRef, u64)> {
        let caller = self.cur.task.and_then(|r| match self.heap.try_get(r) {
            Some(Obj::Task(a)) => Some((r, a.serial)),
            _ => None,
        });
        let mut slot = self.hooks.caller.lock().unwrap_or_else(|p| p.into_inner());
        std::mem::replace(&mut *slot, caller)
    }

    /// Puts back the caller a nested host call replaced.
    pub(crate) fn restore_caller(&self, previous: Option<(ObjRef, u64)>) {
        *self.hooks.caller.lock().unwrap_or_else(|p| p.into_inner()) = previous;
    }

    /// Binds `name` to `value` in `scope` (the assign-or-create rule of a
    /// top-level assignment there).
    pub fn define_named(&mut self, scope: crate::heap::ScopeRef, name: &str, value: Value) {
        let sym = self.interner.intern(name);
        self.heap.scope_mut(scope).vars.define(sym, value);
    }
}
