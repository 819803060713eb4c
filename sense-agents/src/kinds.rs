//! Object kinds and natives of the agent layer, added to the core through
//! its seam ([`sense_eval::kind`]): one module per object kind, each owning
//! everything about it (its data, type name, rendering, members and
//! methods, GC tracing, snapshot codec and the natives that create it).
//!
//! Every `Runtime` registers them all on its new VM (`install`, private); a host adds its own kinds
//! the same way with [`Runtime::register_kind`] and
//! [`Runtime::register_native`].

pub mod action;
pub mod agent;
pub mod answer;
pub mod budget;
pub mod memory;
pub mod mock_script;
pub mod model;
pub mod model_tools;
pub mod skill;
mod structured;
pub mod tool;
pub mod tool_server;

use crate::Runtime;
use sense_eval::builtins::NativeDef;
use sense_eval::heap::ObjRef;
use sense_eval::kind::{ExtObject, ObjectKind};
use sense_eval::{EvalError, EvalResult, Value, Vm};

/// `impl ExtObject for $data`, an object of the kind `$kind`: `trace`
/// calls the function given (`|data, tracer| …`), `encode` is the serde
/// encoding every kind uses, and any other method is given after a `;`.
/// With a `"what"` (`"a skill"`), `$data::of(vm, obj)` is also written:
/// the data of `obj`, else the runtime error `not a skill`.
macro_rules! ext_object {
    ($data:ty => $kind:path $(, $what:literal)?, trace: $trace:expr $(; $($rest:tt)*)?) => {
        impl sense_eval::kind::ExtObject for $data {
            fn kind(&self) -> &'static dyn sense_eval::kind::ObjectKind {
                &$kind
            }
            fn trace(&self, tracer: &mut sense_eval::heap::Tracer) {
                let trace: fn(&Self, &mut sense_eval::heap::Tracer) = $trace;
                trace(self, tracer);
            }
            fn encode(&self) -> Result<Vec<u8>, String> {
                sense_eval::kind::to_bytes(self)
            }
            $($($rest)*)?
        }
        $(
            impl $data {
                fn of(
                    vm: &sense_eval::Vm,
                    obj: sense_eval::heap::ObjRef,
                ) -> sense_eval::EvalResult<&Self> {
                    $crate::kinds::data(vm, obj, $what)
                }
            }
        )?
    };
}
pub(crate) use ext_object;

/// Inside `impl ObjectKind`: its `name` and `type_name`, with
/// `host_class:` its `host_class` (else the default, the type name), with
/// `named:` an `object_name` that is that data's `name` field, and with
/// `decodes:` a `decode` of that data's serde encoding.
macro_rules! kind_names {
    (
        name: $name:literal,
        type_name: $type_name:literal
        $(, host_class: $host_class:literal)?
        $(, named: $named:ty)?
        $(, decodes: $data:ty)? $(,)?
    ) => {
        fn name(&self) -> &'static str {
            $name
        }
        fn type_name(&self) -> &'static str {
            $type_name
        }
        $(
            fn host_class(&self, _: &sense_eval::Vm, _: sense_eval::heap::ObjRef) -> &'static str {
                $host_class
            }
        )?
        $(
            fn object_name(&self, vm: &sense_eval::Vm, obj: sense_eval::heap::ObjRef) -> String {
                vm.ext_ref::<$named>(obj)
                    .map(|d| d.name.clone())
                    .unwrap_or_default()
            }
        )?
        $(
            fn decode(
                &self,
                bytes: &[u8],
            ) -> Result<Box<dyn sense_eval::kind::ExtObject>, String> {
                Ok(Box::new(sense_eval::kind::from_bytes::<$data>(bytes)?))
            }
        )?
    };
}
pub(crate) use kind_names;

/// The data of `obj` as a `T`, else the runtime error `not WHAT`.
pub(crate) fn data<'v, T: ExtObject>(vm: &'v Vm, obj: ObjRef, what: &str) -> EvalResult<&'v T> {
    vm.ext_ref::<T>(obj)
        .ok_or_else(|| EvalError::runtime(format!("not {what}")))
}

/// The labeled arguments of the native `callee` being called, unless one
/// is not among `allowed`: then the reference's words for a label it does
/// not take (it takes none), naming every label given, in order.
pub(crate) fn labeled_args(
    vm: &Vm,
    callee: &str,
    allowed: &[&str],
) -> EvalResult<Vec<(String, Value)>> {
    let labels = vm.labeled_args();
    if labels.iter().any(|(n, _)| !allowed.contains(&n.as_str())) {
        let given: Vec<&str> = labels.iter().map(|(n, _)| n.as_str()).collect();
        return Err(EvalError::runtime(format!(
            "'{callee}' does not accept labeled arguments ({})",
            given.join(", ")
        )));
    }
    Ok(labels)
}

/// An amount (a price, a budget): nil for none, or a finite number of at
/// least 0; anything else is given back as the error.
pub(crate) fn amount(v: Value) -> Result<Option<f64>, Value> {
    match v {
        Value::Nil => Ok(None),
        Value::Int(i) if i >= 0 => Ok(Some(i as f64)),
        Value::Float(f) if f >= 0.0 && f.is_finite() => Ok(Some(f)),
        other => Err(other),
    }
}

/// Registers every kind and native of this crate on `vm` (before anything
/// runs, so the natives keep their place among the builtins).
pub(crate) fn install(vm: &mut Vm) {
    vm.register_task_kind(&agent::AGENT);
    vm.register_kind(&model::MODEL);
    vm.register_kind(&answer::ANSWER);
    vm.register_kind(&skill::SKILL);
    vm.register_kind(&tool_server::MCP_SERVER);
    vm.register_kind(&tool_server::MCP_TOOL);
    vm.register_kind(&memory::MEMORY);
    vm.register_kind(&tool::TOOL);
    vm.register_kind(&action::ACTION_DECL);
    vm.register_kind(&action::ACTION);
    vm.register_kind(&crate::policy::POLICY);
    vm.register_kind(&budget::SPEND_KIND);
    vm.register_declaration(&model::MODEL_DECL);
    vm.register_declaration(&memory::MEMORY_DECL);
    vm.register_declaration(&tool::TOOL_DECL);
    vm.register_declaration(&action::ACTION_DECLARATION);
    vm.register_declaration(&crate::policy::POLICY_DECL);
    vm.register_setting("delegation", model::set_delegation);
    crate::audit::install(vm);
    crate::deadline::install(vm);
    // Persistent memories are SQLite logs unless the host chooses a store
    // (`Runtime::set_memory_store`).
    vm.set_ext_state(memory::MemoryStore(crate::memory::open_sqlite));
    for def in natives() {
        vm.register_native(def);
    }
    crate::stdlib::install(vm);
}

/// Every native this crate adds to the core's builtins, in the order they
/// are installed.
pub fn natives() -> Vec<NativeDef> {
    let mut v = agent::natives();
    v.extend(crate::audit::natives());
    v.extend(model::natives());
    v.extend(skill::natives());
    v.extend(tool_server::natives());
    v.extend(budget::natives());
    v
}

/// Every builtin a [`Runtime`] has: the core's and this crate's.
pub fn builtins() -> Vec<NativeDef> {
    let mut v = sense_eval::builtins::core_natives();
    v.extend(natives());
    v
}

impl Runtime {
    /// Registers an object kind, so that its objects can be restored from
    /// a snapshot (register it before [`Runtime::restore_snapshot`]).
    pub fn register_kind(&mut self, kind: &'static dyn ObjectKind) {
        self.vm().register_kind(kind);
    }

    /// Dry run (`sense run --dry-run`): action commits and rollbacks are
    /// checked against policy and audited but run no bodies. Off by
    /// default; not part of a snapshot.
    pub fn set_dry_run(&mut self, on: bool) {
        self.vm().set_ext_state(action::DryRun(on));
    }

    /// Whether dry run is on ([`Runtime::set_dry_run`]).
    pub fn dry_run(&self) -> bool {
        self.vm_ref()
            .ext_state_ref::<action::DryRun>()
            .is_some_and(|d| d.0)
    }

    /// Chooses where `persistent memory` logs are kept: `open` opens
    /// (creating if needed) the log at a path. The default is the SQLite
    /// log of [`crate::memory::open_sqlite`]. Set it before running code or
    /// restoring a snapshot that declares persistent memories.
    pub fn set_memory_store(&mut self, open: memory::MemoryOpener) {
        self.vm().set_ext_state(memory::MemoryStore(open));
    }

    /// Installs a native function (a builtin written against the VM, such
    /// as the one that creates an object of a registered kind) and binds
    /// it in the global scope.
    pub fn register_native(&mut self, def: NativeDef) {
        self.vm().register_native(def);
    }
}
