//! `int()` and `float()` with the reference's lenient string parsing
//! (Python's `int(str)` / `float(str)` rules).

use super::arg;
use crate::error::{EvalError, EvalResult};
use crate::value::Value;
use crate::vm::Vm;

/// Longest rendering of the value an error message quotes (a huge or
/// self-containing array is cut, ending in `...`).
const QUOTED_LIMIT: usize = 64 * 1024;

fn cannot(vm: &Vm, v: Value, to: &str) -> EvalError {
    let shown = vm.py_repr_preview(v, QUOTED_LIMIT);
    EvalError::runtime(format!("cannot convert {shown} to {to}"))
}

/// Strips Python's whitespace and validates `_` placement in a digit run:
/// underscores only between digits.
fn strip_underscores(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let prev_digit = i > 0 && b.get(i - 1).is_some_and(|p| p.is_ascii_digit());
            let next_digit = b.get(i + 1).is_some_and(|n| n.is_ascii_digit());
            if !prev_digit || !next_digit {
                return None;
            }
        } else {
            out.push(c as char);
        }
    }
    Some(out)
}

fn parse_int(text: &str) -> Option<Option<i64>> {
    let t = text.trim_matches(|c: char| c.is_whitespace());
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'+') => (false, &t[1..]),
        Some(b'-') => (true, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit() || c == b'_') {
        return None;
    }
    let clean = strip_underscores(digits)?;
    // Some(None): a valid integer that does not fit in 64 bits.
    let magnitude: i128 = match clean.parse::<i128>() {
        Ok(m) => m,
        Err(_) => return Some(None),
    };
    let v = if neg { -magnitude } else { magnitude };
    Some(i64::try_from(v).ok())
}

/// Python first maps every decimal digit of any script to its ASCII digit.
fn ascii_digits(text: &str) -> String {
    text.chars()
        .map(|c| match sense_syntax::lexer::decimal_value(c) {
            Some(d) if !c.is_ascii() => char::from_digit(d, 10).unwrap_or(c),
            _ => c,
        })
        .collect()
}

pub(super) fn int(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let v = arg(args, 0);
    match v {
        Value::Int(_) => Ok(v),
        Value::Bool(b) => Ok(Value::Int(b as i64)),
        Value::Float(f) => {
            if f.is_nan() || f.is_infinite() {
                return Err(EvalError::runtime(format!(
                    "cannot convert {} to Int",
                    crate::numfmt::format_float(f)
                )));
            }
            let t = f.trunc();
            if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&t) {
                return Err(EvalError::runtime("integer overflow"));
            }
            Ok(Value::Int(t as i64))
        }
        Value::Str(_) => {
            let text = ascii_digits(vm.str_of(v).unwrap_or(""));
            match parse_int(&text) {
                Some(Some(n)) => Ok(Value::Int(n)),
                Some(None) => Err(EvalError::runtime("integer overflow")),
                None => Err(cannot(vm, v, "Int")),
            }
        }
        _ => Err(cannot(vm, v, "Int")),
    }
}

fn parse_float(text: &str) -> Option<f64> {
    let t = text.trim_matches(|c: char| c.is_whitespace());
    let lower = t.to_ascii_lowercase();
    let (sign, body) = match lower.as_bytes().first() {
        Some(b'+') => (1.0, &lower[1..]),
        Some(b'-') => (-1.0, &lower[1..]),
        _ => (1.0, &lower[..]),
    };
    match body {
        "inf" | "infinity" => return Some(sign * f64::INFINITY),
        "nan" => return Some(f64::NAN),
        _ => {}
    }
    // Python's float grammar: digits with optional '.', optional exponent,
    // underscores only between digits.
    let ok = !body.is_empty()
        && body
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'_' | b'+' | b'-'))
        && body.bytes().any(|c| c.is_ascii_digit());
    if !ok {
        return None;
    }
    let clean = strip_underscores(body)?;
    let (mant, exp) = match clean.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (clean.as_str(), None),
    };
    if mant.is_empty()
        || mant.contains(['+', '-'])
        || mant.matches('.').count() > 1
        || !mant.bytes().any(|c| c.is_ascii_digit())
    {
        return None;
    }
    if let Some(e) = exp {
        let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    clean.parse::<f64>().ok().map(|f| sign * f)
}

pub(super) fn float(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let v = arg(args, 0);
    match v {
        Value::Float(_) => Ok(v),
        Value::Int(i) => Ok(Value::Float(i as f64)),
        Value::Bool(b) => Ok(Value::Float(b as i64 as f64)),
        Value::Str(_) => {
            let text = ascii_digits(vm.str_of(v).unwrap_or(""));
            parse_float(&text)
                .map(Value::Float)
                .ok_or_else(|| cannot(vm, v, "Float"))
        }
        _ => Err(cannot(vm, v, "Float")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_ints() {
        assert_eq!(parse_int(" 42 "), Some(Some(42)));
        assert_eq!(parse_int("1_000"), Some(Some(1000)));
        assert_eq!(parse_int("-0012"), Some(Some(-12)));
        assert_eq!(parse_int("+7"), Some(Some(7)));
        assert_eq!(parse_int("3.5"), None);
        assert_eq!(parse_int("_1"), None);
        assert_eq!(parse_int("1__0"), None);
        assert_eq!(parse_int(""), None);
        assert_eq!(parse_int("99999999999999999999"), Some(None));
    }

    #[test]
    fn lenient_floats() {
        assert_eq!(parse_float("1e3"), Some(1000.0));
        assert_eq!(parse_float(" 2.5 "), Some(2.5));
        assert_eq!(parse_float("1_0.5"), Some(10.5));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("5."), Some(5.0));
        assert!(parse_float("nan").unwrap().is_nan());
        assert_eq!(parse_float("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("abc"), None);
        assert_eq!(parse_float("1e"), None);
        assert_eq!(parse_float("."), None);
    }
}
