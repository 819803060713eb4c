//! What a live console (`sense inspect`) needs from a runtime: the
//! declared tools, actions and memories, prepared action instances, and
//! calling tools and running action steps from the host.
//!
//! Everything the host does here goes through the VM exactly as Sense code
//! written at the main program's top level would: a tool call is checked
//! against the main program's policy and audited, preparing an action and
//! its `.verify()` / `.approve()` / `.commit()` / `.rollback()` are the
//! same code paths as in a program. The calls run in a pinned child scope
//! of the main scope (so the program's own variables are untouched), which
//! also keeps the action instances the host prepared alive — across
//! collections and across a snapshot and restore.

pub use crate::audit::AuditEntry;
use crate::error::Error;
use crate::handle::AgentId;
pub use crate::kinds::action::ActionState;
use crate::kinds::action::{ActionDeclObj, ActionObj};
use crate::kinds::memory::MemoryObj;
use crate::kinds::tool::ToolObj;
use crate::runtime::Runtime;
use sense_eval::heap::{ObjRef, ScopeRef};
use sense_eval::kind::ExtObject;
use sense_eval::object::Obj;
use sense_eval::{EvalError, HostValue, Value, Vm};

/// A parameter of a tool or action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamReport {
    /// Its name.
    pub name: String,
    /// Its type annotation as written (`String`, `Array<Int>`, …), if any.
    pub type_name: Option<String>,
}

/// A declared tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolReport {
    /// How the host names it: the tool's name, or `name#slot` when several
    /// live tools share that name.
    pub key: String,
    /// Its name.
    pub name: String,
    /// Its parameters.
    pub params: Vec<ParamReport>,
    /// The declared return type, if any.
    pub returns: Option<String>,
    /// The description string.
    pub description: Option<String>,
    /// `requires CAP`.
    pub capability: Option<String>,
    /// `async tool`.
    pub is_async: bool,
    /// Whether a call from the main program's top level passes the policy
    /// check (always true without a capability).
    pub allowed: bool,
}

/// A declared action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionDeclReport {
    /// How the host names it: the action's name, or `name#slot` when
    /// several live declarations share that name.
    pub key: String,
    /// Its name.
    pub name: String,
    /// `reversible` or `irreversible`.
    pub kind: String,
    /// Its parameters.
    pub params: Vec<ParamReport>,
    /// `requires CAP`.
    pub capability: Option<String>,
    /// `requires approval`.
    pub approval: bool,
    /// It has a `rollback:` block.
    pub has_rollback: bool,
    /// Whether the capability check passes at the main program's top level.
    pub allowed: bool,
}

/// A prepared action instance.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionReport {
    /// Its id: the heap slot it lives in (checked on every use).
    pub id: u32,
    /// The action's name.
    pub name: String,
    /// `reversible` or `irreversible`.
    pub kind: String,
    /// `prepared`, `verified`, `committed`, `denied`, `failed` or `rolled_back`.
    pub state: &'static str,
    /// `.approve()` was called.
    pub approved: bool,
    /// The declaration needs approval before commit.
    pub requires_approval: bool,
    /// The declaration has a rollback block.
    pub has_rollback: bool,
    /// `requires CAP`.
    pub capability: Option<String>,
    /// Whether the capability check passes at the main program's top level.
    pub allowed: bool,
    /// The arguments it was prepared with.
    pub args: Vec<(String, HostValue)>,
}

/// A `memory` or `persistent memory`.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryReport {
    /// Its name.
    pub name: String,
    /// The kind string of an in-process memory.
    pub kind: Option<String>,
    /// A persistent memory's database file.
    pub path: Option<String>,
    /// Its entries (current values), in order.
    pub entries: Vec<(String, HostValue)>,
    /// Why the entries could not be read (a persistent memory's database).
    pub error: Option<String>,
}

/// A step of an action instance's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionStep {
    /// `.verify()`
    Verify,
    /// `.approve()`
    Approve,
    /// `.commit()`
    Commit,
    /// `.rollback()`
    Rollback,
}

impl ActionStep {
    /// The step named `verify`, `approve`, `commit` or `rollback`.
    pub fn parse(name: &str) -> Option<ActionStep> {
        Some(match name {
            "verify" => ActionStep::Verify,
            "approve" => ActionStep::Approve,
            "commit" => ActionStep::Commit,
            "rollback" => ActionStep::Rollback,
            _ => return None,
        })
    }

    fn method(self) -> &'static str {
        match self {
            ActionStep::Verify => "verify",
            ActionStep::Approve => "approve",
            ActionStep::Commit => "commit",
            ActionStep::Rollback => "rollback",
        }
    }
}

/// Gives `name` a key: the name alone when it is unique among `names`,
/// else `name#slot`.
fn key(names: &[(u32, String)], slot: u32, name: &str) -> String {
    if names.iter().filter(|(_, n)| n == name).count() > 1 {
        format!("{name}#{slot}")
    } else {
        name.to_string()
    }
}

impl Runtime {
    /// The main program's scope (created on first use, as for a run).
    fn inspect_main(&mut self) -> ScopeRef {
        if let Some(env) = self.main_env {
            return env;
        }
        let env = self.vm().new_module_scope();
        self.vm().pin_scope(env);
        self.main_env = Some(env);
        env
    }

    /// Whether `cap` passes the policy check at the main program's top level.
    fn allowed_at_top(&self, cap: Option<&str>) -> bool {
        let vm = self.vm_ref();
        let env = self.main_env.unwrap_or_else(|| vm.globals());
        cap.is_none_or(|c| crate::policy::capability_allowed(vm, env, c))
    }

    /// Runs a generated host call in `scope` and then drops the line of
    /// the audit entries the generated line itself recorded there (its
    /// line 1 means nothing in the program).
    fn host_audited<T>(&mut self, scope: ScopeRef, f: impl FnOnce(&mut Vm) -> T) -> T {
        let vm = self.vm();
        let lineage = crate::audit::lineage(vm, scope);
        let from = crate::audit::entries(vm).len();
        let out = f(vm);
        if let Some(log) = crate::audit::entries_mut(vm) {
            for e in log.iter_mut().skip(from) {
                if e.line == Some(1) && e.lineage == lineage {
                    e.line = None;
                }
            }
        }
        out
    }

    /// Every live object that `pick` accepts, with its heap slot, in slot order.
    fn objects<T>(&self, mut pick: impl FnMut(&Obj) -> Option<T>) -> Vec<(u32, T)> {
        let heap = self.vm_ref().heap();
        (0..heap.obj_slots() as u32)
            .filter_map(|i| heap.try_get(ObjRef(i)).and_then(&mut pick).map(|t| (i, t)))
            .collect()
    }

    /// Every live extension object that is a `T`, with its heap slot, in
    /// slot order.
    fn ext_objects<T: ExtObject + Clone>(&self) -> Vec<(u32, T)> {
        self.objects(|o| match o {
            Obj::Ext(x) => x.downcast_ref::<T>().cloned(),
            _ => None,
        })
    }

    /// What `report` makes of each of
    /// [`ext_objects`](Self::ext_objects) of a declaration kind, given its
    /// slot and its [`key`] by the name `name` reads.
    fn declared<T: ExtObject + Clone, R>(
        &self,
        name: fn(&T) -> &str,
        mut report: impl FnMut(u32, String, T) -> R,
    ) -> Vec<R> {
        let all = self.ext_objects::<T>();
        let names: Vec<(u32, String)> = all.iter().map(|(i, t)| (*i, name(t).into())).collect();
        all.into_iter()
            .map(|(slot, t)| report(slot, key(&names, slot, name(&t)), t))
            .collect()
    }

    /// The slot of the declaration keyed `key` among
    /// [`declared`](Self::declared)'s.
    fn declared_slot<T: ExtObject + Clone>(&self, key: &str, name: fn(&T) -> &str) -> Option<u32> {
        self.declared(name, |slot, k, _| (slot, k))
            .into_iter()
            .find(|(_, k)| k == key)
            .map(|(slot, _)| slot)
    }

    fn params(&self, proto: sense_eval::proto::ProtoId) -> Vec<ParamReport> {
        self.vm_ref()
            .proto_params(proto)
            .into_iter()
            .map(|(name, type_name)| ParamReport { name, type_name })
            .collect()
    }

    /// Every declared tool that is still alive, in declaration order.
    pub fn tools(&self) -> Vec<ToolReport> {
        self.declared(
            |t: &ToolObj| &t.name,
            |_, key, t| ToolReport {
                key,
                params: self.params(t.proto),
                returns: self.vm_ref().proto_return(t.proto),
                allowed: self.allowed_at_top(t.capability.as_deref()),
                name: t.name,
                description: t.description,
                capability: t.capability,
                is_async: t.is_async,
            },
        )
    }

    /// Every declared action that is still alive, in declaration order.
    pub fn action_declarations(&self) -> Vec<ActionDeclReport> {
        self.declared(
            |d: &ActionDeclObj| &d.name,
            |_, key, d| ActionDeclReport {
                key,
                params: self.params(d.body),
                allowed: self.allowed_at_top(d.capability.as_deref()),
                kind: d.kind.to_string(),
                name: d.name,
                capability: d.capability,
                approval: d.approval,
                has_rollback: d.rollback.is_some(),
            },
        )
    }

    /// Every prepared action instance that is still alive — the program's
    /// and the host's — oldest slot first.
    pub fn action_instances(&self) -> Vec<ActionReport> {
        self.ext_objects::<ActionObj>()
            .into_iter()
            .filter_map(|(id, a)| {
                let vm = self.vm_ref();
                let d = vm.ext_ref::<ActionDeclObj>(a.decl)?;
                Some(ActionReport {
                    id,
                    name: d.name.clone(),
                    kind: d.kind.to_string(),
                    state: a.state.as_str(),
                    approved: a.approved,
                    requires_approval: d.approval,
                    has_rollback: d.rollback.is_some(),
                    allowed: self.allowed_at_top(d.capability.as_deref()),
                    capability: d.capability.clone(),
                    args: a
                        .args
                        .iter()
                        .map(|(sym, v)| (vm.interner().name(*sym).to_string(), vm.to_host(*v)))
                        .collect(),
                })
            })
            .collect()
    }

    /// One action instance by id, if that slot still holds one.
    pub fn action_instance(&self, id: u32) -> Option<ActionReport> {
        self.vm_ref().ext_ref::<ActionObj>(ObjRef(id))?;
        self.action_instances().into_iter().find(|a| a.id == id)
    }

    /// Every live memory with its current entries.
    pub fn memories(&mut self) -> Vec<MemoryReport> {
        let mems = self.objects(|o| match o {
            Obj::Ext(x) => x
                .downcast_ref::<MemoryObj>()
                .map(|m| (m.name.clone(), m.kind.clone(), m.path.clone())),
            _ => None,
        });
        mems.into_iter()
            .map(|(slot, (name, kind, path))| {
                let (entries, error) =
                    match crate::kinds::memory::host_entries(self.vm(), ObjRef(slot)) {
                        Ok(e) => (e, None),
                        Err(e) => (Vec::new(), Some(e.display())),
                    };
                MemoryReport {
                    name,
                    kind,
                    path,
                    entries,
                    error,
                }
            })
            .collect()
    }

    /// The audit log, oldest first, with every field.
    pub fn audit_entries(&self) -> Vec<AuditEntry> {
        crate::audit::entries(self.vm_ref()).to_vec()
    }

    /// The agent with this serial number, if it is alive.
    pub fn agent_by_serial(&self, serial: u64) -> Option<AgentId> {
        self.agents()
            .iter()
            .find(|a| a.serial == serial)
            .map(|a| self.agent_id(a))
    }

    /// A host-side error about a name or id that does not exist.
    fn not_found(what: String) -> Error {
        Error::host(what)
    }

    /// A Sense error from a host call, rendered.
    fn host_error(&self, e: &EvalError) -> Error {
        self.error(e)
    }

    /// Calls the tool `key` (see [`ToolReport::key`]) with `args` from the
    /// main program's top level: arity, its capability against the main
    /// program's policy (a denial is audited and comes back as a
    /// `SensePolicyError`), parameter types, the `called` audit entry, then
    /// the body. Returns its value (an async tool's call is awaited).
    pub fn call_tool(&mut self, key: &str, args: &[HostValue]) -> Result<HostValue, Error> {
        let Some(slot) = self.tool_slot(key) else {
            return Err(Self::not_found(format!("no tool named '{key}'")));
        };
        let is_async = self
            .vm_ref()
            .ext_ref::<ToolObj>(ObjRef(slot))
            .is_some_and(|t| t.is_async);
        let main = self.inspect_main();
        let scope = self.vm().host_scope(main);
        let r = self.host_audited(scope, |vm| {
            vm.host_call(scope, Value::Obj(ObjRef(slot)), args, is_async)
        });
        match r {
            Ok(v) => Ok(self.vm_ref().to_host(v)),
            Err(e) => Err(self.host_error(&e)),
        }
    }

    /// The heap slot of the tool `key`.
    pub fn tool_slot(&self, key: &str) -> Option<u32> {
        self.declared_slot(key, |t: &ToolObj| &t.name)
    }

    fn action_slot(&self, key: &str) -> Option<u32> {
        self.declared_slot(key, |d: &ActionDeclObj| &d.name)
    }

    /// Prepares the action `key` (see [`ActionDeclReport::key`]) with
    /// `args`, as calling the declaration at the main program's top level
    /// does (the `prepared` audit entry included). The instance is kept
    /// alive by the runtime; returns its id.
    pub fn prepare_action(&mut self, key: &str, args: &[HostValue]) -> Result<u32, Error> {
        let Some(slot) = self.action_slot(key) else {
            return Err(Self::not_found(format!("no action named '{key}'")));
        };
        let main = self.inspect_main();
        let scope = self.vm().host_scope(main);
        let r = self.host_audited(scope, |vm| {
            vm.host_call(scope, Value::Obj(ObjRef(slot)), args, false)
        });
        match r {
            Ok(v @ Value::Obj(r)) => {
                self.vm().host_keep(scope, v);
                Ok(r.0)
            }
            Ok(_) => Err(Error::host("preparing the action gave no instance")),
            Err(e) => Err(self.host_error(&e)),
        }
    }

    /// Runs one step of the action instance `id` from the main program's
    /// top level, with the same checks and audit entries as in a program
    /// (a commit or rollback body runs). Returns the step's value.
    pub fn run_action_step(&mut self, id: u32, step: ActionStep) -> Result<HostValue, Error> {
        if self.vm_ref().ext_ref::<ActionObj>(ObjRef(id)).is_none() {
            return Err(Self::not_found(format!("no action instance {id}")));
        }
        let main = self.inspect_main();
        let scope = self.vm().host_scope(main);
        let r = self.host_audited(scope, |vm| vm.host_method(scope, ObjRef(id), step.method()));
        match r {
            Ok(v) => Ok(self.vm_ref().to_host(v)),
            Err(e) => Err(self.host_error(&e)),
        }
    }

    /// The state of an action instance, if `id` still holds one.
    pub fn action_state(&self, id: u32) -> Option<ActionState> {
        self.vm_ref()
            .ext_ref::<ActionObj>(ObjRef(id))
            .map(|a| a.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::State;
    use std::sync::{Arc, Mutex};

    const PROGRAM: &str = "\
policy:
    allow ops.read
    deny net.fetch
log = []
tool health(host: String) returns Bool requires ops.read \"checks one host\":
    push(log, host)
    return host != \"web-2\"
tool fetch(url: String) requires net.fetch:
    return url
async tool double(n: Int) returns Int:
    return n * 2
reversible action deploy(version: String) requires approval:
    push(log, \"deploy \" + version)
rollback:
    push(log, \"undo \" + version)
memory notes: \"scratch\"
notes.remember(\"a\", [1, \"x\"])
agent asker:
    x = ask_human(\"name?\")
    push(log, x)
";

    fn runtime() -> (Runtime, Arc<Mutex<String>>) {
        let mut rt = Runtime::new();
        let out = Arc::new(Mutex::new(String::new()));
        let sink = out.clone();
        rt.set_output(move |s| sink.lock().unwrap().push_str(s));
        rt.run_source("m.sns", PROGRAM).unwrap();
        (rt, out)
    }

    #[test]
    fn lists_the_surface() {
        let (mut rt, _) = runtime();
        let tools = rt.tools();
        assert_eq!(tools.len(), 3);
        assert_eq!(tools[0].key, "health");
        assert_eq!(tools[0].returns.as_deref(), Some("Bool"));
        assert_eq!(tools[0].params[0].type_name.as_deref(), Some("String"));
        assert!(tools[0].allowed);
        assert!(!tools[1].allowed);
        let decls = rt.action_declarations();
        assert_eq!(decls[0].kind, "reversible");
        assert!(decls[0].approval && decls[0].has_rollback);
        let mems = rt.memories();
        assert_eq!(mems[0].name, "notes");
        assert_eq!(
            mems[0].entries,
            vec![(
                "a".to_string(),
                HostValue::List(vec![HostValue::Int(1), HostValue::from("x")])
            )]
        );
    }

    #[test]
    fn tool_calls_are_checked_and_audited() {
        let (mut rt, _) = runtime();
        let v = rt.call_tool("health", &[HostValue::from("web-2")]).unwrap();
        assert_eq!(v, HostValue::Bool(false));
        let e = rt.call_tool("fetch", &[HostValue::from("u")]).unwrap_err();
        assert_eq!(e.class_name(), "SensePolicyError");
        assert_eq!(
            e.display_text(),
            "tool 'fetch' requires capability 'net.fetch', which is denied by policy"
        );
        assert_eq!(
            rt.call_tool("double", &[HostValue::Int(21)]).unwrap(),
            HostValue::Int(42)
        );
        let e = rt.call_tool("health", &[HostValue::Int(1)]).unwrap_err();
        assert_eq!(e.class_name(), "SenseTypeError");
        assert!(rt.call_tool("nope", &[]).is_err());
        assert_eq!(
            rt.audit_log(),
            vec![
                "tool 'health' -> called",
                "tool 'fetch' -> denied (capability 'net.fetch' denied by policy)",
                "tool 'double' -> called",
            ]
        );
        assert_eq!(
            rt.global("log"),
            Some(HostValue::List(vec![HostValue::from("web-2")]))
        );
        // The program's scope gets none of the host's variables.
        assert_eq!(rt.global("__inspect_result"), None);
    }

    #[test]
    fn action_lifecycle_survives_collection_and_snapshots() {
        let (mut rt, _) = runtime();
        let id = rt
            .prepare_action("deploy", &[HostValue::from("v2")])
            .unwrap();
        rt.vm().collect_garbage();
        assert_eq!(rt.action_state(id), Some(ActionState::Prepared));
        rt.run_action_step(id, ActionStep::Verify).unwrap();
        let e = rt.run_action_step(id, ActionStep::Commit).unwrap_err();
        assert_eq!(e.class_name(), "SenseApprovalError");
        assert_eq!(rt.action_state(id), Some(ActionState::Denied));

        let id = rt
            .prepare_action("deploy", &[HostValue::from("v3")])
            .unwrap();
        let bytes = rt.snapshot().unwrap();
        let mut rt = Runtime::restore(&bytes).unwrap();
        rt.set_output(|_| {});
        rt.run_action_step(id, ActionStep::Verify).unwrap();
        rt.run_action_step(id, ActionStep::Approve).unwrap();
        rt.run_action_step(id, ActionStep::Commit).unwrap();
        rt.run_action_step(id, ActionStep::Rollback).unwrap();
        assert_eq!(rt.action_state(id), Some(ActionState::RolledBack));
        assert_eq!(
            rt.global("log"),
            Some(HostValue::from(vec!["deploy v3", "undo v3"]))
        );
        let log = rt.audit_log();
        assert_eq!(
            log.last().unwrap(),
            "reversible action 'deploy' -> rolled_back"
        );
        assert!(rt.run_action_step(9999, ActionStep::Verify).is_err());
    }

    #[test]
    fn agents_by_serial() {
        let (mut rt, _) = runtime();
        let a = rt.agent("asker").unwrap();
        assert_eq!(rt.agent_by_serial(a.serial()), Some(a));
        assert!(matches!(rt.start(a), Ok(State::Paused { .. })));
        assert_eq!(rt.resume(a, "Ada").unwrap(), State::Completed);
    }
}
