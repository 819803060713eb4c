//! Number and string formatting exactly as the reference prints them
//! (docs/book/src/values.md § Printing): the float layout rule and Python-style `repr` of
//! strings, used in a few error messages.

/// Formats a float the way `print` shows it.
///
/// Integral values below 1e15 in magnitude get exactly one decimal; all
/// others use Python's `repr` layout of the shortest round-tripping digits:
/// fixed notation for decimal exponents in `-4..16`, otherwise scientific
/// with a signed, at-least-two-digit exponent.
pub fn format_float(v: f64) -> String {
    if v.is_nan() {
        return "nan".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if v == v.trunc() && v.abs() < 1e15 {
        // `{:.1}` keeps the sign of negative zero.
        return format!("{v:.1}");
    }
    python_repr_float(v)
}

/// Python's `repr(float)` for a finite value.
pub fn python_repr_float(v: f64) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    // `{:e}` gives the shortest round-trip digits: "1.2345e-7", "1e16".
    let sci = format!("{:e}", v.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if v < 0.0 { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        let body = if exp >= 0 {
            let int_len = exp + 1;
            if n <= int_len {
                format!("{}{}.0", digits, "0".repeat((int_len - n) as usize))
            } else {
                let (a, b) = digits.split_at(int_len as usize);
                format!("{a}.{b}")
            }
        } else {
            format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
        };
        format!("{sign}{body}")
    } else {
        let mant = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mant}e{esign}{:02}", exp.abs())
    }
}

/// Python's `repr(str)`: single quotes unless the text contains `'` and no
/// `"`; backslash, quote and non-printable characters escaped. The lexer's
/// rendering of lexemes in parse errors is the same function (with the
/// exact `str.isprintable` table).
pub fn python_repr_str(s: &str) -> String {
    sense_syntax::token::py_repr(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_the_reference() {
        let cases: &[(f64, &str)] = &[
            (2.0, "2.0"),
            (-3.0, "-3.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (123456789012345.0, "123456789012345.0"),
            (0.1, "0.1"),
            (3.5, "3.5"),
            (0.0001, "0.0001"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e15, "1000000000000000.0"),
            (9999000000000000.0, "9999000000000000.0"),
            (1e-5, "1e-05"),
            (2.5e-7, "2.5e-07"),
            (1e16, "1e+16"),
            (1.5e20, "1.5e+20"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (1.0 / 3.0, "0.3333333333333333"),
            (-1e-5, "-1e-05"),
            (123.456, "123.456"),
            (1e100, "1e+100"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ];
        for (v, want) in cases {
            assert_eq!(format_float(*v), *want, "{v:?}");
        }
    }

    #[test]
    fn strings_repr_like_python() {
        assert_eq!(python_repr_str("abc"), "'abc'");
        assert_eq!(python_repr_str("it's"), "\"it's\"");
        assert_eq!(python_repr_str("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(python_repr_str("a\nb\\"), "'a\\nb\\\\'");
        assert_eq!(python_repr_str("\x0c"), "'\\x0c'");
        assert_eq!(python_repr_str("é"), "'é'");
    }
}
