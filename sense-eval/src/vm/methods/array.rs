//! Array methods, with Python's semantics: `push`, `pop`, `insert`,
//! `remove`, `reverse` and `sort` change the array in place; `slice`,
//! `sorted`, `map`, `filter` and `copy` make a new one. The methods that
//! call a function per element run through `vm/walk.rs`.

use super::{MethodCall, Outcome, slice_bounds};
use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::object::Obj;
use crate::value::Value;
use crate::vm::Vm;
use crate::walk::WalkOp;

impl Vm {
    /// Runs Array method `call.name`.
    pub(super) fn array_method(&mut self, call: &MethodCall<'_>) -> EvalResult<Outcome> {
        let Value::Array(r) = call.recv else {
            return Err(EvalError::runtime("internal error: not an array"));
        };
        // Only the length up front: `push` in a loop must not copy the array.
        let len = self.array_of(call.recv).map_or(0, Vec::len);
        let items = |vm: &Vm| vm.array_of(call.recv).cloned().unwrap_or_default();
        let value = |v| Ok(Outcome::Value(v));
        match call.name {
            "push" => {
                call.arity(self, 1, 1)?;
                self.check_array_len(len + 1)?;
                self.heap.charge(crate::heap::VALUE_BYTES);
                self.with_items(r, |xs| xs.push(call.arg(0)));
                value(call.recv)
            }
            "pop" => {
                call.arity(self, 0, 1)?;
                if len == 0 {
                    return Err(EvalError::runtime("pop from an empty array"));
                }
                let at = match call.args.len() {
                    0 => len - 1,
                    _ => {
                        let i = call.int(self, 0, "the index")?;
                        let i = if i < 0 { i + len as i64 } else { i };
                        usize::try_from(i)
                            .ok()
                            .filter(|i| *i < len)
                            .ok_or_else(|| EvalError::runtime("pop index out of range"))?
                    }
                };
                let mut out = Value::Nil;
                self.with_items(r, |xs| {
                    if at < xs.len() {
                        out = xs.remove(at);
                    }
                });
                value(out)
            }
            "insert" => {
                call.arity(self, 2, 2)?;
                let i = call.int(self, 0, "the index")?;
                self.check_array_len(len + 1)?;
                self.heap.charge(crate::heap::VALUE_BYTES);
                let at = slice_bounds(len, i, None).start;
                self.with_items(r, |xs| xs.insert(at.min(xs.len()), call.arg(1)));
                value(Value::Nil)
            }
            "remove" => {
                call.arity(self, 1, 1)?;
                let Some(at) = self.position(r, call.arg(0))? else {
                    return Err(EvalError::runtime(format!(
                        "'Array.remove' did not find {}",
                        self.show(call.arg(0))?
                    )));
                };
                self.with_items(r, |xs| {
                    if at < xs.len() {
                        xs.remove(at);
                    }
                });
                value(Value::Nil)
            }
            "index" => {
                call.arity(self, 1, 1)?;
                let at = self.position(r, call.arg(0))?;
                value(Value::Int(at.map_or(-1, |i| i as i64)))
            }
            "contains" => {
                call.arity(self, 1, 1)?;
                value(Value::Bool(self.position(r, call.arg(0))?.is_some()))
            }
            "slice" => {
                let range = call.slice_range(self, len)?;
                let part = items(self).get(range).unwrap_or_default().to_vec();
                value(self.new_array(part)?)
            }
            "reverse" => {
                call.arity(self, 0, 0)?;
                self.with_items(r, |xs| xs.reverse());
                value(Value::Nil)
            }
            "copy" => {
                call.arity(self, 0, 0)?;
                let copy = items(self);
                value(self.new_array(copy)?)
            }
            "sort" | "sorted" => {
                call.arity(self, 0, 1)?;
                let keyed = !matches!(call.arg(0), Value::Nil);
                if keyed {
                    let op = if call.name == "sort" {
                        WalkOp::SortKey
                    } else {
                        WalkOp::SortedKey
                    };
                    return self.walk(op, r, call, Value::Nil);
                }
                let items = items(self);
                let order = self.sort_order(&items, call.name)?;
                let sorted: Vec<Value> = order
                    .into_iter()
                    .filter_map(|i| items.get(i).copied())
                    .collect();
                if call.name == "sorted" {
                    return value(self.new_array(sorted)?);
                }
                self.with_items(r, |xs| *xs = sorted);
                value(Value::Nil)
            }
            "map" | "filter" => {
                call.arity(self, 1, 1)?;
                let op = if call.name == "map" {
                    WalkOp::Map
                } else {
                    WalkOp::Filter
                };
                self.walk(op, r, call, Value::Nil)
            }
            "reduce" => {
                call.arity(self, 2, 2)?;
                self.walk(WalkOp::Reduce, r, call, call.arg(1))
            }
            _ => Err(EvalError::runtime(format!(
                "Array has no method '{}'",
                call.name
            ))),
        }
    }

    /// Starts a walk calling the method's first argument per element.
    fn walk(
        &mut self,
        op: WalkOp,
        r: ObjRef,
        call: &MethodCall<'_>,
        init: Value,
    ) -> EvalResult<Outcome> {
        let pushed = self.start_walk(op, r, call.arg(0), init, call.callee_at, call.line)?;
        Ok(if pushed {
            Outcome::Pushed
        } else {
            Outcome::Value(self.pop())
        })
    }

    /// Changes the elements of array `r` in place.
    fn with_items(&mut self, r: ObjRef, f: impl FnOnce(&mut Vec<Value>)) {
        if let Obj::Array(xs) = self.heap.get_mut(r) {
            f(xs);
        }
    }

    /// The first position of an element of array `r` that is `==` to `x`.
    fn position(&self, r: ObjRef, x: Value) -> EvalResult<Option<usize>> {
        let Obj::Array(items) = self.heap.get(r) else {
            return Ok(None);
        };
        for (i, item) in items.iter().enumerate() {
            if self.equal(*item, x)? {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }
}
