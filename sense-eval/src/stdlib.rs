//! The built-in modules of the standard library (issue 23): `json`,
//! `math`, `time`, `os`, `random` and `re`, bound by `import NAME` when no
//! file `NAME.sns` answers the import, and by `import python "NAME"`.
//!
//! A module is a list of members kept in the VM's registries: natives
//! (registered under `module.member`, never bound as globals, found again
//! by that name when a snapshot is restored) and constants. The first
//! import of a module in a run builds its module object (a scope holding
//! the members) and caches it with the file modules, so every import sees
//! the same object. Where a member needs the agent layer (`os.getenv`'s
//! capability check, `time.sleep`'s durable timer) that layer replaces the
//! core's plain one (which reads the environment unchecked, and blocks)
//! through [`Vm::register_module_native`]; the same name keeps snapshots
//! of either restorable in both.
//!
//! Nothing here opens a connection or starts a process.

mod args;
mod json;
mod json_loads;
mod math;
mod os;
mod random;
mod re;
mod time;

use crate::builtins::NativeDef;
use crate::heap::ObjRef;
use crate::object::{ModuleObj, Obj};
use crate::scope::Scope;
use crate::value::{NativeId, Value};
use crate::vm::{ModuleEntry, Vm};
use std::path::PathBuf;

pub use os::getenv;
pub use random::RandomState;
pub use time::{sleep_duration, unix_now};

/// The names of the built-in modules, in the order the book lists them.
pub const MODULE_NAMES: [&str; 6] = ["json", "math", "time", "os", "random", "re"];

/// One member of a built-in module.
#[derive(Clone, Debug)]
pub(crate) enum Member {
    /// A native (named `module.member`). Its index in the VM's native
    /// table is looked up by that name when the module object is built,
    /// since a restored snapshot brings its own table.
    Native(NativeDef),
    /// A constant (numbers only: no heap object to keep alive).
    Const(Value),
}

/// A built-in module's members, by name.
#[derive(Clone, Debug, Default)]
pub(crate) struct BuiltinModule {
    pub(crate) name: &'static str,
    pub(crate) members: Vec<(&'static str, Member)>,
}

/// Installs the core's modules and their saved state in a fresh VM.
pub(crate) fn install(vm: &mut Vm) {
    for name in MODULE_NAMES {
        vm.ensure_module(name);
    }
    math::install(vm);
    os::install(vm);
    random::install(vm);
    time::install(vm);
    re::install(vm);
    json::install(vm);
}

impl Vm {
    /// Makes sure the registry knows module `name` (possibly empty).
    fn ensure_module(&mut self, name: &'static str) {
        let modules = &mut self.registries.modules;
        if !modules.iter().any(|m| m.name == name) {
            modules.push(BuiltinModule {
                name,
                members: Vec::new(),
            });
        }
    }

    fn set_member(&mut self, module: &'static str, member: &'static str, value: Member) {
        self.ensure_module(module);
        if let Some(entry) = self
            .registries
            .modules
            .iter_mut()
            .find(|m| m.name == module)
        {
            entry.members.retain(|(n, _)| *n != member);
            entry.members.push((member, value));
        }
    }

    /// Adds `def` as member `member` of the built-in module `module`
    /// (`import module` binds it), replacing an earlier member of that
    /// name. The native is known as `module.member` in messages and
    /// snapshots, and is not a global. Register before running code or
    /// restoring a snapshot.
    pub fn register_module_native(
        &mut self,
        module: &'static str,
        member: &'static str,
        mut def: NativeDef,
    ) {
        def.name = format!("{module}.{member}");
        // In the native table from the start, so a snapshot that uses it
        // finds it by name; a replacement takes effect there too, for
        // module objects already built.
        let natives = &mut self.registries.natives;
        match natives.iter_mut().find(|d| d.name == def.name) {
            Some(slot) => *slot = def.clone(),
            None => natives.push(def.clone()),
        }
        self.set_member(module, member, Member::Native(def));
    }

    /// Adds a numeric constant to a built-in module.
    pub(crate) fn register_module_const(
        &mut self,
        module: &'static str,
        member: &'static str,
        value: Value,
    ) {
        self.set_member(module, member, Member::Const(value));
    }

    /// The module object of built-in module `name` (built on first use and
    /// cached with the file modules), or `None` when there is no such
    /// module.
    pub(crate) fn builtin_module(&mut self, name: &str) -> Option<ObjRef> {
        let path = builtin_path(name);
        if let Some(m) = self.code.modules.iter().find(|m| m.path == path) {
            return Some(m.obj);
        }
        let module = self
            .registries
            .modules
            .iter()
            .find(|m| m.name == name)?
            .clone();
        let env = self.heap.alloc_scope(Scope::new_big(None));
        for (member, value) in &module.members {
            let sym = self.interner.intern(member);
            let v = match value {
                Member::Native(def) => Value::Native(self.native_id(def)),
                Member::Const(v) => *v,
            };
            self.heap.scope_mut(env).vars.define(sym, v);
        }
        let obj = self.heap.alloc(Obj::Module(ModuleObj {
            name: module.name.to_string(),
            env,
        }));
        self.code.modules.push(ModuleEntry {
            path,
            obj,
            loaded: true,
        });
        Some(obj)
    }
}

impl Vm {
    /// The index of native `def` in the table, found by name (added when
    /// missing).
    fn native_id(&mut self, def: &NativeDef) -> NativeId {
        let natives = &mut self.registries.natives;
        let at = match natives.iter().position(|d| d.name == def.name) {
            Some(at) => at,
            None => {
                natives.push(def.clone());
                natives.len() - 1
            }
        };
        NativeId(at as u32)
    }
}

/// The path a built-in module is cached under: no file has it.
fn builtin_path(name: &str) -> PathBuf {
    PathBuf::from(format!("<builtin>/{name}"))
}
