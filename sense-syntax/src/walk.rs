//! Walks over the statements of a parsed program, nested blocks included,
//! for tools that read a program without running it (`sense
//! memory-path`, editors).
//!
//! Expressions hold no statements in Sense, so a walk over statements
//! sees every declaration a program makes.

use crate::ast::{Else, Expr, ExprKind, FStringPart, Stmt, StmtKind};

/// Calls `f` on every statement of `stmts` and of the blocks nested in
/// them (function, agent, tool and action bodies, a `rollback:` block,
/// both arms of an `if`, loop, `test` and `session` bodies, the blocks
/// of a `try`), in source
/// order: a statement before the statements of its blocks.
pub fn each_stmt<'a>(stmts: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in stmts {
        f(s);
        match &s.kind {
            StmtKind::Def(d) => each_stmt(&d.body.stmts, f),
            StmtKind::If { then, els, .. } => {
                each_stmt(&then.stmts, f);
                match els {
                    Some(Else::Block(b)) => each_stmt(&b.stmts, f),
                    Some(Else::If(stmt)) => each_stmt(std::slice::from_ref(&**stmt), f),
                    None => {}
                }
            }
            StmtKind::While { body, .. }
            | StmtKind::For { body, .. }
            | StmtKind::Test { body, .. }
            | StmtKind::Session { body, .. } => each_stmt(&body.stmts, f),
            StmtKind::Agent(a) => each_stmt(&a.body.stmts, f),
            StmtKind::Tool(t) => each_stmt(&t.body.stmts, f),
            StmtKind::Action(a) => {
                each_stmt(&a.body.stmts, f);
                if let Some(rb) = &a.rollback {
                    each_stmt(&rb.stmts, f);
                }
            }
            StmtKind::Try(t) => {
                each_stmt(&t.body.stmts, f);
                for h in &t.handlers {
                    each_stmt(&h.body.stmts, f);
                }
                if let Some(b) = &t.finally {
                    each_stmt(&b.stmts, f);
                }
            }
            _ => {}
        }
    }
}

/// The expressions a statement holds itself (not those of its nested
/// blocks): a condition, an iterable, an assigned or returned value.
pub fn stmt_exprs(s: &Stmt) -> Vec<&Expr> {
    match &s.kind {
        StmtKind::Expr(e)
        | StmtKind::TypedDecl { value: e, .. }
        | StmtKind::Local { value: e, .. }
        | StmtKind::Set { value: e, .. }
        | StmtKind::Model { value: e, .. }
        | StmtKind::Return(Some(e))
        | StmtKind::Raise(e)
        | StmtKind::If { cond: e, .. }
        | StmtKind::While { cond: e, .. }
        | StmtKind::For { iter: e, .. } => vec![e],
        _ => Vec::new(),
    }
}

/// Calls `f` on every expression of `stmts`, nested blocks and
/// sub-expressions included, in source order: an expression before its
/// parts.
///
/// # Examples
///
/// ```
/// use sense_syntax::{SourceFile, parse_file, ast::ExprKind, walk::each_expr};
///
/// let program = parse_file(&SourceFile::new("m.sns", "def f(x):\n    return g(x) + 1\n")).unwrap();
/// let mut names = Vec::new();
/// each_expr(&program.stmts, &mut |e| {
///     if let ExprKind::Name(n) = &e.kind {
///         names.push(n.clone());
///     }
/// });
/// assert_eq!(names, ["g", "x"]);
/// ```
pub fn each_expr<'a>(stmts: &'a [Stmt], f: &mut impl FnMut(&'a Expr)) {
    each_stmt(stmts, &mut |s| {
        for e in stmt_exprs(s) {
            each_sub_expr(e, f);
        }
    });
}

/// Calls `f` on `e` and on every expression inside it.
pub fn each_sub_expr<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Assign { value, .. } => each_sub_expr(value, f),
        ExprKind::IndexAssign {
            target,
            index,
            value,
        } => {
            each_sub_expr(target, f);
            each_sub_expr(index, f);
            each_sub_expr(value, f);
        }
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logic { lhs, rhs, .. } => {
            each_sub_expr(lhs, f);
            each_sub_expr(rhs, f);
        }
        ExprKind::Unary { operand, .. } => each_sub_expr(operand, f),
        ExprKind::Call {
            callee,
            args,
            labeled,
        } => {
            each_sub_expr(callee, f);
            for a in args {
                each_sub_expr(a, f);
            }
            for l in labeled {
                each_sub_expr(&l.value, f);
            }
        }
        ExprKind::Index { target, index } => {
            each_sub_expr(target, f);
            each_sub_expr(index, f);
        }
        ExprKind::Member { target, .. } => each_sub_expr(target, f),
        ExprKind::Array(items) => {
            for i in items {
                each_sub_expr(i, f);
            }
        }
        // Its elements are number and string literals held compactly, not
        // nodes: nothing a walk looks for (names, calls, declarations).
        ExprKind::ConstArray(_) => {}
        ExprKind::Map(entries) => {
            for (k, v) in entries {
                each_sub_expr(k, f);
                each_sub_expr(v, f);
            }
        }
        ExprKind::FString(parts) => {
            for x in parts.iter().filter_map(FStringPart::expr) {
                each_sub_expr(x, f);
            }
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::Nil
        | ExprKind::Name(_) => {}
    }
}

/// A `persistent memory NAME [: "path"]` declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersistentMemory {
    /// The memory's name.
    pub name: String,
    /// The path given after `:`, if any (else the runtime picks one).
    pub path: Option<String>,
}

/// Every `persistent memory` declared in `stmts`, at any depth, in source
/// order (plain `memory` declarations are not listed).
///
/// # Examples
///
/// ```
/// use sense_syntax::{SourceFile, parse_file, walk::persistent_memories};
///
/// let file = SourceFile::new("m.sns", "memory scratch\nagent a:\n    persistent memory notes: \"n.db\"\n");
/// let program = parse_file(&file).unwrap();
/// let found = persistent_memories(&program.stmts);
/// assert_eq!(found.len(), 1);
/// assert_eq!((found[0].name.as_str(), found[0].path.as_deref()), ("notes", Some("n.db")));
/// ```
pub fn persistent_memories(stmts: &[Stmt]) -> Vec<PersistentMemory> {
    let mut found = Vec::new();
    each_stmt(stmts, &mut |s| {
        if let StmtKind::Memory {
            name,
            kind,
            persistent: true,
        } = &s.kind
        {
            found.push(PersistentMemory {
                name: name.name.clone(),
                path: kind.clone(),
            });
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SourceFile, parse_file};

    fn memories(text: &str) -> Vec<(String, Option<String>)> {
        let program = parse_file(&SourceFile::new("t.sns", text)).unwrap();
        persistent_memories(&program.stmts)
            .into_iter()
            .map(|m| (m.name, m.path))
            .collect()
    }

    fn named(name: &str) -> (String, Option<String>) {
        (name.to_string(), None)
    }

    #[test]
    fn finds_declarations_in_every_kind_of_block_in_source_order() {
        let text = "\
persistent memory top
memory not_persistent
def f():
    persistent memory in_def
if x:
    persistent memory in_then
else if y:
    persistent memory in_elif
else:
    persistent memory in_else
while x:
    persistent memory in_while
for i in xs:
    persistent memory in_for
agent a:
    persistent memory in_agent: \"a.db\"
tool t():
    persistent memory in_tool
    return 1
reversible action act():
    persistent memory in_action
rollback:
    persistent memory in_rollback
test \"t\":
    persistent memory in_test
session s:
    persistent memory in_session
";
        let found = memories(text);
        let mut expected: Vec<_> = [
            "top", "in_def", "in_then", "in_elif", "in_else", "in_while", "in_for",
        ]
        .into_iter()
        .map(named)
        .collect();
        expected.push(("in_agent".to_string(), Some("a.db".to_string())));
        expected.extend(
            [
                "in_tool",
                "in_action",
                "in_rollback",
                "in_test",
                "in_session",
            ]
            .map(named),
        );
        assert_eq!(found, expected);
    }

    #[test]
    fn a_program_without_persistent_memories_has_none() {
        assert_eq!(memories("memory m\nprint(1)\n"), vec![]);
    }

    #[test]
    fn each_stmt_visits_a_statement_before_its_blocks() {
        let program =
            parse_file(&SourceFile::new("t.sns", "agent a:\n    x = 1\ny = 2\n")).unwrap();
        let mut kinds = Vec::new();
        each_stmt(&program.stmts, &mut |s| {
            kinds.push(matches!(s.kind, StmtKind::Agent(_)));
        });
        assert_eq!(kinds, vec![true, false, false]);
    }
}
