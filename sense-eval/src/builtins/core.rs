//! print, len, range, str, type_of, push, assert and the removed stubs.

use super::{Arity, NativeDef, arg, convert};
use crate::error::{EvalError, EvalResult};
use crate::object::Obj;
use crate::value::Value;
use crate::vm::Vm;
use compact_str::CompactString;

pub(super) fn natives() -> Vec<NativeDef> {
    use Arity::*;
    vec![
        NativeDef::new("print", Variadic, print),
        NativeDef::new("len", Exact(1), len),
        NativeDef::new("range", Variadic, range),
        NativeDef::new("str", Exact(1), str_),
        NativeDef::new("int", Exact(1), convert::int),
        NativeDef::new("float", Exact(1), convert::float),
        NativeDef::new("type_of", Exact(1), type_of),
        NativeDef::new("push", Exact(2), push),
        NativeDef::new("assert", Variadic, assert),
        NativeDef::new("mock_model", Variadic, mock_model),
        NativeDef::new("verify", Variadic, |_, _| Err(replaced("verify"))),
        NativeDef::new("approve", Variadic, |_, _| Err(replaced("approve"))),
        NativeDef::new("rollback", Variadic, |_, _| Err(replaced("rollback"))),
    ]
}

fn replaced(name: &str) -> EvalError {
    EvalError::runtime(format!(
        "{name}(action) has been replaced -- use action.{name}() instead"
    ))
}

fn mock_model(_: &mut Vm, _: &[Value]) -> EvalResult<Value> {
    Err(EvalError::runtime(
        "mock_model(...) has been replaced -- use inference(\"mock\", ...) instead \
         (e.g. inference(\"mock\", \"demo\", response_template: \"...\"))",
    ))
}

fn print(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let mut line = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        line.push_str(&vm.show(*a)?);
    }
    line.push('\n');
    vm.write_out(&line);
    Ok(Value::Nil)
}

fn len(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let v = arg(args, 0);
    if let Some(items) = vm.array_of(v) {
        return Ok(Value::Int(items.len() as i64));
    }
    if let Value::Str(r) = v
        && let Obj::Str(s) = vm.heap().get(r)
    {
        return Ok(Value::Int(s.char_len() as i64));
    }
    if let Some(m) = vm.map_of(v) {
        return Ok(Value::Int(m.len() as i64));
    }
    Err(EvalError::runtime(format!(
        "len() not supported for type {}",
        vm.type_name(v)
    )))
}

fn range(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let plan = range_plan(vm, args)?;
    let mut items = Vec::with_capacity(plan.count);
    let mut x = plan.start as i128;
    for _ in 0..plan.count {
        items.push(Value::Int(x as i64));
        x += plan.step as i128;
    }
    vm.new_array(items)
}

/// The Ints `range(args)` produces, as a start, a step and a count.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RangePlan {
    /// The first Int.
    pub start: i64,
    /// The distance between two Ints (never zero).
    pub step: i64,
    /// How many Ints there are.
    pub count: usize,
}

/// Every check `range(args)` makes, with its error texts, including the
/// size check of the array it would build: a `for` over `range(...)` that
/// iterates the Ints without building the array (`Vm::lazy_range`) runs
/// exactly these checks, so both fail alike.
pub(crate) fn range_plan(vm: &Vm, args: &[Value]) -> EvalResult<RangePlan> {
    if args.is_empty() || args.len() > 3 {
        return Err(EvalError::runtime("range() expects 1 to 3 arguments"));
    }
    let mut nums = [0i64; 3];
    for (slot, a) in nums.iter_mut().zip(args) {
        *slot = match a {
            Value::Int(n) => *n,
            Value::Bool(b) => *b as i64,
            _ => {
                return Err(EvalError::runtime(format!(
                    "range() arguments must be Int, got {}",
                    vm.type_name(*a)
                )));
            }
        };
    }
    let (start, stop, step) = match args.len() {
        1 => (0, nums[0], 1),
        2 => (nums[0], nums[1], 1),
        _ => (nums[0], nums[1], nums[2]),
    };
    if step == 0 {
        return Err(EvalError::runtime("range() step must not be zero"));
    }
    let count = if step > 0 {
        if stop > start {
            ((stop as i128 - start as i128 - 1) / step as i128 + 1) as u128
        } else {
            0
        }
    } else if start > stop {
        ((start as i128 - stop as i128 - 1) / (-(step as i128)) + 1) as u128
    } else {
        0
    };
    if count > i64::MAX as u128 {
        return Err(EvalError::runtime("integer overflow"));
    }
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    vm.check_new_array(count)?;
    Ok(RangePlan { start, step, count })
}

fn str_(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    str_value(vm, arg(args, 0))
}

/// `str(v)`: a string as it is, anything else as `print` shows it (also
/// the `{…}` pieces of f-strings).
pub(crate) fn str_value(vm: &mut Vm, v: Value) -> EvalResult<Value> {
    match v {
        v @ Value::Str(_) => Ok(v),
        // The text `show` gives an Int, written straight into a buffer the
        // size of the digits (one allocation, no general printer).
        Value::Int(n) => {
            let mut digits = [0u8; 20];
            let text = int_text(n, &mut digits);
            vm.new_str_known(text, true)
        }
        v => {
            let s = vm.show(v)?;
            vm.new_str(s)
        }
    }
}

/// `n` in decimal, written backwards at the end of `buf` (20 bytes hold
/// any i64 with its sign) and copied into a string held inline.
fn int_text(n: i64, buf: &mut [u8; 20]) -> CompactString {
    let mut at = buf.len();
    let mut m = n.unsigned_abs();
    loop {
        at -= 1;
        if let Some(b) = buf.get_mut(at) {
            *b = b'0' + (m % 10) as u8;
        }
        m /= 10;
        if m == 0 || at == 0 {
            break;
        }
    }
    if n < 0 && at > 0 {
        at -= 1;
        if let Some(b) = buf.get_mut(at) {
            *b = b'-';
        }
    }
    // At most 20 bytes: held inline by the string object, no allocation.
    // One check of the (ASCII) bytes and one copy cost fewer instructions
    // than pushing the characters one by one, each push checking room.
    CompactString::from_utf8(buf.get(at..).unwrap_or_default()).unwrap_or_default()
}

fn type_of(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let name = vm.type_name(arg(args, 0));
    vm.new_str(name)
}

fn push(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let (list, item) = (arg(args, 0), arg(args, 1));
    let Value::Array(r) = list else {
        return Err(EvalError::runtime(
            "push() expects an Array as its first argument",
        ));
    };
    // One look-up of the array: its length is checked against the cap
    // where the element goes in (past it, `check_array_len` words the error).
    let max = vm.config.max_array_len;
    let mut over = None;
    if let Obj::Array(items) = vm.heap_mut().get_mut(r) {
        if items.len() < max {
            items.push(item);
        } else {
            over = Some(items.len() + 1);
        }
    }
    if let Some(n) = over {
        vm.check_array_len(n)?;
    }
    vm.heap_mut().charge(crate::heap::VALUE_BYTES);
    Ok(list)
}

fn assert(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    if args.is_empty() || args.len() > 2 {
        return Err(EvalError::runtime("assert() expects 1 or 2 arguments"));
    }
    if vm.truthy(arg(args, 0)) {
        return Ok(Value::Nil);
    }
    let msg = match args.get(1) {
        Some(m) => vm.py_str(*m)?,
        None => "assertion failed".to_string(),
    };
    Err(EvalError::runtime(msg))
}

#[cfg(test)]
mod tests {
    #[test]
    fn int_text_is_what_display_writes() {
        for n in [
            0,
            7,
            -7,
            10,
            -10,
            1234567890,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ] {
            let mut buf = [0u8; 20];
            assert_eq!(super::int_text(n, &mut buf), n.to_string());
        }
    }
}
