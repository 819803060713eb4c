//! The hot loop: the first level of the two-level dispatch (ARCHITECTURE.md,
//! "The dispatch loop").
//!
//! [`Vm::run`] is one big `match` over every instruction; its calls into
//! the rest of the VM make the compiler spill the code pointer, its length
//! and `ip` around every dispatch. [`Vm::run_hot`] is a small function that
//! runs only the common cases of the frequent instructions — Ints, bound
//! slots and names, arrays, branches, loops — so those stay in registers.
//! It never fails, allocates no object, pauses nor switches frames: at an
//! instruction it cannot finish exactly as `run` would, it stops *before*
//! any effect and returns that instruction's index, and `run` executes it
//! (errors, safe points, calls and the general cases all live there).

use super::Vm;
use super::lazy_range::lazy_range_next;
use super::names::Bumped;
use crate::error::{EvalError, EvalResult};
use crate::object::Obj;
use crate::op::Op;
use crate::proto::{Proto, ProtoId};
use crate::value::Value;
use std::sync::Arc;

/// Why [`Vm::run_hot`] stopped.
pub(super) enum Hot {
    /// At the instruction at this index, left to `run`.
    At(usize),
    /// A call or return of a slotted function changed the frame to one
    /// running other code: `run` reloads the frame.
    Reload,
    /// A general call pushed a frame or asked for a fiber switch: `run`
    /// settles it as after its own calls.
    Switched,
    /// An instruction failed (a general call, `+`); the index is the one
    /// after it, as `run`'s own failures have it.
    Failed(usize, EvalError),
}

impl Vm {
    /// Runs instructions of the current frame from `ip` while they are
    /// hot cases, following calls and returns of slotted functions (and
    /// `proto` with them); returns where it stopped and why ([`Hot`]).
    /// `proto` runs in the current frame on entry and on return.
    #[inline(never)]
    pub(super) fn run_hot(&mut self, proto: &mut Arc<Proto>, mut ip: usize) -> Hot {
        loop {
            let Some(frame) = self.cur.frames.last() else {
                return Hot::Reload;
            };
            let (pid, sbase) = (frame.proto, frame.slot_base as usize);
            match self.run_code(proto, ip, pid, sbase) {
                Ok(hot) => return hot,
                // Another function's code: on with it.
                Err(()) => {
                    let Some(frame) = self.cur.frames.last() else {
                        return Hot::Reload;
                    };
                    let Some(current) = self.code.protos.get(frame.proto.0 as usize) else {
                        return Hot::Reload;
                    };
                    ip = frame.ip as usize;
                    if !Arc::ptr_eq(current, proto) {
                        *proto = Arc::clone(current);
                    }
                }
            }
        }
    }

    /// [`run_hot`](Self::run_hot) within `proto`'s code (`pid`), whose
    /// frame's slots start at `sbase`: `Err` when a call or return moved
    /// to a frame running other code.
    #[inline(always)]
    fn run_code(
        &mut self,
        proto: &Proto,
        mut ip: usize,
        pid: ProtoId,
        mut sbase: usize,
    ) -> Result<Hot, ()> {
        let code = &proto.code[..];
        let consts = &proto.consts[..];
        let plain_return = proto.slotted && proto.ret.is_none();
        loop {
            let Some(&op) = code.get(ip) else {
                return Ok(Hot::At(ip));
            };
            match op {
                Op::Const(k) => {
                    let v = consts.get(k as usize).copied().unwrap_or(Value::Nil);
                    if !push_room(&mut self.cur.stack, v) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::Nil => {
                    if !push_room(&mut self.cur.stack, Value::Nil) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::True => {
                    if !push_room(&mut self.cur.stack, Value::Bool(true)) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::False => {
                    if !push_room(&mut self.cur.stack, Value::Bool(false)) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::SmallInt(n) => {
                    if !push_room(&mut self.cur.stack, Value::Int(n as i64)) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::Pop => {
                    self.cur.stack.pop();
                }
                Op::LoadSlot(s) => {
                    if !self.push_slot(sbase, s) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::StoreSlot(s) => {
                    let fiber = &mut *self.cur;
                    match (fiber.stack.last(), fiber.slots.get_mut(sbase + s as usize)) {
                        (Some(&v), Some(Some(slot))) => *slot = v,
                        _ => return Ok(Hot::At(ip)),
                    }
                }
                Op::StoreSlotPop(s) => {
                    let fiber = &mut *self.cur;
                    match (fiber.stack.last(), fiber.slots.get_mut(sbase + s as usize)) {
                        (Some(&v), Some(Some(slot))) => *slot = v,
                        _ => return Ok(Hot::At(ip)),
                    }
                    fiber.stack.pop();
                }
                Op::DefineSlot(s) => {
                    let fiber = &mut *self.cur;
                    let Some(slot) = fiber.slots.get_mut(sbase + s as usize) else {
                        return Ok(Hot::At(ip));
                    };
                    *slot = Some(fiber.stack.pop().unwrap_or(Value::Nil));
                }
                Op::BumpSlot(s) => match self.bump_slot(code, ip + 1, sbase, s) {
                    Some(next) => {
                        ip = next;
                        continue;
                    }
                    None => return Ok(Hot::At(ip)),
                },
                // The register-form heads (`op.rs`): the whole sequence
                // when its common case holds, else their first instruction.
                Op::SlotCompareJump(a) => {
                    if let Some(next) = self.slot_compare_jump(code, ip, sbase, a) {
                        ip = next;
                        continue;
                    }
                    if !self.push_slot(sbase, a) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::SlotIndexSlot(a) => {
                    if let Some(v) = self.slot_index_slot(code, ip, sbase, a)
                        && push_room(&mut self.cur.stack, v)
                    {
                        ip += 3;
                        continue;
                    }
                    if !self.push_slot(sbase, a) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::LoadSlots(a) => {
                    let fiber = &mut *self.cur;
                    let Some(Some(x)) = fiber.slots.get(sbase + a as usize) else {
                        return Ok(Hot::At(ip));
                    };
                    let x = *x;
                    if let Some(&(Op::LoadSlot(b) | Op::LoadSlots(b))) = code.get(ip + 1)
                        && let Some(Some(y)) = fiber.slots.get(sbase + b as usize)
                        && room(&fiber.stack, 2)
                    {
                        let y = *y;
                        fiber.stack.extend_from_slice(&[x, y]);
                        ip += 2;
                        continue;
                    }
                    if !push_room(&mut fiber.stack, x) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::IndexStorePop => {
                    if !self.index_store_pop(code, ip) {
                        return Ok(Hot::At(ip));
                    }
                    ip += 2;
                    continue;
                }
                Op::AddStoreSlot(s) => {
                    if add_store_slot(&mut self.cur, code, ip, sbase, s) {
                        ip += 2;
                        continue;
                    }
                    if !int2(&mut self.cur.stack, |x, y| x.checked_add(y).map(Value::Int))
                        && let Err(err) = self.add_op()
                    {
                        return Ok(Hot::Failed(ip + 1, err));
                    }
                }
                Op::IntCompareJump(k) => {
                    if let Some(&Value::Int(x)) = self.cur.stack.last()
                        && let Some(&Op::CompareJump(cmp, t)) = code.get(ip + 1)
                    {
                        self.cur.stack.pop();
                        ip = self.branch(code, cmp.ints(x, k as i64), ip + 2, t);
                        continue;
                    }
                    if !push_room(&mut self.cur.stack, Value::Int(k as i64)) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::ClearSlots(a, b) => {
                    let range = sbase + a as usize..sbase + b as usize;
                    if let Some(slots) = self.cur.slots.get_mut(range) {
                        slots.fill(None);
                    }
                }
                Op::Load(sym) => match self.lookup(self.env(), sym) {
                    Some(v) if push_room(&mut self.cur.stack, v) => {}
                    _ => return Ok(Hot::At(ip)),
                },
                Op::Bump(sym) => {
                    let delta = match (code.get(ip + 1), code.get(ip + 2)) {
                        (Some(&Op::AddInt(k)), Some(&Op::StorePop(s))) if s == sym => k as i64,
                        (Some(&Op::SubInt(k)), Some(&Op::StorePop(s))) if s == sym => -(k as i64),
                        _ => return Ok(Hot::At(ip)),
                    };
                    match self.bump(self.env(), sym, delta) {
                        Bumped::Done => ip += 2,
                        Bumped::Read(v) if push_room(&mut self.cur.stack, v) => {}
                        _ => return Ok(Hot::At(ip)),
                    }
                }
                Op::StorePop(sym) => {
                    let Some(&v) = self.cur.stack.last() else {
                        return Ok(Hot::At(ip));
                    };
                    if !self.assign_existing(self.env(), sym, v) {
                        return Ok(Hot::At(ip));
                    }
                    self.cur.stack.pop();
                }
                // `+` of anything else too (strings, arrays): common,
                // and it neither pauses nor switches frames.
                Op::Add => {
                    if !int2(&mut self.cur.stack, |x, y| x.checked_add(y).map(Value::Int))
                        && let Err(err) = self.add_op()
                    {
                        return Ok(Hot::Failed(ip + 1, err));
                    }
                }
                Op::Sub => {
                    if !int2(&mut self.cur.stack, |x, y| x.checked_sub(y).map(Value::Int)) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::Mul => {
                    if !int2(&mut self.cur.stack, |x, y| x.checked_mul(y).map(Value::Int)) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::Mod => {
                    let m = |x, y| (y != 0).then(|| super::ops::int_mod(x, y)).flatten();
                    if !int2(&mut self.cur.stack, |x, y| m(x, y).map(Value::Int)) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::AddInt(n) => {
                    if !int1(&mut self.cur.stack, |x| x.checked_add(n as i64)) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::SubInt(n) => {
                    if !int1(&mut self.cur.stack, |x| x.checked_sub(n as i64)) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::MulInt(n) => {
                    if !int1(&mut self.cur.stack, |x| x.checked_mul(n as i64)) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::ModInt(n) => {
                    let m = |x| (n != 0).then(|| super::ops::int_mod(x, n as i64)).flatten();
                    if !int1(&mut self.cur.stack, m) {
                        return Ok(Hot::At(ip));
                    }
                }
                Op::CompareJump(cmp, t) => {
                    let stack = &mut self.cur.stack;
                    let [.., Value::Int(x), Value::Int(y)] = stack.as_slice() else {
                        return Ok(Hot::At(ip));
                    };
                    let holds = cmp.ints(*x, *y);
                    stack.truncate(stack.len() - 2);
                    ip = self.branch(code, holds, ip + 1, t);
                    continue;
                }
                Op::JumpIfFalse(t) => {
                    let c = self.cur.stack.pop().unwrap_or(Value::Nil);
                    let holds = self.truthy(c);
                    ip = self.branch(code, holds, ip + 1, t);
                    continue;
                }
                Op::Jump(t) => {
                    ip = t as usize;
                    continue;
                }
                // The back-edge: on unless a safe point has work to do.
                Op::Loop(t) if !self.needs_safepoint() => {
                    ip = t as usize;
                    // A `for` loop's head: its `IterNext` in this dispatch,
                    // as that instruction's own arm runs it.
                    match code.get(ip) {
                        Some(&Op::IterNext(end)) => match self.iter_next(code, ip + 1, end) {
                            Some(next) => ip = next,
                            None => return Ok(Hot::At(ip)),
                        },
                        // A `while` loop's condition on slots, likewise.
                        Some(&Op::SlotCompareJump(a)) => {
                            if let Some(next) = self.slot_compare_jump(code, ip, sbase, a) {
                                ip = next;
                            }
                        }
                        _ => {}
                    }
                    continue;
                }
                Op::EnterBlock => {
                    let env = self.env();
                    self.cur.blocks.push(env);
                }
                Op::ExitBlock => self.exit_block(),
                Op::IterNext(t) => match self.iter_next(code, ip + 1, t) {
                    Some(next) => {
                        ip = next;
                        continue;
                    }
                    None => return Ok(Hot::At(ip)),
                },
                Op::Index => {
                    let fiber = &mut *self.cur;
                    let [.., Value::Array(r), Value::Int(idx)] = fiber.stack.as_slice() else {
                        return Ok(Hot::At(ip));
                    };
                    let Obj::Array(items) = self.heap.get(*r) else {
                        return Ok(Hot::At(ip));
                    };
                    let Some(&v) = usize::try_from(*idx).ok().and_then(|pos| items.get(pos)) else {
                        return Ok(Hot::At(ip));
                    };
                    fiber.stack.pop();
                    if let Some(top) = fiber.stack.last_mut() {
                        *top = v;
                    }
                }
                // An agent's variable read as a member (not one its kind
                // answers): what `task_member` finds, without its errors.
                Op::Member(sym) if !self.task_members.has(sym) => {
                    let Some(&Value::Obj(r)) = self.cur.stack.last() else {
                        return Ok(Hot::At(ip));
                    };
                    let Some(v) = self.task_ref(r).and_then(|t| self.lookup(t.scope, sym)) else {
                        return Ok(Hot::At(ip));
                    };
                    if let Some(top) = self.cur.stack.last_mut() {
                        *top = v;
                    }
                }
                // A call of a slotted function, as `run` makes it (after
                // its safe point; `range` calls are left to it). Recursion
                // stays in here.
                Op::Call(argc) if !self.needs_safepoint() => {
                    if let Some(Op::IterPrep) = code.get(ip + 1) {
                        return Ok(Hot::At(ip));
                    }
                    self.set_ip(ip + 1);
                    if !self.call_slotted_fast(argc as usize) {
                        // Any other callee: the general call, as `run`
                        // makes it; on here unless the frame or fiber
                        // changed.
                        match self.call(argc as usize, false) {
                            Ok(false) => {
                                ip += 1;
                                continue;
                            }
                            Ok(true) => return Ok(Hot::Switched),
                            Err(err) => return Ok(Hot::Failed(ip + 1, err)),
                        }
                    }
                    let Some(at) = self.same_code(pid) else {
                        return Err(());
                    };
                    (ip, sbase) = at;
                    continue;
                }
                Op::Return if plain_return => {
                    let v = self.cur.stack.pop().unwrap_or(Value::Nil);
                    if !self.return_slotted(v) {
                        self.cur.stack.push(v);
                        return Ok(Hot::At(ip));
                    }
                    let Some(at) = self.same_code(pid) else {
                        return Err(());
                    };
                    (ip, sbase) = at;
                    continue;
                }
                _ => return Ok(Hot::At(ip)),
            }
            ip += 1;
        }
    }

    /// After a frame change: the new frame's `ip` and slot base when it
    /// runs `proto`'s code, else `None` (`run` reloads).
    #[inline(always)]
    fn same_code(&self, proto: ProtoId) -> Option<(usize, usize)> {
        match self.cur.frames.last() {
            Some(f) if f.proto == proto => Some((f.ip as usize, f.slot_base as usize)),
            _ => None,
        }
    }

    /// `LoadSlot(a)`'s common case: pushes the bound slot `a`; false
    /// (nothing touched) when it is unbound or the stack has no room.
    #[inline(always)]
    fn push_slot(&mut self, sbase: usize, a: u32) -> bool {
        let fiber = &mut *self.cur;
        match fiber.slots.get(sbase + a as usize) {
            Some(&Some(v)) => push_room(&mut fiber.stack, v),
            _ => false,
        }
    }

    /// `SlotCompareJump(a)` at `ip` as the sequence it heads, when slot `a`
    /// and the other operand are Ints: the `ip` after the branch, or
    /// `None` (nothing touched).
    #[inline(always)]
    fn slot_compare_jump(&mut self, code: &[Op], ip: usize, sbase: usize, a: u32) -> Option<usize> {
        let slots = &self.cur.slots;
        let Some(Some(Value::Int(x))) = slots.get(sbase + a as usize) else {
            return None;
        };
        let y = match code.get(ip + 1) {
            Some(&Op::LoadSlot(b)) => match slots.get(sbase + b as usize) {
                Some(Some(Value::Int(y))) => *y,
                _ => return None,
            },
            Some(&Op::SmallInt(k)) => k as i64,
            _ => return None,
        };
        let Some(&Op::CompareJump(cmp, t)) = code.get(ip + 2) else {
            return None;
        };
        let holds = cmp.ints(*x, y);
        Some(self.branch(code, holds, ip + 3, t))
    }

    /// `SlotIndexSlot(a)` at `ip` as the sequence it heads, when slot `a`
    /// holds an array and the index slot an Int in range: the element, or
    /// `None` (nothing touched).
    #[inline(always)]
    fn slot_index_slot(&self, code: &[Op], ip: usize, sbase: usize, a: u32) -> Option<Value> {
        let slots = &self.cur.slots;
        let Some(Some(Value::Array(r))) = slots.get(sbase + a as usize) else {
            return None;
        };
        let (Some(&Op::LoadSlot(j)), Some(Op::Index)) = (code.get(ip + 1), code.get(ip + 2)) else {
            return None;
        };
        let Some(Some(Value::Int(idx))) = slots.get(sbase + j as usize) else {
            return None;
        };
        let Obj::Array(items) = self.heap.get(*r) else {
            return None;
        };
        usize::try_from(*idx)
            .ok()
            .and_then(|pos| items.get(pos))
            .copied()
    }

    /// `IndexStorePop` at `ip` and the `Pop` after it, when the operands
    /// are an array and an Int in range: the element written and the three
    /// popped. False (nothing touched) otherwise.
    #[inline(always)]
    fn index_store_pop(&mut self, code: &[Op], ip: usize) -> bool {
        let fiber = &mut *self.cur;
        let [.., Value::Array(r), Value::Int(idx), v] = *fiber.stack.as_slice() else {
            return false;
        };
        if code.get(ip + 1) != Some(&Op::Pop) {
            return false;
        }
        let Obj::Array(items) = self.heap.get_mut(r) else {
            return false;
        };
        let Some(slot) = usize::try_from(idx).ok().and_then(|pos| items.get_mut(pos)) else {
            return false;
        };
        *slot = v;
        let n = fiber.stack.len();
        fiber.stack.truncate(n - 3);
        true
    }

    /// `Add` of two values that are not both Ints (or overflow).
    #[inline(never)]
    pub(super) fn add_op(&mut self) -> EvalResult<()> {
        let (a, b) = self.pop2();
        let v = self.add(a, b)?;
        self.cur.stack.push(v);
        Ok(())
    }

    /// A conditional branch taken (`holds`: on to `next`, entering the
    /// block that starts there, as the compiler puts the block's
    /// `EnterBlock` first) or not (to `t`). Returns the next `ip`.
    #[inline(always)]
    pub(super) fn branch(&mut self, code: &[Op], holds: bool, next: usize, t: u32) -> usize {
        if !holds {
            return t as usize;
        }
        if let Some(Op::EnterBlock) = code.get(next) {
            let env = self.env();
            self.cur.blocks.push(env);
            return next + 1;
        }
        next
    }

    /// `ExitBlock`: closes the innermost block, recycling its own scope
    /// unless captured.
    #[inline(always)]
    pub(super) fn exit_block(&mut self) {
        if let Some(entry) = self.cur.blocks.pop() {
            let inner = self.env();
            self.set_env(entry);
            if inner != entry {
                self.heap.release_scope(inner);
            }
        }
    }

    /// `BumpSlot(s)` whose next instruction is at `next` (its step): the
    /// `ip` after it, or `None` when the slot is unbound (the caller reads
    /// the name through the chain).
    #[inline(always)]
    pub(super) fn bump_slot(
        &mut self,
        code: &[Op],
        next: usize,
        sbase: usize,
        s: u32,
    ) -> Option<usize> {
        let delta = match code.get(next) {
            Some(&Op::AddInt(k)) => k as i64,
            Some(&Op::SubInt(k)) => -(k as i64),
            _ => 0,
        };
        let fiber = &mut *self.cur;
        let Some(Some(slot)) = fiber.slots.get_mut(sbase + s as usize) else {
            return None;
        };
        match *slot {
            Value::Int(x) if let Some(r) = x.checked_add(delta) => {
                *slot = Value::Int(r);
                Some(next + 2)
            }
            v => {
                fiber.stack.push(v);
                Some(next)
            }
        }
    }

    /// `IterNext(t)` whose next instruction is at `next`: the loop's next
    /// item bound (to the slotted loop variable or the body's block
    /// variable, each in this dispatch, or pushed), or on to `t` when
    /// done. The `ip` after it; `None` when the operand stack lacks the
    /// loop's two entries (damaged state).
    #[inline(always)]
    pub(super) fn iter_next(&mut self, code: &[Op], next: usize, t: u32) -> Option<usize> {
        let n = self.cur.stack.len();
        let [.., items, idx] = *self.cur.stack.as_slice() else {
            return None;
        };
        let step = match (items, idx) {
            // A lazy `range` loop: the end and the next Int.
            (Value::Int(end), Value::Int(at)) => lazy_range_next(end, at),
            (_, Value::Int(i)) => self.array_get(items, i as usize).map(|item| (item, i + 1)),
            _ => None,
        };
        let Some((item, after)) = step else {
            return Some(t as usize);
        };
        if let Some(slot) = self.cur.stack.get_mut(n - 1) {
            *slot = Value::Int(after);
        }
        if let Some(&Op::DefineSlot(var)) = code.get(next)
            && let base = self.slot_base()
            && let Some(slot) = self.cur.slots.get_mut(base + var as usize)
        {
            // A slotted loop's variable, in this dispatch.
            *slot = Some(item);
            Some(next + 1)
        } else if let (Some(Op::EnterBlock), Some(&Op::Define(var))) =
            (code.get(next), code.get(next + 1))
        {
            // What the compiler puts next (the body's block and its loop
            // variable), done here in one dispatch: the same steps as the
            // two instructions, which are skipped.
            let env = self.env();
            self.cur.blocks.push(env);
            let scope = self.define_scope();
            self.heap.scope_mut(scope).vars.define(var, item);
            Some(next + 2)
        } else {
            self.cur.stack.push(item);
            Some(next)
        }
    }
}

/// Whether `op` is one [`Vm::run_hot`] runs (in its common cases): `run`
/// hands over to it before such an instruction and keeps the others.
/// Only speed depends on this list matching `run_hot`'s arms.
#[inline(always)]
pub(super) fn is_hot(op: Op) -> bool {
    matches!(
        op,
        Op::Const(_)
            | Op::Nil
            | Op::True
            | Op::False
            | Op::SmallInt(_)
            | Op::Pop
            | Op::LoadSlot(_)
            | Op::StoreSlot(_)
            | Op::StoreSlotPop(_)
            | Op::DefineSlot(_)
            | Op::BumpSlot(_)
            | Op::ClearSlots(..)
            | Op::Load(_)
            | Op::Bump(_)
            | Op::StorePop(_)
            | Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Mod
            | Op::AddInt(_)
            | Op::SubInt(_)
            | Op::MulInt(_)
            | Op::ModInt(_)
            | Op::CompareJump(..)
            | Op::JumpIfFalse(_)
            | Op::Jump(_)
            | Op::Loop(_)
            | Op::EnterBlock
            | Op::ExitBlock
            | Op::IterNext(_)
            | Op::Index
            | Op::Member(_)
            | Op::Call(_)
            | Op::Return
            | Op::SlotCompareJump(_)
            | Op::SlotIndexSlot(_)
            | Op::AddStoreSlot(_)
            | Op::IntCompareJump(_)
            | Op::LoadSlots(_)
            | Op::IndexStorePop
    )
}

/// Pushes `v` when the operand stack has room for it; false (nothing
/// touched) when it would have to grow. The test makes `push`'s own
/// capacity check and its out-of-line growth provably dead, so the hot
/// loop has no call on its push path; `run` runs the instruction that
/// met a full stack, and its push grows it.
#[inline(always)]
fn push_room(stack: &mut Vec<Value>, v: Value) -> bool {
    if !room(stack, 1) {
        return false;
    }
    stack.push(v);
    true
}

/// Whether the operand stack takes `n` more values without growing.
#[inline(always)]
fn room(stack: &Vec<Value>, n: usize) -> bool {
    stack.capacity() - stack.len() >= n
}

/// A binary Int instruction on the operand stack's top two: replaced by
/// `f`'s result when both are Ints and `f` gives one; false (nothing
/// touched) otherwise.
#[inline(always)]
fn int2(stack: &mut Vec<Value>, f: impl FnOnce(i64, i64) -> Option<Value>) -> bool {
    let [.., Value::Int(x), Value::Int(y)] = stack.as_slice() else {
        return false;
    };
    let Some(r) = f(*x, *y) else {
        return false;
    };
    stack.pop();
    if let Some(top) = stack.last_mut() {
        *top = r;
    }
    true
}

/// `AddStoreSlot(s)` at `ip` and the `StoreSlotPop(s)` after it, when the
/// top two are Ints whose sum does not overflow and slot `s` is bound: the
/// sum written into the slot in place and both popped. False (nothing
/// touched) otherwise.
#[inline(always)]
fn add_store_slot(fiber: &mut super::Fiber, code: &[Op], ip: usize, sbase: usize, s: u32) -> bool {
    let [.., Value::Int(x), Value::Int(y)] = *fiber.stack.as_slice() else {
        return false;
    };
    let (Some(&Op::StoreSlotPop(to)), Some(r)) = (code.get(ip + 1), x.checked_add(y)) else {
        return false;
    };
    match fiber.slots.get_mut(sbase + s as usize) {
        Some(Some(slot)) if to == s => {
            *slot = Value::Int(r);
            let n = fiber.stack.len();
            fiber.stack.truncate(n - 2);
            true
        }
        _ => false,
    }
}

/// A unary Int instruction (an Int operand fused in) on the top of the
/// operand stack, as [`int2`].
#[inline(always)]
fn int1(stack: &mut [Value], f: impl FnOnce(i64) -> Option<i64>) -> bool {
    if let Some(top) = stack.last_mut()
        && let Value::Int(x) = *top
        && let Some(r) = f(x)
    {
        *top = Value::Int(r);
        return true;
    }
    false
}
