//! The VM's side of the object-kind seam (see [`crate::kind`]): the
//! registries of object and declaration kinds, typed access to extension
//! objects, method binding, host-layer state, and decoding the extension
//! objects of a snapshot through the registry.

use super::Vm;
use crate::error::{EvalError, EvalResult};
use crate::heap::{Heap, ObjRef};
use crate::kind::{Declaration, ExtObj, ExtObject, ObjectKind, Undecoded};
use crate::object::Obj;
use crate::symbol::Symbol;
use crate::value::Value;

impl Vm {
    /// Registers an object kind, so that snapshots holding its objects can
    /// be restored here (registering the same name again replaces it).
    pub fn register_kind(&mut self, kind: &'static dyn ObjectKind) {
        self.registries.add_kind(kind);
    }

    /// Registers what the tasks of this VM are (replacing any earlier
    /// one): their type name, printed form, members and refusals. Without
    /// one, task declarations are refused.
    pub fn register_task_kind(&mut self, kind: &'static dyn crate::kind::TaskKind) {
        self.task_kind = Some(kind);
        self.intern_task_members();
    }

    /// Interns the task kind's own member names (again after a restore
    /// replaced the symbol table).
    pub(crate) fn intern_task_members(&mut self) {
        let names = self.task_kind.map_or(&[][..], |k| k.members());
        let syms: Vec<Symbol> = names.iter().map(|n| self.interner.intern(n)).collect();
        self.task_members = TaskMembers::new(syms);
    }

    /// Registers a declaration kind (replacing one of the same name).
    pub fn register_declaration(&mut self, decl: &'static dyn Declaration) {
        self.registries.add_declaration(decl);
    }

    /// Runs `Declare(i)` of `proto` through its registered declaration
    /// kind. Kept out of line: the run loop's code stays as small as it
    /// was before declarations went through the seam (instruction counts).
    #[cold]
    #[inline(never)]
    pub(crate) fn exec_declare(&mut self, proto: &crate::proto::Proto, i: u32) -> EvalResult<()> {
        let Some(info) = proto.decls.get(i as usize) else {
            return Err(EvalError::runtime(
                "internal error: malformed code (damaged state)",
            ));
        };
        let value = if info.takes_value {
            self.pop()
        } else {
            Value::Nil
        };
        self.declare(info, value, proto.file)
    }

    fn declare(
        &mut self,
        info: &crate::proto::DeclInfo,
        value: Value,
        file: crate::proto::FileId,
    ) -> EvalResult<()> {
        let Some(decl) = self.registries.declaration(info.kind) else {
            return Err(EvalError::runtime(format!(
                "'{}' declarations are not available in this runtime",
                info.kind
            )));
        };
        decl.declare(self, info, value, file)
    }

    /// Defines `name` as `value` in the scope declarations define into.
    pub fn define_here(&mut self, name: crate::symbol::Symbol, value: Value) {
        let scope = self.define_scope();
        self.heap.scope_mut(scope).vars.define(name, value);
    }

    /// The labeled arguments of the native being called (one made
    /// [`with_labels`](crate::builtins::NativeDef::with_labels)), by name.
    pub fn labeled_args(&self) -> Vec<(String, Value)> {
        self.labeled
            .iter()
            .map(|(s, v)| (self.interner.name(*s).to_string(), *v))
            .collect()
    }

    /// Every extension object of type `T` in the heap.
    pub fn ext_objects<T: ExtObject>(&self) -> impl Iterator<Item = &T> {
        self.heap.objects().filter_map(|o| match o {
            Obj::Ext(e) => e.downcast_ref::<T>(),
            _ => None,
        })
    }

    /// The registered kind called `name`.
    pub fn kind_named(&self, name: &str) -> Option<&'static dyn ObjectKind> {
        self.registries.kind_named(name)
    }

    /// Allocates an extension object and returns it as a value.
    pub fn alloc_ext(&mut self, data: impl ExtObject) -> Value {
        Value::Obj(self.heap.alloc(Obj::Ext(ExtObj::new(data))))
    }

    /// The data of `v` if it is an extension object of type `T`.
    pub fn ext_value<T: ExtObject>(&self, v: Value) -> Option<&T> {
        match v {
            Value::Obj(r) => self.ext_ref(r),
            _ => None,
        }
    }

    /// The data of object `r` if it is an extension object of type `T`.
    pub fn ext_ref<T: ExtObject>(&self, r: ObjRef) -> Option<&T> {
        match self.heap.try_get(r) {
            Some(Obj::Ext(e)) => e.downcast_ref(),
            _ => None,
        }
    }

    /// The data of object `r`, mutably, if it is an extension object of type `T`.
    pub fn ext_mut<T: ExtObject>(&mut self, r: ObjRef) -> Option<&mut T> {
        match self.heap.get_mut(r) {
            Obj::Ext(e) => e.downcast_mut(),
            _ => None,
        }
    }

    /// Binds method `name` of `receiver` at the current scope and `line`
    /// (`obj.method` evaluated without a call); calling it runs
    /// [`ObjectKind::call_method`].
    pub fn bind_method(&mut self, receiver: ObjRef, name: &str, line: u32) -> Value {
        let method = crate::object::Method::Ext(self.interner.intern(name));
        let env = self.env();
        let env = self.capture_env(env);
        Value::Obj(self.heap.alloc(Obj::Bound(crate::object::BoundMethod {
            receiver,
            method,
            env,
            line,
        })))
    }

    /// Keeps host-layer state of type `T` in the VM (replacing an earlier
    /// `T`): where a higher crate keeps what its kinds and natives share
    /// (model providers, connections). Not part of a snapshot.
    pub fn set_ext_state<T: Send + 'static>(&mut self, state: T) {
        self.registries.set_state(state);
    }

    /// The host-layer state of type `T`, mutably, if it was set.
    pub fn ext_state_mut<T: Send + 'static>(&mut self) -> Option<&mut T> {
        self.registries.state_mut()
    }

    /// The host-layer state of type `T`, if it was set.
    pub fn ext_state_ref<T: Send + 'static>(&self) -> Option<&T> {
        self.registries.state_ref()
    }

    /// Replaces every extension object a snapshot held by the one its
    /// registered kind decodes, then checks it.
    pub(crate) fn decode_ext_objects(&self, heap: &mut Heap) -> EvalResult<()> {
        let corrupt = |what: String| EvalError::runtime(format!("cannot restore snapshot: {what}"));
        for obj in heap.objs_mut() {
            let Obj::Ext(e) = obj else { continue };
            let Some(raw) = e.downcast_ref::<Undecoded>() else {
                continue;
            };
            let Some(kind) = self.registries.kind_named(&raw.kind) else {
                return Err(corrupt(format!(
                    "it holds an object of kind '{}', which is not registered in this runtime",
                    raw.kind
                )));
            };
            let data = kind.decode(&raw.bytes).map_err(|m| {
                corrupt(format!("an object of kind '{}' is damaged ({m})", raw.kind))
            })?;
            if data.kind().name() != kind.name() {
                return Err(corrupt(format!(
                    "kind '{}' decoded an object of another kind",
                    raw.kind
                )));
            }
            e.0 = data;
        }
        Ok(())
    }
}

/// The symbols of the task kind's own members, with the range they lie
/// in: the kind's names are interned together, so the name of a variable
/// is almost always outside it and a member read of a task's variable is
/// one comparison here.
#[derive(Debug)]
pub(crate) struct TaskMembers {
    lo: u32,
    span: u32,
    syms: Vec<Symbol>,
}

impl TaskMembers {
    /// No members.
    pub(crate) fn none() -> Self {
        TaskMembers {
            lo: u32::MAX,
            span: 0,
            syms: Vec::new(),
        }
    }

    fn new(syms: Vec<Symbol>) -> Self {
        let lo = syms.iter().map(|s| s.0).min();
        let hi = syms.iter().map(|s| s.0).max();
        match (lo, hi) {
            (Some(lo), Some(hi)) => TaskMembers {
                lo,
                span: hi - lo,
                syms,
            },
            _ => TaskMembers::none(),
        }
    }

    /// True when `sym` is one of the members.
    #[inline]
    pub(crate) fn has(&self, sym: Symbol) -> bool {
        sym.0.wrapping_sub(self.lo) <= self.span && self.syms.contains(&sym)
    }
}

#[cfg(test)]
mod tests {
    use super::{Symbol, TaskMembers};

    #[test]
    fn task_members_are_found_inside_and_outside_a_gap() {
        let m = TaskMembers::new(vec![Symbol(7), Symbol(3), Symbol(10)]);
        for s in [3, 7, 10] {
            assert!(m.has(Symbol(s)), "{s}");
        }
        // Inside the range but not a member, below it, above it.
        for s in [4, 9, 0, 2, 11, u32::MAX] {
            assert!(!m.has(Symbol(s)), "{s}");
        }
        let none = TaskMembers::none();
        for s in [0, 1, u32::MAX] {
            assert!(!none.has(Symbol(s)), "{s}");
        }
    }
}
