//! Warnings for names that nothing declares: the runtime would stop with
//! `undefined variable 'x'` if that line ran. Each comes with the closest
//! declared or builtin name when one is a plausible typo.
//!
//! These are warnings, not errors: a host embedding Sense may register
//! functions the file cannot know about.

use crate::decls::{Decl, visible_at};
use crate::names::{builtins, closest};
use lsp_types::{Diagnostic, DiagnosticSeverity};
use sense_syntax::Span;
use sense_syntax::ast::{ExprKind, Program};
use sense_syntax::walk::each_expr;

/// Every read of a name in `program`: the name and where it is written.
pub fn name_uses(program: &Program) -> Vec<(&str, Span)> {
    let mut out = Vec::new();
    each_expr(&program.stmts, &mut |e| {
        if let ExprKind::Name(n) = &e.kind {
            out.push((n.as_str(), e.span));
        }
    });
    out
}

/// A warning for each use of a name that is neither declared where it is
/// used nor a builtin.
pub fn warnings(doc: &crate::document::Document, program: &Program) -> Vec<Diagnostic> {
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

#[cfg(test)]
mod tests {
    use crate::document::Document;

    fn messages(src: &str) -> Vec<String> {
        messages_in(src, None)
    }

    fn messages_in(src: &str, dir: Option<&std::path::Path>) -> Vec<String> {
        let doc = Document::new("t.sns", src);
        crate::features::diagnostics(&doc, dir)
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

    /// The example programs are correct: not one warning in them, their
    /// imports found and their calls of the right arity.
    #[test]
    fn examples_have_no_warnings() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples"));
        let mut seen = 0;
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "sns") {
                let text = std::fs::read_to_string(&p).unwrap();
                let m = messages_in(&text, Some(dir));
                assert!(m.is_empty(), "{}: {m:?}", p.display());
                seen += 1;
            }
        }
        assert!(seen > 0);
    }
}
