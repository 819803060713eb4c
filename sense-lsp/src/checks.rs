//! Mistakes the runtime would stop at, found before running: a call with
//! the wrong number of arguments to a function the file declares or to a
//! builtin of fixed arity, a literal that contradicts a type annotation
//! (`x: Int = "three"`, or as an argument of a typed parameter), and an
//! import whose file does not exist. Messages are the runtime's own.

use crate::decls::{Decl, DeclKind, type_text, visible_at};
use crate::document::Document;
use crate::members;
use lsp_types::{Diagnostic, DiagnosticSeverity};
use sense_eval::builtins::Arity;
use sense_syntax::Span;
use sense_syntax::ast::{Expr, ExprKind, Program, StmtKind, TypeAnn};
use sense_syntax::walk::{each_expr, each_stmt};
use std::path::Path;

/// Every such mistake in `program`, with `dir` the document's directory.
pub fn check(doc: &Document, program: &Program, dir: Option<&Path>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let natives = sense_agents::kinds::builtins();
    each_expr(&program.stmts, &mut |e| {
        let ExprKind::Call {
            callee,
            args,
            labeled,
        } = &e.kind
        else {
            return;
        };
        let ExprKind::Name(name) = &callee.kind else {
            return;
        };
        if !labeled.is_empty() {
            return;
        }
        match visible_at(&doc.decls, e.span.start)
            .into_iter()
            .find(|d| &d.name == name)
        {
            Some(d) if d.kind == DeclKind::Function => call_of_function(doc, d, e, args, &mut out),
            Some(_) => {}
            None => {
                let fixed = natives.iter().find_map(|n| match n.arity {
                    Arity::Exact(k) if &n.name == name => Some(usize::from(k)),
                    _ => None,
                });
                if let Some(k) = fixed
                    && k != args.len()
                {
                    out.push(error(
                        doc,
                        e.span,
                        format!("'{name}' expects {k} argument(s), got {}", args.len()),
                    ));
                }
            }
        }
    });
    each_stmt(&program.stmts, &mut |s| match &s.kind {
        StmtKind::TypedDecl { name, ty, value }
        | StmtKind::Local {
            name,
            ty: Some(ty),
            value,
        } => {
            if let Some(found) = contradicts(ty, value) {
                let message = format!(
                    "cannot assign value of type {found} to '{}: {}'",
                    name.name,
                    type_text(ty)
                );
                out.push(error(doc, value.span, message));
            }
        }
        StmtKind::Import {
            python: false,
            path,
            bare,
            path_span,
            ..
        }
        | StmtKind::FromImport {
            python: false,
            path,
            bare,
            path_span,
            ..
        } => {
            if let Some(message) = missing_module(path, *bare, dir) {
                out.push(error(doc, *path_span, message));
            }
        }
        _ => {}
    });
    out
}

/// A call of a declared function: its arity and its typed parameters.
fn call_of_function(
    doc: &Document,
    f: &Decl,
    call: &Expr,
    args: &[Expr],
    out: &mut Vec<Diagnostic>,
) {
    let Some(params) = &f.params else { return };
    if params.len() != args.len() {
        let message = format!(
            "'{}' expects {} argument(s), got {}",
            f.name,
            params.len(),
            args.len()
        );
        out.push(error(doc, call.span, message));
        return;
    }
    for (p, a) in params.iter().zip(args) {
        if let Some(ty) = &p.ty
            && let Some(found) = contradicts(ty, a)
        {
            let message = format!(
                "argument '{}' of '{}' expects {}, got {found}",
                p.name.name,
                f.name,
                type_text(ty)
            );
            out.push(error(doc, a.span, message));
        }
    }
}

/// The type of literal `value` when it cannot match annotation `ty` (the
/// rules of the runtime's check: `Float` takes an Int, `Any` and names the
/// language does not enforce take everything, `Array<T>` checks each
/// element), else `None` — also when `value` is not a literal.
fn contradicts(ty: &TypeAnn, value: &Expr) -> Option<&'static str> {
    let found = literal_kind(value)?;
    let ok = match ty.name.as_str() {
        "Int" => found == "Int",
        "Float" => found == "Float" || found == "Int",
        "String" | "Bool" | "Nil" | "Map" => found == ty.name,
        "Array" => {
            if found != "Array" {
                false
            } else if let (Some(elem), ExprKind::Array(items)) = (ty.params.first(), &value.kind) {
                return items
                    .iter()
                    .find_map(|i| contradicts(elem, i).map(|_| "Array"));
            } else if let (Some(elem), ExprKind::ConstArray(items)) =
                (ty.params.first(), &value.kind)
            {
                return items
                    .exprs(value.span)
                    .find_map(|i| contradicts(elem, &i).map(|_| "Array"));
            } else {
                true
            }
        }
        "Function" | "Model" | "Agent" | "Action" | "Tool" | "Memory" | "Skill" | "McpServer"
        | "Future" | "Answer" | "Error" => false,
        _ => true,
    };
    (!ok).then_some(found)
}

/// The type of a literal expression (`-3` included), or `None`.
fn literal_kind(e: &Expr) -> Option<&'static str> {
    Some(match &e.kind {
        ExprKind::Int(_) => "Int",
        ExprKind::Float(_) => "Float",
        ExprKind::Str(_) => "String",
        ExprKind::Bool(_) => "Bool",
        ExprKind::Nil => "Nil",
        ExprKind::Array(_) | ExprKind::ConstArray(_) => "Array",
        ExprKind::Map(_) => "Map",
        ExprKind::FString(_) => "String",
        ExprKind::Unary { operand, .. } => match literal_kind(operand)? {
            k @ ("Int" | "Float") => k,
            _ => return None,
        },
        _ => return None,
    })
}

/// The runtime's message when the module file of an import is missing
/// (and a bare name is not a built-in module either).
fn missing_module(path: &str, bare: bool, dir: Option<&Path>) -> Option<String> {
    let dir = dir?;
    let file = dir.join(path);
    if file.is_file() {
        return None;
    }
    let stem = path.strip_suffix(".sns").unwrap_or(path);
    if bare && members::MODULES.contains(&stem) {
        return None;
    }
    Some(format!(
        "module not found: '{path}' (resolved to {})",
        file.display()
    ))
}

fn error(doc: &Document, span: Span, message: String) -> Diagnostic {
    Diagnostic {
        range: doc.range(span),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("sense".to_string()),
        message,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(src: &str, dir: Option<&Path>) -> Vec<String> {
        let doc = Document::new("t.sns", src);
        let program = doc.program.as_ref().unwrap();
        check(&doc, program, dir)
            .into_iter()
            .map(|d| format!("{}: {}", d.range.start.line, d.message))
            .collect()
    }

    #[test]
    fn arity_of_functions_and_builtins() {
        let src = "def f(a, b):\n    return a\nf(1)\nf(1, 2)\nlen(1, 2)\nprint(1, 2, 3)\n";
        assert_eq!(
            messages(src, None),
            [
                "2: 'f' expects 2 argument(s), got 1",
                "4: 'len' expects 1 argument(s), got 2"
            ]
        );
    }

    #[test]
    fn literals_against_annotations() {
        let src = "x: Int = \"three\"\ny: Float = 2\nz: Array<String> = [\"a\", 1]\nlocal w: Foo = 1\ndef g(n: Int):\n    return n\ng(\"x\")\n";
        assert_eq!(
            messages(src, None),
            [
                "6: argument 'n' of 'g' expects Int, got String",
                "0: cannot assign value of type String to 'x: Int'",
                "2: cannot assign value of type Array to 'z: Array<String>'",
            ]
        );
    }

    #[test]
    fn missing_import_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("here.sns"), "x = 1\n").unwrap();
        let src = "import here\nimport json\nimport \"gone.sns\" as g\nfrom nowhere import a\n";
        let found = messages(src, Some(dir.path()));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("2: module not found: 'gone.sns'"));
        assert!(found[1].starts_with("3: module not found: 'nowhere.sns'"));
        assert!(messages(src, None).is_empty());
    }
}
