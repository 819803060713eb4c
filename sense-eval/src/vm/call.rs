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
        let callee_at = self.cur.stack.len() - argc - 1;
        let callee = self.cur.stack[callee_at];
        if self.heap.wants_collect() {
            self.collect_garbage();
        }
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
            _ => Err(EvalError::runtime(format!(
                "value of type {} is not callable",
                self.type_name(callee)
            ))),
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
        let proto = self.protos[c.proto.0 as usize].clone();
        if argc != proto.params.len() {
            return Err(EvalError::runtime(format!(
                "'{}' expects {} argument(s), got {}",
                proto.name,
                proto.params.len(),
                argc
            )));
        }
        self.check_depth()?;
        let block_base = self.cur.blocks.len() as u32;
        let env = if proto.params.is_empty() {
            // The call scope is created lazily, like a block's.
            self.cur.blocks.push(c.env);
            c.env
        } else {
            let env = self.child_scope(c.env);
            for (i, p) in proto.params.iter().enumerate() {
                let v = self.cur.stack[callee_at + 1 + i];
                if let Some(ann) = &p.ann
                    && !self.matches(v, &ann.spec)
                {
                    return Err(EvalError::type_error(format!(
                        "argument '{}' of '{}' expects {}, got {}",
                        self.interner.name(p.name),
                        proto.name,
                        ann.text,
                        self.type_name(v)
                    )));
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
            stack_base: callee_at as u32,
            block_base,
            ctl_base: self.cur.ctl.len() as u32,
            kind: FrameKind::Call,
        });
        Ok(())
    }

    pub(crate) fn check_depth(&self) -> EvalResult<()> {
        if self.cur.frames.len() + self.caller_frames >= self.config.max_depth {
            return Err(EvalError::runtime("maximum recursion depth exceeded").lineless());
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
        let Some(def) = self.natives.get(id.0 as usize) else {
            return Err(EvalError::runtime("unknown builtin"));
        };
        let (imp, arity, with_line, accepts_labels) = (def.imp, def.arity, def.line, def.labeled);
        if labeled && !accepts_labels {
            let labels: Vec<&str> = self
                .labeled
                .iter()
                .map(|(s, _)| self.interner.name(*s))
                .collect();
            return Err(EvalError::runtime(format!(
                "'{}' does not accept labeled arguments ({})",
                def.name,
                labels.join(", ")
            )));
        }
        if let Arity::Exact(n) = arity
            && n as usize != argc
        {
            return Err(EvalError::runtime(format!(
                "'{}' expects {} argument(s), got {}",
                def.name, n, argc
            )));
        }
        let mut args = std::mem::take(&mut self.arg_buf);
        args.clear();
        args.extend_from_slice(&self.cur.stack[callee_at + 1..]);
        let result = match imp {
            NativeImpl::Builtin(func) => func(self, &args),
            NativeImpl::Host(index) => self.call_host(index, &args),
        };
        self.arg_buf = args;
        if !labeled {
            self.labeled.clear();
        }
        self.cur.stack.truncate(callee_at);
        match result {
            Ok(v) => {
                if self.pending.is_some() {
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
                    // Builtins report no line (LANGUAGE.md §5.2); keep the
                    // position for the caret only.
                    let (span, file) = self.current_span();
                    e.located(span, file)
                };
                Err(e)
            }
        }
    }

    /// Runs host function `index` on `args`.
    fn call_host(&mut self, index: usize, args: &[Value]) -> EvalResult<Value> {
        let host_args: Vec<HostValue> = args.iter().map(|a| self.to_host(*a)).collect();
        let Some(mut f) = self.host_fns.get_mut(index).and_then(Option::take) else {
            return Err(EvalError::runtime(
                "host function is not available (it is running, or was not registered again after a restore)",
            ));
        };
        let result = f(&host_args);
        self.host_fns[index] = Some(f);
        match result {
            Ok(HostReturn::Value(v)) => self.from_host(&v),
            Ok(HostReturn::Suspend(reason)) => {
                let reason = self.from_host(&reason)?;
                let name = self.host_names.get(index).cloned().unwrap_or_default();
                // The calling agent is whichever agent's fiber is running.
                let agent = self.cur.agent.ok_or_else(|| {
                    EvalError::runtime(format!(
                        "{name}() asked to pause, but it was not called from inside a running agent"
                    ))
                })?;
                self.suspend_call(agent, reason, crate::agent::PauseKind::HostFunction);
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
        if let Some(existing) = self.host_names.iter().position(|n| n == name) {
            self.host_fns[existing] = Some(f);
            if let Some(def) = self
                .natives
                .iter_mut()
                .find(|d| matches!(d.imp, NativeImpl::Host(i) if i == existing))
            {
                def.arity = arity;
            }
            return;
        }
        self.host_fns.push(Some(f));
        self.host_names.push(name.to_string());
        let index = self.host_fns.len() - 1;
        self.add_native(crate::builtins::NativeDef {
            name: name.to_string(),
            arity,
            imp: NativeImpl::Host(index),
            line: false,
            labeled: false,
        });
    }

    /// Span of the instruction the current frame is executing.
    pub(crate) fn current_span(&self) -> (sense_syntax::Span, crate::proto::FileId) {
        match self.cur.frames.last() {
            Some(f) => {
                let p = &self.protos[f.proto.0 as usize];
                let i = (f.ip as usize).saturating_sub(1);
                (p.spans.get(i).copied().unwrap_or_default(), p.file)
            }
            None => (sense_syntax::Span::default(), crate::proto::FileId(0)),
        }
    }

    /// Returns `v` from the current frame. `Some` when the driven fiber
    /// settled.
    pub(crate) fn do_return(&mut self, v: Value) -> EvalResult<Option<Exit>> {
        let Some(frame) = self.cur.frames.pop() else {
            return Err(EvalError::runtime("internal error: return without a frame"));
        };
        self.cur.stack.truncate(frame.stack_base as usize);
        self.cur.blocks.truncate(frame.block_base as usize);
        self.cur.ctl.truncate(frame.ctl_base as usize);
        match frame.kind {
            FrameKind::Call => {
                let proto = self.protos[frame.proto.0 as usize].clone();
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
                self.cur.stack.push(v);
                Ok(None)
            }
            FrameKind::Main => Ok(Some(Exit::Done)),
            FrameKind::AgentBody => self.leave_fiber(super::tasks::Leave::Completed),
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
}
