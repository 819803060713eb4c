//! Scanners for single tokens, written with nom over `&str`.
//!
//! Each function looks at the text at the current position and says how
//! many bytes the token takes; the caller (`Lexer`) owns positions, lines
//! and errors. Nothing here can fail on arbitrary input: a scanner that does
//! not match reports `None` or a length of zero.

use super::unicode::{ALNUM, ALPHA, DECIMAL, DIGIT};
use crate::token::{TokenKind, in_ranges};
use nom::bytes::complete::{take_while, take_while1};
use nom::character::complete::{char, satisfy};
use nom::combinator::{opt, recognize};
use nom::sequence::pair;
use nom::{IResult, Parser};

/// The operator or punctuation token at the start of `input`, with its
/// length in bytes. Two-character spellings are tried first (maximal munch
/// for `==`, `!=`, `<=`, `>=` and `->`). A lone `!` is not one: it is an
/// error with its own message.
pub(super) fn punct(input: &str) -> Option<(TokenKind, usize)> {
    use TokenKind as K;
    let two = match input.get(..2) {
        Some("==") => Some(K::EqEq),
        Some("!=") => Some(K::BangEq),
        Some("<=") => Some(K::LtEq),
        Some(">=") => Some(K::GtEq),
        Some("->") => Some(K::Arrow),
        _ => None,
    };
    if let Some(kind) = two {
        return Some((kind, 2));
    }
    let one = match input.chars().next()? {
        '=' => K::Eq,
        '<' => K::Lt,
        '>' => K::Gt,
        '-' => K::Minus,
        '+' => K::Plus,
        '*' => K::Star,
        '/' => K::Slash,
        '%' => K::Percent,
        '(' => K::LParen,
        ')' => K::RParen,
        '[' => K::LBracket,
        ']' => K::RBracket,
        ',' => K::Comma,
        ':' => K::Colon,
        '.' => K::Dot,
        _ => return None,
    };
    Some((one, 1))
}

/// Python's `str.isalpha()`: the characters that may start an identifier
/// (with `_`).
pub(super) fn is_alpha(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    in_ranges(c, ALPHA)
}

/// Python's `str.isalnum()`: the characters that may continue an
/// identifier (with `_`).
fn is_alnum(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    in_ranges(c, ALNUM)
}

/// Python's `str.isdigit()`: the characters a number is made of. Besides
/// ASCII digits this includes other scripts' digits and forms such as `²`.
pub(super) fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_ranges(c, DIGIT)
}

/// The value of a decimal digit of any script (Python's `isdecimal()`
/// characters); `None` for other characters, including `²`.
pub(super) fn decimal_value(c: char) -> Option<u32> {
    if c.is_ascii_digit() {
        return c.to_digit(10);
    }
    let cp = c as u32;
    let i = DECIMAL.partition_point(|&(_, hi, _)| hi < cp);
    let &(lo, hi, first) = DECIMAL.get(i)?;
    (lo <= cp && cp <= hi).then(|| first + (cp - lo))
}

/// Length of the identifier or keyword at the start of `input` (zero when
/// it does not start with a letter or `_`).
pub(super) fn identifier(input: &str) -> usize {
    let word: IResult<&str, &str> = recognize(pair(
        satisfy(|c| is_alpha(c) || c == '_'),
        take_while(|c: char| is_alnum(c) || c == '_'),
    ))
    .parse(input);
    word.map_or(0, |(_, w)| w.len())
}

/// Length of the number at the start of `input` and whether it is a float.
/// A `.` makes a float only when a digit follows it, so `1.` is INT then
/// DOT and `1.x` is INT, DOT, IDENT.
pub(super) fn number(input: &str) -> (usize, bool) {
    let digits = || take_while1(is_digit);
    let parsed: IResult<&str, &str> =
        recognize(pair(digits(), opt(pair(char('.'), digits())))).parse(input);
    parsed.map_or((0, false), |(_, text)| (text.len(), text.contains('.')))
}

/// The number's text with every digit as ASCII, or the first character
/// that is a digit but not a decimal one (such as `²`), which the reference
/// cannot convert either.
pub(super) fn ascii_number(text: &str) -> Result<String, char> {
    text.chars()
        .map(|c| match c {
            '.' => Ok('.'),
            c => decimal_value(c)
                .and_then(|v| char::from_digit(v, 10))
                .ok_or(c),
        })
        .collect()
}

/// The value of a run of ASCII digits, or `None` when it does not fit in an
/// `i64` (leading zeros are fine: `007` is 7).
pub(super) fn int_value(digits: &str) -> Option<i64> {
    digits.bytes().try_fold(0i64, |acc, b| {
        acc.checked_mul(10)?
            .checked_add(i64::from(b.wrapping_sub(b'0')))
    })
}

/// The character an escape `\c` stands for. Unknown escapes stand for the
/// character itself (`\a` is `a`), as in the reference.
pub(super) fn escape(c: char) -> char {
    match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        other => other,
    }
}
