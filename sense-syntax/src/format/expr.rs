//! Expressions, literals and type annotations in canonical form.
//!
//! Parentheses are printed only where the tree needs them: a child gets
//! them when it binds more loosely than its position requires
//! (docs/book/src/values.md § Operators). For a left-associative binary operator the left
//! operand may sit at the operator's own level and the right operand must
//! bind strictly tighter, so `(1 - 2) - 3` prints as `1 - 2 - 3` while
//! `1 - (2 - 3)` keeps its parentheses.

use crate::ast::{BinOp, Expr, ExprKind, LogicOp, TypeAnn, UnaryOp};

/// Binding strength, loosest first (docs/book/src/values.md § Operators, plus primaries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Prec {
    /// `=` (right-associative).
    Assign,
    /// `or`.
    Or,
    /// `and`.
    And,
    /// `==` `!=`.
    Equality,
    /// `<` `<=` `>` `>=`.
    Comparison,
    /// `+` `-`.
    Term,
    /// `*` `/` `%`.
    Factor,
    /// Prefix `-` and `not`.
    Unary,
    /// Calls, member access, indexing.
    Postfix,
    /// Literals, names, array literals.
    Primary,
}

impl Prec {
    /// The next tighter level (used for the right operand of a
    /// left-associative operator).
    fn tighter(self) -> Prec {
        match self {
            Prec::Assign => Prec::Or,
            Prec::Or => Prec::And,
            Prec::And => Prec::Equality,
            Prec::Equality => Prec::Comparison,
            Prec::Comparison => Prec::Term,
            Prec::Term => Prec::Factor,
            Prec::Factor => Prec::Unary,
            Prec::Unary => Prec::Postfix,
            Prec::Postfix | Prec::Primary => Prec::Primary,
        }
    }
}

fn binop_prec(op: BinOp) -> Prec {
    match op {
        BinOp::Eq | BinOp::Ne => Prec::Equality,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::In | BinOp::NotIn => {
            Prec::Comparison
        }
        BinOp::Add | BinOp::Sub => Prec::Term,
        BinOp::Mul | BinOp::Div | BinOp::Mod => Prec::Factor,
    }
}

/// How tightly `e` binds as printed (without added parentheses).
fn prec_of(e: &Expr) -> Prec {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::Nil
        | ExprKind::Array(_)
        | ExprKind::ConstArray(_)
        | ExprKind::FString(_)
        | ExprKind::Map(_)
        | ExprKind::Name(_) => Prec::Primary,
        ExprKind::Assign { .. } | ExprKind::IndexAssign { .. } => Prec::Assign,
        ExprKind::Logic {
            op: LogicOp::Or, ..
        } => Prec::Or,
        ExprKind::Logic {
            op: LogicOp::And, ..
        } => Prec::And,
        ExprKind::Binary { op, .. } => binop_prec(*op),
        ExprKind::Unary { .. } => Prec::Unary,
        ExprKind::Call { .. } | ExprKind::Index { .. } | ExprKind::Member { .. } => Prec::Postfix,
    }
}

/// The canonical text of an expression in a position that accepts any
/// expression (a statement, an argument, an index, an array element).
pub(super) fn expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e, Prec::Assign);
    out
}

/// Writes `e`, parenthesised if it binds more loosely than `min`.
fn write_expr(out: &mut String, e: &Expr, min: Prec) {
    if prec_of(e) < min {
        out.push('(');
        write_bare(out, e);
        out.push(')');
    } else {
        write_bare(out, e);
    }
}

/// Writes `e` without parentheses around it.
fn write_bare(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Int(v) => out.push_str(&v.to_string()),
        ExprKind::Float(v) => out.push_str(&float_literal(*v)),
        ExprKind::Str(s) => out.push_str(&string_literal(s)),
        ExprKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        ExprKind::Nil => out.push_str("nil"),
        ExprKind::Name(n) => out.push_str(n),
        ExprKind::Array(items) => {
            out.push('[');
            comma_list(out, items);
            out.push(']');
        }
        ExprKind::ConstArray(items) => {
            out.push('[');
            comma_list(out, items.exprs(e.span));
            out.push(']');
        }
        ExprKind::FString(parts) => super::fstring::write_fstring(out, parts, expr),
        ExprKind::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(out, k, Prec::Assign);
                out.push_str(": ");
                write_expr(out, v, Prec::Assign);
            }
            out.push('}');
        }
        ExprKind::Assign { name, value } => {
            out.push_str(&name.name);
            out.push_str(" = ");
            write_expr(out, value, Prec::Assign);
        }
        ExprKind::IndexAssign {
            target,
            index,
            value,
        } => {
            write_expr(out, target, Prec::Postfix);
            out.push('[');
            write_expr(out, index, Prec::Assign);
            out.push_str("] = ");
            write_expr(out, value, Prec::Assign);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let p = binop_prec(*op);
            // `not x in xs` reads as `not (x in xs)`, as in Python: a
            // `not` operand of `in` keeps its parentheses.
            let not_lhs = matches!(
                lhs.kind,
                ExprKind::Unary {
                    op: UnaryOp::Not,
                    ..
                }
            );
            if matches!(op, BinOp::In | BinOp::NotIn) && not_lhs {
                out.push('(');
                write_bare(out, lhs);
                out.push(')');
            } else {
                write_expr(out, lhs, p);
            }
            out.push(' ');
            out.push_str(op.as_str());
            out.push(' ');
            write_expr(out, rhs, p.tighter());
        }
        ExprKind::Logic { op, lhs, rhs } => {
            let (p, word) = match op {
                LogicOp::Or => (Prec::Or, " or "),
                LogicOp::And => (Prec::And, " and "),
            };
            write_expr(out, lhs, p);
            out.push_str(word);
            write_expr(out, rhs, p.tighter());
        }
        ExprKind::Unary { op, operand } => {
            match op {
                UnaryOp::Not => out.push_str("not "),
                UnaryOp::Neg => {
                    out.push('-');
                    // `- -5`: keep two minus signs visibly apart.
                    if matches!(
                        operand.kind,
                        ExprKind::Unary {
                            op: UnaryOp::Neg,
                            ..
                        }
                    ) {
                        out.push(' ');
                    }
                }
            }
            write_expr(out, operand, Prec::Unary);
        }
        ExprKind::Call {
            callee,
            args,
            labeled,
        } => {
            write_expr(out, callee, Prec::Postfix);
            out.push('(');
            comma_list(out, args);
            for (i, arg) in labeled.iter().enumerate() {
                if i > 0 || !args.is_empty() {
                    out.push_str(", ");
                }
                out.push_str(&arg.label.name);
                out.push_str(": ");
                write_expr(out, &arg.value, Prec::Assign);
            }
            out.push(')');
        }
        ExprKind::Index { target, index } => {
            write_expr(out, target, Prec::Postfix);
            out.push('[');
            write_expr(out, index, Prec::Assign);
            out.push(']');
        }
        ExprKind::Member { target, name } => {
            write_expr(out, target, Prec::Postfix);
            out.push('.');
            out.push_str(&name.name);
        }
    }
}

fn comma_list<E: std::borrow::Borrow<Expr>>(out: &mut String, items: impl IntoIterator<Item = E>) {
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, item.borrow(), Prec::Assign);
    }
}

/// A type annotation: `Name` or `Name<T, U>`.
pub(super) fn type_ann(t: &TypeAnn) -> String {
    let mut out = t.name.clone();
    if !t.params.is_empty() {
        out.push('<');
        for (i, p) in t.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&type_ann(p));
        }
        out.push('>');
    }
    out
}

/// A float literal that lexes back to exactly `v`.
///
/// This is `show`'s text (docs/book/src/values.md § Printing) wherever `show` uses fixed
/// notation. Sense has no exponent syntax, so where `show` would switch
/// to scientific notation (`1e+16`, `1e-05`) the same shortest digits are
/// laid out in fixed notation instead (`10000000000000000.0`, `0.00001`).
/// Literals are never negative; a literal too large for a double (which
/// lexes as infinity) is printed as one that is still too large.
pub(super) fn float_literal(v: f64) -> String {
    if v.is_infinite() {
        return format!("1{}.0", "0".repeat(309));
    }
    // Rust's `Display` for f64 is the shortest round-trip digit string in
    // fixed notation, with no fractional part for integral values.
    let mut s = v.to_string();
    if !s.contains('.') {
        s.push_str(".0");
    }
    s
}

/// A string literal whose value is `value`.
///
/// Single-line values are printed in double quotes with `\\ \" \n \t \r`
/// escaped. A value containing a newline is printed triple-quoted with
/// its line breaks written out (see [`triple_quoted`]).
pub(super) fn string_literal(value: &str) -> String {
    if value.contains('\n') {
        return triple_quoted(value);
    }
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `"""…"""` with the value's newlines written as real line breaks.
///
/// Backslashes are doubled and carriage returns written `\r` (a raw one
/// would be turned into a newline when the file is read back). Quote
/// characters stay as they are, except in a run of three or more (which
/// would close the literal) or a run at the very end (which would merge
/// with the closing `"""`): every quote of such a run is written `\"`.
fn triple_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 6);
    out.push_str("\"\"\"");
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let mut run = 1;
                while chars.next_if_eq(&'"').is_some() {
                    run += 1;
                }
                let escape = run >= 3 || chars.peek().is_none();
                for _ in 0..run {
                    out.push_str(if escape { "\\\"" } else { "\"" });
                }
            }
            '\\' => out.push_str("\\\\"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push_str("\"\"\"");
    out
}
