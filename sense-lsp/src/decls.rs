//! The names a program declares, and where each is visible, for editor
//! features and "did you mean" hints.
//!
//! Sense decides scoping at run time (assign-or-create walks the live
//! scope chain), so this is a static approximation: a name declared at a
//! file's top level is visible everywhere in the file; a name declared in
//! a function, agent, tool or action (its parameters, assignments, loop
//! variables…) is visible inside that declaration.

use sense_syntax::Span;
use sense_syntax::ast::{
    Block, Else, Expr, ExprKind, FStringPart, Param, Program, Stmt, StmtKind, TypeAnn,
};

/// What kind of thing a declaration binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclKind {
    /// `def NAME(…)`.
    Function,
    /// `agent NAME:`.
    Agent,
    /// `tool NAME(…)`.
    Tool,
    /// `reversible action NAME(…)` / `irreversible action NAME(…)`.
    Action,
    /// `model NAME = …`.
    Model,
    /// `memory NAME`.
    Memory,
    /// `import …` (the module's binding) or a name of `from … import`.
    Import,
    /// A parameter of a function, tool or action.
    Parameter,
    /// An assignment, typed or `local` declaration, or loop variable.
    Variable,
}

impl DeclKind {
    /// The word shown to people (`function`, `agent`, …).
    pub fn word(self) -> &'static str {
        match self {
            DeclKind::Function => "function",
            DeclKind::Agent => "agent",
            DeclKind::Tool => "tool",
            DeclKind::Action => "action",
            DeclKind::Model => "model",
            DeclKind::Memory => "memory",
            DeclKind::Import => "import",
            DeclKind::Parameter => "parameter",
            DeclKind::Variable => "variable",
        }
    }
}

/// One declaration found in a program.
#[derive(Clone, Debug)]
pub struct Decl {
    /// The bound name.
    pub name: String,
    /// What it binds.
    pub kind: DeclKind,
    /// Where the name is written.
    pub name_span: Span,
    /// The whole declaring statement.
    pub full_span: Span,
    /// Where it is visible: the file (`None`) or an enclosing body.
    pub scope: Option<Span>,
    /// A one-line description: a signature, a declared type, an import path.
    pub detail: String,
    /// For imports: the module path as written (resolved against the file's directory).
    pub module: Option<String>,
    /// For `from … import a as b`: the name in the module (`a`).
    pub member: Option<String>,
    /// For functions, agents, tools and actions: the extent of the whole
    /// declaration (header and body), which is the `scope` of their
    /// parameters and locals.
    pub body: Option<Span>,
    /// The type of the value the name holds, when the source says it: an
    /// annotation, a literal, a call of a function that declares its
    /// return type, or what the declaration binds (`Agent`, `Model`, …).
    pub value_type: Option<String>,
    /// For functions, tools and actions: their parameters.
    pub params: Option<Vec<Param>>,
}

/// Every declaration of `program`, in source order.
pub fn declarations(program: &Program) -> Vec<Decl> {
    let mut out = Vec::new();
    for s in &program.stmts {
        stmt(s, None, &mut out);
    }
    out
}

/// The declarations visible at byte `offset` (innermost first when a name is
/// declared at several levels), one per name.
pub fn visible_at(decls: &[Decl], offset: u32) -> Vec<&Decl> {
    let mut seen: Vec<&Decl> = Vec::new();
    let mut ordered: Vec<&Decl> = decls
        .iter()
        .filter(|d| d.scope.is_none_or(|s| s.start <= offset && offset <= s.end))
        .collect();
    // Narrower scopes first, so a parameter shadows a global of the same name.
    ordered.sort_by_key(|d| d.scope.map_or(u32::MAX, |s| s.end - s.start));
    for d in ordered {
        if !seen.iter().any(|s| s.name == d.name) {
            seen.push(d);
        }
    }
    seen
}

/// An annotation as written (`Array<String>`).
pub fn type_text(t: &TypeAnn) -> String {
    if t.params.is_empty() {
        t.name.clone()
    } else {
        let inner: Vec<String> = t.params.iter().map(type_text).collect();
        format!("{}<{}>", t.name, inner.join(", "))
    }
}

fn params_text(params: &[Param]) -> String {
    params
        .iter()
        .map(|p| match &p.ty {
            Some(t) => format!("{}: {}", p.name.name, type_text(t)),
            None => p.name.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn push(
    out: &mut Vec<Decl>,
    name: &sense_syntax::ast::Ident,
    kind: DeclKind,
    full: Span,
    scope: Option<Span>,
    detail: String,
) {
    out.push(Decl {
        name: name.name.clone(),
        kind,
        name_span: name.span,
        full_span: full,
        scope,
        detail,
        module: None,
        member: None,
        body: None,
        value_type: None,
        params: None,
    });
}

/// Sets the value type of the declaration just pushed.
fn with_type(out: &mut [Decl], ty: Option<String>) {
    if let Some(d) = out.last_mut() {
        d.value_type = ty;
    }
}

/// The type of `e`'s value when the source makes it plain: a literal, a
/// builtin whose result type never varies, or a call of a function or
/// action declared before (in `out`).
pub fn literal_type(e: &Expr, out: &[Decl]) -> Option<String> {
    Some(match &e.kind {
        ExprKind::Int(_) => "Int".into(),
        ExprKind::Float(_) => "Float".into(),
        ExprKind::Str(_) => "String".into(),
        ExprKind::Bool(_) => "Bool".into(),
        ExprKind::Nil => "Nil".into(),
        ExprKind::Array(_) | ExprKind::ConstArray(_) => "Array".into(),
        ExprKind::Map(_) => "Map".into(),
        ExprKind::FString(_) => "String".into(),
        ExprKind::Assign { value, .. } => return literal_type(value, out),
        ExprKind::Call { callee, .. } => {
            let ExprKind::Name(name) = &callee.kind else {
                return None;
            };
            match out.iter().rev().find(|d| &d.name == name) {
                Some(d) => match d.kind {
                    DeclKind::Function => d
                        .detail
                        .rsplit_once(" -> ")
                        .map(|(_, ret)| ret.to_string())?,
                    DeclKind::Action => "Action".into(),
                    _ => return None,
                },
                None => match name.as_str() {
                    "str" | "type_of" | "input" => "String".into(),
                    "int" | "len" => "Int".into(),
                    "float" => "Float".into(),
                    "range" | "keys" => "Array".into(),
                    "connect_mcp" => "McpServer".into(),
                    _ => return None,
                },
            }
        }
        _ => return None,
    })
}

/// Marks the declaration just pushed as having `body`.
fn with_body(out: &mut [Decl], body: Span) {
    if let Some(d) = out.last_mut() {
        d.body = Some(body);
    }
}

fn params(out: &mut Vec<Decl>, ps: &[Param], full: Span, body: Span) {
    for p in ps {
        let detail = match &p.ty {
            Some(t) => format!("{}: {}", p.name.name, type_text(t)),
            None => p.name.name.clone(),
        };
        push(out, &p.name, DeclKind::Parameter, full, Some(body), detail);
        with_type(out, p.ty.as_ref().map(type_text));
    }
}

/// Records the parameters of the function, tool or action just pushed.
fn with_params(out: &mut [Decl], ps: &[Param]) {
    if let Some(d) = out.last_mut() {
        d.params = Some(ps.to_vec());
    }
}

/// What a function-like declaration (`def`, `tool`) adds after its own
/// entry: its parameters on that entry, and its body as a scope where the
/// parameters are visible from the header (`full` starts there) on.
fn callable_body(out: &mut Vec<Decl>, ps: &[Param], body: &Block, full: Span) {
    with_params(out, ps);
    let scope = full.to(body.span);
    with_body(out, scope);
    params(out, ps, full, scope);
    block(body, Some(scope), out);
}

fn block(b: &Block, scope: Option<Span>, out: &mut Vec<Decl>) {
    for s in &b.stmts {
        stmt(s, scope, out);
    }
}

/// The stem a bare `import "dir/name.sns"` binds (`name`), or the last
/// dotted segment of a Python module.
fn import_binding(path: &str, python: bool) -> String {
    if python {
        return path.rsplit('.').next().unwrap_or(path).to_string();
    }
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    file.strip_suffix(".sns").unwrap_or(file).to_string()
}

fn stmt(s: &Stmt, scope: Option<Span>, out: &mut Vec<Decl>) {
    let full = s.span;
    match &s.kind {
        StmtKind::Expr(e) => expr(e, full, scope, out),
        StmtKind::Def(f) => {
            let ret = f
                .ret
                .as_ref()
                .map(|t| format!(" -> {}", type_text(t)))
                .unwrap_or_default();
            let sig = format!("def {}({}){ret}", f.name.name, params_text(&f.params));
            push(out, &f.name, DeclKind::Function, full, scope, sig);
            with_type(out, Some("Function".into()));
            callable_body(out, &f.params, &f.body, full);
        }
        StmtKind::TypedDecl { name, ty, value } => {
            let detail = format!("{}: {}", name.name, type_text(ty));
            push(out, name, DeclKind::Variable, full, scope, detail);
            with_type(out, Some(type_text(ty)));
            expr(value, full, scope, out);
        }
        StmtKind::Local { name, ty, value } => {
            let detail = match ty {
                Some(t) => format!("local {}: {}", name.name, type_text(t)),
                None => format!("local {}", name.name),
            };
            let known = ty
                .as_ref()
                .map(type_text)
                .or_else(|| literal_type(value, out));
            push(out, name, DeclKind::Variable, full, scope, detail);
            with_type(out, known);
            expr(value, full, scope, out);
        }
        StmtKind::Model { name, .. } => {
            let detail = format!("model {}", name.name);
            push(out, name, DeclKind::Model, full, scope, detail);
            with_type(out, Some("Model".into()));
        }
        StmtKind::If { cond, then, els } => {
            expr(cond, full, scope, out);
            block(then, scope, out);
            let mut next = els.as_ref();
            while let Some(e) = next {
                match e {
                    Else::Block(b) => {
                        block(b, scope, out);
                        next = None;
                    }
                    Else::If(inner) => {
                        stmt(inner, scope, out);
                        next = None;
                    }
                }
            }
        }
        StmtKind::While { cond, body } => {
            expr(cond, full, scope, out);
            block(body, scope, out);
        }
        StmtKind::For { var, body, .. } => {
            let detail = format!("for {} in …", var.name);
            push(out, var, DeclKind::Variable, full, scope, detail);
            block(body, scope, out);
        }
        StmtKind::Import {
            python,
            path,
            path_span,
            alias,
            ..
        } => {
            let binding = alias
                .as_ref()
                .map_or_else(|| import_binding(path, *python), |a| a.name.clone());
            let name_span = alias.as_ref().map_or(*path_span, |a| a.span);
            let kind = if *python { "import python" } else { "import" };
            out.push(Decl {
                name: binding,
                kind: DeclKind::Import,
                name_span,
                full_span: full,
                scope,
                detail: format!("{kind} \"{path}\""),
                module: (!*python).then(|| path.clone()),
                member: None,
                body: None,
                value_type: Some("Module".into()),
                params: None,
            });
        }
        StmtKind::FromImport {
            python,
            path,
            names,
            ..
        } => {
            for (name, alias) in names {
                let bound = alias.as_ref().unwrap_or(name);
                out.push(Decl {
                    name: bound.name.clone(),
                    kind: DeclKind::Import,
                    name_span: bound.span,
                    full_span: full,
                    scope,
                    detail: format!("from \"{path}\" import {}", name.name),
                    module: (!*python).then(|| path.clone()),
                    member: Some(name.name.clone()),
                    body: None,
                    value_type: None,
                    params: None,
                });
            }
        }
        StmtKind::Test { body, .. } | StmtKind::Session { body, .. } => block(body, scope, out),
        StmtKind::Agent(a) => {
            let word = if a.is_async { "async agent" } else { "agent" };
            let detail = format!("{word} {}", a.name.name);
            push(out, &a.name, DeclKind::Agent, full, scope, detail);
            with_type(out, Some("Agent".into()));
            let body = full.to(a.body.span);
            with_body(out, body);
            block(&a.body, Some(body), out);
        }
        StmtKind::Action(a) => {
            let kind = match a.kind {
                sense_syntax::ast::ActionKind::Reversible => "reversible",
                sense_syntax::ast::ActionKind::Irreversible => "irreversible",
            };
            let mut detail = format!("{kind} action {}({})", a.name.name, params_text(&a.params));
            if let Some(c) = &a.capability {
                detail.push_str(&format!(" requires {c}"));
            }
            // The parameters are visible in the rollback block too.
            let body = a
                .rollback
                .as_ref()
                .map_or(full.to(a.body.span), |r| full.to(a.body.span).to(r.span));
            push(out, &a.name, DeclKind::Action, full, scope, detail);
            with_params(out, &a.params);
            with_body(out, body);
            params(out, &a.params, full, body);
            block(&a.body, Some(body), out);
            if let Some(r) = &a.rollback {
                block(r, Some(body), out);
            }
        }
        StmtKind::Tool(t) => {
            let word = if t.is_async { "async tool" } else { "tool" };
            let mut detail = format!("{word} {}({})", t.name.name, params_text(&t.params));
            if let Some(r) = &t.ret {
                detail.push_str(&format!(" returns {}", type_text(r)));
            }
            if let Some(d) = &t.description {
                detail.push_str(&format!(" — {d}"));
            }
            push(out, &t.name, DeclKind::Tool, full, scope, detail);
            with_type(out, Some("Tool".into()));
            callable_body(out, &t.params, &t.body, full);
        }
        StmtKind::Memory {
            name, persistent, ..
        } => {
            let word = if *persistent {
                "persistent memory"
            } else {
                "memory"
            };
            let detail = format!("{word} {}", name.name);
            push(out, name, DeclKind::Memory, full, scope, detail);
            with_type(out, Some("Memory".into()));
        }
        StmtKind::Raise(e) => expr(e, full, scope, out),
        StmtKind::Try(t) => {
            block(&t.body, scope, out);
            for h in &t.handlers {
                if let Some(n) = &h.name {
                    let detail = format!("except … as {}", n.name);
                    push(out, n, DeclKind::Variable, full, scope, detail);
                    with_type(out, Some("Error".into()));
                }
                block(&h.body, scope, out);
            }
            if let Some(f) = &t.finally {
                block(f, scope, out);
            }
        }
        StmtKind::Set { .. }
        | StmtKind::Return(_)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Policy(_) => {}
    }
}

/// Assignments anywhere in an expression bind names (`x = y = 1`).
fn expr(e: &Expr, full: Span, scope: Option<Span>, out: &mut Vec<Decl>) {
    match &e.kind {
        ExprKind::Assign { name, value } => {
            let known = literal_type(value, out);
            push(
                out,
                name,
                DeclKind::Variable,
                full,
                scope,
                name.name.clone(),
            );
            with_type(out, known);
            expr(value, full, scope, out);
        }
        ExprKind::IndexAssign {
            target,
            index,
            value,
        } => {
            for x in [target, index, value] {
                expr(x, full, scope, out);
            }
        }
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logic { lhs, rhs, .. } => {
            expr(lhs, full, scope, out);
            expr(rhs, full, scope, out);
        }
        ExprKind::Unary { operand, .. } => expr(operand, full, scope, out),
        ExprKind::Call {
            callee,
            args,
            labeled,
        } => {
            expr(callee, full, scope, out);
            for a in args {
                expr(a, full, scope, out);
            }
            for l in labeled {
                expr(&l.value, full, scope, out);
            }
        }
        ExprKind::Index { target, index } => {
            expr(target, full, scope, out);
            expr(index, full, scope, out);
        }
        ExprKind::Member { target, .. } => expr(target, full, scope, out),
        ExprKind::Array(items) => {
            for i in items {
                expr(i, full, scope, out);
            }
        }
        ExprKind::FString(parts) => {
            for x in parts.iter().filter_map(FStringPart::expr) {
                expr(x, full, scope, out);
            }
        }
        ExprKind::Map(entries) => {
            for (k, v) in entries {
                expr(k, full, scope, out);
                expr(v, full, scope, out);
            }
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::Nil
        | ExprKind::ConstArray(_)
        | ExprKind::Name(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sense_syntax::{SourceFile, parse_file};

    fn decls(src: &str) -> Vec<Decl> {
        declarations(&parse_file(&SourceFile::new("t.sns", src)).unwrap())
    }

    #[test]
    fn finds_top_level_and_nested_declarations() {
        let d = decls(
            "import \"lib/util.sns\"\ndef add(a: Int, b) -> Int:\n    total = a + b\n    return total\nagent helper:\n    pause(\"x\")\ncount: Int = 3\n",
        );
        let names: Vec<(&str, DeclKind)> = d.iter().map(|d| (d.name.as_str(), d.kind)).collect();
        assert_eq!(
            names,
            [
                ("util", DeclKind::Import),
                ("add", DeclKind::Function),
                ("a", DeclKind::Parameter),
                ("b", DeclKind::Parameter),
                ("total", DeclKind::Variable),
                ("helper", DeclKind::Agent),
                ("count", DeclKind::Variable),
            ]
        );
        assert_eq!(d[1].detail, "def add(a: Int, b) -> Int");
        assert_eq!(d[6].detail, "count: Int");
        // `total` is visible inside `add` only.
        let inside = d[4].scope.unwrap().start + 1;
        assert!(visible_at(&d, inside).iter().any(|x| x.name == "total"));
        let outside = d[6].name_span.start;
        assert!(!visible_at(&d, outside).iter().any(|x| x.name == "total"));
    }
}
