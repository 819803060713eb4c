//! Warnings for names that nothing declares: the runtime would stop with
//! `undefined variable 'x'` if that line ran. Each comes with the closest
//! declared or builtin name when one is a plausible typo.
//!
//! These are warnings, not errors: a host embedding Sense may register
//! functions the file cannot know about.

use crate::cli::decls::{Decl, visible_at};
use crate::cli::names::{builtins, closest};
use lsp_types::{Diagnostic, DiagnosticSeverity};
use sense::syntax::Span;
use sense::syntax::ast::{Block, Else, Expr, ExprKind, Program, Stmt, StmtKind};

/// Every read of a name in `program`: the name and where it is written.
pub fn name_uses(program: &Program) -> Vec<(&str, Span)> {
    let mut out = Vec::new();
    for s in &program.stmts {
        stmt(s, &mut out);
    }
    out
}

/// A warning for each use of a name that is neither declared where it is
/// used nor a builtin.
pub fn warnings(doc: &super::document::Document, program: &Program) -> Vec<Diagnostic> {
    let builtins = builtins();
    let mut out = Vec::new();
    for (name, span) in name_uses(program) {
        if builtins.iter().any(|b| b == name) {
            continue;
        }
        let visible: Vec<&Decl> = visible_at(&doc.decls, span.start);
        if visible.iter().any(|d| d.name == name) {
            continue;
        }
        let candidates = visible
            .iter()
            .map(|d| d.name.as_str())
            .chain(builtins.iter().map(String::as_str));
        let mut message = format!("undefined variable '{name}'");
        if let Some(c) = closest(name, candidates) {
            message.push_str(&format!(" — did you mean `{c}`?"));
        }
        out.push(Diagnostic {
            range: doc.range(span),
            severity: Some(DiagnosticSeverity::WARNING),
            source: Some("sense".to_string()),
            message,
            ..Default::default()
        });
    }
    out
}

fn block<'a>(b: &'a Block, out: &mut Vec<(&'a str, Span)>) {
    for s in &b.stmts {
        stmt(s, out);
    }
}

fn stmt<'a>(s: &'a Stmt, out: &mut Vec<(&'a str, Span)>) {
    match &s.kind {
        StmtKind::Expr(e)
        | StmtKind::TypedDecl { value: e, .. }
        | StmtKind::Local { value: e, .. }
        | StmtKind::Set { value: e, .. }
        | StmtKind::Model { value: e, .. }
        | StmtKind::Return(Some(e)) => expr(e, out),
        StmtKind::Def(f) => block(&f.body, out),
        StmtKind::If { cond, then, els } => {
            expr(cond, out);
            block(then, out);
            match els {
                Some(Else::Block(b)) => block(b, out),
                Some(Else::If(s)) => stmt(s, out),
                None => {}
            }
        }
        StmtKind::While { cond, body } => {
            expr(cond, out);
            block(body, out);
        }
        StmtKind::For { iter, body, .. } => {
            expr(iter, out);
            block(body, out);
        }
        StmtKind::Test { body, .. } | StmtKind::Session { body, .. } => block(body, out),
        StmtKind::Agent(a) => block(&a.body, out),
        StmtKind::Action(a) => {
            block(&a.body, out);
            if let Some(r) = &a.rollback {
                block(r, out);
            }
        }
        StmtKind::Tool(t) => block(&t.body, out),
        StmtKind::Return(None)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Import { .. }
        | StmtKind::FromImport { .. }
        | StmtKind::Memory { .. }
        | StmtKind::Policy(_) => {}
    }
}

fn expr<'a>(e: &'a Expr, out: &mut Vec<(&'a str, Span)>) {
    match &e.kind {
        ExprKind::Name(n) => out.push((n, e.span)),
        ExprKind::Assign { value, .. } => expr(value, out),
        ExprKind::IndexAssign {
            target,
            index,
            value,
        } => {
            expr(target, out);
            expr(index, out);
            expr(value, out);
        }
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logic { lhs, rhs, .. } => {
            expr(lhs, out);
            expr(rhs, out);
        }
        ExprKind::Unary { operand, .. } => expr(operand, out),
        ExprKind::Call {
            callee,
            args,
            labeled,
        } => {
            expr(callee, out);
            for a in args {
                expr(a, out);
            }
            for l in labeled {
                expr(&l.value, out);
            }
        }
        ExprKind::Index { target, index } => {
            expr(target, out);
            expr(index, out);
        }
        ExprKind::Member { target, .. } => expr(target, out),
        ExprKind::Array(items) => {
            for i in items {
                expr(i, out);
            }
        }
        ExprKind::Map(entries) => {
            for (k, v) in entries {
                expr(k, out);
                expr(v, out);
            }
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::Nil => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::document::Document;

    fn messages(src: &str) -> Vec<String> {
        let doc = Document::new("t.sns", src);
        super::super::features::diagnostics(&doc)
            .into_iter()
            .map(|d| d.message)
            .collect()
    }

    #[test]
    fn typos_are_warned_with_a_suggestion() {
        assert_eq!(
            messages("total = 1\nprnt(totl)\n"),
            [
                "undefined variable 'prnt' — did you mean `print`?",
                "undefined variable 'totl' — did you mean `total`?"
            ]
        );
        // A local of another function is not in scope.
        assert_eq!(
            messages("def f():\n    inner = 1\nprint(inner)\n"),
            ["undefined variable 'inner'"]
        );
    }

    #[test]
    fn declared_names_are_not_warned() {
        let src = "def f(a):\n    return g(a) + later\ndef g(b):\n    return b\nlater = 2\nfor i in range(3):\n    print(i, f(i))\nreversible action r(x):\n    print(x)\nrollback:\n    print(x)\n";
        assert!(messages(src).is_empty(), "{:?}", messages(src));
    }

    /// The example programs are correct: not one warning in them.
    #[test]
    fn examples_have_no_warnings() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        let mut seen = 0;
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "sns") {
                let text = std::fs::read_to_string(&p).unwrap();
                let m = messages(&text);
                assert!(m.is_empty(), "{}: {m:?}", p.display());
                seen += 1;
            }
        }
        assert!(seen > 0);
    }
}
