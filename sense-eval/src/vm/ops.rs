//! Operators, indexing, member access and type checks (the book:
//! values.md "Operators", scope.md "Functions").

use super::Vm;
use crate::error::{EvalError, EvalResult};
use crate::object::{Obj, StrObj};
use crate::op::Op;
use crate::symbol::Symbol;
use crate::types::TypeSpec;
use crate::value::Value;
use compact_str::CompactString;

fn overflow() -> EvalError {
    EvalError::runtime("integer overflow")
}

/// Floored modulo for integers (the result takes the divisor's sign).
pub(crate) fn int_mod(a: i64, b: i64) -> Option<i64> {
    let r = a.checked_rem(b)?;
    if r != 0 && ((r < 0) != (b < 0)) {
        r.checked_add(b)
    } else {
        Some(r)
    }
}

/// Floored modulo for floats, as Python computes it.
pub(crate) fn float_mod(a: f64, b: f64) -> f64 {
    let mut r = a % b;
    if r != 0.0 {
        if (r < 0.0) != (b < 0.0) {
            r += b;
        }
    } else {
        r = 0.0f64.copysign(b);
    }
    r
}

/// Python's int == float: exact comparison.
fn int_float_eq(i: i64, f: f64) -> bool {
    f.fract() == 0.0
        && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f)
        && f as i64 == i
}

impl Vm {
    /// Truthiness (the book: values.md "Truthiness").
    #[inline]
    pub fn truthy(&self, v: Value) -> bool {
        match v {
            Value::Nil => false,
            Value::Bool(b) => b,
            Value::Int(i) => i != 0,
            Value::Float(f) => f != 0.0,
            Value::Str(r) => match self.heap.get(r) {
                Obj::Str(s) => !s.text.is_empty(),
                _ => true,
            },
            Value::Array(r) => match self.heap.get(r) {
                Obj::Array(a) => !a.is_empty(),
                _ => true,
            },
            Value::Obj(r) => match self.heap.get(r) {
                Obj::Map(m) => !m.is_empty(),
                _ => true,
            },
            _ => true,
        }
    }

    /// The text of a string value.
    #[inline]
    pub fn str_of(&self, v: Value) -> Option<&str> {
        match v {
            Value::Str(r) => match self.heap.get(r) {
                Obj::Str(s) => Some(&s.text),
                _ => None,
            },
            _ => None,
        }
    }

    /// The string object behind a string value (its text and ASCII flag).
    #[inline]
    pub(crate) fn str_obj(&self, v: Value) -> Option<&StrObj> {
        match v {
            Value::Str(r) => match self.heap.get(r) {
                Obj::Str(s) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }

    /// The items of an array value.
    #[inline]
    pub fn array_of(&self, v: Value) -> Option<&Vec<Value>> {
        match v {
            Value::Array(r) => match self.heap.get(r) {
                Obj::Array(a) => Some(a),
                _ => None,
            },
            _ => None,
        }
    }

    #[inline]
    pub(crate) fn array_get(&self, v: Value, i: usize) -> Option<Value> {
        self.array_of(v).and_then(|a| a.get(i).copied())
    }

    /// Allocates a string value, enforcing the configured size cap.
    pub fn new_str(&mut self, s: impl Into<CompactString>) -> EvalResult<Value> {
        let s = s.into();
        let ascii = s.is_ascii();
        self.new_str_known(s, ascii)
    }

    /// [`Vm::new_str`] for text whose ASCII-ness the caller knows (see
    /// [`StrObj::with_ascii`]).
    pub(crate) fn new_str_known(&mut self, s: CompactString, ascii: bool) -> EvalResult<Value> {
        if s.len() > self.config.max_string_len {
            return Err(EvalError::runtime(format!(
                "string too large ({} bytes; the limit is {})",
                s.len(),
                self.config.max_string_len
            ))
            .limit());
        }
        self.check_heap_room(s.len())?;
        Ok(Value::Str(
            self.heap.alloc(Obj::Str(StrObj::with_ascii(s, ascii))),
        ))
    }

    /// Fails when the heap, grown by `bytes` more, would pass the heap
    /// ceiling even if everything unreachable were collected first (a
    /// collection happens at the next safe point; this catches one huge
    /// allocation before it is made).
    pub(crate) fn check_heap_room(&self, bytes: usize) -> EvalResult<()> {
        if self.heap.approx_bytes().saturating_add(bytes) > self.config.max_heap
            && self.heap.live_bytes().saturating_add(bytes) > self.config.max_heap
        {
            return Err(self.out_of_memory(self.heap.live_bytes().saturating_add(bytes)));
        }
        Ok(())
    }

    /// After a collection: fails when what is still live passes the heap
    /// ceiling.
    pub(crate) fn check_heap_ceiling(&self) -> EvalResult<()> {
        let live = self.heap.approx_bytes();
        if live > self.config.max_heap {
            return Err(self.out_of_memory(live));
        }
        Ok(())
    }

    /// The words name no way to raise the limit: a CLI user, a Rust host
    /// and a C host each have their own (the CLI adds its flag as a help
    /// line).
    fn out_of_memory(&self, bytes: usize) -> EvalError {
        let (need, limit) = sizes(bytes, self.config.max_heap);
        EvalError::runtime(format!(
            "out of memory: the program's values need about {need}, over the heap limit of {limit}"
        ))
        .limit()
    }

    /// Allocates an array value, enforcing the configured size cap.
    pub fn new_array(&mut self, items: Vec<Value>) -> EvalResult<Value> {
        self.check_new_array(items.len())?;
        Ok(Value::Array(self.heap.alloc(Obj::Array(items))))
    }

    /// `Op::ConstArray(k)`: a new array of the constants after the run
    /// header `consts[k]` (`compile/const_array.rs`). Like any literal it
    /// is not held to the array length cap, but it is to the heap ceiling,
    /// and its room is reserved fallibly.
    pub(crate) fn const_array(&mut self, consts: &[Value], k: u32) -> EvalResult<Value> {
        let start = k as usize + 1;
        let run = match consts.get(k as usize) {
            Some(Value::Int(n)) if *n >= 0 => consts.get(start..start.saturating_add(*n as usize)),
            Some(Value::Int(n)) => {
                return Err(EvalError::runtime(format!(
                    "out of memory: an array literal of {} elements could not be compiled",
                    -1 - *n
                )));
            }
            _ => None,
        };
        let Some(run) = run else {
            return Err(EvalError::runtime(
                "damaged code: a constant array is cut short",
            ));
        };
        self.check_heap_room(run.len().saturating_mul(crate::heap::VALUE_BYTES))?;
        let mut items = Vec::new();
        items.try_reserve_exact(run.len()).map_err(|_| {
            EvalError::runtime(format!(
                "out of memory: an array of {} elements could not be made",
                run.len()
            ))
        })?;
        items.extend_from_slice(run);
        Ok(Value::Array(self.heap.alloc(Obj::Array(items))))
    }

    pub(crate) fn check_array_len(&self, n: usize) -> EvalResult<()> {
        if n > self.config.max_array_len {
            return Err(EvalError::runtime(format!(
                "array too large ({n} elements; the limit is {})",
                self.config.max_array_len
            ))
            .limit());
        }
        Ok(())
    }

    /// [`Vm::check_array_len`] for a new array of `n` elements, which must
    /// also fit under the heap ceiling.
    pub(crate) fn check_new_array(&self, n: usize) -> EvalResult<()> {
        self.check_array_len(n)?;
        self.check_heap_room(n.saturating_mul(crate::heap::VALUE_BYTES))
    }

    pub(crate) fn add(&mut self, a: Value, b: Value) -> EvalResult<Value> {
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => x.checked_add(y).map(Value::Int).ok_or_else(overflow),
            (Value::Str(_), _) | (_, Value::Str(_)) => {
                let (Some(x), Some(y)) = (self.str_obj(a), self.str_obj(b)) else {
                    return Err(EvalError::runtime(format!(
                        "'+' requires both operands to be String (got {} and {}); use str() to convert",
                        self.type_name(a),
                        self.type_name(b)
                    )));
                };
                // Built in place: no allocation when the result fits
                // inline, else one of the exact length. It is ASCII when
                // both halves are, so it is never scanned.
                let ascii = x.ascii && y.ascii;
                let mut s = CompactString::with_capacity(x.text.len() + y.text.len());
                s.push_str(&x.text);
                s.push_str(&y.text);
                self.new_str_known(s, ascii)
            }
            (Value::Array(_), Value::Array(_)) => {
                let mut items = self.array_of(a).cloned().unwrap_or_default();
                items.extend_from_slice(self.array_of(b).map_or(&[][..], |v| v));
                self.new_array(items)
            }
            _ => match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) => Ok(Value::Float(x + y)),
                _ => Err(self.numeric_error("+", a, b)),
            },
        }
    }

    fn numeric_error(&self, op: &str, a: Value, b: Value) -> EvalError {
        EvalError::runtime(format!(
            "'{op}' requires numeric operands, got {} and {}",
            self.type_name(a),
            self.type_name(b)
        ))
    }

    /// `-`, `*` and `%`.
    pub(crate) fn arith(&mut self, op: Op, a: Value, b: Value) -> EvalResult<Value> {
        let sym = match op {
            Op::Sub => "-",
            Op::Mul => "*",
            _ => "%",
        };
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => match op {
                Op::Sub => x.checked_sub(y).map(Value::Int).ok_or_else(overflow),
                Op::Mul => x.checked_mul(y).map(Value::Int).ok_or_else(overflow),
                _ => {
                    if y == 0 {
                        Err(EvalError::runtime("modulo by zero"))
                    } else {
                        int_mod(x, y).map(Value::Int).ok_or_else(overflow)
                    }
                }
            },
            _ => match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) => match op {
                    Op::Sub => Ok(Value::Float(x - y)),
                    Op::Mul => Ok(Value::Float(x * y)),
                    _ => {
                        if y == 0.0 {
                            Err(EvalError::runtime("modulo by zero"))
                        } else {
                            Ok(Value::Float(float_mod(x, y)))
                        }
                    }
                },
                _ => Err(self.numeric_error(sym, a, b)),
            },
        }
    }

    pub(crate) fn div(&mut self, a: Value, b: Value) -> EvalResult<Value> {
        match (a.as_f64(), b.as_f64()) {
            (Some(_), Some(0.0)) => Err(EvalError::runtime("division by zero")),
            (Some(x), Some(y)) => {
                // Python divides two ints exactly (correctly rounded); f64
                // division of the converted values matches whenever both
                // convert exactly, which covers |n| < 2^53.
                if let (Value::Int(p), Value::Int(q)) = (a, b)
                    && (p.unsigned_abs() >= 1 << 53 || q.unsigned_abs() >= 1 << 53)
                {
                    return Ok(Value::Float(exact_int_div(p, q)));
                }
                Ok(Value::Float(x / y))
            }
            _ => Err(self.numeric_error("/", a, b)),
        }
    }

    pub(crate) fn negate(&mut self, a: Value) -> EvalResult<Value> {
        match a {
            Value::Int(i) => i.checked_neg().map(Value::Int).ok_or_else(overflow),
            Value::Float(f) => Ok(Value::Float(-f)),
            _ => Err(EvalError::runtime(format!(
                "unary '-' requires a number, got {}",
                self.type_name(a)
            ))),
        }
    }

    pub(crate) fn compare(&self, op: Op, a: Value, b: Value) -> EvalResult<bool> {
        let ord = match (a, b) {
            (Value::Int(x), Value::Int(y)) => x.partial_cmp(&y),
            (Value::Str(_), Value::Str(_)) => {
                let (x, y) = (self.str_of(a).unwrap_or(""), self.str_of(b).unwrap_or(""));
                x.partial_cmp(y)
            }
            (Value::Int(x), Value::Float(y)) => cmp_int_float(x, y),
            (Value::Float(x), Value::Int(y)) => cmp_int_float(y, x).map(|o| o.reverse()),
            (Value::Float(x), Value::Float(y)) => x.partial_cmp(&y),
            _ => {
                let sym = match op {
                    Op::Lt => "<",
                    Op::Le => "<=",
                    Op::Gt => ">",
                    _ => ">=",
                };
                return Err(self.numeric_error(sym, a, b));
            }
        };
        use std::cmp::Ordering::*;
        Ok(match (op, ord) {
            (_, None) => false, // NaN compares false
            (Op::Lt, Some(o)) => o == Less,
            (Op::Le, Some(o)) => o != Greater,
            (Op::Gt, Some(o)) => o == Greater,
            (_, Some(o)) => o != Less,
        })
    }

    /// `==` at the top level: a Bool only equals a Bool.
    pub(crate) fn equal(&self, a: Value, b: Value) -> EvalResult<bool> {
        match (a, b) {
            // Two Ints: what `host_equal` finds, without its set-up.
            (Value::Int(x), Value::Int(y)) => Ok(x == y),
            (Value::Bool(x), Value::Bool(y)) => Ok(x == y),
            (Value::Bool(_), _) | (_, Value::Bool(_)) => Ok(false),
            _ => self.host_equal(a, b, 0),
        }
    }

    /// Python's `==` on the underlying values (used inside arrays, where
    /// `true == 1`).
    /// `==` as the reference's host compares two values nested `depth`
    /// levels deep (for extension kinds' [`equal`](crate::kind::ObjectKind::equal)).
    pub fn host_equal(&self, a: Value, b: Value, depth: usize) -> EvalResult<bool> {
        // Arrays that share sub-arrays would be compared once per path,
        // which is exponential in their depth: a pair of arrays found equal
        // is not compared again (issue 18), and the work stays bounded
        // (issue 8). A cycle still ends at the depth limit, as in Python.
        let mut seen = Compared {
            budget: self.config.max_array_len.saturating_mul(16).max(1 << 20),
            equal: Default::default(),
        };
        self.host_equal_in(a, b, depth, &mut seen)
    }

    fn host_equal_in(
        &self,
        a: Value,
        b: Value,
        depth: usize,
        seen: &mut Compared,
    ) -> EvalResult<bool> {
        if depth > 200 {
            return Err(EvalError::runtime(crate::error::RECURSION_MESSAGE)
                .lineless()
                .limit());
        }
        let num = |v: Value| match v {
            Value::Bool(b) => Some(Num::I(b as i64)),
            Value::Int(i) => Some(Num::I(i)),
            Value::Float(f) => Some(Num::F(f)),
            _ => None,
        };
        if let (Some(x), Some(y)) = (num(a), num(b)) {
            return Ok(match (x, y) {
                (Num::I(x), Num::I(y)) => x == y,
                (Num::F(x), Num::F(y)) => x == y,
                (Num::I(i), Num::F(f)) | (Num::F(f), Num::I(i)) => int_float_eq(i, f),
            });
        }
        Ok(match (a, b) {
            (Value::Nil, Value::Nil) => true,
            (Value::Str(x), Value::Str(y)) => x == y || self.str_of(a) == self.str_of(b),
            (Value::Array(x), Value::Array(y)) => {
                if x == y {
                    return Ok(true);
                }
                let (xs, ys) = (self.array_of(a), self.array_of(b));
                let (Some(xs), Some(ys)) = (xs, ys) else {
                    return Ok(false);
                };
                if xs.len() != ys.len() {
                    return Ok(false);
                }
                if seen.equal.contains(&(x, y)) {
                    return Ok(true);
                }
                seen.budget = seen.budget.checked_sub(xs.len()).ok_or_else(|| {
                    EvalError::runtime("comparison too large (arrays share too many sub-arrays)")
                        .limit()
                })?;
                for (p, q) in xs.iter().zip(ys.iter()) {
                    // Python compares list items by identity first.
                    let same = match (p.obj_ref(), q.obj_ref()) {
                        (Some(r1), Some(r2)) => r1 == r2,
                        _ => false,
                    };
                    if !same && !self.host_equal_in(*p, *q, depth + 1, seen)? {
                        return Ok(false);
                    }
                }
                seen.equal.insert((x, y));
                true
            }
            (Value::Obj(x), Value::Obj(y))
                if matches!(self.heap.get(x), Obj::Map(_))
                    && matches!(self.heap.get(y), Obj::Map(_)) =>
            {
                x == y || self.maps_equal(a, b, depth, seen)?
            }
            (Value::Func(x), Value::Func(y)) | (Value::Obj(x), Value::Obj(y)) => {
                x == y || self.objects_equal(x, y, depth)?
            }
            (Value::Native(x), Value::Native(y)) => x == y,
            _ => false,
        })
    }

    /// Two maps are equal when they have the same keys (in any order)
    /// with equal values.
    fn maps_equal(
        &self,
        a: Value,
        b: Value,
        depth: usize,
        seen: &mut Compared,
    ) -> EvalResult<bool> {
        let (Some(x), Some(y)) = (self.map_of(a), self.map_of(b)) else {
            return Ok(false);
        };
        if x.len() != y.len() {
            return Ok(false);
        }
        seen.budget = seen.budget.checked_sub(x.len()).ok_or_else(|| {
            EvalError::runtime("comparison too large (values share too many sub-values)")
        })?;
        for (k, p) in &x.entries {
            let Some(q) = y.get(k) else {
                return Ok(false);
            };
            let same = matches!((p.obj_ref(), q.obj_ref()), (Some(r1), Some(r2)) if r1 == r2);
            if !same && !self.host_equal_in(*p, q, depth + 1, seen)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Structural equality for the object kinds that have it (extension
    /// kinds that define [`ObjectKind::equal`](crate::kind::ObjectKind::equal)).
    fn objects_equal(
        &self,
        x: crate::heap::ObjRef,
        y: crate::heap::ObjRef,
        depth: usize,
    ) -> EvalResult<bool> {
        if let (Obj::Ext(p), Obj::Ext(q)) = (self.heap.get(x), self.heap.get(y)) {
            let kind = p.kind();
            if kind.name() != q.kind().name() {
                return Ok(false);
            }
            return kind.equal(self, x, y, depth);
        }
        Ok(false)
    }

    pub(crate) fn index(&mut self, t: Value, i: Value) -> EvalResult<Value> {
        match t {
            Value::Array(_) | Value::Str(_) => {
                let Value::Int(idx) = i else {
                    return Err(EvalError::runtime(format!(
                        "index must be Int, got {}",
                        self.type_name(i)
                    )));
                };
                let oob = || EvalError::runtime(format!("index {idx} out of bounds"));
                if let Some(items) = self.array_of(t) {
                    let pos = normalise_index(idx, items.len()).ok_or_else(oob)?;
                    return Ok(items.get(pos).copied().unwrap_or(Value::Nil));
                }
                let Some(Obj::Str(s)) = t.obj_ref().map(|r| self.heap.get(r)) else {
                    return Err(oob());
                };
                let pos = normalise_index(idx, s.char_len()).ok_or_else(oob)?;
                let ch = CompactString::from(s.char_at(pos).unwrap_or(""));
                self.new_str(ch)
            }
            Value::Obj(_) if self.is_map(t) => self.map_index(t, i),
            _ => Err(EvalError::runtime(format!(
                "cannot index into type {}",
                self.type_name(t)
            ))),
        }
    }

    pub(crate) fn index_store(&mut self, t: Value, i: Value, v: Value) -> EvalResult<()> {
        if self.is_map(t) {
            return self.map_set(t, i, v);
        }
        let Value::Array(r) = t else {
            return Err(EvalError::runtime(format!(
                "cannot index-assign into type {}",
                self.type_name(t)
            )));
        };
        let Value::Int(idx) = i else {
            return Err(EvalError::runtime(format!(
                "array index must be Int, got {}",
                self.type_name(i)
            )));
        };
        if let Obj::Array(items) = self.heap.get_mut(r) {
            match normalise_index(idx, items.len()) {
                Some(pos) => {
                    if let Some(slot) = items.get_mut(pos) {
                        *slot = v;
                    }
                }
                None => {
                    return Err(EvalError::runtime(format!(
                        "array index {idx} out of bounds"
                    )));
                }
            }
        }
        Ok(())
    }

    /// `t.name` (bound methods remember the scope and `line` of the access).
    pub(crate) fn member(&mut self, t: Value, sym: Symbol, line: u32) -> EvalResult<Value> {
        use crate::object::FutureState;
        if let Some(v) = self.builtin_member(t, sym, line)? {
            return Ok(v);
        }
        let Value::Obj(r) = t else {
            return Err(self.no_member(t, sym));
        };
        let name = self.interner.name(sym).to_string();
        match self.heap.get(r) {
            Obj::Module(m) => {
                let env = m.env;
                let mod_name = m.name.clone();
                self.lookup(env, sym).ok_or_else(|| {
                    EvalError::runtime(format!("module '{mod_name}' has no member '{name}'"))
                })
            }
            Obj::Task(_) => self.task_member(r, sym),
            Obj::Future(f) => {
                if name == "done" {
                    Ok(Value::Bool(!matches!(f.state, FutureState::Pending)))
                } else {
                    Err(EvalError::runtime(format!(
                        "future '{}' has no member '{name}'",
                        f.label
                    )))
                }
            }
            Obj::Ext(x) => {
                let kind = x.kind();
                kind.member(self, r, &name, line)
            }
            _ => Err(self.no_member(t, sym)),
        }
    }

    pub(crate) fn no_member(&self, t: Value, sym: Symbol) -> EvalError {
        EvalError::runtime(format!(
            "cannot access member '{}' on type {}",
            self.interner.name(sym),
            self.type_name(t)
        ))
    }

    /// `for` support: the array to walk (a string becomes an array of its
    /// characters; an array is walked live).
    pub(crate) fn iter_items(&mut self, v: Value) -> EvalResult<Value> {
        match v {
            Value::Array(_) => Ok(v),
            Value::Str(_) => {
                let chars: Vec<CompactString> = self
                    .str_of(v)
                    .unwrap_or("")
                    .chars()
                    .map(|c| CompactString::from_iter([c]))
                    .collect();
                let mut items = Vec::with_capacity(chars.len());
                for c in chars {
                    items.push(self.new_str(c)?);
                }
                self.new_array(items)
            }
            Value::Obj(_) if self.is_map(v) => self.map_keys(v),
            _ => Err(EvalError::runtime(format!(
                "cannot iterate over value of type {}",
                self.type_name(v)
            ))),
        }
    }

    /// Does `v` satisfy `spec` (the book: scope.md "Functions")?
    pub(crate) fn matches(&self, v: Value, spec: &TypeSpec) -> bool {
        match spec {
            TypeSpec::Any => true,
            TypeSpec::Int => matches!(v, Value::Int(_)),
            TypeSpec::Float => matches!(v, Value::Int(_) | Value::Float(_)),
            TypeSpec::String => matches!(v, Value::Str(_)),
            TypeSpec::Bool => matches!(v, Value::Bool(_)),
            TypeSpec::Nil => matches!(v, Value::Nil),
            TypeSpec::Array(elem) => match self.array_of(v) {
                None => false,
                Some(items) => match elem {
                    None => true,
                    Some(e) => items.iter().all(|x| self.matches(*x, e)),
                },
            },
            // A value that is not a map passes, as under any name the
            // reference does not know (it accepts `b: Map = "text"`, and
            // programs it accepts keep their meaning); a map's keys and
            // values are checked against `K` and `V`.
            TypeSpec::Map(kv) => match self.map_of(v) {
                None => true,
                Some(m) => match kv.as_deref() {
                    None => true,
                    Some((ks, vs)) => m.entries.iter().all(|(k, x)| {
                        let key_ok = match k {
                            crate::map::MapKey::Str(_) => {
                                matches!(ks, TypeSpec::Any | TypeSpec::String)
                            }
                            crate::map::MapKey::Int(_) => {
                                matches!(ks, TypeSpec::Any | TypeSpec::Int | TypeSpec::Float)
                            }
                            crate::map::MapKey::Bool(_) => {
                                matches!(ks, TypeSpec::Any | TypeSpec::Bool)
                            }
                        } || matches!(ks, TypeSpec::Named(_));
                        key_ok && self.matches(*x, vs)
                    }),
                },
            },
            TypeSpec::Function => self.type_name(v) == "Function",
            TypeSpec::Kind(k) => self.type_name(v) == *k,
            TypeSpec::Named(n) => self.matches_named(v, &n.name, n.param.as_ref()),
        }
    }

    /// Does `v` satisfy the annotation `name` / `name<param>` of an
    /// extension kind? The registered kind that claims the name decides:
    /// `v` must be one of its objects, and `param`, if given, checks the
    /// value the kind annotates ([`ObjectKind::annotated_value`]; a kind
    /// without one ignores it). A name no kind claims matches everything.
    ///
    /// [`ObjectKind::annotated_value`]: crate::kind::ObjectKind::annotated_value
    #[cold]
    fn matches_named(&self, v: Value, name: &str, param: Option<&TypeSpec>) -> bool {
        // The registered task kind's type name (`Agent`) means a task.
        if self.task_kind.is_some_and(|k| k.type_name() == name) {
            return matches!(v, Value::Obj(r) if matches!(self.heap.try_get(r), Some(Obj::Task(_))));
        }
        // A name no kind claims matches everything, as in the reference;
        // one that some kinds claim (two kinds may share a type name)
        // matches their objects.
        if self.registries.kind_annotated(name).is_none() {
            return true;
        }
        let Value::Obj(r) = v else {
            return false;
        };
        match self.heap.try_get(r) {
            Some(Obj::Ext(x)) if x.kind().matches_annotation(name) => {
                match (param, x.kind().annotated_value(self, r)) {
                    (Some(t), Some(inner)) => self.matches(inner, t),
                    _ => true,
                }
            }
            _ => false,
        }
    }
}

enum Num {
    I(i64),
    F(f64),
}

fn cmp_int_float(i: i64, f: f64) -> Option<std::cmp::Ordering> {
    if f.is_nan() {
        return None;
    }
    if f >= 9.223_372_036_854_776e18 {
        return Some(std::cmp::Ordering::Less);
    }
    if f < -9.223_372_036_854_776e18 {
        return Some(std::cmp::Ordering::Greater);
    }
    let t = f.trunc();
    match i.cmp(&(t as i64)) {
        std::cmp::Ordering::Equal => 0.0f64.partial_cmp(&(f - t)),
        o => Some(o),
    }
}

/// Negative indices count from the end.
fn normalise_index(idx: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let pos = if idx < 0 { idx + len } else { idx };
    (0..len).contains(&pos).then_some(pos as usize)
}

/// Correctly rounded quotient of two integers (Python's int / int), for
/// operands too large to convert to f64 exactly.
fn exact_int_div(p: i64, q: i64) -> f64 {
    let neg = (p < 0) != (q < 0);
    let (p, q) = (p.unsigned_abs() as u128, q.unsigned_abs() as u128);
    if p == 0 {
        return if neg { -0.0 } else { 0.0 };
    }
    // Shift the dividend up so the quotient has well over 53 significant
    // bits, keep a sticky bit for the remainder, and let the (correctly
    // rounding) u128 → f64 conversion do the rest.
    let k = p.leading_zeros() - 1;
    let scaled = p << k;
    let quotient = scaled / q;
    let sticky = (scaled % q != 0) as u128;
    let v = ((quotient << 1) | sticky) as f64 * 2f64.powi(-(k as i32 + 1));
    if neg { -v } else { v }
}

/// The state of one `==` over arrays: element comparisons left, and pairs
/// of arrays already found equal.
pub(crate) struct Compared {
    budget: usize,
    equal: rustc_hash::FxHashSet<(crate::heap::ObjRef, crate::heap::ObjRef)>,
}

/// `need` and `limit` in the largest unit (MiB, KiB, bytes) that still
/// tells them apart, so a small limit never reads "need about 1 MiB, over
/// the limit of 1 MiB" (issue 27).
pub(crate) fn sizes(need: usize, limit: usize) -> (String, String) {
    for (unit, name) in [(1usize << 20, "MiB"), (1 << 10, "KiB")] {
        let nearest = |b: usize| b.saturating_add(unit / 2) / unit;
        let (n, l) = (nearest(need), nearest(limit));
        if n != l {
            return (format!("{n} {name}"), format!("{l} {name}"));
        }
    }
    (format!("{need} bytes"), format!("{limit} bytes"))
}

#[cfg(test)]
mod tests {
    use super::sizes;

    #[test]
    fn sizes_never_read_the_same_for_need_and_limit() {
        let mib = 1 << 20;
        assert_eq!(sizes(3 * mib, mib), ("3 MiB".into(), "1 MiB".into()));
        assert_eq!(
            sizes(mib + 600 * 1024, mib),
            ("2 MiB".into(), "1 MiB".into())
        );
        assert_eq!(
            sizes(mib + 2048, mib),
            ("1026 KiB".into(), "1024 KiB".into())
        );
        assert_eq!(
            sizes(mib + 1, mib),
            ("1048577 bytes".into(), "1048576 bytes".into())
        );
        assert_eq!(
            sizes(1001, 1000),
            ("1001 bytes".into(), "1000 bytes".into())
        );
        for (need, limit) in [(1025, 1024), (5 * mib + 7, 5 * mib), (100, 99)] {
            let (n, l) = sizes(need, limit);
            assert_ne!(n, l);
        }
    }
}
