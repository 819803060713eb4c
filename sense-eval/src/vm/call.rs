//! Calls and returns.
//!
//! A call to a user function pushes a frame — it never recurses on the
//! Rust stack, so Sense recursion is bounded only by `Config::max_depth`.
//! Natives run to completion in Rust; the few that need to change fibers
//! (start, resume, pause, …) leave a [`Pending`](super::Pending) request.

use super::{Exit, Frame, FrameKind, Vm};
use crate::builtins::{Arity, NativeImpl};
use crate::error::{EvalError, EvalResult};
use crate::host::{HostFn, HostReturn, HostValue};
use crate::object::{Closure, Obj};
use crate::value::{NativeId, Value};

impl Vm {
    /// Calls the callee below `argc` arguments on the stack. Returns true
    /// when the current frame or fiber changed (the loop must reload).
    pub(crate) fn call(&mut self, argc: usize, labeled: bool) -> EvalResult<bool> {
        let Some(callee_at) = self.cur.stack.len().checked_sub(argc + 1) else {
            return Err(underflow());
        };
        let callee = self.stack_at(callee_at);
        match callee {
            Value::Func(r) => {
                if labeled {
                    return Err(self.labeled_error(callee));
                }
                let Obj::Closure(c) = *self.heap.get(r) else {
                    return Err(EvalError::runtime("value of type Function is not callable"));
                };
                self.call_closure(c, callee_at, argc)?;
                Ok(true)
            }
            Value::Native(id) => self.call_native(id, callee_at, argc, labeled),
            Value::Obj(r) => self.call_object(r, callee, callee_at, argc, labeled),
            _ if labeled => Err(self.labeled_error(callee)),
            _ => Err(EvalError::runtime(format!(
                "value of type {} is not callable",
                self.type_name(callee)
            ))),
        }
    }

    /// Calls an extension object (its kind decides) or runs a bound method.
    fn call_object(
        &mut self,
        r: crate::heap::ObjRef,
        callee: Value,
        callee_at: usize,
        argc: usize,
        labeled: bool,
    ) -> EvalResult<bool> {
        let (span, _) = self.current_span();
        match self.heap.get(r) {
            Obj::Bound(b) => {
                let b = *b;
                let method = self.method_name(b.method);
                let arity = match (b.method, self.heap.get(b.receiver)) {
                    (crate::object::Method::Ext(_), Obj::Ext(x)) => x.kind().method_arity(method),
                    // Checked by the method itself (some take optional arguments).
                    (crate::object::Method::Builtin(_), _) => argc,
                    (m, _) => m.arity(),
                };
                let name = format!("{}.{method}", self.object_name(b.receiver));
                if labeled {
                    return Err(self.labels_refused(&name));
                }
                if argc != arity {
                    return Err(EvalError::runtime(format!(
                        "'{name}' expects {arity} argument(s), got {argc}"
                    )));
                }
                self.call_method(b, callee_at)
            }
            Obj::Ext(_) if !labeled => {
                let env = self.env();
                self.call_ext(r, callee_at, argc, env, span.line)
            }
            _ => {
                if labeled {
                    return Err(self.labeled_error(callee));
                }
                Err(EvalError::runtime(format!(
                    "value of type {} is not callable",
                    self.type_name(callee)
                )))
            }
        }
    }

    /// Runs a bound method; true when it pushed a frame.
    fn call_method(&mut self, b: crate::object::BoundMethod, callee_at: usize) -> EvalResult<bool> {
        use crate::object::Method;
        match b.method {
            Method::Builtin(sym) => self.call_builtin_method(b.receiver, sym, callee_at, b.line),
            Method::Ext(sym) => {
                let Obj::Ext(x) = self.heap.get(b.receiver) else {
                    return Err(EvalError::runtime("not a method of this object"));
                };
                let kind = x.kind();
                let method = self.interner.name(sym).to_string();
                let args: Vec<Value> = self.stack_from(callee_at + 1).to_vec();
                let (span, file) = self.current_span();
                let outcome = kind
                    .invoke_method(self, b.receiver, &method, &args, b.env, b.line)
                    .map_err(|e| e.at(span.with_line(b.line), file))?;
                self.finish_ext_call(callee_at, outcome)
            }
        }
    }

    /// Calls `callee` with `args` to completion from inside a builtin (a
    /// nested run of the loop on the current fiber). Used by
    /// `ask_with_tools`; the call may not pause or switch agents.
    pub fn call_nested(
        &mut self,
        callee: Value,
        args: &[Value],
        caller: crate::heap::ScopeRef,
        line: u32,
    ) -> EvalResult<Value> {
        let callee_at = self.cur.stack.len();
        let frames_before = self.cur.frames.len();
        self.cur.stack.push(callee);
        self.cur.stack.extend_from_slice(args);
        let pushed = match callee {
            Value::Obj(r) if matches!(self.heap.get(r), Obj::Ext(_)) => {
                self.call_ext(r, callee_at, args.len(), caller, line)
            }
            _ => self.call(args.len(), false),
        };
        let pushed = match pushed {
            Ok(p) => p,
            Err(e) => {
                self.cur.stack.truncate(callee_at);
                return Err(e);
            }
        };
        if !pushed || self.cur.frames.len() != frames_before + 1 {
            let v = self.pop();
            self.cur.stack.truncate(callee_at);
            return Ok(v);
        }
        if let Some(f) = self.cur.frames.last_mut() {
            f.kind = FrameKind::Nested;
        }
        self.sched.nested.push(frames_before);
        let result = self.run();
        self.sched.nested.pop();
        match result {
            Ok(Exit::Returned) => {
                let v = self.pop();
                self.cur.stack.truncate(callee_at);
                Ok(v)
            }
            Ok(_) => Err(EvalError::runtime(
                "internal error: nested call did not return",
            )),
            Err(e) => {
                self.cur.stack.truncate(callee_at);
                Err(e)
            }
        }
    }

    fn labeled_error(&self, callee: Value) -> EvalError {
        EvalError::runtime(format!(
            "labeled arguments are only supported for a handful of builtins (e.g. inference(...)) -- not {}",
            self.type_name(callee)
        ))
    }

    /// Pushes a frame for a user function.
    fn call_closure(&mut self, c: Closure, callee_at: usize, argc: usize) -> EvalResult<()> {
        // Borrowed from its own field, not cloned: every call used to pay
        // an atomic increment and decrement of the proto's `Arc`.
        let Some(proto) = self.code.protos.get(c.proto.0 as usize) else {
            return Err(EvalError::runtime("internal error: missing code"));
        };
        if argc != proto.params.len() {
            return Err(EvalError::runtime(format!(
                "'{}' expects {} argument(s), got {}",
                proto.name,
                proto.params.len(),
                argc
            )));
        }
        self.check_depth()?;
        if proto.slotted {
            return self.call_slotted(c, callee_at, argc);
        }
        let block_base = self.cur.blocks.len() as u32;
        let env = if proto.params.is_empty() {
            // The call scope is created lazily, like a block's.
            self.cur.blocks.push(c.env);
            c.env
        } else {
            let env = self.heap.new_scope(c.env);
            let args = self.cur.stack.get(callee_at + 1..).unwrap_or_default();
            for (p, &v) in proto.params.iter().zip(args) {
                if let Err(err) = self.check_arg(p, v, &proto.name) {
                    self.heap.release_scope(env);
                    return Err(err);
                }
                self.heap.scope_mut(env).vars.define(p.name, v);
            }
            env
        };
        self.cur.stack.truncate(callee_at);
        self.cur.frames.push(Frame {
            proto: c.proto,
            ip: 0,
            env,
            outer: c.env,
            stack_base: callee_at as u32,
            block_base,
            ctl_base: self.cur.ctl.len() as u32,
            slot_base: self.cur.slots.len() as u32,
            kind: FrameKind::Call,
        });
        Ok(())
    }

    /// The run loop's call of a slotted function whose parameters have no
    /// annotations, with the right number of arguments, below the depth
    /// limit: pushes its frame and returns true. Anything else returns
    /// false and goes through [`call`](Self::call), which reports errors.
    #[inline]
    pub(crate) fn call_slotted_fast(&mut self, argc: usize) -> bool {
        let Some(callee_at) = self.cur.stack.len().checked_sub(argc + 1) else {
            return false;
        };
        let Some(&Value::Func(r)) = self.cur.stack.get(callee_at) else {
            return false;
        };
        let Some(Obj::Closure(c)) = self.heap.try_get(r) else {
            return false;
        };
        let c = *c;
        let Some(proto) = self.code.protos.get(c.proto.0 as usize) else {
            return false;
        };
        if !proto.slotted
            || proto.typed_params
            || proto.params.len() != argc
            || self.cur.frames.len() + self.sched.caller_frames >= self.config.max_depth
        {
            return false;
        }
        let nslots = proto.nslots();
        self.push_slotted(c, callee_at, nslots);
        true
    }

    /// Pushes a slotted frame whose arguments are on the stack above
    /// `callee_at` (all checks done).
    #[inline]
    fn push_slotted(&mut self, c: Closure, callee_at: usize, nslots: usize) {
        let fiber = &mut *self.cur;
        let slot_base = fiber.slots.len();
        let args = fiber.stack.get(callee_at + 1..).unwrap_or_default();
        fiber.slots.extend(args.iter().map(|v| Some(*v)));
        fiber.slots.resize(slot_base + nslots, None);
        fiber.stack.truncate(callee_at);
        fiber.frames.push(Frame {
            proto: c.proto,
            ip: 0,
            env: c.env,
            outer: c.env,
            stack_base: callee_at as u32,
            block_base: fiber.blocks.len() as u32,
            ctl_base: fiber.ctl.len() as u32,
            slot_base: slot_base as u32,
            kind: FrameKind::Call,
        });
    }

    /// Pushes a frame for a slotted function (arity and depth checked):
    /// no scope is made; the arguments move into the frame's first slots,
    /// the others start unbound. Its scopes are its closure's: `env` and
    /// `outer` are both the defining scope.
    fn call_slotted(&mut self, c: Closure, callee_at: usize, argc: usize) -> EvalResult<()> {
        let Some(proto) = self.code.protos.get(c.proto.0 as usize) else {
            return Err(EvalError::runtime("internal error: missing code"));
        };
        let args = self.cur.stack.get(callee_at + 1..).unwrap_or_default();
        for (p, &v) in proto.params.iter().zip(args) {
            self.check_arg(p, v, &proto.name)?;
        }
        let nslots = proto.nslots().max(argc);
        self.push_slotted(c, callee_at, nslots);
        Ok(())
    }

    /// Reserves the slots of a frame about to run `proto` (none unless it
    /// is slotted) and returns where they start.
    pub(crate) fn reserve_slots(&mut self, proto: crate::proto::ProtoId) -> u32 {
        let base = self.cur.slots.len();
        let n = self.proto(proto).nslots();
        self.cur.slots.resize(base + n, None);
        base as u32
    }

    pub(crate) fn check_depth(&self) -> EvalResult<()> {
        if self.cur.frames.len() + self.sched.caller_frames >= self.config.max_depth {
            return Err(EvalError::runtime(crate::error::RECURSION_MESSAGE)
                .lineless()
                .limit());
        }
        Ok(())
    }

    fn call_native(
        &mut self,
        id: NativeId,
        callee_at: usize,
        argc: usize,
        labeled: bool,
    ) -> EvalResult<bool> {
        let Some(def) = self.registries.natives.get(id.0 as usize) else {
            return Err(EvalError::runtime("unknown builtin"));
        };
        let (imp, arity, with_line, accepts_labels) = (def.imp, def.arity, def.line, def.labeled);
        if labeled && !accepts_labels {
            return Err(self.labels_refused(&def.name));
        }
        if let Arity::Exact(n) = arity
            && n as usize != argc
        {
            return Err(EvalError::runtime(format!(
                "'{}' expects {} argument(s), got {}",
                def.name, n, argc
            )));
        }
        if !labeled {
            // Labels left by an earlier labeled call that failed before it
            // consumed them must not reach this one.
            self.labeled.clear();
        }
        // The arguments are copied out of the stack (the native may use the
        // VM mutably); a few fit on the Rust stack, more go to a reused buffer.
        let result = if argc <= 4 {
            let mut small = [Value::Nil; 4];
            for (slot, v) in small.iter_mut().zip(self.stack_from(callee_at + 1)) {
                *slot = *v;
            }
            let args = small.get(..argc).unwrap_or_default();
            match imp {
                NativeImpl::Builtin(func) => func(self, args),
                NativeImpl::Host(index) => self.call_host(index, args),
            }
        } else {
            let mut args = std::mem::take(&mut self.arg_buf);
            args.clear();
            args.extend_from_slice(self.stack_from(callee_at + 1));
            let r = match imp {
                NativeImpl::Builtin(func) => func(self, &args),
                NativeImpl::Host(index) => self.call_host(index, &args),
            };
            self.arg_buf = args;
            r
        };
        if labeled {
            // Consumed (an unlabeled call cleared them before it ran).
            self.labeled.clear();
        }
        self.cur.stack.truncate(callee_at);
        match result {
            Ok(v) => {
                if self.sched.pending.is_some() {
                    // The native asked for a switch; its result (if any) is
                    // delivered when control comes back.
                    return Ok(true);
                }
                self.cur.stack.push(v);
                Ok(false)
            }
            Err(e) => {
                let e = if with_line || e.is_located() {
                    e
                } else {
                    // Builtins report no line (the book: errors.md); keep the
                    // position for the caret only.
                    let (span, file) = self.current_span();
                    e.located(span, file)
                };
                Err(e)
            }
        }
    }

    /// The value at stack position `i` (nil if there is none).
    #[inline]
    pub(crate) fn stack_at(&self, i: usize) -> Value {
        self.cur.stack.get(i).copied().unwrap_or(Value::Nil)
    }

    /// The stack from position `i` on (empty if `i` is past the top).
    #[inline]
    pub(crate) fn stack_from(&self, i: usize) -> &[Value] {
        self.cur.stack.get(i..).unwrap_or_default()
    }

    /// Runs host function `index` on `args`.
    fn call_host(&mut self, index: usize, args: &[Value]) -> EvalResult<Value> {
        let host_args: Vec<HostValue> = args.iter().map(|a| self.to_host(*a)).collect();
        let Some(mut f) = self.hooks.host_fns.get_mut(index).and_then(Option::take) else {
            return Err(EvalError::runtime(
                "host function is not available (it is running, or was not registered again after a restore)",
            ));
        };
        let previous = self.set_caller();
        let result = f(&host_args);
        self.restore_caller(previous);
        if let Some(slot) = self.hooks.host_fns.get_mut(index) {
            *slot = Some(f);
        }
        match result {
            Ok(HostReturn::Value(v)) => self.value_from_host(&v),
            Ok(HostReturn::Suspend(reason)) => {
                let reason = self.value_from_host(&reason)?;
                let name = self
                    .hooks
                    .host_names
                    .get(index)
                    .cloned()
                    .unwrap_or_default();
                // The calling task is whichever task's fiber is running.
                let task = self.cur.task.ok_or_else(|| {
                    self.refusal(
                        None,
                        crate::kind::Refusal::SuspendOutside { function: &name },
                    )
                })?;
                self.suspend_call(task, reason, crate::task::SuspendCause::HOST_FUNCTION);
                Ok(Value::Nil)
            }
            Err(msg) => Err(EvalError::runtime(msg)),
        }
    }

    /// Registers a host function under `name` (replacing a builtin or an
    /// earlier host function of that name).
    pub fn register_host_fn(&mut self, name: &str, arity: Option<u8>, f: HostFn) {
        let arity = match arity {
            Some(n) => Arity::Exact(n),
            None => Arity::Variadic,
        };
        if let Some(existing) = self.hooks.host_names.iter().position(|n| n == name) {
            if let Some(slot) = self.hooks.host_fns.get_mut(existing) {
                *slot = Some(f);
            }
            if let Some(def) = self
                .registries
                .natives
                .iter_mut()
                .find(|d| matches!(d.imp, NativeImpl::Host(i) if i == existing))
            {
                def.arity = arity;
            }
            return;
        }
        self.hooks.host_fns.push(Some(f));
        self.hooks.host_names.push(name.to_string());
        let index = self.hooks.host_fns.len() - 1;
        self.add_native(crate::builtins::NativeDef {
            name: name.to_string(),
            arity,
            imp: NativeImpl::Host(index),
            line: false,
            labeled: false,
        });
    }

    /// The line (and file) of the call being executed.
    pub fn call_line(&self) -> (u32, crate::proto::FileId) {
        let (span, file) = self.current_span();
        (span.line, file)
    }

    /// The annotation, as written (`Name<P, …>`), that the result of the
    /// native call now running is checked against next: set when the call
    /// is the whole right-hand side of `x: T = call(…)` or `local x: T =
    /// call(…)`, else `None`. A native may shape its result for it (a
    /// model asked for a structured answer); the check itself still runs.
    pub fn result_annotation(&self) -> Option<&str> {
        let f = self.cur.frames.last()?;
        let p = self.proto(f.proto);
        match p.code.get(f.ip as usize)? {
            crate::op::Op::CheckType(i) => {
                p.decl_types.get(*i as usize).map(|d| d.ann.text.as_str())
            }
            _ => None,
        }
    }

    /// Span of the instruction the current frame is executing.
    pub fn current_span(&self) -> (sense_syntax::Span, crate::proto::FileId) {
        match self.cur.frames.last() {
            Some(f) => {
                let p = self.proto(f.proto);
                let i = (f.ip as usize).saturating_sub(1);
                (p.spans.get(i).copied().unwrap_or_default(), p.file)
            }
            None => (sense_syntax::Span::default(), crate::proto::FileId(0)),
        }
    }

    /// Recycles the scopes a returning call made for itself (from its
    /// innermost scope up to its closure's), unless something captured them.
    fn release_frame_scopes(&mut self, env: crate::heap::ScopeRef, outer: crate::heap::ScopeRef) {
        let mut at = env;
        while at != outer {
            let scope = self.heap.scope(at);
            if scope.is_captured() {
                // Everything above a captured scope is captured too.
                return;
            }
            let Some(parent) = scope.parent else {
                return;
            };
            self.heap.release_scope(at);
            at = parent;
        }
    }

    /// Returns `v` from the current frame when it is a plain call
    /// (`FrameKind::Call`) of a slotted function without a declared
    /// return type: what [`do_return`](Self::do_return) does for it, with
    /// nothing to check. False (nothing done) for any other frame.
    #[inline]
    pub(crate) fn return_slotted(&mut self, v: Value) -> bool {
        let fiber = &mut *self.cur;
        if !matches!(fiber.frames.last(), Some(f) if matches!(f.kind, FrameKind::Call)) {
            return false;
        }
        let Some(frame) = fiber.pop_frame() else {
            return false;
        };
        fiber.stack.truncate(frame.stack_base as usize);
        fiber.blocks.truncate(frame.block_base as usize);
        fiber.ctl.truncate(frame.ctl_base as usize);
        fiber.stack.push(v);
        true
    }

    /// Returns `v` from the current frame. `Some` when the driven fiber
    /// settled.
    pub(crate) fn do_return(&mut self, v: Value) -> EvalResult<Option<Exit>> {
        let Some(frame) = self.cur.pop_frame() else {
            return Err(EvalError::runtime("internal error: return without a frame"));
        };
        self.cur.stack.truncate(frame.stack_base as usize);
        self.cur.blocks.truncate(frame.block_base as usize);
        self.cur.ctl.truncate(frame.ctl_base as usize);
        if matches!(
            frame.kind,
            FrameKind::Call | FrameKind::Nested | FrameKind::Ext(_) | FrameKind::Walk(_)
        ) {
            self.release_frame_scopes(frame.env, frame.outer);
        }
        match frame.kind {
            FrameKind::Call | FrameKind::Nested | FrameKind::Walk(_) => {
                let proto = self.proto(frame.proto);
                if let Some(ann) = &proto.ret
                    && !self.matches(v, &ann.spec)
                {
                    let (span, file) = self.current_span();
                    return Err(EvalError::type_error(format!(
                        "'{}' declared to return {}, got {}",
                        proto.name,
                        ann.text,
                        self.type_name(v)
                    ))
                    .at(span, file));
                }
                if let FrameKind::Walk(w) = frame.kind {
                    self.walk_returned(w, v)?;
                    return Ok(None);
                }
                self.cur.stack.push(v);
                if matches!(frame.kind, FrameKind::Nested) {
                    return Ok(Some(Exit::Returned));
                }
                Ok(None)
            }
            FrameKind::Ext(x) => {
                let v = self.ext_body_returned(x, v)?;
                self.cur.stack.push(v);
                Ok(None)
            }
            FrameKind::FutureBody { future, call, file } => {
                self.future_finished(future, frame.proto, v, call, file)
            }
            FrameKind::Main => {
                self.result = v;
                Ok(Some(Exit::Done))
            }
            FrameKind::TaskBody => self.leave_fiber(super::tasks::Leave::Completed),
            FrameKind::Module {
                module,
                index,
                names,
            } => {
                self.finish_import(module, index, &names)?;
                Ok(None)
            }
        }
    }

    /// `callee` was called with labeled arguments it does not take; the
    /// message lists the labels given.
    fn labels_refused(&self, callee: &str) -> EvalError {
        let labels: Vec<&str> = self
            .labeled
            .iter()
            .map(|(s, _)| self.interner.name(*s))
            .collect();
        EvalError::runtime(format!(
            "'{callee}' does not accept labeled arguments ({})",
            labels.join(", ")
        ))
    }
}

/// The operand stack is shorter than an instruction needs: only possible
/// with damaged state (a hostile snapshot); reported, never a panic.
pub(crate) fn underflow() -> EvalError {
    EvalError::runtime("internal error: operand stack underflow (damaged state)")
}
