//! Host-layer state that is part of a snapshot, and `set NAME = value`
//! targets: both registered by a higher crate, named by text so the core
//! knows neither.

use super::Vm;
use crate::error::{EvalError, EvalResult};
use crate::value::Value;

/// State a higher crate keeps in the VM ([`Vm::set_ext_state`]) that a
/// snapshot carries (e.g. a log of what the program did). Register it
/// with [`Vm::register_saved_state`]. A snapshot that does not hold it
/// restores it as its `Default`.
pub trait SavedState: Default + Send + Sized + 'static {
    /// The name its bytes are stored under: renaming it breaks old
    /// snapshots.
    const NAME: &'static str;
    /// Its snapshot bytes.
    fn encode(&self) -> Result<Vec<u8>, String>;
    /// Rebuilds it from [`encode`](Self::encode)'s bytes; damaged bytes
    /// are an `Err`, never a panic.
    fn decode(bytes: &[u8]) -> Result<Self, String>;
    /// True when it holds nothing its `Default` does not: then a snapshot
    /// leaves it out (restoring it is the same as starting afresh), so
    /// snapshots of programs that never touched it stay as they were.
    fn is_unused(&self) -> bool {
        false
    }
}

/// Encodes a state, if the VM holds it.
type SaveFn = fn(&Vm) -> Option<Result<Vec<u8>, String>>;

/// A registered [`SavedState`], with its type erased.
#[derive(Clone, Copy)]
pub(crate) struct SavedStateEntry {
    pub(crate) name: &'static str,
    pub(crate) save: SaveFn,
    pub(crate) load: fn(&mut Vm, &[u8]) -> Result<(), String>,
    pub(crate) reset: fn(&mut Vm),
}

fn save<T: SavedState>(vm: &Vm) -> Option<Result<Vec<u8>, String>> {
    vm.ext_state_ref::<T>()
        .filter(|s| !s.is_unused())
        .map(T::encode)
}

fn reset<T: SavedState>(vm: &mut Vm) {
    vm.set_ext_state(T::default());
}

fn load<T: SavedState>(vm: &mut Vm, bytes: &[u8]) -> Result<(), String> {
    let state = T::decode(bytes)?;
    vm.set_ext_state(state);
    Ok(())
}

/// What `set NAME = value` does for one registered `NAME`.
pub type SettingHook = fn(&mut Vm, Value) -> EvalResult<()>;

impl Vm {
    /// Makes state `T` (set with [`Vm::set_ext_state`]) part of every
    /// snapshot; restoring replaces it with the saved one.
    pub fn register_saved_state<T: SavedState>(&mut self) {
        self.registries.saved_states.retain(|s| s.name != T::NAME);
        self.registries.saved_states.push(SavedStateEntry {
            name: T::NAME,
            save: save::<T>,
            load: load::<T>,
            reset: reset::<T>,
        });
    }

    /// Every registered saved state present, as name and bytes.
    pub(crate) fn encode_saved_states(&self) -> EvalResult<Vec<(String, Vec<u8>)>> {
        let mut out = Vec::new();
        for s in &self.registries.saved_states {
            if let Some(bytes) = (s.save)(self) {
                let bytes = bytes.map_err(|m| {
                    EvalError::runtime(format!("cannot save state '{}': {m}", s.name))
                })?;
                out.push((s.name.to_string(), bytes));
            }
        }
        Ok(out)
    }

    /// Restores the saved states of a snapshot through the registry (a
    /// registered state the snapshot does not hold starts afresh).
    pub(crate) fn decode_saved_states(&mut self, states: &[(String, Vec<u8>)]) -> EvalResult<()> {
        let corrupt = |what: String| EvalError::runtime(format!("cannot restore snapshot: {what}"));
        for entry in self.registries.saved_states.clone() {
            if !states.iter().any(|(name, _)| name == entry.name) {
                (entry.reset)(self);
            }
        }
        for (name, bytes) in states {
            let Some(entry) = self
                .registries
                .saved_states
                .iter()
                .find(|s| s.name == name)
                .copied()
            else {
                return Err(corrupt(format!(
                    "it holds state '{name}', which is not registered in this runtime"
                )));
            };
            (entry.load)(self, bytes)
                .map_err(|m| corrupt(format!("its state '{name}' is damaged ({m})")))?;
        }
        Ok(())
    }

    /// Registers what `set NAME = value` does for `name` (replacing an
    /// earlier hook for it).
    pub fn register_setting(&mut self, name: &'static str, hook: SettingHook) {
        self.registries.settings.retain(|(n, _)| *n != name);
        self.registries.settings.push((name, hook));
    }

    /// `set NAME = value`, through the registered hook (out of line: see
    /// `Vm::exec_declare`).
    #[cold]
    #[inline(never)]
    pub(crate) fn exec_set(&mut self, name: crate::symbol::Symbol, v: Value) -> EvalResult<()> {
        let target = self.interner.name(name);
        if let Some(&(_, hook)) = self.registries.settings.iter().find(|(n, _)| *n == target) {
            return hook(self, v);
        }
        let known: Vec<String> = self
            .registries
            .settings
            .iter()
            .map(|(n, _)| format!("'{n}'"))
            .collect();
        let known = if known.is_empty() {
            "none is supported in this runtime".to_string()
        } else {
            format!("only {} is supported so far", known.join(", "))
        };
        Err(EvalError::runtime(format!(
            "unknown 'set' target '{target}' ({known})"
        )))
    }
}
