//! Host values as Sense literals, both ways: [`parse`] reads a value a
//! person typed (`sense resume STATE '"yes"'`, the inspector's resume and
//! call forms), [`Preview`] writes one for a reader within a byte budget
//! (`sense show`, `sense resume`'s `paused:` line, the inspector).
//!
//! A value from a runtime is already a bounded copy (cycles and heavy
//! sharing end in `[...]`); the budget keeps a long one — 400,000
//! elements, a deep shared structure — to a preview, as debuggers show it.

use sense_eval::HostValue;
use sense_syntax::ast::{ConstItem, Expr, ExprKind, StmtKind, UnaryOp};
use sense_syntax::{SourceFile, parse_file};

/// Parses a Sense literal: a string (`"yes"`), an integer or float (with
/// an optional leading `-`), `true`, `false`, `nil`, or a list of those.
/// Anything else — a bare word, an expression, a call, nothing — is an
/// error whose message says what is accepted and how to pass text.
///
/// # Examples
///
/// ```
/// use sense_agents::{HostValue, literal};
///
/// assert_eq!(literal::parse("[1, \"a\"]"), Ok(HostValue::List(vec![1.into(), "a".into()])));
/// assert!(literal::parse("yes").unwrap_err().contains("'\"yes\"'"));
/// ```
pub fn parse(text: &str) -> Result<HostValue, String> {
    let hint = || {
        format!(
            "the resume value must be a Sense literal such as '\"yes\"', 42, true, nil, [1, 2] or {{\"k\": 1}} (got: {text}); \
             to pass text, quote it, e.g. '\"{text}\"'"
        )
    };
    let file = SourceFile::new("<value>", text);
    let program = parse_file(&file).map_err(|_| hint())?;
    let [stmt] = program.stmts.as_slice() else {
        return Err(hint());
    };
    let StmtKind::Expr(e) = &stmt.kind else {
        return Err(hint());
    };
    expr_literal(e).ok_or_else(hint)
}

/// The value of a literal expression; `None` for anything else.
fn expr_literal(e: &Expr) -> Option<HostValue> {
    Some(match &e.kind {
        ExprKind::Int(i) => HostValue::Int(*i),
        ExprKind::Float(f) => HostValue::Float(*f),
        ExprKind::Str(s) => HostValue::Str(s.clone()),
        ExprKind::Bool(b) => HostValue::Bool(*b),
        ExprKind::Nil => HostValue::Nil,
        ExprKind::Array(items) => {
            HostValue::List(items.iter().map(expr_literal).collect::<Option<_>>()?)
        }
        ExprKind::ConstArray(items) => HostValue::List(
            items
                .iter()
                .map(|item| match item {
                    ConstItem::Int(i) => HostValue::Int(i),
                    ConstItem::Float(f) => HostValue::Float(f),
                    ConstItem::Str(s) => HostValue::Str(s.to_string()),
                })
                .collect(),
        ),
        ExprKind::Map(entries) => HostValue::Map(
            entries
                .iter()
                .map(|(k, v)| {
                    let key = expr_literal(k)?;
                    let ok = matches!(
                        key,
                        HostValue::Str(_) | HostValue::Int(_) | HostValue::Bool(_)
                    );
                    Some((ok.then_some(key)?, expr_literal(v)?))
                })
                .collect::<Option<_>>()?,
        ),
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => match &operand.kind {
            ExprKind::Int(i) => HostValue::Int(i.checked_neg()?),
            ExprKind::Float(f) => HostValue::Float(-f),
            _ => return None,
        },
        _ => return None,
    })
}

/// A value written for a reader, and whether it was cut short.
///
/// # Examples
///
/// ```
/// use sense_agents::{HostValue, literal::Preview};
///
/// let v = HostValue::List(vec!["a\"b".into(), 1.into()]);
/// assert_eq!(Preview::literal(&v, 100).text, "[\"a\\\"b\", 1]");
/// assert_eq!(Preview::text(&v, 100).text, "[a\"b, 1]");
/// let cut = Preview::literal(&HostValue::from("x".repeat(100)), 10);
/// assert!(cut.cut && cut.text.ends_with("..."));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preview {
    /// The text; it ends in `...` when cut.
    pub text: String,
    /// True if the budget ran out.
    pub cut: bool,
}

impl Preview {
    /// `v` as a Sense literal (strings quoted and escaped, so that
    /// [`parse`] reads it back), cut after about `cap` bytes.
    pub fn literal(v: &HostValue, cap: usize) -> Preview {
        render(v, cap, true)
    }

    /// `v` as `print` shows it, cut after about `cap` bytes.
    pub fn text(v: &HostValue, cap: usize) -> Preview {
        render(v, cap, false)
    }
}

fn render(v: &HostValue, cap: usize, quoted: bool) -> Preview {
    let mut out = String::new();
    let whole = write(v, &mut out, cap, quoted);
    let cut = !whole || out.len() > cap;
    if cut {
        out.truncate(floor_char_boundary(&out, cap));
        out.push_str("...");
    }
    Preview { text: out, cut }
}

/// The largest char boundary of `s` at or below `at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Writes `v`; false once `out` has grown past `cap` (the rest is skipped).
fn write(v: &HostValue, out: &mut String, cap: usize, quoted: bool) -> bool {
    if out.len() > cap {
        return false;
    }
    match v {
        HostValue::Str(s) if quoted => {
            out.push('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    c => out.push(c),
                }
                if out.len() > cap {
                    return false;
                }
            }
            out.push('"');
        }
        HostValue::Str(s) => {
            let room = cap.saturating_sub(out.len()).saturating_add(1);
            if s.len() > room {
                out.push_str(s.get(..floor_char_boundary(s, room)).unwrap_or_default());
                return false;
            }
            out.push_str(s);
        }
        HostValue::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if !write(item, out, cap, quoted) {
                    return false;
                }
            }
            out.push(']');
        }
        HostValue::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                // Keys are quoted in a literal (so it parses back), bare
                // in the printed form, as `print` shows them.
                if !write(k, out, cap, quoted) {
                    return false;
                }
                out.push_str(": ");
                if !write(v, out, cap, quoted) {
                    return false;
                }
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
    out.len() <= cap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_literals() {
        assert_eq!(parse("\"yes\""), Ok(HostValue::from("yes")));
        assert_eq!(parse("42"), Ok(HostValue::Int(42)));
        assert_eq!(parse("-1.5"), Ok(HostValue::Float(-1.5)));
        assert_eq!(parse("-7"), Ok(HostValue::Int(-7)));
        assert_eq!(parse("true"), Ok(HostValue::Bool(true)));
        assert_eq!(parse("nil"), Ok(HostValue::Nil));
        assert_eq!(
            parse("[1, \"a\", [nil]]"),
            Ok(HostValue::List(vec![
                HostValue::Int(1),
                HostValue::from("a"),
                HostValue::List(vec![HostValue::Nil])
            ]))
        );
    }

    /// A long list of numbers and strings (one compact node in the
    /// parser, issue 27) reads as the same list.
    #[test]
    fn parses_long_lists_of_constants() {
        let text = format!("[{}\"end\", 2.5]", "1, ".repeat(40));
        let mut want = vec![HostValue::Int(1); 40];
        want.extend([HostValue::from("end"), HostValue::Float(2.5)]);
        assert_eq!(parse(&text), Ok(HostValue::List(want)));
    }

    #[test]
    fn refuses_what_is_not_a_literal_with_a_hint() {
        for bad in [
            "yes",
            "1 + 2",
            "f()",
            "",
            "x = 1",
            "1\n2",
            "[1, y]",
            "-x",
            "\"open",
            "{1.5: 2}",
            "{[1]: 2}",
            "{\"a\": y}",
        ] {
            let err = parse(bad).unwrap_err();
            assert!(
                err.starts_with("the resume value must be a Sense literal"),
                "{bad:?}: {err}"
            );
            assert!(err.contains(&format!("(got: {bad})")), "{bad:?}: {err}");
        }
    }

    #[test]
    fn literal_previews_parse_back() {
        let v = HostValue::List(vec![
            HostValue::from("a\"b\\c\nd\te\r"),
            HostValue::Int(-3),
            HostValue::Float(2.5),
            HostValue::Bool(false),
            HostValue::Nil,
            HostValue::List(vec![]),
            HostValue::Map(vec![
                (HostValue::from("k\"ey"), HostValue::Int(1)),
                (HostValue::Int(2), HostValue::Map(vec![])),
                (HostValue::Bool(true), HostValue::List(vec![HostValue::Nil])),
            ]),
        ]);
        let p = Preview::literal(&v, 1000);
        assert!(!p.cut);
        assert_eq!(parse(&p.text), Ok(v));
    }

    #[test]
    fn short_values_are_whole_and_long_ones_cut() {
        let v = HostValue::List(vec![HostValue::from("a\"b"), HostValue::Int(1)]);
        let p = Preview::literal(&v, 100);
        assert_eq!((p.text.as_str(), p.cut), ("[\"a\\\"b\", 1]", false));
        assert_eq!(Preview::text(&v, 100).text, "[a\"b, 1]");
        let long = HostValue::List((0..400_000).map(HostValue::Int).collect());
        let p = Preview::literal(&long, 50);
        assert!(p.cut);
        assert!(p.text.len() <= 53 && p.text.starts_with("[0, 1, 2") && p.text.ends_with("..."));
        let p = Preview::text(&HostValue::from("é".repeat(100)), 11);
        assert!(p.cut && p.text.len() <= 14, "{}", p.text);
        let p = Preview::literal(&HostValue::from("é".repeat(100)), 12);
        assert!(p.cut && p.text.len() <= 15, "{}", p.text);
    }
}
