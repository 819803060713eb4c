//! Plain-text dumps of tokens and trees, for golden tests and for comparing
//! with the reference.
//!
//! The tree dump is an S-expression per top-level statement in which every
//! node shows the line the reference gives it; `tools/ref_oracle.py ast`
//! prints the same format from the reference's own parser, so the two can be
//! diffed directly. Floats are shown by their bit pattern to avoid any
//! formatting differences.

use crate::ast::{
    Block, Else, Expr, ExprKind, FStringPart, Ident, Param, Program, Stmt, StmtKind, TypeAnn,
};
use crate::lexer::Lexed;
use crate::token::py_repr;
use std::fmt::Write;

/// One line per token: `LINE KIND 'lexeme'`; `src` is the text `lexed`
/// came from.
pub fn dump_tokens(src: &str, lexed: &Lexed) -> String {
    let mut out = String::new();
    for t in &lexed.tokens {
        let _ = writeln!(
            out,
            "{} {} {}",
            t.span.line,
            t.kind.name(),
            py_repr(t.lexeme(src))
        );
    }
    out
}

/// One S-expression line per top-level statement.
pub fn dump_program(program: &Program) -> String {
    let mut out = String::new();
    for s in &program.stmts {
        stmt(&mut out, s);
        out.push('\n');
    }
    out
}

fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

fn ty(out: &mut String, t: Option<&TypeAnn>) {
    let Some(t) = t else {
        out.push('-');
        return;
    };
    let _ = write!(out, "(type {} {}", t.span.line, t.name);
    for p in &t.params {
        out.push(' ');
        ty(out, Some(p));
    }
    out.push(')');
}

fn params(out: &mut String, ps: &[Param]) {
    out.push_str("(params");
    for p in ps {
        let _ = write!(out, " ({} ", p.name.name);
        ty(out, p.ty.as_ref());
        out.push(')');
    }
    out.push(')');
}

fn opt_name(i: Option<&Ident>) -> &str {
    i.map_or("-", |i| i.name.as_str())
}

fn opt_str(s: Option<&String>) -> String {
    s.map_or_else(|| "-".to_string(), |s| py_repr(s))
}

fn block(out: &mut String, b: &Block) {
    let _ = write!(out, "(block {}", b.span.line);
    for s in &b.stmts {
        out.push(' ');
        stmt(out, s);
    }
    out.push(')');
}

fn stmt(out: &mut String, s: &Stmt) {
    let l = s.span.line;
    match &s.kind {
        StmtKind::Expr(e) => {
            let _ = write!(out, "(expr {l} ");
            expr(out, e);
        }
        StmtKind::Def(d) => {
            let _ = write!(out, "(def {l} {} ", d.name.name);
            params(out, &d.params);
            out.push(' ');
            ty(out, d.ret.as_ref());
            out.push(' ');
            block(out, &d.body);
        }
        StmtKind::TypedDecl { name, ty: t, value } => {
            let _ = write!(out, "(typed {l} {} ", name.name);
            ty(out, Some(t));
            out.push(' ');
            expr(out, value);
        }
        StmtKind::Local { name, ty: t, value } => {
            let _ = write!(out, "(local {l} {} ", name.name);
            ty(out, t.as_ref());
            out.push(' ');
            expr(out, value);
        }
        StmtKind::Set { name, value } | StmtKind::Model { name, value } => {
            let word = if matches!(s.kind, StmtKind::Set { .. }) {
                "set"
            } else {
                "model"
            };
            let _ = write!(out, "({word} {l} {} ", name.name);
            expr(out, value);
        }
        StmtKind::If { cond, then, els } => {
            let _ = write!(out, "(if {l} ");
            expr(out, cond);
            out.push(' ');
            block(out, then);
            out.push(' ');
            match els {
                None => out.push('-'),
                Some(Else::Block(b)) => block(out, b),
                Some(Else::If(s)) => stmt(out, s),
            }
        }
        StmtKind::While { cond, body } => {
            let _ = write!(out, "(while {l} ");
            expr(out, cond);
            out.push(' ');
            block(out, body);
        }
        StmtKind::For { var, iter, body } => {
            let _ = write!(out, "(for {l} {} ", var.name);
            expr(out, iter);
            out.push(' ');
            block(out, body);
        }
        StmtKind::Return(v) => {
            let _ = write!(out, "(return {l} ");
            match v {
                Some(e) => expr(out, e),
                None => out.push('-'),
            }
        }
        StmtKind::Try(t) => {
            let _ = write!(out, "(try {l} ");
            block(out, &t.body);
            for h in &t.handlers {
                let class = h.class.as_ref().map_or("-", |c| c.name.as_str());
                let _ = write!(
                    out,
                    " (except {} {class} {} ",
                    h.span.line,
                    opt_name(h.name.as_ref())
                );
                block(out, &h.body);
                out.push(')');
            }
            out.push(' ');
            match &t.finally {
                Some(b) => block(out, b),
                None => out.push('-'),
            }
        }
        StmtKind::Raise(v) => {
            let _ = write!(out, "(raise {l} ");
            expr(out, v);
        }
        StmtKind::Break => {
            let _ = write!(out, "(break {l}");
        }
        StmtKind::Continue => {
            let _ = write!(out, "(continue {l}");
        }
        StmtKind::Import {
            python,
            path,
            alias,
            ..
        } => {
            let _ = write!(
                out,
                "(import {l} {} {} {}",
                py_bool(*python),
                py_repr(path),
                opt_name(alias.as_ref())
            );
        }
        StmtKind::FromImport {
            python,
            path,
            names,
            ..
        } => {
            let _ = write!(out, "(from {l} {} {}", py_bool(*python), py_repr(path));
            for (n, a) in names {
                let _ = write!(out, " ({} {})", n.name, opt_name(a.as_ref()));
            }
        }
        StmtKind::Test { description, body } => {
            let _ = write!(out, "(test {l} {} ", py_repr(description));
            block(out, body);
        }
        StmtKind::Session { name, body } => {
            let _ = write!(out, "(session {l} {} ", name.name);
            block(out, body);
        }
        StmtKind::Agent(a) => {
            let _ = write!(out, "(agent {l} {} {} ", a.name.name, py_bool(a.is_async));
            block(out, &a.body);
        }
        StmtKind::Action(a) => {
            let _ = write!(out, "(action {l} {} {} ", a.name.name, a.kind.as_str());
            params(out, &a.params);
            let cap = a.capability.as_deref().unwrap_or("-");
            let _ = write!(out, " {cap} {} ", py_bool(a.approval));
            block(out, &a.body);
            out.push(' ');
            match &a.rollback {
                Some(b) => block(out, b),
                None => out.push('-'),
            }
        }
        StmtKind::Tool(t) => {
            let _ = write!(out, "(tool {l} {} {} ", t.name.name, py_bool(t.is_async));
            params(out, &t.params);
            out.push(' ');
            ty(out, t.ret.as_ref());
            let cap = t.capability.as_deref().unwrap_or("-");
            let _ = write!(out, " {cap} {} ", opt_str(t.description.as_ref()));
            block(out, &t.body);
        }
        StmtKind::Memory {
            name,
            kind,
            persistent,
        } => {
            let _ = write!(
                out,
                "(memory {l} {} {} {}",
                name.name,
                opt_str(kind.as_ref()),
                py_bool(*persistent)
            );
        }
        StmtKind::Policy(rules) => {
            let _ = write!(out, "(policy {l}");
            for r in rules {
                let effect = if r.allow { "allow" } else { "deny" };
                let _ = write!(out, " (rule {} {effect} {})", r.span.line, r.capability);
            }
        }
    }
    out.push(')');
}

fn expr(out: &mut String, e: &Expr) {
    let l = e.span.line;
    match &e.kind {
        ExprKind::Int(v) => {
            let _ = write!(out, "(int {l} {v}");
        }
        ExprKind::Float(v) => {
            let _ = write!(out, "(float {l} {}", v.to_bits());
        }
        ExprKind::Str(s) => {
            let _ = write!(out, "(str {l} {}", py_repr(s));
        }
        ExprKind::Bool(b) => {
            let _ = write!(out, "(bool {l} {b}");
        }
        ExprKind::Nil => {
            let _ = write!(out, "(nil {l}");
        }
        ExprKind::Array(items) => {
            let _ = write!(out, "(array {l}");
            for x in items {
                out.push(' ');
                expr(out, x);
            }
        }
        ExprKind::ConstArray(items) => {
            let _ = write!(out, "(array {l}");
            for x in items.exprs(e.span) {
                out.push(' ');
                expr(out, &x);
            }
        }
        ExprKind::FString(parts) => {
            let _ = write!(out, "(fstring {l}");
            for part in parts {
                out.push(' ');
                match part {
                    FStringPart::Text(t) => out.push_str(&py_repr(t)),
                    FStringPart::Expr(x) => expr(out, x),
                }
            }
        }
        ExprKind::Map(entries) => {
            let _ = write!(out, "(map {l}");
            for (k, v) in entries {
                out.push_str(" (");
                expr(out, k);
                out.push(' ');
                expr(out, v);
                out.push(')');
            }
        }
        ExprKind::Name(n) => {
            let _ = write!(out, "(name {l} {n}");
        }
        ExprKind::Assign { name, value } => {
            let _ = write!(out, "(assign {l} {} ", name.name);
            expr(out, value);
        }
        ExprKind::IndexAssign {
            target,
            index,
            value,
        } => {
            let _ = write!(out, "(index-assign {l} ");
            expr(out, target);
            out.push(' ');
            expr(out, index);
            out.push(' ');
            expr(out, value);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let _ = write!(out, "(bin {l} {} ", op.as_str());
            expr(out, lhs);
            out.push(' ');
            expr(out, rhs);
        }
        ExprKind::Logic { op, lhs, rhs } => {
            let word = match op {
                crate::ast::LogicOp::And => "and",
                crate::ast::LogicOp::Or => "or",
            };
            let _ = write!(out, "(logic {l} {word} ");
            expr(out, lhs);
            out.push(' ');
            expr(out, rhs);
        }
        ExprKind::Unary { op, operand } => {
            let word = match op {
                crate::ast::UnaryOp::Neg => "-",
                crate::ast::UnaryOp::Not => "not",
            };
            let _ = write!(out, "(unary {l} {word} ");
            expr(out, operand);
        }
        ExprKind::Call {
            callee,
            args,
            labeled,
        } => {
            let _ = write!(out, "(call {l} ");
            expr(out, callee);
            out.push_str(" (args");
            for a in args {
                out.push(' ');
                expr(out, a);
            }
            out.push_str(") (labeled");
            for a in labeled {
                let _ = write!(out, " ({} ", a.label.name);
                expr(out, &a.value);
                out.push(')');
            }
            out.push(')');
        }
        ExprKind::Index { target, index } => {
            let _ = write!(out, "(index {l} ");
            expr(out, target);
            out.push(' ');
            expr(out, index);
        }
        ExprKind::Member { target, name } => {
            let _ = write!(out, "(member {l} ");
            expr(out, target);
            let _ = write!(out, " {}", name.name);
        }
    }
    out.push(')');
}
