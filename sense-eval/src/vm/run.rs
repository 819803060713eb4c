//! The dispatch loop.
//!
//! `run` executes the current fiber's top frame instruction by instruction.
//! Instructions that change frames or fibers save `ip` into the frame and
//! restart the outer loop, which reloads the code of whatever frame is now
//! on top. Errors go to [`Vm::throw`], which finds a `test` block to
//! contain them or hands them up a fiber.

use super::names::Bumped;
use super::run_hot::Hot;
use super::tasks::Leave;
use super::{CtlKind, Exit, Pending, Vm};
use crate::error::{EvalError, EvalResult};
use crate::object::Obj;
use crate::op::{Cmp, Op};
use crate::value::Value;
use std::sync::Arc;

impl Vm {
    /// Runs until the fiber driven at `stop_depth` settles.
    pub(crate) fn run(&mut self) -> EvalResult<Exit> {
        // The code being run, held by its own `Arc` so the loop can use
        // `self` mutably. Kept across frame changes: a call or return that
        // stays in the same function (recursion) takes no new reference.
        // Started from the current frame's code, so a run that stays in
        // one function (a host's resume of an agent) takes one reference,
        // not two (each an atomic increment and decrement).
        let first = self.cur.frames.last().map(|frame| frame.proto.0 as usize);
        let mut proto = Arc::clone(
            first
                .and_then(|p| self.code.protos.get(p))
                .unwrap_or(self.code.empty_proto()),
        );
        'frames: loop {
            let Some(frame) = self.cur.frames.last() else {
                return Err(EvalError::runtime("internal error: no frame to run"));
            };
            let Some(current) = self.code.protos.get(frame.proto.0 as usize) else {
                return Err(bad_code());
            };
            if !Arc::ptr_eq(current, &proto) {
                proto = Arc::clone(current);
            }
            let mut ip = frame.ip as usize;

            // Error exit of an instruction: position the error at it, let
            // `throw` find a handler, and reload whatever frame is current.
            macro_rules! fail {
                ($err:expr) => {{
                    let err: EvalError = $err;
                    self.set_ip(ip);
                    let err = err.at(proto.span_at(ip), proto.file);
                    self.throw(err)?;
                    continue 'frames;
                }};
            }
            macro_rules! tri {
                ($e:expr) => {
                    match $e {
                        Ok(v) => v,
                        Err(err) => fail!(err),
                    }
                };
            }

            // A call: on to the next instruction, or — when a frame was
            // pushed or the fiber switched — reload whatever is current.
            macro_rules! call {
                ($argc:expr, $labeled:expr) => {
                    match self.call($argc, $labeled) {
                        Ok(false) => {}
                        // A frame was pushed: nothing to settle first.
                        Ok(true) if self.sched.pending.is_none() => continue 'frames,
                        Ok(true) => match self.after_switch()? {
                            Some(exit) => return Ok(exit),
                            None => continue 'frames,
                        },
                        Err(err) => {
                            let err = err.at(proto.span_at(ip), proto.file);
                            self.throw(err)?;
                            continue 'frames;
                        }
                    }
                };
            }

            // `Loop(t)`: the back-edge, a safe point.
            macro_rules! loop_back {
                ($t:expr) => {{
                    ip = $t as usize;
                    if self.needs_safepoint() {
                        self.set_ip(ip);
                        if let Some(exit) = tri!(self.safepoint()) {
                            return Ok(exit);
                        }
                        continue 'frames;
                    }
                }};
            }
            // A comparison pushing its Bool (two Ints are `run_hot`'s).
            macro_rules! compare {
                ($cmp:expr) => {{
                    let (a, b) = self.pop2();
                    let holds = tri!(self.compare_general($cmp, a, b));
                    self.cur.stack.push(Value::Bool(holds));
                }};
            }
            'hot: loop {
                // The common cases first, in the small loop that keeps its
                // state in registers; it stops at anything else, run here
                // until the next instruction is one it may take.
                match self.run_hot(&mut proto, ip) {
                    Hot::At(at) => ip = at,
                    Hot::Reload => continue 'frames,
                    Hot::Switched if self.sched.pending.is_none() => continue 'frames,
                    Hot::Switched => match self.after_switch()? {
                        Some(exit) => return Ok(exit),
                        None => continue 'frames,
                    },
                    Hot::Failed(at, err) => {
                        self.set_ip(at);
                        let err = err.at(proto.span_at(at), proto.file);
                        self.throw(err)?;
                        continue 'frames;
                    }
                }
                // `run_hot` may have moved on to another function's code.
                let code = &proto.code[..];
                loop {
                    let Some(&op) = code.get(ip) else {
                        return Err(EvalError::runtime(
                            "internal error: ran off the end of code",
                        ));
                    };
                    ip += 1;
                    match op {
                        Op::Const(k) => {
                            let v = proto.consts.get(k as usize).copied().unwrap_or(Value::Nil);
                            self.cur.stack.push(v);
                        }
                        Op::Nil => self.cur.stack.push(Value::Nil),
                        Op::True => self.cur.stack.push(Value::Bool(true)),
                        Op::False => self.cur.stack.push(Value::Bool(false)),
                        // A fused head (`Op::IntCompareJump`) left here
                        // does what its first instruction does.
                        Op::SmallInt(n) | Op::IntCompareJump(n) => {
                            self.cur.stack.push(Value::Int(n as i64))
                        }
                        Op::Pop => {
                            self.cur.stack.pop();
                        }
                        Op::Load(sym) => {
                            let env = self.env();
                            match self.lookup(env, sym) {
                                Some(v) => self.cur.stack.push(v),
                                None => fail!(undefined(self, sym)),
                            }
                        }
                        Op::Bump(sym) => {
                            let env = self.env();
                            // The compiler always emits the step and the store
                            // after it; anything else reads as a plain `Load`.
                            let delta = match (code.get(ip), code.get(ip + 1)) {
                                (Some(&Op::AddInt(k)), Some(&Op::StorePop(s))) if s == sym => {
                                    k as i64
                                }
                                (Some(&Op::SubInt(k)), Some(&Op::StorePop(s))) if s == sym => {
                                    -(k as i64)
                                }
                                _ => {
                                    match self.lookup(env, sym) {
                                        Some(v) => self.cur.stack.push(v),
                                        None => fail!(undefined(self, sym)),
                                    }
                                    continue;
                                }
                            };
                            match self.bump(env, sym, delta) {
                                Bumped::Done => ip += 2,
                                Bumped::Read(v) => self.cur.stack.push(v),
                                Bumped::Undefined => fail!(undefined(self, sym)),
                            }
                        }
                        // The slot ops read the frame's slot base at each
                        // instruction, not held across the loop: top-level
                        // code would pay for the register (BENCHMARKS.md).
                        // `StoreSlot` and `StoreSlotPop` stay two arms: one
                        // helper for both cost 0.3–0.4 % more instructions in
                        // the loop benchmarks (benches/icount).
                        Op::LoadSlot(s)
                        | Op::SlotCompareJump(s)
                        | Op::SlotIndexSlot(s)
                        | Op::LoadSlots(s) => {
                            let sbase = self.slot_base();
                            let v = match self.cur.slots.get(sbase + s as usize) {
                                Some(Some(v)) => *v,
                                _ => tri!(self.load_unbound(&proto, s)),
                            };
                            self.cur.stack.push(v);
                        }
                        Op::StoreSlot(s) => {
                            let sbase = self.slot_base();
                            let v = self.peek();
                            match self.cur.slots.get_mut(sbase + s as usize) {
                                Some(Some(slot)) => *slot = v,
                                _ => tri!(self.store_unbound(&proto, sbase, s, v)),
                            }
                        }
                        Op::StoreSlotPop(s) => {
                            let sbase = self.slot_base();
                            let v = self.pop();
                            match self.cur.slots.get_mut(sbase + s as usize) {
                                Some(Some(slot)) => *slot = v,
                                _ => tri!(self.store_unbound(&proto, sbase, s, v)),
                            }
                        }
                        Op::DefineSlot(s) => {
                            let sbase = self.slot_base();
                            let v = self.pop();
                            match self.cur.slots.get_mut(sbase + s as usize) {
                                Some(slot) => *slot = Some(v),
                                None => fail!(bad_code()),
                            }
                        }
                        Op::BumpSlot(s) => {
                            let sbase = self.slot_base();
                            match self.bump_slot(code, ip, sbase, s) {
                                Some(next) => ip = next,
                                None => {
                                    let v = tri!(self.load_unbound(&proto, s));
                                    self.cur.stack.push(v);
                                }
                            }
                        }
                        Op::ClearSlots(a, b) => {
                            let sbase = self.slot_base();
                            let range = sbase + a as usize..sbase + b as usize;
                            if let Some(slots) = self.cur.slots.get_mut(range) {
                                slots.fill(None);
                            }
                        }
                        Op::Store(sym) => {
                            let v = self.peek();
                            self.assign(sym, v);
                        }
                        Op::Define(sym) => {
                            let v = self.pop();
                            let scope = self.define_scope();
                            self.heap.scope_mut(scope).vars.define(sym, v);
                        }
                        // The Int cases run in `run_hot`; what reaches here is general.
                        Op::Add | Op::AddStoreSlot(_) => tri!(self.add_op()),
                        Op::Sub | Op::Mul | Op::Mod => {
                            let (a, b) = self.pop2();
                            let v = tri!(self.arith(op, a, b));
                            self.cur.stack.push(v);
                        }
                        Op::Div => {
                            let (a, b) = self.pop2();
                            let v = tri!(self.div(a, b));
                            self.cur.stack.push(v);
                        }
                        Op::Eq => compare!(Cmp::Eq),
                        Op::Ne => compare!(Cmp::Ne),
                        Op::Lt => compare!(Cmp::Lt),
                        Op::Le => compare!(Cmp::Le),
                        Op::Gt => compare!(Cmp::Gt),
                        Op::Ge => compare!(Cmp::Ge),
                        Op::Neg => {
                            let a = self.pop();
                            let v = tri!(self.negate(a));
                            self.cur.stack.push(v);
                        }
                        Op::Not => {
                            let a = self.pop();
                            let t = self.truthy(a);
                            self.cur.stack.push(Value::Bool(!t));
                        }
                        Op::Jump(t) => ip = t as usize,
                        Op::Loop(t) => loop_back!(t),
                        Op::JumpIfFalse(t) => {
                            let c = self.pop();
                            let holds = self.truthy(c);
                            ip = self.branch(code, holds, ip, t);
                        }
                        Op::JumpIfFalseOrPop(t) => {
                            if self.truthy(self.peek()) {
                                self.cur.stack.pop();
                            } else {
                                ip = t as usize;
                            }
                        }
                        Op::JumpIfTrueOrPop(t) => {
                            if self.truthy(self.peek()) {
                                ip = t as usize;
                            } else {
                                self.cur.stack.pop();
                            }
                        }
                        Op::ToStr => {
                            let v = self.pop();
                            let s = tri!(crate::builtins::str_value(self, v));
                            self.cur.stack.push(s);
                        }
                        Op::MakeArray(n) => {
                            let Some(at) = self.cur.stack.len().checked_sub(n as usize) else {
                                fail!(super::call::underflow())
                            };
                            let items: Vec<Value> = self.cur.stack.drain(at..).collect();
                            let r = self.heap.alloc(Obj::Array(items));
                            self.cur.stack.push(Value::Array(r));
                        }
                        Op::ConstArray(k) => {
                            let v = tri!(self.const_array(&proto.consts, k));
                            self.cur.stack.push(v);
                        }
                        Op::MakeMap(n) => tri!(self.make_map(n as usize)),
                        Op::In => {
                            let (x, xs) = self.pop2();
                            let found = tri!(self.contains(xs, x));
                            self.cur.stack.push(Value::Bool(found));
                        }
                        Op::Index => {
                            let (t, i) = self.pop2();
                            let v = tri!(self.index(t, i));
                            self.cur.stack.push(v);
                        }
                        Op::IndexStore | Op::IndexStorePop => {
                            let v = self.pop();
                            let (t, i) = self.pop2();
                            let stored = match (t, i) {
                                (Value::Array(r), Value::Int(idx))
                                    if let Obj::Array(items) = self.heap.get_mut(r)
                                        && let Ok(pos) = usize::try_from(idx)
                                        && let Some(slot) = items.get_mut(pos) =>
                                {
                                    *slot = v;
                                    true
                                }
                                _ => false,
                            };
                            if !stored {
                                tri!(self.index_store(t, i, v));
                            }
                            self.cur.stack.push(v);
                        }
                        Op::Member(sym) => {
                            let t = self.pop();
                            let v = match t {
                                // What `member` does for an agent, without its
                                // general set-up (it copies the member's name).
                                Value::Obj(r) if matches!(self.heap.get(r), Obj::Task(_)) => {
                                    tri!(self.task_member(r, sym))
                                }
                                _ => {
                                    let line = proto.span_at(ip).line;
                                    tri!(self.member(t, sym, line))
                                }
                            };
                            self.cur.stack.push(v);
                        }
                        Op::Call(argc) => {
                            // Calls are safe points: a runaway recursion is
                            // budgeted and pausable like a runaway loop. If the
                            // agent pauses here, the call runs when it resumes.
                            if self.needs_safepoint() {
                                self.set_ip(ip - 1);
                                let fiber: *const super::Fiber = &*self.cur;
                                if let Some(exit) = tri!(self.safepoint()) {
                                    return Ok(exit);
                                }
                                if !std::ptr::eq(fiber, &*self.cur) {
                                    // This agent paused; another fiber runs now.
                                    continue 'frames;
                                }
                            }
                            self.set_ip(ip);
                            // `for x in range(…)`: the Ints without the array
                            // (`vm/lazy_range.rs`); the loop's `IterPrep` is
                            // then skipped.
                            if let Some(Op::IterPrep) = code.get(ip)
                                && self.lazy_range(argc as usize)
                            {
                                ip += 1;
                                continue;
                            }
                            // A slotted function with untyped parameters: its
                            // frame is pushed here, without the general call.
                            if self.call_slotted_fast(argc as usize) {
                                continue 'frames;
                            }
                            call!(argc as usize, false);
                        }
                        Op::CallLabeled(idx) => {
                            self.set_ip(ip);
                            let Some(info) = proto.labels.get(idx as usize) else {
                                fail!(bad_code())
                            };
                            let n = info.labels.len();
                            let Some(at) = self.cur.stack.len().checked_sub(n) else {
                                fail!(super::call::underflow())
                            };
                            self.labeled.clear();
                            for (label, v) in info.labels.iter().zip(self.cur.stack.drain(at..)) {
                                self.labeled.push((*label, v));
                            }
                            call!(info.positional as usize, true);
                        }
                        Op::Return => {
                            self.set_ip(ip);
                            let v = self.pop();
                            // A slotted function without a declared return
                            // type, called by Sense code: nothing to check,
                            // no scope to release.
                            if proto.slotted && proto.ret.is_none() && self.return_slotted(v) {
                                continue 'frames;
                            }
                            match self.do_return(v) {
                                Ok(Some(exit)) => return Ok(exit),
                                Ok(None) => continue 'frames,
                                Err(err) => {
                                    self.throw(err)?;
                                    continue 'frames;
                                }
                            }
                        }
                        Op::ReturnOutside => {
                            self.set_ip(ip);
                            let err = EvalError::runtime("'return' outside a function")
                                .at(proto.span_at(ip), proto.file);
                            self.throw_stray(err)?;
                            continue 'frames;
                        }
                        Op::EnterBlock => {
                            let env = self.env();
                            self.cur.blocks.push(env);
                        }
                        Op::ExitBlock => {
                            self.exit_block();
                            // A loop body's end: its back-edge, in this dispatch.
                            if let Some(&Op::Loop(t)) = code.get(ip) {
                                loop_back!(t);
                            }
                        }
                        Op::LoopBegin(i) => {
                            let Some(&t) = proto.loops.get(i as usize) else {
                                fail!(bad_code())
                            };
                            self.push_ctl(CtlKind::Loop {
                                break_ip: t.break_ip,
                                continue_ip: t.continue_ip,
                            });
                        }
                        Op::LoopEnd => {
                            self.cur.ctl.pop();
                        }
                        Op::Break | Op::Continue => {
                            self.set_ip(ip);
                            if let Err(err) = self.do_break(op == Op::Continue) {
                                self.throw_stray(err.at(proto.span_at(ip), proto.file))?;
                            }
                            continue 'frames;
                        }
                        Op::IterPrep => {
                            let v = self.pop();
                            let items = tri!(self.iter_items(v));
                            self.cur.stack.push(items);
                            self.cur.stack.push(Value::Int(0));
                        }
                        Op::IterNext(t) => match self.iter_next(code, ip, t) {
                            Some(next) => ip = next,
                            None => fail!(super::call::underflow()),
                        },
                        Op::Closure(p) => {
                            let env = self.define_scope();
                            let env = self.capture_env(env);
                            let r = self.heap.alloc(Obj::Closure(crate::object::Closure {
                                proto: crate::proto::ProtoId(p),
                                env,
                            }));
                            self.cur.stack.push(Value::Func(r));
                        }
                        Op::TestBegin(_) | Op::TestEnd | Op::CheckType(_) => {
                            tri!(self.exec_rare(op, &proto))
                        }
                        Op::Import(i) => {
                            self.set_ip(ip);
                            tri!(self.exec_import(&proto, i, false));
                            continue 'frames;
                        }
                        Op::FromImport(i) => {
                            self.set_ip(ip);
                            tri!(self.exec_import(&proto, i, true));
                            continue 'frames;
                        }
                        Op::TaskDecl(_) => tri!(self.exec_rare(op, &proto)),
                        Op::SetConfig(sym) => {
                            let v = self.pop();
                            tri!(self.exec_set(sym, v));
                        }
                        Op::Declare(i) => tri!(self.exec_declare(&proto, i)),
                        Op::DrainTasks => {
                            if self.has_runnable() {
                                // Run again when control comes back, until no task is ready.
                                self.set_ip(ip - 1);
                                if self.drain_step() {
                                    continue 'frames;
                                }
                                self.set_ip(ip);
                            }
                        }
                        Op::StorePop(sym) => {
                            let v = self.pop();
                            self.assign(sym, v);
                        }
                        Op::AddInt(n) => {
                            let a = self.pop();
                            let v = tri!(self.add(a, Value::Int(n as i64)));
                            self.cur.stack.push(v);
                        }
                        Op::SubInt(n) | Op::MulInt(n) | Op::ModInt(n) => {
                            let a = self.pop();
                            let op = match op {
                                Op::SubInt(_) => Op::Sub,
                                Op::MulInt(_) => Op::Mul,
                                _ => Op::Mod,
                            };
                            let v = tri!(self.arith(op, a, Value::Int(n as i64)));
                            self.cur.stack.push(v);
                        }
                        Op::CompareJump(cmp, t) => {
                            let (a, b) = self.pop2();
                            let holds = tri!(self.compare_general(cmp, a, b));
                            ip = self.branch(code, holds, ip, t);
                        }
                        Op::Unsupported => tri!(self.exec_rare(op, &proto)),
                        // `try`/`except`/`finally`/`raise`: rare, out of the
                        // loop in one arm; the frame is reloaded after each.
                        Op::TryBegin(_)
                        | Op::TryEnd
                        | Op::ExceptMatch(..)
                        | Op::Raise
                        | Op::FinallyBegin(_)
                        | Op::FinallyEnter
                        | Op::FinallyExit
                        | Op::ReturnFinally => {
                            self.set_ip(ip);
                            match self.exec_handler_op(op) {
                                Ok(Some(exit)) => return Ok(exit),
                                Ok(None) => continue 'frames,
                                Err(err) => fail!(err),
                            }
                        }
                    }
                    if code.get(ip).is_some_and(|op| super::run_hot::is_hot(*op)) {
                        continue 'hot;
                    }
                }
            }
        }
    }

    /// The instructions a program runs rarely (test blocks, declared
    /// types, task declarations, unsupported statements), out of the run
    /// loop: inlined there they cost every hot instruction registers
    /// (BENCHMARKS.md, issue 14). An error comes back to the loop, which
    /// places it at the instruction.
    #[cold]
    #[inline(never)]
    fn exec_rare(&mut self, op: Op, proto: &crate::proto::Proto) -> EvalResult<()> {
        match op {
            Op::TestBegin(i) => {
                let info = proto.tests.get(i as usize).ok_or_else(bad_code)?;
                self.push_ctl(CtlKind::Test {
                    description: info.description.clone(),
                    end_ip: info.end_ip,
                });
            }
            Op::TestEnd => {
                if let Some(ctl) = self.cur.ctl.pop()
                    && let CtlKind::Test { description, .. } = ctl.kind
                {
                    self.tests.push(super::TestResult {
                        description,
                        failure: None,
                    });
                }
            }
            Op::CheckType(i) => {
                let decl = proto.decl_types.get(i as usize).ok_or_else(bad_code)?;
                let v = self.peek();
                if !self.matches(v, &decl.ann.spec) {
                    return Err(EvalError::type_error(format!(
                        "cannot assign value of type {} to '{}: {}'",
                        self.type_name(v),
                        decl.name,
                        decl.ann.text
                    )));
                }
            }
            Op::TaskDecl(i) => {
                let info = proto.tasks.get(i as usize).cloned().ok_or_else(bad_code)?;
                self.declare_task(&info)?;
            }
            Op::Unsupported => {
                let v = self.pop();
                let msg = self.show(v).unwrap_or_default();
                return Err(EvalError::runtime(msg));
            }
            _ => return Err(bad_code()),
        }
        Ok(())
    }

    /// `import` (`from` false) or `from … import` number `i`, out of the
    /// run loop; the loop reloads the frame after it.
    #[cold]
    #[inline(never)]
    fn exec_import(&mut self, proto: &crate::proto::Proto, i: u32, from: bool) -> EvalResult<()> {
        let info = proto
            .imports
            .get(i as usize)
            .cloned()
            .ok_or_else(bad_code)?;
        self.import(&info, proto.file, proto.no_file_context, from)
    }

    /// A comparison of anything but two Ints (`==`/`!=` by equality, the
    /// others by order), out of the run loop.
    #[inline(never)]
    fn compare_general(&self, cmp: Cmp, a: Value, b: Value) -> EvalResult<bool> {
        match cmp {
            Cmp::Eq => self.equal(a, b),
            Cmp::Ne => self.equal(a, b).map(|eq| !eq),
            _ => self.compare(cmp.op(), a, b),
        }
    }

    /// `LoadSlot` of an unbound slot: its name read through the frame's
    /// chain (the closure's scope outwards), as `Load` reads it.
    #[cold]
    #[inline(never)]
    fn load_unbound(&self, proto: &crate::proto::Proto, s: u32) -> EvalResult<Value> {
        let sym = proto.slot_name(s).ok_or_else(bad_code)?;
        self.lookup(self.env(), sym)
            .ok_or_else(|| undefined(self, sym))
    }

    /// `StoreSlot` into an unbound slot: the assignment rule — overwrite
    /// the nearest binding of the name on the frame's chain, else bind
    /// the slot (the innermost scope that may bind it).
    #[cold]
    #[inline(never)]
    fn store_unbound(
        &mut self,
        proto: &crate::proto::Proto,
        sbase: usize,
        s: u32,
        v: Value,
    ) -> EvalResult<()> {
        let sym = proto.slot_name(s).ok_or_else(bad_code)?;
        let env = self.env();
        if self.assign_existing(env, sym, v) {
            return Ok(());
        }
        match self.cur.slots.get_mut(sbase + s as usize) {
            Some(slot) => {
                *slot = Some(v);
                Ok(())
            }
            None => Err(bad_code()),
        }
    }

    /// Called after a native asked for a fiber switch or a frame was pushed;
    /// `Some` when the driven fiber settled. Errors belong to the call that
    /// made the request and have been thrown already when this returns.
    pub(crate) fn after_switch(&mut self) -> EvalResult<Option<Exit>> {
        if !self.sched.nested.is_empty() && self.sched.pending.is_some() {
            self.sched.pending = None;
            self.sched.parked = None;
            let (span, file) = self.current_span();
            let err = self
                .refusal(None, crate::kind::Refusal::SwitchInNestedRun)
                .at(span, file);
            self.throw(err)?;
            return Ok(None);
        }
        let result = match self.sched.pending.take() {
            None => Ok(None),
            Some(Pending::Enter(task)) => {
                self.enter_task(task);
                Ok(None)
            }
            Some(Pending::Suspend) => self.leave_fiber(Leave::Paused),
            Some(Pending::Block) => self.leave_fiber(Leave::Blocked),
            Some(Pending::Await(target)) => self.begin_await(target).map(|()| None),
        };
        match result {
            Err(err) => {
                let (span, file) = self.current_span();
                self.throw(err.at(span, file))?;
                Ok(None)
            }
            ok => ok,
        }
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Value {
        self.cur.stack.pop().unwrap_or(Value::Nil)
    }

    #[inline]
    pub(crate) fn pop2(&mut self) -> (Value, Value) {
        let b = self.pop();
        let a = self.pop();
        (a, b)
    }

    #[inline]
    pub(crate) fn peek(&self) -> Value {
        self.cur.stack.last().copied().unwrap_or(Value::Nil)
    }

    /// Where the current frame's slots start.
    #[inline]
    pub(crate) fn slot_base(&self) -> usize {
        self.cur.frames.last().map_or(0, |f| f.slot_base as usize)
    }

    #[inline]
    pub(crate) fn set_ip(&mut self, ip: usize) {
        if let Some(f) = self.cur.frames.last_mut() {
            f.ip = ip as u32;
        }
    }

    /// The current frame's innermost materialised scope.
    #[inline]
    pub fn env(&self) -> crate::heap::ScopeRef {
        self.cur.frames.last().map_or(self.globals, |f| f.env)
    }

    #[inline]
    pub(crate) fn set_env(&mut self, env: crate::heap::ScopeRef) {
        if let Some(f) = self.cur.frames.last_mut() {
            f.env = env;
        }
    }

    pub(super) fn push_ctl(&mut self, kind: CtlKind) {
        let ctl = super::Ctl {
            kind,
            frame: self.cur.frames.len() as u32 - 1,
            stack: self.cur.stack.len() as u32,
            blocks: self.cur.blocks.len() as u32,
            env: self.env(),
        };
        self.cur.ctl.push(ctl);
    }
}

/// Reading a name bound nowhere on the chain.
fn undefined(vm: &Vm, sym: crate::symbol::Symbol) -> EvalError {
    EvalError::name_error(format!("undefined variable '{}'", vm.interner.name(sym)))
}

/// An instruction refers to a table entry its code does not have: only
/// possible with damaged state; reported, never a panic.
fn bad_code() -> EvalError {
    EvalError::runtime("internal error: malformed code (damaged state)")
}
