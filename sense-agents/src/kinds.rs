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
use sense_eval::kind::{Declaration, ObjectKind};
use sense_eval::{EvalError, EvalResult, Value, Vm};

// The fixed parts of every kind, written by the core's macros.
pub(crate) use sense_eval::{ext_object, kind_names};

/// A declaration statement's fixed parts: the unit struct (with the docs
/// given), its registered static (`$stat`, for `install`), and the
/// `impl Declaration` whose `name` is the statement's keyword and whose
/// `declare` is the function given.
macro_rules! declaration {
    ($(#[$doc:meta])* $ty:ident => $stat:ident, $keyword:literal, $declare:path) => {
        $(#[$doc])*
        pub struct $ty;

        #[doc = concat!("The registered [`", stringify!($ty), "`].")]
        pub static $stat: $ty = $ty;

        impl sense_eval::kind::Declaration for $ty {
            fn name(&self) -> &'static str {
                $keyword
            }

            fn declare(
                &self,
                vm: &mut sense_eval::Vm,
                decl: &sense_eval::proto::DeclInfo,
                value: sense_eval::Value,
                file: sense_eval::proto::FileId,
            ) -> sense_eval::EvalResult<()> {
                $declare(vm, decl, value, file)
            }
        }
    };
}
pub(crate) use declaration;

/// A snapshot check of a kind whose data holds an Array of tools (a
/// skill, an MCP server): `tools` is there and is one.
pub(crate) fn tools_are_an_array(
    heap: &sense_eval::heap::Heap,
    tools: Option<Value>,
    whose: &str,
) -> Result<(), String> {
    match tools {
        Some(Value::Array(r))
            if matches!(heap.try_get(r), Some(sense_eval::object::Obj::Array(_))) =>
        {
            Ok(())
        }
        _ => Err(format!("{whose} tools are not an array")),
    }
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

/// The object kinds of this crate, in registration order.
const KINDS: [&dyn ObjectKind; 11] = [
    &model::MODEL,
    &answer::ANSWER,
    &skill::SKILL,
    &tool_server::MCP_SERVER,
    &tool_server::MCP_TOOL,
    &memory::MEMORY,
    &tool::TOOL,
    &action::ACTION_DECL,
    &action::ACTION,
    &crate::policy::POLICY,
    &budget::SPEND_KIND,
];

/// The declarations (`model`, `memory`, `tool`, `action`, `policy`
/// statements) of this crate, in registration order.
const DECLARATIONS: [&dyn Declaration; 5] = [
    &model::MODEL_DECL,
    &memory::MEMORY_DECL,
    &tool::TOOL_DECL,
    &action::ACTION_DECLARATION,
    &crate::policy::POLICY_DECL,
];

/// Registers every kind and native of this crate on `vm` (before anything
/// runs, so the natives keep their place among the builtins).
pub(crate) fn install(vm: &mut Vm) {
    vm.register_task_kind(&agent::AGENT);
    for kind in KINDS {
        vm.register_kind(kind);
    }
    for decl in DECLARATIONS {
        vm.register_declaration(decl);
    }
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
