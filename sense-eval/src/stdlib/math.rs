//! `math`: constants and numeric functions with Python's semantics.
//!
//! Result types follow Python: `floor`, `ceil` and one-argument `round`
//! give Ints; `sqrt`, `pow`, `log`, `exp`, `sin`, `cos` give Floats; `abs`,
//! `min`, `max`, `sum` and `round(x, n)` keep the kind of what they got.
//! Rounding is to the nearest, ties to even (`round(2.5)` is 2), on the
//! exact decimal value of a Float (`round(2.675, 2)` is 2.67, as in
//! Python). Domain and range errors are `SenseRuntimeError`s worded as
//! Python words them (`math domain error`, `math range error`).

use super::args::{self, count, error, expected, number};
use crate::builtins::{Arity, NativeDef, arg};
use crate::error::EvalResult;
use crate::value::Value;
use crate::vm::Vm;
use std::cmp::Ordering;

const M: &str = "math";

pub(super) fn install(vm: &mut Vm) {
    use std::f64::consts::{E, PI};
    vm.register_module_const(M, "pi", Value::Float(PI));
    vm.register_module_const(M, "e", Value::Float(E));
    vm.register_module_const(M, "inf", Value::Float(f64::INFINITY));
    vm.register_module_const(M, "nan", Value::Float(f64::NAN));
    let natives: [(&'static str, Arity, crate::builtins::NativeFn); 13] = [
        ("floor", Arity::Exact(1), floor),
        ("ceil", Arity::Exact(1), ceil),
        ("sqrt", Arity::Exact(1), sqrt),
        ("pow", Arity::Exact(2), pow),
        ("log", Arity::Variadic, log),
        ("exp", Arity::Exact(1), exp),
        ("sin", Arity::Exact(1), sin),
        ("cos", Arity::Exact(1), cos),
        ("abs", Arity::Exact(1), abs),
        ("min", Arity::Variadic, min),
        ("max", Arity::Variadic, max),
        ("sum", Arity::Variadic, sum),
        ("round", Arity::Variadic, round),
    ];
    for (name, arity, f) in natives {
        vm.register_module_native(M, name, NativeDef::new(name, arity, f).with_line());
    }
}

/// A Float's integral value as an Int, with Python's errors.
fn to_int(x: f64, f: &str) -> EvalResult<i64> {
    // 2^63: the first Float past i64::MAX.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if x.is_nan() {
        Err(error(f, "cannot convert float NaN to integer"))
    } else if x.is_infinite() {
        Err(error(f, "cannot convert float infinity to integer"))
    } else if !(-LIMIT..LIMIT).contains(&x) {
        Err(error(f, "the result does not fit in an Int (64-bit)"))
    } else {
        Ok(x as i64)
    }
}

fn integral(vm: &mut Vm, args: &[Value], f: &str, op: fn(f64) -> f64) -> EvalResult<Value> {
    match arg(args, 0) {
        Value::Int(n) => Ok(Value::Int(n)),
        Value::Float(x) => Ok(Value::Int(to_int(op(x), f)?)),
        v => Err(expected(vm, f, "a number", v)),
    }
}

fn floor(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    integral(vm, args, "math.floor", f64::floor)
}

fn ceil(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    integral(vm, args, "math.ceil", f64::ceil)
}

/// A Float result of `f` checked as Python's math module checks it: NaN
/// from non-NaN input is a domain error, infinity from finite input a
/// range error.
fn checked(f: &str, inputs: &[f64], r: f64) -> EvalResult<Value> {
    if r.is_nan() && !inputs.iter().any(|x| x.is_nan()) {
        return Err(error(f, "math domain error"));
    }
    if r.is_infinite() && inputs.iter().all(|x| x.is_finite()) {
        return Err(error(f, "math range error"));
    }
    Ok(Value::Float(r))
}

fn sqrt(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let x = number(vm, args, 0, "math.sqrt")?;
    checked("math.sqrt", &[x], x.sqrt())
}

fn pow(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let x = number(vm, args, 0, "math.pow")?;
    let y = number(vm, args, 1, "math.pow")?;
    if x == 0.0 && y < 0.0 && y.is_finite() {
        return Err(error("math.pow", "math domain error"));
    }
    checked("math.pow", &[x, y], x.powf(y))
}

fn log(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    count(args, 1, 2, "math.log")?;
    let x = number(vm, args, 0, "math.log")?;
    if x <= 0.0 {
        return Err(error("math.log", "math domain error"));
    }
    if args.len() == 1 {
        return Ok(Value::Float(x.ln()));
    }
    let base = number(vm, args, 1, "math.log")?;
    if base <= 0.0 {
        return Err(error("math.log", "math domain error"));
    }
    if base == 1.0 {
        return Err(error("math.log", "division by zero (log base 1)"));
    }
    Ok(Value::Float(x.ln() / base.ln()))
}

fn exp(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let x = number(vm, args, 0, "math.exp")?;
    checked("math.exp", &[x], x.exp())
}

fn sin(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let x = number(vm, args, 0, "math.sin")?;
    checked("math.sin", &[x], x.sin())
}

fn cos(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let x = number(vm, args, 0, "math.cos")?;
    checked("math.cos", &[x], x.cos())
}

fn abs(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    match arg(args, 0) {
        Value::Int(n) => n
            .checked_abs()
            .map(Value::Int)
            .ok_or_else(|| error("math.abs", "integer overflow")),
        Value::Float(x) => Ok(Value::Float(x.abs())),
        v => Err(expected(vm, "math.abs", "a number", v)),
    }
}

/// The values `min`/`max`/`sum` range over: one array argument's items,
/// or the arguments themselves.
fn items(vm: &Vm, args: &[Value], f: &str) -> EvalResult<Vec<Value>> {
    let items = match args {
        [one] => match vm.array_of(*one) {
            Some(items) => items.clone(),
            None if one.is_number() => vec![*one],
            None => return Err(expected(vm, f, "an array or numbers", *one)),
        },
        many => many.to_vec(),
    };
    if items.is_empty() {
        return Err(error(f, "arg is an empty sequence"));
    }
    Ok(items)
}

/// Orders two values `min`/`max` can compare: numbers numerically, strings
/// by code point.
fn order(vm: &Vm, a: Value, b: Value, f: &str) -> EvalResult<Ordering> {
    let num = |v: Value| match v {
        Value::Int(n) => Some(n as f64),
        Value::Float(x) => Some(x),
        _ => None,
    };
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Ok(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return Ok(x.partial_cmp(&y).unwrap_or(Ordering::Equal));
    }
    if let (Some(x), Some(y)) = (vm.str_of(a), vm.str_of(b)) {
        return Ok(x.cmp(y));
    }
    Err(error(
        f,
        format!("cannot compare {} and {}", vm.type_name(a), vm.type_name(b)),
    ))
}

/// The first of the items for which no later one orders `keep` before it.
fn extreme(vm: &Vm, args: &[Value], f: &str, keep: Ordering) -> EvalResult<Value> {
    let items = items(vm, args, f)?;
    let mut best = arg(&items, 0);
    for v in items.iter().skip(1) {
        if order(vm, *v, best, f)? == keep {
            best = *v;
        }
    }
    Ok(best)
}

fn min(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    extreme(vm, args, "math.min", Ordering::Less)
}

fn max(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    extreme(vm, args, "math.max", Ordering::Greater)
}

/// `math.sum(array)` / `math.sum(array, start)`: Ints stay Ints (an
/// overflow is an error), any Float makes the sum a Float.
fn sum(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    const F: &str = "math.sum";
    count(args, 1, 2, F)?;
    let xs = arg(args, 0);
    let Some(items) = vm.array_of(xs) else {
        return Err(expected(vm, F, "an array", xs));
    };
    let mut total = if args.len() == 2 {
        arg(args, 1)
    } else {
        Value::Int(0)
    };
    for v in items.iter().copied() {
        total = match (total, v) {
            (Value::Int(a), Value::Int(b)) => Value::Int(
                a.checked_add(b)
                    .ok_or_else(|| error(F, "integer overflow"))?,
            ),
            (Value::Int(a), Value::Float(b)) => Value::Float(a as f64 + b),
            (Value::Float(a), Value::Int(b)) => Value::Float(a + b as f64),
            (Value::Float(a), Value::Float(b)) => Value::Float(a + b),
            (a, b) => {
                let bad = if a.is_number() { b } else { a };
                return Err(error(
                    F,
                    format!("cannot add a {} to a sum", vm.type_name(bad)),
                ));
            }
        };
    }
    Ok(total)
}

/// `math.round(x)` → Int; `math.round(x, n)` → same kind as `x`.
fn round(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    const F: &str = "math.round";
    count(args, 1, 2, F)?;
    let x = arg(args, 0);
    if !x.is_number() {
        return Err(expected(vm, F, "a number", x));
    }
    if args.len() == 1 || matches!(arg(args, 1), Value::Nil) {
        return match x {
            Value::Float(x) => Ok(Value::Int(to_int(x.round_ties_even(), F)?)),
            other => Ok(other),
        };
    }
    let n = args::int(vm, args, 1, F)?;
    Ok(match x {
        Value::Int(v) => Value::Int(round_int(v, n)),
        Value::Float(v) => Value::Float(round_float(v, n)),
        other => other,
    })
}

/// An Int rounded to `n` digits (a multiple of 10^-n when `n` < 0), ties
/// to even.
fn round_int(v: i64, n: i64) -> i64 {
    if n >= 0 {
        return v;
    }
    let Some(unit) = u32::try_from(-n).ok().and_then(|k| 10i128.checked_pow(k)) else {
        return 0;
    };
    let v = i128::from(v);
    let down = v.div_euclid(unit) * unit;
    let rest = v - down;
    let up = rest * 2 > unit || (rest * 2 == unit && (down / unit) % 2 != 0);
    let r = if up { down + unit } else { down };
    i64::try_from(r).unwrap_or(if r < 0 { i64::MIN } else { i64::MAX })
}

/// A Float rounded to `n` decimal digits, ties to even on its exact
/// decimal value (what Python's `round` does).
fn round_float(v: f64, n: i64) -> f64 {
    if !v.is_finite() || n > 330 {
        return v;
    }
    if n >= 0 {
        let text = format!("{v:.*}", n as usize);
        return text.parse().unwrap_or(v);
    }
    if n < -330 {
        return 0.0 * v;
    }
    let unit = 10f64.powi(-n as i32);
    let r = (v / unit).round_ties_even() * unit;
    if r.is_finite() { r } else { v }
}
