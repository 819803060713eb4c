//! Array methods that call a Sense function per element (`map`,
//! `filter`, `reduce`, `sort(key_fn)`, `sorted(key_fn)`), without
//! recursing on the Rust stack.
//!
//! The method allocates an `Obj::Walk` holding its state
//! ([`crate::walk::WalkState`]) and calls the function for the first
//! element; the function's frame is marked [`FrameKind::Walk`] so that
//! its `return` comes back here ([`Vm::walk_returned`]), which records the
//! result and calls the function for the next element, or puts the
//! method's result where the method call's result goes. A `pause()` in
//! the function suspends the fiber with the walk's frames on it, and a
//! snapshot holds the walk like any other object. Core builtins used as
//! the function (`xs.map(str)`) return at once and are looped over here.

use super::{FrameKind, Vm};
use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::object::Obj;
use crate::value::Value;
use crate::walk::{WalkOp, WalkState};

impl Vm {
    /// Starts `op` over the elements of `array` with function `func`
    /// (`init` is `reduce`'s start value), the method call's callee being
    /// at `callee_at`. True when a frame was pushed.
    pub(crate) fn start_walk(
        &mut self,
        op: WalkOp,
        array: ObjRef,
        func: Value,
        init: Value,
        callee_at: usize,
        line: u32,
    ) -> EvalResult<bool> {
        self.check_walk_function(op, func)?;
        let items = match self.heap.get(array) {
            Obj::Array(items) => items.clone(),
            _ => Vec::new(),
        };
        // The copy of the elements and what is gathered: two arrays' worth.
        self.check_heap_room(items.len().saturating_mul(2 * crate::heap::VALUE_BYTES))?;
        let state = WalkState {
            op,
            func,
            array,
            items,
            next: 0,
            acc: Vec::new(),
            value: init,
            line,
        };
        let empty = state.items.is_empty();
        let r = self.heap.alloc(Obj::Walk(Box::new(state)));
        self.cur.stack.truncate(callee_at);
        if empty {
            let v = self.finish_walk(r)?;
            self.cur.stack.push(v);
            return Ok(false);
        }
        self.walk_call(r, callee_at)
    }

    /// The function of a walk must be a Sense function or a core builtin
    /// (one that returns at once: a host function or an agent-layer
    /// builtin could pause the call, which only a Sense body may do here).
    fn check_walk_function(&self, op: WalkOp, func: Value) -> EvalResult<()> {
        let ok = match func {
            Value::Func(_) => true,
            Value::Native(id) => self.registries.natives.get(id.0 as usize).is_some_and(|n| {
                crate::builtins::core_natives().iter().any(|c| {
                    c.name == n.name && matches!(n.imp, crate::builtins::NativeImpl::Builtin(_))
                })
            }),
            _ => false,
        };
        if ok {
            return Ok(());
        }
        Err(EvalError::type_error(format!(
            "Array.{}() expects a function (def or a core builtin), got {}",
            op.name(),
            self.type_name(func)
        )))
    }

    /// Calls the walk's function on its next element, as long as calls
    /// return at once (builtins); true when a Sense frame was pushed.
    fn walk_call(&mut self, r: ObjRef, base: usize) -> EvalResult<bool> {
        loop {
            let Obj::Walk(w) = self.heap.get(r) else {
                return Err(EvalError::runtime("internal error: lost walk"));
            };
            let item = w.items.get(w.next).copied().unwrap_or(Value::Nil);
            let (func, reduce, acc) = (w.func, w.op == WalkOp::Reduce, w.value);
            self.cur.stack.truncate(base);
            self.cur.stack.push(func);
            if reduce {
                self.cur.stack.push(acc);
            }
            self.cur.stack.push(item);
            let frames = self.cur.frames.len();
            let argc = if reduce { 2 } else { 1 };
            if self.call(argc, false)? {
                let one_more = frames + 1 == self.cur.frames.len();
                return match self.cur.frames.last_mut() {
                    Some(f) if one_more && matches!(f.kind, FrameKind::Call) => {
                        f.kind = FrameKind::Walk(r);
                        Ok(true)
                    }
                    _ => Err(EvalError::runtime(
                        "internal error: a walk's function did not run as a call",
                    )),
                };
            }
            let v = self.pop();
            if let Some(result) = self.walk_step(r, v)? {
                self.cur.stack.truncate(base);
                self.cur.stack.push(result);
                return Ok(false);
            }
        }
    }

    /// A walk's function returned `v` (its frame is gone; the stack is
    /// back at the method call's callee slot).
    pub(crate) fn walk_returned(&mut self, r: ObjRef, v: Value) -> EvalResult<()> {
        let base = self.cur.stack.len();
        let located = |vm: &Vm, e: EvalError| {
            let (span, file) = vm.current_span();
            e.at(span, file)
        };
        match self.walk_step(r, v) {
            Ok(Some(result)) => {
                self.cur.stack.push(result);
                Ok(())
            }
            Ok(None) => match self.walk_call(r, base) {
                Ok(_) => Ok(()),
                Err(e) => Err(located(self, e)),
            },
            Err(e) => Err(located(self, e)),
        }
    }

    /// Records the result of the call on the current element; the
    /// method's result once every element has been seen.
    fn walk_step(&mut self, r: ObjRef, v: Value) -> EvalResult<Option<Value>> {
        let keep = self.truthy(v);
        let Obj::Walk(w) = self.heap.get_mut(r) else {
            return Err(EvalError::runtime("internal error: lost walk"));
        };
        let item = w.items.get(w.next).copied().unwrap_or(Value::Nil);
        match w.op {
            WalkOp::Map | WalkOp::SortKey | WalkOp::SortedKey => w.acc.push(v),
            WalkOp::Filter => {
                if keep {
                    w.acc.push(item);
                }
            }
            WalkOp::Reduce => w.value = v,
        }
        w.next += 1;
        if w.next < w.items.len() {
            return Ok(None);
        }
        self.finish_walk(r).map(Some)
    }

    /// The method's result once every element has been seen.
    fn finish_walk(&mut self, r: ObjRef) -> EvalResult<Value> {
        let Obj::Walk(w) = self.heap.get_mut(r) else {
            return Err(EvalError::runtime("internal error: lost walk"));
        };
        let (op, array, value) = (w.op, w.array, w.value);
        let acc = std::mem::take(&mut w.acc);
        let items = std::mem::take(&mut w.items);
        match op {
            WalkOp::Map | WalkOp::Filter => self.new_array(acc),
            WalkOp::Reduce => Ok(value),
            WalkOp::SortKey | WalkOp::SortedKey => {
                let order = self.sort_order(&acc, op.name())?;
                let sorted: Vec<Value> = order
                    .into_iter()
                    .filter_map(|i| items.get(i).copied())
                    .collect();
                if op == WalkOp::SortedKey {
                    return self.new_array(sorted);
                }
                if let Obj::Array(xs) = self.heap.get_mut(array) {
                    // Elements pushed by the key function while sorting
                    // stay, after the sorted ones.
                    let extra: Vec<Value> = xs.get(sorted.len()..).unwrap_or_default().to_vec();
                    *xs = sorted;
                    xs.extend(extra);
                }
                Ok(Value::Nil)
            }
        }
    }

    /// The stable order that sorts `keys`: Ints and Floats numerically,
    /// Strings by code point; any other mix is an error naming `method`.
    pub(crate) fn sort_order(&self, keys: &[Value], method: &str) -> EvalResult<Vec<usize>> {
        let numbers = keys.iter().all(|k| k.is_number());
        let strings = keys.iter().all(|k| matches!(k, Value::Str(_)));
        if !numbers && !strings {
            let odd = keys
                .iter()
                .find(|k| !k.is_number() && !matches!(k, Value::Str(_)));
            return Err(EvalError::runtime(match odd {
                Some(k) => format!(
                    "{method}() can only compare Int, Float and String values, got {}",
                    self.type_name(*k)
                ),
                None => {
                    // Numbers and Strings: name them in the order they come.
                    let first = keys.first().copied().unwrap_or(Value::Nil);
                    let other = keys
                        .iter()
                        .find(|k| k.is_number() != first.is_number())
                        .copied()
                        .unwrap_or(Value::Nil);
                    format!(
                        "{method}() cannot compare {} with {}",
                        self.type_name(first),
                        self.type_name(other)
                    )
                }
            }));
        }
        let mut order: Vec<usize> = (0..keys.len()).collect();
        let key = |i: usize| keys.get(i).copied().unwrap_or(Value::Nil);
        if numbers {
            order.sort_by(|&a, &b| {
                let (x, y) = (key(a), key(b));
                match (x, y) {
                    (Value::Int(p), Value::Int(q)) => p.cmp(&q),
                    _ => self.compare(crate::op::Op::Lt, x, y).ok().map_or(
                        std::cmp::Ordering::Equal,
                        |lt| {
                            if lt {
                                std::cmp::Ordering::Less
                            } else if self.compare(crate::op::Op::Lt, y, x).unwrap_or(false) {
                                std::cmp::Ordering::Greater
                            } else {
                                std::cmp::Ordering::Equal
                            }
                        },
                    ),
                }
            });
        } else {
            order.sort_by(|&a, &b| {
                let (x, y) = (self.str_of(key(a)), self.str_of(key(b)));
                x.cmp(&y)
            });
        }
        Ok(order)
    }
}
