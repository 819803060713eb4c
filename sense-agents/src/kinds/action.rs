//! Actions (the book: actions.md): `reversible action NAME(params) requires cap:`
//! (with a `rollback:` block) or `irreversible action …` declares an
//! action; calling the declaration prepares an instance (the body does not
//! run), which goes through `.verify()`, `.approve()`, `.commit()` and,
//! for a reversible one, `.rollback()` — each checked against the policy
//! where it is called and recorded in the audit log. A commit runs the
//! body (in a child of the declaring scope labelled `KIND:NAME`); a
//! rollback runs the block in a child of the commit's scope (labelled
//! `rollback:NAME`). With dry run on, neither body runs.

use crate::{audit, policy};
use sense_eval::heap::{Heap, ObjRef, ScopeRef};
use sense_eval::kind::{BodyCall, ExtCall, ExtFrame, ExtObject, ObjectKind, Render};
use sense_eval::object::Obj;
use sense_eval::proto::{DeclInfo, FileId, ProtoId};
use sense_eval::symbol::Symbol;
use sense_eval::{ErrorClass, EvalError, EvalResult, Value, Vm};

/// An action declaration.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ActionDeclObj {
    /// Its name.
    pub name: String,
    /// `reversible` or `irreversible`.
    pub kind: String,
    /// The commit body (with the action's parameters).
    pub body: ProtoId,
    /// The rollback block.
    pub rollback: Option<ProtoId>,
    /// The declaring scope.
    pub env: ScopeRef,
    /// `requires cap`.
    pub capability: Option<String>,
    /// `requires approval`.
    pub approval: bool,
}

/// Where a prepared action is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ActionState {
    /// Prepared (arguments bound), not yet verified.
    Prepared,
    /// Verified against the policy.
    Verified,
    /// The commit body ran (or, in a dry run, would have).
    Committed,
    /// A policy or approval check refused it.
    Denied,
    /// The commit body raised an error.
    Failed,
    /// The rollback block ran.
    RolledBack,
}

impl ActionState {
    /// The name `.state` reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionState::Prepared => "prepared",
            ActionState::Verified => "verified",
            ActionState::Committed => "committed",
            ActionState::Denied => "denied",
            ActionState::Failed => "failed",
            ActionState::RolledBack => "rolled_back",
        }
    }
}

/// A prepared action.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ActionObj {
    /// The declaration.
    pub decl: ObjRef,
    /// Bound arguments.
    pub args: Vec<(Symbol, Value)>,
    /// Current state.
    pub state: ActionState,
    /// `.approve()` was called.
    pub approved: bool,
    /// The scope the commit body ran in (rollback runs in a child of it).
    pub commit_env: Option<ScopeRef>,
}

super::ext_object! {
    ActionDeclObj => ACTION_DECL, "an action", trace: |d, t| t.scope(d.env);
    fn protos(&self) -> Vec<ProtoId> {
        std::iter::once(self.body).chain(self.rollback).collect()
    }
    fn remap_protos(&mut self, map: &mut dyn FnMut(ProtoId) -> ProtoId) {
        self.body = map(self.body);
        self.rollback = self.rollback.map(&mut *map);
    }
}

super::ext_object! {
    ActionObj => ACTION, "an action", trace: |d, t| {
        t.obj(d.decl);
        for (_, v) in &d.args {
            t.value(*v);
        }
        if let Some(e) = d.commit_env {
            t.scope(e);
        }
    }
}

/// The kind of [`ActionDeclObj`].
pub struct ActionDeclKind;

/// The registered [`ActionDeclKind`].
pub static ACTION_DECL: ActionDeclKind = ActionDeclKind;

/// The kind of [`ActionObj`].
pub struct ActionKind;

/// The registered [`ActionKind`].
pub static ACTION: ActionKind = ActionKind;

/// [`ExtFrame::tag`] of a commit body.
const COMMIT: u32 = 0;
/// [`ExtFrame::tag`] of a rollback block.
const ROLLBACK: u32 = 1;

fn decl_of(vm: &Vm, obj: ObjRef) -> EvalResult<ActionDeclObj> {
    ActionDeclObj::of(vm, obj).cloned()
}

/// The instance and its declaration.
fn parts(vm: &Vm, action: ObjRef) -> EvalResult<(ActionObj, ActionDeclObj)> {
    let a = ActionObj::of(vm, action).cloned()?;
    let d = decl_of(vm, a.decl)?;
    Ok((a, d))
}

fn set_state(vm: &mut Vm, action: ObjRef, state: ActionState) {
    if let Some(a) = vm.ext_mut::<ActionObj>(action) {
        a.state = state;
    }
}

fn policy_error(name: &str, cap: &str) -> EvalError {
    EvalError::new(
        ErrorClass::Policy,
        format!("action '{name}' requires capability '{cap}', which is denied by policy"),
    )
}

impl ObjectKind for ActionDeclKind {
    super::kind_names!(name: "action_decl", type_name: "Action",
        host_class: "SenseActionDef", named: ActionDeclObj, decodes: ActionDeclObj);

    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        if let Some(d) = vm.ext_ref::<ActionDeclObj>(obj) {
            out.push_str(&format!("<{} action {}>", d.kind, d.name));
        }
        Ok(())
    }

    /// Prepares an instance (the body does not run).
    fn call(
        &self,
        vm: &mut Vm,
        obj: ObjRef,
        args: &[Value],
        caller: ScopeRef,
        line: u32,
    ) -> EvalResult<ExtCall> {
        let decl = decl_of(vm, obj)?;
        let args = vm.bind_args(decl.body, &decl.name, args)?;
        let v = vm.alloc_ext(ActionObj {
            decl: obj,
            args,
            state: ActionState::Prepared,
            approved: false,
            commit_env: None,
        });
        audit::record(
            vm,
            &decl.kind,
            &decl.name,
            "prepared",
            None,
            Some(line),
            caller,
        );
        Ok(ExtCall::Value(v))
    }
}

impl ObjectKind for ActionKind {
    super::kind_names!(name: "action", type_name: "Action",
        host_class: "SenseAction", decodes: ActionObj);

    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        let (a, d) = parts(vm, obj)?;
        out.push_str(&format!(
            "<action {} ({}) state={}>",
            d.name,
            d.kind,
            a.state.as_str()
        ));
        Ok(())
    }
    fn object_name(&self, vm: &Vm, obj: ObjRef) -> String {
        parts(vm, obj).map(|(_, d)| d.name).unwrap_or_default()
    }

    fn member(&self, vm: &mut Vm, obj: ObjRef, name: &str, line: u32) -> EvalResult<Value> {
        let (a, d) = parts(vm, obj)?;
        match name {
            "verify" | "approve" | "commit" | "rollback" => Ok(vm.bind_method(obj, name, line)),
            "state" => vm.new_str(a.state.as_str()),
            "name" => vm.new_str(d.name),
            "kind" => vm.new_str(d.kind),
            "approved" => Ok(Value::Bool(a.approved)),
            _ => Err(EvalError::runtime(format!(
                "action '{}' has no member '{name}'",
                d.name
            ))),
        }
    }

    /// `.verify()`, `.approve()`, `.commit()`, `.rollback()`; `env` and
    /// `line` are where the method was taken from the instance.
    fn invoke_method(
        &self,
        vm: &mut Vm,
        obj: ObjRef,
        method: &str,
        _: &[Value],
        env: ScopeRef,
        line: u32,
    ) -> EvalResult<ExtCall> {
        let (inst, decl) = parts(vm, obj)?;
        let call = Call {
            obj,
            inst: &inst,
            decl: &decl,
            env,
            line,
        };
        match method {
            "verify" => verify(vm, call),
            "approve" => {
                if !matches!(inst.state, ActionState::Prepared | ActionState::Verified) {
                    return Err(EvalError::runtime(format!(
                        "cannot approve action '{}' \u{2014} its state is '{}', not 'prepared'/'verified'",
                        decl.name,
                        inst.state.as_str()
                    )));
                }
                if let Some(a) = vm.ext_mut::<ActionObj>(obj) {
                    a.approved = true;
                }
                Ok(ExtCall::Value(Value::Obj(obj)))
            }
            "commit" => commit(vm, call),
            "rollback" => rollback(vm, call),
            _ => Err(EvalError::runtime("not an action method")),
        }
    }

    fn body_returned(&self, vm: &mut Vm, frame: ExtFrame, value: Value) -> EvalResult<Value> {
        let (state, event, line) = match frame.tag {
            COMMIT => (ActionState::Committed, "committed", None),
            _ => (ActionState::RolledBack, "rolled_back", Some(frame.line)),
        };
        set_state(vm, frame.obj, state);
        if let Ok((_, d)) = parts(vm, frame.obj) {
            audit::record(vm, &d.kind, &d.name, event, None, line, frame.env);
        }
        Ok(value)
    }

    fn body_failed(&self, vm: &mut Vm, frame: ExtFrame, err: &EvalError) {
        let Ok((_, d)) = parts(vm, frame.obj) else {
            return;
        };
        if frame.tag == COMMIT {
            set_state(vm, frame.obj, ActionState::Failed);
            let detail = Some(err.display());
            audit::record(vm, &d.kind, &d.name, "failed", detail, None, frame.env);
        } else {
            let detail = Some(format!("rollback body failed: {}", err.display()));
            let line = Some(frame.line);
            audit::record(vm, &d.kind, &d.name, "failed", detail, line, frame.env);
        }
    }

    fn validate(&self, obj: &dyn ExtObject, heap: &Heap) -> Result<(), String> {
        let Some(a) = obj.downcast_ref::<ActionObj>() else {
            return Err("not an action".into());
        };
        match heap.try_get(a.decl) {
            Some(Obj::Ext(e)) if e.downcast_ref::<ActionDeclObj>().is_some() => Ok(()),
            _ => Err("an action refers to something that is not its declaration".into()),
        }
    }
}

/// A call of an action's method: the action, its state and declaration,
/// and where the call was made.
#[derive(Clone, Copy)]
struct Call<'a> {
    obj: ObjRef,
    inst: &'a ActionObj,
    decl: &'a ActionDeclObj,
    env: ScopeRef,
    line: u32,
}

impl Call<'_> {
    /// Runs `proto` (the commit body or the rollback block, `tag`) in
    /// `scope`, to be told of its outcome.
    fn run(self, proto: ProtoId, scope: ScopeRef, tag: u32) -> ExtCall {
        let then = ExtFrame {
            obj: self.obj,
            env: self.env,
            tag,
            line: self.line,
        };
        ExtCall::Body(BodyCall {
            proto,
            env: scope,
            then: Some(then),
        })
    }
}

/// `cap` is denied where the method was called: the instance becomes
/// `denied`, the audit log says why, and the policy error is returned.
fn deny(
    vm: &mut Vm,
    obj: ObjRef,
    decl: &ActionDeclObj,
    cap: &str,
    line: Option<u32>,
    env: ScopeRef,
) -> EvalError {
    set_state(vm, obj, ActionState::Denied);
    let detail = Some(format!("capability '{cap}' denied by policy"));
    audit::record(vm, &decl.kind, &decl.name, "denied", detail, line, env);
    policy_error(&decl.name, cap)
}

fn verify(vm: &mut Vm, call: Call<'_>) -> EvalResult<ExtCall> {
    let (obj, inst, decl, env, line) = (call.obj, call.inst, call.decl, call.env, call.line);
    if inst.state != ActionState::Prepared {
        return Err(EvalError::runtime(format!(
            "cannot verify action '{}' \u{2014} its state is '{}', not 'prepared'",
            decl.name,
            inst.state.as_str()
        )));
    }
    if let Some(cap) = &decl.capability
        && !policy::capability_allowed(vm, env, cap)
    {
        return Err(deny(vm, obj, decl, cap, Some(line), env));
    }
    set_state(vm, obj, ActionState::Verified);
    audit::record(
        vm,
        &decl.kind,
        &decl.name,
        "verified",
        None,
        Some(line),
        env,
    );
    Ok(ExtCall::Value(Value::Obj(obj)))
}

fn commit(vm: &mut Vm, call: Call<'_>) -> EvalResult<ExtCall> {
    let (obj, inst, decl, env) = (call.obj, call.inst, call.decl, call.env);
    let name = &decl.name;
    if inst.state != ActionState::Verified {
        return Err(EvalError::runtime(format!(
            "action '{name}' must be verified before .commit() (current state: '{}')",
            inst.state.as_str()
        ))
        .lineless());
    }
    if let Some(cap) = &decl.capability
        && !policy::capability_allowed(vm, env, cap)
    {
        return Err(deny(vm, obj, decl, cap, None, env).lineless());
    }
    if decl.approval && !inst.approved {
        set_state(vm, obj, ActionState::Denied);
        let detail = Some("requires approval".to_string());
        audit::record(vm, &decl.kind, name, "denied", detail, None, env);
        return Err(EvalError::new(
            ErrorClass::Approval,
            format!(
                "action '{name}' requires approval before commit() \u{2014} call {name}.approve() first"
            ),
        )
        .lineless());
    }
    if dry_run(vm) {
        set_state(vm, obj, ActionState::Committed);
        let detail = Some("dry run \u{2014} body not executed".to_string());
        audit::record(vm, &decl.kind, name, "committed", detail, None, env);
        return Ok(ExtCall::Value(Value::Nil));
    }
    let scope = vm.new_scope(decl.env);
    vm.set_scope_label(scope, format!("{}:{name}", decl.kind));
    for (sym, v) in &inst.args {
        vm.define_in(scope, *sym, *v);
    }
    vm.keep_scope(scope);
    if let Some(a) = vm.ext_mut::<ActionObj>(obj) {
        a.commit_env = Some(scope);
    }
    Ok(call.run(decl.body, scope, COMMIT))
}

fn rollback(vm: &mut Vm, call: Call<'_>) -> EvalResult<ExtCall> {
    let (obj, inst, decl, env, line) = (call.obj, call.inst, call.decl, call.env, call.line);
    let name = &decl.name;
    if decl.kind != "reversible" {
        return Err(EvalError::runtime(format!(
            "cannot rollback '{name}' \u{2014} only a reversible action can be rolled back"
        )));
    }
    let Some(block) = decl.rollback else {
        return Err(EvalError::runtime(format!(
            "action '{name}' has no 'rollback' block to roll back with"
        )));
    };
    if inst.state != ActionState::Committed {
        return Err(EvalError::runtime(format!(
            "cannot rollback action '{name}' \u{2014} its state is '{}', not 'committed'",
            inst.state.as_str()
        )));
    }
    if let Some(cap) = &decl.capability
        && !policy::capability_allowed(vm, env, cap)
    {
        let detail = Some(format!("capability '{cap}' denied by policy (rollback)"));
        audit::record(vm, &decl.kind, name, "denied", detail, Some(line), env);
        return Err(policy_error(name, cap).lineless());
    }
    if dry_run(vm) {
        set_state(vm, obj, ActionState::RolledBack);
        let detail = Some("dry run \u{2014} rollback not executed".to_string());
        audit::record(vm, &decl.kind, name, "rolled_back", detail, Some(line), env);
        return Ok(ExtCall::Value(Value::Nil));
    }
    let Some(commit_env) = inst.commit_env else {
        return Err(EvalError::runtime(format!(
            "action '{name}' is 'committed' but was never actually run -- cannot roll back"
        )));
    };
    let scope = vm.new_scope(commit_env);
    vm.set_scope_label(scope, format!("rollback:{name}"));
    Ok(call.run(block, scope, ROLLBACK))
}

/// Dry run (`sense run --dry-run`): commits and rollbacks check
/// everything and are audited, but run no bodies. Runtime state, not
/// part of a snapshot (set it again on a restored runtime).
#[derive(Clone, Copy, Debug, Default)]
pub struct DryRun(pub bool);

fn dry_run(vm: &Vm) -> bool {
    vm.ext_state_ref::<DryRun>().is_some_and(|d| d.0)
}

crate::kinds::declaration!(
    /// The action statements (`reversible action …`, `irreversible action …`).
    ActionDeclaration => ACTION_DECLARATION, "action", declare_action
);

fn declare_action(vm: &mut Vm, decl: &DeclInfo, _: Value, _: FileId) -> EvalResult<()> {
    let Some(&body) = decl.protos.first() else {
        return Err(EvalError::runtime(
            "internal error: an action without a body",
        ));
    };
    let env = vm.declaring_scope();
    let capability = decl.attr("requires").map(str::to_string);
    let action = ActionDeclObj {
        name: vm.interner().name(decl.name).to_string(),
        kind: decl.text.clone().unwrap_or_else(|| "irreversible".into()),
        body,
        rollback: decl.protos.get(1).copied(),
        env,
        capability,
        approval: decl.flag,
    };
    let v = vm.alloc_ext(action);
    vm.define_in(env, decl.name, v);
    Ok(())
}
