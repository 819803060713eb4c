//! Reading the arguments of the standard library's natives, with errors
//! that name the function (`math.sqrt() expects a number, got String`).

use crate::builtins::arg;
use crate::error::{EvalError, EvalResult};
use crate::value::Value;
use crate::vm::Vm;

/// `message` as a `SenseRuntimeError` of function `f`.
pub(super) fn error(f: &str, message: impl std::fmt::Display) -> EvalError {
    EvalError::runtime(format!("{f}: {message}"))
}

/// Argument `i` as a number (Int or Float) widened to a Float.
pub(super) fn number(vm: &Vm, args: &[Value], i: usize, f: &str) -> EvalResult<f64> {
    match arg(args, i) {
        Value::Int(n) => Ok(n as f64),
        Value::Float(x) => Ok(x),
        v => Err(expected(vm, f, "a number", v)),
    }
}

/// Argument `i` as an Int.
pub(super) fn int(vm: &Vm, args: &[Value], i: usize, f: &str) -> EvalResult<i64> {
    match arg(args, i) {
        Value::Int(n) => Ok(n),
        v => Err(expected(vm, f, "an Int", v)),
    }
}

/// Argument `i` as the text of a String.
pub(super) fn string(vm: &Vm, args: &[Value], i: usize, f: &str) -> EvalResult<String> {
    let v = arg(args, i);
    vm.str_of(v)
        .map(str::to_string)
        .ok_or_else(|| expected(vm, f, "a String", v))
}

/// `f() expects WHAT, got TYPE`.
pub(super) fn expected(vm: &Vm, f: &str, what: &str, got: Value) -> EvalError {
    EvalError::runtime(format!("{f}() expects {what}, got {}", vm.type_name(got)))
}

/// Checks a variadic native got between `min` and `max` arguments (worded
/// as the VM words a fixed arity).
pub(super) fn count(args: &[Value], min: usize, max: usize, f: &str) -> EvalResult<()> {
    let n = args.len();
    if n < min || n > max {
        let want = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(EvalError::runtime(format!(
            "'{f}' expects {want} argument(s), got {n}"
        )));
    }
    Ok(())
}
