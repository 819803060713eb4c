//! The registries of a VM: the natives it can call (core builtins, then
//! those higher crates and hosts register), the object and declaration
//! kinds of the extension seam ([`crate::kind`]), and the state higher
//! crates keep for their kinds.
//!
//! Natives, kinds and declarations are found again by name when a
//! snapshot is restored, so the restoring VM must have registered the
//! same ones; the extension states are never saved, the saved states are (each by
//! its name, through its own encoding).

use crate::builtins::NativeDef;
use crate::kind::{Declaration, ObjectKind};
use std::any::Any;

/// What a VM can call and which kinds it knows.
#[derive(Default)]
pub(crate) struct Registries {
    /// Natives, indexed by [`NativeId`](crate::value::NativeId).
    pub(crate) natives: Vec<NativeDef>,
    /// Object kinds registered through the seam.
    pub(crate) kinds: Vec<&'static dyn ObjectKind>,
    /// Declaration kinds run by `Declare`, by their keyword.
    pub(crate) declarations: Vec<&'static dyn Declaration>,
    /// State of higher crates (see [`Vm::set_ext_state`](crate::Vm::set_ext_state)).
    pub(crate) ext_states: Vec<Box<dyn Any + Send>>,
    /// Higher crates' states that snapshots carry
    /// ([`Vm::register_saved_state`](crate::Vm::register_saved_state)).
    pub(crate) saved_states: Vec<super::ext_state::SavedStateEntry>,
    /// `set NAME = value` targets ([`Vm::register_setting`](crate::Vm::register_setting)).
    pub(crate) settings: Vec<(&'static str, super::SettingHook)>,
    /// The built-in modules' members ([`crate::stdlib`]).
    pub(crate) modules: Vec<crate::stdlib::BuiltinModule>,
}

impl Registries {
    /// Adds an object kind, replacing one of the same name.
    pub(crate) fn add_kind(&mut self, kind: &'static dyn ObjectKind) {
        self.kinds.retain(|k| k.name() != kind.name());
        self.kinds.push(kind);
    }

    /// The object kind registered as `name`.
    pub(crate) fn kind_named(&self, name: &str) -> Option<&'static dyn ObjectKind> {
        self.kinds.iter().copied().find(|k| k.name() == name)
    }

    /// The object kind that claims the annotation `name`, if any.
    pub(crate) fn kind_annotated(&self, name: &str) -> Option<&'static dyn ObjectKind> {
        self.kinds
            .iter()
            .copied()
            .find(|k| k.matches_annotation(name))
    }

    /// Adds a declaration kind, replacing one of the same keyword.
    pub(crate) fn add_declaration(&mut self, decl: &'static dyn Declaration) {
        self.declarations.retain(|d| d.name() != decl.name());
        self.declarations.push(decl);
    }

    /// The declaration kind registered for `keyword`.
    pub(crate) fn declaration(&self, keyword: &str) -> Option<&'static dyn Declaration> {
        self.declarations
            .iter()
            .copied()
            .find(|d| d.name() == keyword)
    }

    /// Keeps state of type `T`, replacing an earlier `T`.
    pub(crate) fn set_state<T: Send + 'static>(&mut self, state: T) {
        self.ext_states.retain(|s| !(**s).is::<T>());
        self.ext_states.push(Box::new(state));
    }

    /// The state of type `T`, if it was set.
    pub(crate) fn state_ref<T: Send + 'static>(&self) -> Option<&T> {
        self.ext_states
            .iter()
            .find_map(|s| (**s).downcast_ref::<T>())
    }

    /// The state of type `T`, mutably, if it was set.
    pub(crate) fn state_mut<T: Send + 'static>(&mut self) -> Option<&mut T> {
        self.ext_states
            .iter_mut()
            .find_map(|s| (**s).downcast_mut::<T>())
    }
}
