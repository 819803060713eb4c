//! Values the host holds in a runtime: retained references, as Lua's
//! `luaL_ref` gives. Any value can be held — a function, a closure with
//! its state, a builtin, an array — and stays alive (a collection root)
//! until released; the host reads it back or calls it with host values.
//! A held function can therefore be called after the global that named it
//! was rebound, and a function a call returned can be kept and called
//! later.
//!
//! Each held value is a one-element array the VM holds (see
//! [`sense_eval::Vm::hold`]); its id is a counter that is never reused, so
//! a released id stays invalid. Like agent holds, held values belong to
//! the host's side of the runtime: they are not saved in snapshots.

use crate::error::Error;
use crate::runtime::Runtime;
use sense_eval::heap::ObjRef;
use sense_eval::object::Obj;
use sense_eval::{HostValue, Value};

/// The id of a value held by [`Runtime::hold_value`] or
/// [`Runtime::hold_global`] (never 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HeldId(pub u64);

impl Runtime {
    /// Holds the current value of the main program's variable (or
    /// builtin) `name`; an error when nothing is bound to it.
    ///
    /// ```
    /// use sense_agents::{HostValue, Runtime};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "def twice(x):\n    return x * 2\n").unwrap();
    /// let f = rt.hold_global("twice").unwrap();
    /// rt.run_source("m.sns", "twice = 0\n").unwrap();
    /// assert_eq!(rt.call_held(f, &[HostValue::Int(4)]).unwrap(), HostValue::Int(8));
    /// rt.release_held(f).unwrap();
    /// assert!(rt.call_held(f, &[]).is_err());
    /// ```
    pub fn hold_global(&mut self, name: &str) -> Result<HeldId, Error> {
        let env = self.main_scope();
        let v = self.global_named(env, name, "global")?;
        Ok(self.hold_raw(v))
    }

    /// Holds a copy of a host value made into a Sense value (an agent
    /// value is the agent itself).
    pub fn hold_value(&mut self, value: &HostValue) -> Result<HeldId, Error> {
        let v = self
            .vm()
            .value_from_host(value)
            .map_err(|e| self.error(&e))?;
        Ok(self.hold_raw(v))
    }

    /// A host copy of a held value (a function comes out opaque).
    pub fn held_value(&self, id: HeldId) -> Result<HostValue, Error> {
        let v = self.held_raw(id)?;
        Ok(self.vm_ref().to_host(v))
    }

    /// Calls a held value (a function, a tool, a builtin, …) with copies of
    /// `args` and returns a copy of its result. It runs like
    /// [`Runtime::call`].
    pub fn call_held(&mut self, id: HeldId, args: &[HostValue]) -> Result<HostValue, Error> {
        let v = self.call_held_raw(id, args)?;
        Ok(self.vm_ref().to_host(v))
    }

    /// Like [`Runtime::call_held`], and also holds the result, so a
    /// function the call returns can be called in turn.
    pub fn call_held_and_hold(
        &mut self,
        id: HeldId,
        args: &[HostValue],
    ) -> Result<(HostValue, HeldId), Error> {
        let v = self.call_held_raw(id, args)?;
        // Held before anything else runs: nothing collects in between.
        let held = self.hold_raw(v);
        Ok((self.vm_ref().to_host(v), held))
    }

    /// Releases a held value; its id is invalid from now on. Releasing an
    /// id that is not held is an error.
    pub fn release_held(&mut self, id: HeldId) -> Result<(), Error> {
        let cell = self.held.remove(&id.0).ok_or_else(not_held)?;
        self.vm().unhold(cell);
        Ok(())
    }

    /// Whether a value is held under `id`.
    pub fn is_held(&self, id: HeldId) -> bool {
        self.held.contains_key(&id.0)
    }

    /// How many values the host holds.
    pub fn held_count(&self) -> usize {
        self.held.len()
    }

    fn hold_raw(&mut self, v: Value) -> HeldId {
        let cell = self.vm().heap_mut().alloc(Obj::Array(vec![v]));
        self.vm().hold(cell);
        self.next_held += 1;
        let id = self.next_held;
        self.held.insert(id, cell);
        HeldId(id)
    }

    fn held_raw(&self, id: HeldId) -> Result<Value, Error> {
        let cell: ObjRef = *self.held.get(&id.0).ok_or_else(not_held)?;
        match self.vm_ref().heap().try_get(cell) {
            Some(Obj::Array(items)) => items.first().copied().ok_or_else(not_held),
            _ => Err(not_held()),
        }
    }

    fn call_held_raw(&mut self, id: HeldId, args: &[HostValue]) -> Result<Value, Error> {
        let callee = self.held_raw(id)?;
        let env = self.main_scope();
        let scope = self.vm().host_scope(env);
        self.vm()
            .host_call(scope, callee, args, false)
            .map_err(|e| self.error(&e))
    }
}

fn not_held() -> Error {
    Error::host("no value is held under this id (released, or never held)")
}
