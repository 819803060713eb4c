//! Methods of the built-in values: `s.split(",")`, `xs.map(f)`,
//! `m.keys()` (issue 23).
//!
//! `value.name` on a String, Array or Map makes a bound method
//! (`Method::Builtin`) when the type has a method of that name; calling it
//! runs the method here. Each type's methods live in their own file
//! (`methods/string.rs`, `array.rs`, `map.rs`), with Python's names and
//! semantics. A name the type does not have keeps the reference's
//! message (`cannot access member 'x' on type String`); the CLI adds a
//! "did you mean" from [`builtin_methods`].

mod array;
mod map;
mod string;

use super::Vm;
use crate::builtins::arg;
use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::object::{BoundMethod, Method, Obj};
use crate::symbol::Symbol;
use crate::value::Value;

/// The methods of a String.
pub const STRING_METHODS: &[&str] = &[
    "split",
    "strip",
    "lstrip",
    "rstrip",
    "lower",
    "upper",
    "replace",
    "starts_with",
    "ends_with",
    "find",
    "count",
    "slice",
    "join",
    "lines",
];

/// The methods of an Array.
pub const ARRAY_METHODS: &[&str] = &[
    "push", "pop", "insert", "remove", "index", "contains", "slice", "reverse", "sort", "sorted",
    "map", "filter", "reduce", "copy",
];

/// The methods of a Map.
pub const MAP_METHODS: &[&str] = &["keys", "values", "items", "get", "has", "pop", "copy"];

/// What a method call returns: a value, or "a frame was pushed" (a
/// method that calls a Sense function; its result arrives later).
pub(crate) enum Outcome {
    Value(Value),
    Pushed,
}

impl Vm {
    /// The method table of `v`'s type, if it has built-in methods.
    fn methods_of(&self, v: Value) -> Option<&'static [&'static str]> {
        match v {
            Value::Str(_) => Some(STRING_METHODS),
            Value::Array(_) => Some(ARRAY_METHODS),
            Value::Obj(_) if self.is_map(v) => Some(MAP_METHODS),
            _ => None,
        }
    }

    /// `t.name` where `t` is a String, Array or Map: a bound method, or
    /// the error for a name the type does not have. `None` for other
    /// values (the general member access goes on).
    pub(crate) fn builtin_member(
        &mut self,
        t: Value,
        sym: Symbol,
        line: u32,
    ) -> EvalResult<Option<Value>> {
        let (Some(methods), Some(receiver)) = (self.methods_of(t), t.obj_ref()) else {
            return Ok(None);
        };
        let name = self.interner.name(sym);
        if !methods.contains(&name) {
            // The reference's message, word for word; the CLI adds a
            // "did you mean" from `builtin_methods` under the caret.
            return Err(self.no_member(t, sym));
        }
        // Built-in methods never read their scope: the global one keeps
        // the bound value valid without capturing the caller's scopes.
        let env = self.globals;
        let bound = BoundMethod {
            receiver,
            method: Method::Builtin(sym),
            env,
            line,
        };
        Ok(Some(Value::Obj(self.heap.alloc(Obj::Bound(bound)))))
    }

    /// The value a bound method's receiver stands for.
    pub(crate) fn receiver_value(&self, r: ObjRef) -> Value {
        match self.heap.get(r) {
            Obj::Str(_) => Value::Str(r),
            Obj::Array(_) => Value::Array(r),
            _ => Value::Obj(r),
        }
    }

    /// Runs built-in method `sym` of `receiver` on the arguments above
    /// `callee_at`; true when a frame was pushed.
    pub(crate) fn call_builtin_method(
        &mut self,
        receiver: ObjRef,
        sym: Symbol,
        callee_at: usize,
        line: u32,
    ) -> EvalResult<bool> {
        let recv = self.receiver_value(receiver);
        let name = self.interner.name(sym).to_string();
        let args: Vec<Value> = self.stack_from(callee_at + 1).to_vec();
        let call = MethodCall {
            recv,
            name: &name,
            args: &args,
            callee_at,
            line,
        };
        let outcome = match recv {
            Value::Str(_) => self.string_method(&call).map(Outcome::Value),
            Value::Array(_) => self.array_method(&call),
            _ => self.map_method(&call).map(Outcome::Value),
        };
        match outcome? {
            Outcome::Value(v) => {
                self.cur.stack.truncate(callee_at);
                self.cur.stack.push(v);
                Ok(false)
            }
            Outcome::Pushed => Ok(true),
        }
    }
}

/// One call of a built-in method.
pub(crate) struct MethodCall<'a> {
    /// The receiver.
    pub recv: Value,
    /// The method's name.
    pub name: &'a str,
    /// The arguments.
    pub args: &'a [Value],
    /// Where the callee sits on the stack (methods that push frames).
    pub callee_at: usize,
    /// Line of the member access.
    pub line: u32,
}

impl MethodCall<'_> {
    /// The `i`th argument (nil past the end).
    pub fn arg(&self, i: usize) -> Value {
        arg(self.args, i)
    }

    /// Fails unless between `min` and `max` arguments were given.
    pub fn arity(&self, vm: &Vm, min: usize, max: usize) -> EvalResult<()> {
        let n = self.args.len();
        if (min..=max).contains(&n) {
            return Ok(());
        }
        let expected = if min == max {
            min.to_string()
        } else {
            format!("{min} to {max}")
        };
        Err(EvalError::runtime(format!(
            "'{}.{}' expects {expected} argument(s), got {n}",
            vm.type_name(self.recv),
            self.name
        )))
    }

    /// A message about argument `what` of this method having the wrong type.
    pub fn wrong(&self, vm: &Vm, what: &str, expected: &str, got: Value) -> EvalError {
        EvalError::type_error(format!(
            "'{}.{}' expects {what} to be {expected}, got {}",
            vm.type_name(self.recv),
            self.name,
            vm.type_name(got)
        ))
    }

    /// Argument `i` as an Int.
    pub fn int(&self, vm: &Vm, i: usize, what: &str) -> EvalResult<i64> {
        match self.arg(i) {
            Value::Int(n) => Ok(n),
            other => Err(self.wrong(vm, what, "an Int", other)),
        }
    }

    /// `slice(start, end?)`'s arguments as positions in a sequence of
    /// `len` elements (after checking there are one or two Ints).
    pub fn slice_range(&self, vm: &Vm, len: usize) -> EvalResult<std::ops::Range<usize>> {
        self.arity(vm, 1, 2)?;
        let start = self.int(vm, 0, "the start")?;
        let end = match self.arg(1) {
            Value::Nil => None,
            _ => Some(self.int(vm, 1, "the end")?),
        };
        Ok(slice_bounds(len, start, end))
    }

    /// Argument `i` as a String's text.
    pub fn text<'v>(&self, vm: &'v Vm, i: usize, what: &str) -> EvalResult<&'v str> {
        let v = self.arg(i);
        vm.str_of(v)
            .ok_or_else(|| self.wrong(vm, what, "a String", v))
    }
}

/// The built-in methods of the type named `type_name` (`String`,
/// `Array`, `Map`); empty for other types. What editors and the CLI
/// suggest after a `.`.
pub fn builtin_methods(type_name: &str) -> &'static [&'static str] {
    match type_name {
        "String" => STRING_METHODS,
        "Array" => ARRAY_METHODS,
        "Map" => MAP_METHODS,
        _ => &[],
    }
}

/// Python's slice bounds of `start`/`end` (negative counts from the end,
/// clamped to `0..=len`), as a range of positions.
pub(crate) fn slice_bounds(len: usize, start: i64, end: Option<i64>) -> std::ops::Range<usize> {
    let len_i = len as i64;
    let clamp = |i: i64| -> usize {
        let i = if i < 0 {
            (i + len_i).max(0)
        } else {
            i.min(len_i)
        };
        i as usize
    };
    let (s, e) = (clamp(start), end.map_or(len, clamp));
    s..e.max(s)
}
