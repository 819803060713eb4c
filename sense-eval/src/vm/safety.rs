//! Policy, the audit log, tools and actions (AGENTS.md §3–§5).
//!
//! Capability checks walk the scope chain: an entry check (calling a
//! tool, `.verify()`, `.commit()`, `.rollback()`) uses the scope where the
//! call or member access happens; code inside a tool, action or function
//! body runs in a child of its *declaration* scope, so checks made there
//! see the declaration's policies. Lineage is read off the same chain.

use super::{Frame, FrameKind, Vm};
use crate::error::{ErrorClass, EvalError, EvalResult};
use crate::heap::{ObjRef, ScopeRef};
use crate::object::{ActionDeclObj, ActionObj, ActionState, BoundMethod, Obj, ToolObj};
use crate::proto::{ActionInfo, ToolInfo};
use crate::scope::FrameTag;
use crate::value::Value;
use sense_syntax::Span;

/// One audit-log entry.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuditEntry {
    /// The tool, model or action name.
    pub name: String,
    /// `tool`, `model`, `reversible` or `irreversible`.
    pub kind: crate::statics::Name,
    /// What happened (`prepared`, `verified`, `denied`, `committed`, …).
    pub event: crate::statics::Name,
    /// Extra detail, shown in parentheses.
    pub detail: Option<String>,
    /// The line, when the event has one.
    pub line: Option<u32>,
    /// Enclosing execution boundaries, outermost first.
    pub lineage: Vec<String>,
    /// Seconds since the Unix epoch.
    pub timestamp: f64,
}

impl AuditEntry {
    /// The human-readable line `audit_log()` returns.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if let Some(l) = self.line {
            s.push_str(&format!("[line {l}] "));
        }
        if self.kind == "tool" || self.kind == "model" {
            s.push_str(&format!("{} '{}'", self.kind, self.name));
        } else {
            s.push_str(&format!("{} action '{}'", self.kind, self.name));
        }
        s.push_str(" -> ");
        s.push_str(&self.event);
        if let Some(d) = &self.detail
            && !d.is_empty()
        {
            s.push_str(&format!(" ({d})"));
        }
        if !self.lineage.is_empty() {
            s.push_str(&format!(" (via {})", self.lineage.join(" > ")));
        }
        s
    }
}

fn located(err: EvalError, span: Span, line: Option<u32>, file: crate::proto::FileId) -> EvalError {
    match line {
        Some(l) => err.at(span.with_line(l), file),
        None => err.lineless().at(span, file),
    }
}

impl Vm {
    /// Is capability `cap` allowed in `env`? The first scope whose policy
    /// mentions it decides; unmentioned capabilities are allowed.
    pub fn capability_allowed(&self, env: ScopeRef, cap: &str) -> bool {
        let mut s = Some(env);
        while let Some(cur) = s {
            let scope = self.heap.scope(cur);
            if let Some(x) = &scope.extra
                && let Some((_, allow)) = x.policy.iter().rev().find(|(c, _)| &**c == cap)
            {
                return *allow;
            }
            s = scope.parent;
        }
        true
    }

    /// The execution boundaries enclosing `env`, outermost first.
    pub fn lineage(&self, env: ScopeRef) -> Vec<String> {
        let mut out = Vec::new();
        let mut s = Some(env);
        while let Some(cur) = s {
            let scope = self.heap.scope(cur);
            if let Some(tag) = scope.extra.as_ref().and_then(|x| x.frame.as_ref()) {
                out.push(tag.lineage());
            }
            if let Some(a) = scope.task
                && let Obj::Task(agent) = self.heap.get(a)
            {
                out.push(format!("agent:{}", self.interner.name(agent.name)));
            }
            s = scope.parent;
        }
        out.reverse();
        out
    }

    /// Appends an audit entry recorded in `env`.
    pub fn audit(
        &mut self,
        kind: impl Into<crate::statics::Name>,
        name: &str,
        event: &'static str,
        detail: Option<String>,
        line: Option<u32>,
        env: ScopeRef,
    ) {
        let lineage = self.lineage(env);
        let timestamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        self.audit_log.push(AuditEntry {
            name: name.to_string(),
            kind: kind.into(),
            event: crate::statics::Name(event),
            detail,
            line,
            lineage,
            timestamp,
        });
    }

    /// The audit log so far.
    pub fn audit_entries(&self) -> &[AuditEntry] {
        &self.audit_log
    }

    /// `policy:` — writes the rules into the current scope.
    pub(crate) fn exec_policy(&mut self, rules: &[(String, bool)]) {
        let scope = self.define_scope();
        let extra = self.heap.scope_mut(scope).extra_mut();
        for (cap, allow) in rules {
            extra.policy.retain(|(c, _)| &**c != cap.as_str());
            extra.policy.push((cap.as_str().into(), *allow));
        }
    }

    /// `tool NAME(…)` — defines the tool in the current scope.
    pub(crate) fn declare_tool(&mut self, info: &ToolInfo) {
        let env = self.define_scope();
        let env = self.capture_env(env);
        let tool = ToolObj {
            name: self.interner.name(info.name).to_string(),
            proto: info.body,
            env,
            capability: info.capability.clone(),
            description: info.description.clone(),
            is_async: info.is_async,
        };
        let r = self.heap.alloc(Obj::Tool(Box::new(tool)));
        self.heap
            .scope_mut(env)
            .vars
            .define(info.name, Value::Obj(r));
    }

    /// `… action NAME(…)` — defines the declaration in the current scope.
    pub(crate) fn declare_action(&mut self, info: &ActionInfo) {
        let env = self.define_scope();
        let env = self.capture_env(env);
        let decl = ActionDeclObj {
            name: self.interner.name(info.name).to_string(),
            kind: crate::statics::Name(info.kind),
            body: info.body,
            rollback: info.rollback,
            env,
            capability: info.capability.clone(),
            approval: info.approval,
        };
        let r = self.heap.alloc(Obj::ActionDecl(Box::new(decl)));
        self.heap
            .scope_mut(env)
            .vars
            .define(info.name, Value::Obj(r));
    }

    /// Checks the arguments on the stack against `proto`'s parameters
    /// (`argument 'p' of 'NAME' expects T, got U`) and pairs them up.
    fn check_params(
        &self,
        proto_id: crate::proto::ProtoId,
        name: &str,
        args_at: usize,
    ) -> EvalResult<Vec<(crate::symbol::Symbol, Value)>> {
        let proto = self.proto(proto_id).clone();
        let mut bound = Vec::with_capacity(proto.params.len());
        for (i, p) in proto.params.iter().enumerate() {
            let v = self.stack_at(args_at + i);
            if let Some(ann) = &p.ann
                && !self.matches(v, &ann.spec)
            {
                return Err(EvalError::type_error(format!(
                    "argument '{}' of '{name}' expects {}, got {}",
                    self.interner.name(p.name),
                    ann.text,
                    self.type_name(v)
                )));
            }
            bound.push((p.name, v));
        }
        Ok(bound)
    }

    fn arity_check(
        &self,
        proto_id: crate::proto::ProtoId,
        name: &str,
        argc: usize,
    ) -> EvalResult<()> {
        let n = self.proto(proto_id).params.len();
        if n != argc {
            return Err(EvalError::runtime(format!(
                "'{name}' expects {n} argument(s), got {argc}"
            )));
        }
        Ok(())
    }

    /// Calls a tool (AGENTS.md §5.2): arity, the caller's capability,
    /// parameters, the `called` audit entry, then the body (or, for an
    /// async tool, a future). `caller` is the call site's scope.
    pub(crate) fn call_tool(
        &mut self,
        tool_ref: ObjRef,
        callee_at: usize,
        argc: usize,
        caller: ScopeRef,
        line: u32,
    ) -> EvalResult<bool> {
        let Obj::Tool(tool) = self.heap.get(tool_ref) else {
            return Err(EvalError::runtime("value of type Tool is not callable"));
        };
        let tool = (**tool).clone();
        self.arity_check(tool.proto, &tool.name, argc)?;
        if let Some(cap) = &tool.capability
            && !self.capability_allowed(caller, cap)
        {
            self.audit(
                "tool",
                &tool.name,
                "denied",
                Some(format!("capability '{cap}' denied by policy")),
                Some(line),
                caller,
            );
            return Err(EvalError::new(
                ErrorClass::Policy,
                format!(
                    "tool '{}' requires capability '{cap}', which is denied by policy",
                    tool.name
                ),
            ));
        }
        let scope = self.child_scope(tool.env);
        self.heap.scope_mut(scope).extra_mut().frame = Some(FrameTag::Tool(tool.name.clone()));
        for (sym, v) in self.check_params(tool.proto, &tool.name, callee_at + 1)? {
            self.heap.scope_mut(scope).vars.define(sym, v);
        }
        self.audit("tool", &tool.name, "called", None, Some(line), caller);
        self.cur.stack.truncate(callee_at);
        if tool.is_async {
            let future =
                self.spawn_future(format!("tool '{}'", tool.name), tool.proto, scope, tool.env);
            self.cur.stack.push(Value::Obj(future));
            return Ok(false);
        }
        self.check_depth()?;
        self.cur.frames.push(Frame {
            proto: tool.proto,
            ip: 0,
            env: scope,
            outer: tool.env,
            stack_base: callee_at as u32,
            block_base: self.cur.blocks.len() as u32,
            ctl_base: self.cur.ctl.len() as u32,
            kind: FrameKind::Call,
        });
        Ok(true)
    }

    /// Calling an action declaration prepares an instance (the body does not run).
    pub(crate) fn prepare_action(
        &mut self,
        decl_ref: ObjRef,
        callee_at: usize,
        argc: usize,
        caller: ScopeRef,
        line: u32,
    ) -> EvalResult<()> {
        let Obj::ActionDecl(decl) = self.heap.get(decl_ref) else {
            return Err(EvalError::runtime("value of type Action is not callable"));
        };
        let (name, kind, body) = (decl.name.clone(), decl.kind, decl.body);
        self.arity_check(body, &name, argc)?;
        let args = self.check_params(body, &name, callee_at + 1)?;
        let inst = ActionObj {
            decl: decl_ref,
            args,
            state: ActionState::Prepared,
            approved: false,
            commit_env: None,
        };
        let r = self.heap.alloc(Obj::Action(Box::new(inst)));
        self.audit(kind, &name, "prepared", None, Some(line), caller);
        self.cur.stack.truncate(callee_at);
        self.cur.stack.push(Value::Obj(r));
        Ok(())
    }

    /// `cap` is denied where `.verify()`/`.commit()` was called: the
    /// instance becomes `denied`, the audit log says why, and the policy
    /// error is returned for the caller to raise.
    fn deny_action(
        &mut self,
        b: &BoundMethod,
        decl: &ActionDeclObj,
        cap: &str,
        line: Option<u32>,
    ) -> EvalError {
        self.set_action_state(b.receiver, ActionState::Denied);
        self.audit(
            decl.kind,
            &decl.name,
            "denied",
            Some(format!("capability '{cap}' denied by policy")),
            line,
            b.env,
        );
        policy_error(&decl.name, cap)
    }

    fn action_parts(&self, action: ObjRef) -> EvalResult<(ActionObj, ActionDeclObj)> {
        let Obj::Action(a) = self.heap.get(action) else {
            return Err(EvalError::runtime("not an action"));
        };
        let Obj::ActionDecl(d) = self.heap.get(a.decl) else {
            return Err(EvalError::runtime("not an action"));
        };
        Ok(((**a).clone(), (**d).clone()))
    }

    fn set_action_state(&mut self, action: ObjRef, state: ActionState) {
        if let Obj::Action(a) = self.heap.get_mut(action) {
            a.state = state;
        }
    }

    /// `.verify()`, `.approve()`, `.commit()`, `.rollback()` on a prepared
    /// action. Returns true when a frame was pushed (commit/rollback bodies).
    pub(crate) fn call_action_method(
        &mut self,
        b: BoundMethod,
        callee_at: usize,
    ) -> EvalResult<bool> {
        use crate::object::Method;
        let (span, file) = self.current_span();
        let (inst, decl) = self.action_parts(b.receiver)?;
        let name = decl.name.clone();
        let at_line = |e: EvalError| located(e, span, Some(b.line), file);
        let no_line = |e: EvalError| located(e, span, None, file);
        let result = Value::Obj(b.receiver);
        match b.method {
            Method::Verify => {
                if inst.state != ActionState::Prepared {
                    return Err(at_line(EvalError::runtime(format!(
                        "cannot verify action '{name}' \u{2014} its state is '{}', not 'prepared'",
                        inst.state.as_str()
                    ))));
                }
                if let Some(cap) = &decl.capability
                    && !self.capability_allowed(b.env, cap)
                {
                    return Err(at_line(self.deny_action(&b, &decl, cap, Some(b.line))));
                }
                self.set_action_state(b.receiver, ActionState::Verified);
                self.audit(decl.kind, &name, "verified", None, Some(b.line), b.env);
                self.finish_native_call(callee_at, result);
                Ok(false)
            }
            Method::Approve => {
                if !matches!(inst.state, ActionState::Prepared | ActionState::Verified) {
                    return Err(at_line(EvalError::runtime(format!(
                        "cannot approve action '{name}' \u{2014} its state is '{}', not 'prepared'/'verified'",
                        inst.state.as_str()
                    ))));
                }
                if let Obj::Action(a) = self.heap.get_mut(b.receiver) {
                    a.approved = true;
                }
                self.finish_native_call(callee_at, result);
                Ok(false)
            }
            Method::Commit => {
                if inst.state != ActionState::Verified {
                    return Err(no_line(EvalError::runtime(format!(
                        "action '{name}' must be verified before .commit() (current state: '{}')",
                        inst.state.as_str()
                    ))));
                }
                if let Some(cap) = &decl.capability
                    && !self.capability_allowed(b.env, cap)
                {
                    return Err(no_line(self.deny_action(&b, &decl, cap, None)));
                }
                if decl.approval && !inst.approved {
                    self.set_action_state(b.receiver, ActionState::Denied);
                    self.audit(
                        decl.kind,
                        &name,
                        "denied",
                        Some("requires approval".into()),
                        None,
                        b.env,
                    );
                    return Err(no_line(EvalError::new(
                        ErrorClass::Approval,
                        format!(
                            "action '{name}' requires approval before commit() \u{2014} call {name}.approve() first"
                        ),
                    )));
                }
                if self.config.dry_run {
                    self.set_action_state(b.receiver, ActionState::Committed);
                    self.audit(
                        decl.kind,
                        &name,
                        "committed",
                        Some("dry run \u{2014} body not executed".into()),
                        None,
                        b.env,
                    );
                    self.finish_native_call(callee_at, Value::Nil);
                    return Ok(false);
                }
                self.check_depth()?;
                let scope = self.child_scope(decl.env);
                self.heap.scope_mut(scope).extra_mut().frame =
                    Some(FrameTag::Action(decl.kind, name.clone()));
                for (sym, v) in &inst.args {
                    self.heap.scope_mut(scope).vars.define(*sym, *v);
                }
                self.heap.capture_scope(scope);
                if let Obj::Action(a) = self.heap.get_mut(b.receiver) {
                    a.commit_env = Some(scope);
                }
                self.push_body_frame(
                    decl.body,
                    scope,
                    callee_at,
                    FrameKind::ActionCommit {
                        action: b.receiver,
                        env: b.env,
                    },
                );
                Ok(true)
            }
            Method::Rollback => {
                if decl.kind != "reversible" {
                    return Err(at_line(EvalError::runtime(format!(
                        "cannot rollback '{name}' \u{2014} only a reversible action can be rolled back"
                    ))));
                }
                let Some(rollback) = decl.rollback else {
                    return Err(at_line(EvalError::runtime(format!(
                        "action '{name}' has no 'rollback' block to roll back with"
                    ))));
                };
                if inst.state != ActionState::Committed {
                    return Err(at_line(EvalError::runtime(format!(
                        "cannot rollback action '{name}' \u{2014} its state is '{}', not 'committed'",
                        inst.state.as_str()
                    ))));
                }
                if let Some(cap) = &decl.capability
                    && !self.capability_allowed(b.env, cap)
                {
                    self.audit(
                        decl.kind,
                        &name,
                        "denied",
                        Some(format!("capability '{cap}' denied by policy (rollback)")),
                        Some(b.line),
                        b.env,
                    );
                    return Err(no_line(policy_error(&name, cap)));
                }
                if self.config.dry_run {
                    self.set_action_state(b.receiver, ActionState::RolledBack);
                    self.audit(
                        decl.kind,
                        &name,
                        "rolled_back",
                        Some("dry run \u{2014} rollback not executed".into()),
                        Some(b.line),
                        b.env,
                    );
                    self.finish_native_call(callee_at, Value::Nil);
                    return Ok(false);
                }
                let Some(commit_env) = inst.commit_env else {
                    return Err(at_line(EvalError::runtime(format!(
                        "action '{name}' is 'committed' but was never actually run -- cannot roll back"
                    ))));
                };
                self.check_depth()?;
                let scope = self.child_scope(commit_env);
                self.heap.scope_mut(scope).extra_mut().frame =
                    Some(FrameTag::Rollback(name.clone()));
                self.push_body_frame(
                    rollback,
                    scope,
                    callee_at,
                    FrameKind::Rollback {
                        action: b.receiver,
                        env: b.env,
                        line: b.line,
                    },
                );
                Ok(true)
            }
            _ => Err(EvalError::runtime("not an action method")),
        }
    }

    fn push_body_frame(
        &mut self,
        proto: crate::proto::ProtoId,
        env: ScopeRef,
        callee_at: usize,
        kind: FrameKind,
    ) {
        self.cur.stack.truncate(callee_at);
        self.cur.frames.push(Frame {
            proto,
            ip: 0,
            env,
            outer: self.heap.scope(env).parent.unwrap_or(env),
            stack_base: callee_at as u32,
            block_base: self.cur.blocks.len() as u32,
            ctl_base: self.cur.ctl.len() as u32,
            kind,
        });
    }

    /// Replaces the callee and arguments on the stack with a result.
    pub(crate) fn finish_native_call(&mut self, callee_at: usize, result: Value) {
        self.cur.stack.truncate(callee_at);
        self.cur.stack.push(result);
    }

    /// A commit or rollback body returned normally.
    pub(crate) fn finish_action_frame(&mut self, kind: &FrameKind, v: Value) {
        match *kind {
            FrameKind::ActionCommit { action, env } => {
                self.set_action_state(action, ActionState::Committed);
                if let Ok((_, decl)) = self.action_parts(action) {
                    self.audit(decl.kind, &decl.name, "committed", None, None, env);
                }
            }
            FrameKind::Rollback { action, env, line } => {
                self.set_action_state(action, ActionState::RolledBack);
                if let Ok((_, decl)) = self.action_parts(action) {
                    self.audit(decl.kind, &decl.name, "rolled_back", None, Some(line), env);
                }
            }
            _ => {}
        }
        self.cur.stack.push(v);
    }

    /// An error is unwinding through a commit or rollback body: record it
    /// (AGENTS.md §4.7, §4.8).
    pub(crate) fn action_frame_failed(&mut self, kind: &FrameKind, err: &EvalError) {
        match *kind {
            FrameKind::ActionCommit { action, env } => {
                self.set_action_state(action, ActionState::Failed);
                if let Ok((_, decl)) = self.action_parts(action) {
                    self.audit(
                        decl.kind,
                        &decl.name,
                        "failed",
                        Some(err.display()),
                        None,
                        env,
                    );
                }
            }
            FrameKind::Rollback { action, env, line } => {
                if let Ok((_, decl)) = self.action_parts(action) {
                    self.audit(
                        decl.kind,
                        &decl.name,
                        "failed",
                        Some(format!("rollback body failed: {}", err.display())),
                        Some(line),
                        env,
                    );
                }
            }
            _ => {}
        }
    }

    /// `set NAME = value`.
    pub(crate) fn exec_set(&mut self, name: crate::symbol::Symbol, v: Value) -> EvalResult<()> {
        if self.interner.name(name) != "delegation" {
            return Err(EvalError::runtime(format!(
                "unknown 'set' target '{}' (only 'delegation' is supported so far)",
                self.interner.name(name)
            )));
        }
        if self.type_name(v) != "Model" {
            return Err(EvalError::type_error(format!(
                "'set delegation' requires a Model value, got {}",
                self.type_name(v)
            )));
        }
        let scope = self.define_scope();
        self.heap.scope_mut(scope).extra_mut().model = Some(v);
        Ok(())
    }

    /// The value selected by `set delegation` for `env` (the model that
    /// `ask` and its kin use).
    pub fn delegation(&self, env: ScopeRef) -> Option<Value> {
        let mut s = Some(env);
        while let Some(cur) = s {
            let scope = self.heap.scope(cur);
            if let Some(m) = scope.extra.as_ref().and_then(|x| x.model) {
                return Some(m);
            }
            s = scope.parent;
        }
        None
    }
}

fn policy_error(name: &str, cap: &str) -> EvalError {
    EvalError::new(
        ErrorClass::Policy,
        format!("action '{name}' requires capability '{cap}', which is denied by policy"),
    )
}
