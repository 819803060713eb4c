//! Calling extension objects (see [`crate::kind::ObjectKind::call`]):
//! running the Sense bodies a kind hands back, telling the kind how they
//! ended, and the few VM services such a kind needs to set a body up
//! (parameter binding, scopes, a body run as a task).

use super::{Frame, FrameKind, Vm};
use crate::error::{EvalError, EvalResult};
use crate::heap::{ObjRef, ScopeRef};
use crate::kind::{BodyCall, ExtCall, ExtFrame};
use crate::object::Obj;
use crate::proto::{ParamSpec, ProtoId};
use crate::symbol::Symbol;
use crate::value::Value;

// The entry points the run loop reaches are kept out of line (`cold`,
// `inline(never)`): inlined, they make the loop's own code larger and its
// common instructions slower (benches/icount).
impl Vm {
    /// Calls extension object `r` with the `argc` arguments above
    /// `callee_at`; true when a body frame was pushed.
    #[cold]
    #[inline(never)]
    pub(crate) fn call_ext(
        &mut self,
        r: ObjRef,
        callee_at: usize,
        argc: usize,
        caller: ScopeRef,
        line: u32,
    ) -> EvalResult<bool> {
        let Obj::Ext(x) = self.heap.get(r) else {
            return Err(EvalError::runtime("not an extension object"));
        };
        let kind = x.kind();
        let args: Vec<Value> = self.stack_from(callee_at + 1).to_vec();
        if args.len() != argc {
            return Err(EvalError::runtime(
                "internal error: malformed call (damaged state)",
            ));
        }
        let outcome = kind.call(self, r, &args, caller, line)?;
        self.finish_ext_call(callee_at, outcome)
    }

    /// Puts the outcome of an extension call in place of the callee and
    /// its arguments: the value, or a body frame (true).
    #[cold]
    #[inline(never)]
    pub(crate) fn finish_ext_call(
        &mut self,
        callee_at: usize,
        outcome: ExtCall,
    ) -> EvalResult<bool> {
        match outcome {
            ExtCall::Value(v) => {
                self.cur.stack.truncate(callee_at);
                self.cur.stack.push(v);
                Ok(false)
            }
            ExtCall::Body(body) => {
                self.check_depth()?;
                self.push_ext_body(callee_at, body);
                Ok(true)
            }
        }
    }

    fn push_ext_body(&mut self, callee_at: usize, body: BodyCall) {
        self.cur.stack.truncate(callee_at);
        let outer = self.heap.scope(body.env).parent.unwrap_or(body.env);
        let slot_base = self.reserve_slots(body.proto);
        self.cur.frames.push(Frame {
            proto: body.proto,
            ip: 0,
            env: body.env,
            outer,
            stack_base: callee_at as u32,
            block_base: self.cur.blocks.len() as u32,
            ctl_base: self.cur.ctl.len() as u32,
            slot_base,
            kind: body.then.map_or(FrameKind::Call, FrameKind::Ext),
        });
    }

    /// A body run for `x.obj` returned `v`: its kind decides the result.
    #[cold]
    #[inline(never)]
    pub(crate) fn ext_body_returned(&mut self, x: ExtFrame, v: Value) -> EvalResult<Value> {
        match self.heap.try_get(x.obj) {
            Some(Obj::Ext(e)) => {
                let kind = e.kind();
                kind.body_returned(self, x, v)
            }
            _ => Ok(v),
        }
    }

    /// An error unwinds through a body run for `x.obj`.
    #[cold]
    #[inline(never)]
    pub(crate) fn ext_body_failed(&mut self, x: ExtFrame, err: &EvalError) {
        if let Some(Obj::Ext(e)) = self.heap.try_get(x.obj) {
            let kind = e.kind();
            kind.body_failed(self, x, err);
        }
    }

    /// Checks argument `v` against the annotation of parameter `p` of
    /// `function` (a `def`'s, a tool's, an action's: every call checks
    /// its arguments here).
    #[inline]
    pub(crate) fn check_arg(&self, p: &ParamSpec, v: Value, function: &str) -> EvalResult<()> {
        match &p.ann {
            Some(ann) if !self.matches(v, &ann.spec) => Err(self.arg_type_error(p, v, function)),
            _ => Ok(()),
        }
    }

    /// `argument 'p' of 'f' expects T, got U`: out of line, off the call path.
    #[cold]
    #[inline(never)]
    fn arg_type_error(&self, p: &ParamSpec, v: Value, function: &str) -> EvalError {
        let expected = p.ann.as_ref().map_or("", |a| a.text.as_str());
        EvalError::type_error(format!(
            "argument '{}' of '{function}' expects {expected}, got {}",
            self.interner.name(p.name),
            self.type_name(v)
        ))
    }

    /// Checks `args` against the parameters of body `proto` (count, then
    /// annotations) and pairs them with the parameter names; `name` is
    /// what the errors call the callee (`'NAME' expects 2 argument(s),
    /// got 1`, `argument 'p' of 'NAME' expects T, got U`).
    pub fn bind_args(
        &self,
        proto: ProtoId,
        name: &str,
        args: &[Value],
    ) -> EvalResult<Vec<(Symbol, Value)>> {
        let proto = self.proto(proto).clone();
        let n = proto.params.len();
        if n != args.len() {
            return Err(EvalError::runtime(format!(
                "'{name}' expects {n} argument(s), got {}",
                args.len()
            )));
        }
        let mut bound = Vec::with_capacity(n);
        for (p, &v) in proto.params.iter().zip(args) {
            self.check_arg(p, v, name)?;
            bound.push((p.name, v));
        }
        Ok(bound)
    }

    /// The parameters of body `proto`: name and annotation text.
    pub fn body_params(&self, proto: ProtoId) -> Vec<(String, Option<String>)> {
        self.proto(proto)
            .params
            .iter()
            .map(|p| {
                (
                    self.interner.name(p.name).to_string(),
                    p.ann.as_ref().map(|a| a.text.clone()),
                )
            })
            .collect()
    }

    /// The scope a declaration defines into, marked as kept (an object
    /// about to be declared holds it as its enclosing scope).
    pub fn declaring_scope(&mut self) -> ScopeRef {
        let env = self.define_scope();
        self.capture_env(env)
    }

    /// A new scope under `parent` (for a body about to run).
    pub fn new_scope(&mut self, parent: ScopeRef) -> ScopeRef {
        self.child_scope(parent)
    }

    /// Marks `scope` as kept beyond the frame that made it (an object
    /// holds it).
    pub fn keep_scope(&mut self, scope: ScopeRef) {
        self.heap.capture_scope(scope);
    }

    /// Defines `name` as `v` in `scope`.
    pub fn define_in(&mut self, scope: ScopeRef, name: Symbol, v: Value) {
        self.heap.scope_mut(scope).vars.define(name, v);
    }
}
