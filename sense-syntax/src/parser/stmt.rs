//! Statements, blocks and the statement-selection order (the book: language.md).
//!
//! The core statements live here; declarations (`def` and the agent layer)
//! live in [`super::decl`]. Each statement's `span.line` is the line the
//! reference attaches to it: the leading keyword's line for most
//! statements, the name's line for `def`/`tool`/`action` and typed
//! declarations, the first token's line for expression statements.

use super::decl;
use super::error::{PResult, ParseError, expect, fail, nest, tok};
use super::expr::{expr, ident};
use super::input::Tokens;
use super::try_stmt;
use crate::ast::{Block, Else, Ident, Stmt, StmtKind};
use crate::span::Span;
use crate::token::{Literal, TokenKind as K};
use nom::Parser;
use nom::combinator::opt;
use nom::sequence::preceded;

/// A statement production, entered on the statement's first token.
type StmtParser = for<'a> fn(Tokens<'a>) -> PResult<'a, Box<Stmt>>;

/// `statement`, chosen by its first one or two tokens.
///
/// The choice and the call are kept apart so that this frame, which sits
/// on every level of block recursion, holds a single small result.
pub(crate) fn statement(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let production = select(&i);
    production(i)
}

/// The production for the statement starting at `i` (the book: language.md).
#[inline(never)]
fn select(i: &Tokens<'_>) -> StmtParser {
    match i.kind() {
        K::Def => decl::fn_decl,
        K::Ident if looks_like_fn_decl_missing_def(i) => def_hint,
        K::Ident if try_stmt::starts_try(i) => try_stmt::try_stmt,
        K::Ident if try_stmt::starts_raise(i) => try_stmt::raise_stmt,
        K::Ident if i.peek_at(1).kind == K::Colon => typed_decl,
        K::Local => local_decl,
        K::Test => decl::test_stmt,
        K::Session => decl::session_stmt,
        K::Agent => decl::agent_stmt,
        K::Reversible => decl::reversible_action,
        K::Irreversible => decl::irreversible_action,
        K::Tool => decl::tool_stmt,
        K::Async => async_decl,
        K::Memory => decl::memory_stmt,
        K::Persistent => persistent_memory,
        K::Policy => decl::policy_stmt,
        K::Set => decl::set_stmt,
        K::Model => decl::model_decl,
        K::If => if_stmt,
        K::While => while_stmt,
        K::For => for_stmt,
        K::Return => return_stmt,
        K::Break => break_stmt,
        K::Continue => continue_stmt,
        K::Import => import_stmt,
        K::From => from_import_stmt,
        _ => expr_stmt,
    }
}

/// The old function syntax without `def`: always an error.
fn def_hint(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let t = i.peek();
    fail(ParseError::at(
        format!(
            "function declarations need 'def' -- e.g. 'def {}(...) -> Type:'",
            t.lexeme()
        ),
        t,
    ))
}

/// `async agent …` or `async tool …`; the statement starts at `async`.
fn async_decl(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let after = i.skip(1);
    let (rest, mut stmt) = match after.kind() {
        K::Agent => decl::agent_decl(after, true)?,
        K::Tool => decl::tool_decl(after, true)?,
        _ => {
            return fail(ParseError::at(
                "expected 'agent' or 'tool' after 'async'",
                after.peek(),
            ));
        }
    };
    stmt.span.start = i.peek().span.start;
    Ok((rest, stmt))
}

/// `persistent memory …`; the statement starts at `persistent`.
fn persistent_memory(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    expect(K::Memory, "expected 'memory' after 'persistent'")(i.skip(1))?;
    let (rest, mut stmt) = decl::memory_decl(i.skip(1), true)?;
    stmt.span.start = i.peek().span.start;
    Ok((rest, stmt))
}

/// `IDENT '(' … ')' (':' | 'returns')`: a function written without `def`.
/// Only parentheses are counted; an unclosed one means "no".
fn looks_like_fn_decl_missing_def(i: &Tokens<'_>) -> bool {
    if i.peek_at(1).kind != K::LParen {
        return false;
    }
    let mut depth = 0u32;
    for (n, t) in i.slice().iter().enumerate().skip(1) {
        match t.kind {
            K::LParen => depth += 1,
            K::RParen => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return matches!(i.peek_at(n + 1).kind, K::Colon | K::Returns);
                }
            }
            K::Eof => return false,
            _ => {}
        }
    }
    false
}

/// Requires the NEWLINE that ends a simple statement.
pub(crate) fn end_of_statement(i: Tokens<'_>) -> PResult<'_, ()> {
    let (i, _) = expect(K::Newline, "expected a new line after this statement")(i)?;
    Ok((i, ()))
}

/// Builds a statement spanning from `start`'s first token to the last real
/// token consumed before `end`.
#[inline(never)]
pub(crate) fn stmt_at(
    start: &Tokens<'_>,
    end: &Tokens<'_>,
    line: u32,
    kind: StmtKind,
) -> Box<Stmt> {
    let from = start.peek().span.start;
    Box::new(Stmt {
        kind,
        span: Span::new(from, end.prev_end(from).max(from), line),
    })
}

/// The parse result of a statement of `kind` that starts at `start`'s
/// first token, on its line, and ends before `rest`.
pub(crate) fn stmt_from<'a>(
    start: &Tokens<'a>,
    rest: Tokens<'a>,
    kind: StmtKind,
) -> PResult<'a, Box<Stmt>> {
    let line = start.peek().span.line;
    Ok((rest, stmt_at(start, &rest, line, kind)))
}

/// `block = ':' NL IND statement { statement } DED | ':' statement`.
pub(crate) fn block(i: Tokens<'_>) -> PResult<'_, Block> {
    let (i, colon) = expect(K::Colon, "expected ':' to start a block")(i)?;
    let _level = nest(&i, colon)?;
    let mut stmts = Vec::new();
    let (i, inline, end) = if let Ok((mut i, _)) = tok(K::Newline)(i) {
        i = expect(K::Indent, "expected an indented block")(i)?.0;
        while !i.check(K::Dedent) && !i.at_end() {
            let (rest, s) = statement(i)?;
            push_stmt(&mut stmts, s);
            i = rest;
        }
        let end = stmts.last().map_or(colon.span.end, |s: &Stmt| s.span.end);
        let (i, _) = expect(K::Dedent, "expected the indented block to end")(i)?;
        (i, false, end)
    } else {
        let (i, s) = statement(i)?;
        let end = s.span.end;
        push_stmt(&mut stmts, s);
        (i, true, end)
    };
    Ok((
        i,
        Block {
            stmts,
            span: Span::new(colon.span.start, end, colon.span.line),
            inline,
        },
    ))
}

/// Moves a parsed statement into its block. Kept out of line: the move
/// would otherwise reserve a statement-sized slot in [`block`]'s frame,
/// which stays on the stack for every nested block.
#[inline(never)]
#[allow(clippy::boxed_local)]
fn push_stmt(stmts: &mut Vec<Stmt>, s: Box<Stmt>) {
    stmts.push(*s);
}

fn typed_decl(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let name = i.peek();
    let (rest, ty) = decl::type_ann(i.skip(2))?;
    let (rest, _) = expect(K::Eq, "expected '=' after the type annotation")(rest)?;
    let (rest, value) = expr(rest)?;
    let end = rest;
    let (rest, ()) = end_of_statement(rest)?;
    let kind = StmtKind::TypedDecl {
        name: ident(name),
        ty,
        value,
    };
    Ok((rest, stmt_at(&i, &end, name.span.line, kind)))
}

fn local_decl(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let missing = [
        "expected a name after 'local'",
        "expected '=' in a local declaration",
    ];
    decl::binding(i, missing, true, |name, ty, value| StmtKind::Local {
        name: ident(name),
        ty,
        value,
    })
}

/// `if_stmt = 'if' expr block [ 'else' ( if_stmt | block ) ]`.
fn if_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (rest, cond) = expr(i.skip(1))?;
    let (rest, then) = block(rest)?;
    let (rest, els) = match tok(K::Else)(rest) {
        Ok((after, _)) if after.kind() == K::If => {
            // Each `else if` nests one level deeper in the tree.
            let _level = nest(&after, after.peek())?;
            let (after, nested) = if_stmt(after)?;
            (after, Some(Else::If(nested)))
        }
        Ok((after, _)) => {
            let (after, b) = block(after)?;
            (after, Some(Else::Block(b)))
        }
        Err(_) => (rest, None),
    };
    let kind = StmtKind::If { cond, then, els };
    Ok((rest, stmt_at(&i, &rest, i.peek().span.line, kind)))
}

fn while_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (rest, cond) = expr(i.skip(1))?;
    let (rest, body) = block(rest)?;
    let kind = StmtKind::While { cond, body };
    Ok((rest, stmt_at(&i, &rest, i.peek().span.line, kind)))
}

fn for_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (rest, var) = expect(K::Ident, "expected a loop variable name after 'for'")(i.skip(1))?;
    let (rest, _) = expect(K::In, "expected 'in' after the loop variable")(rest)?;
    let (rest, iter) = expr(rest)?;
    let (rest, body) = block(rest)?;
    let kind = StmtKind::For {
        var: ident(var),
        iter,
        body,
    };
    Ok((rest, stmt_at(&i, &rest, i.peek().span.line, kind)))
}

/// `return [expr] NL`: anything on the line after `return` is the value.
fn return_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let after = i.skip(1);
    let (rest, value) = if after.check(K::Newline) {
        (after, None)
    } else {
        let (rest, e) = expr(after)?;
        (rest, Some(e))
    };
    let (rest, ()) = end_of_statement(rest)?;
    let kind = StmtKind::Return(value);
    Ok((rest, stmt_at(&i, &rest, i.peek().span.line, kind)))
}

/// `break NL`.
fn break_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (rest, ()) = end_of_statement(i.skip(1))?;
    Ok((
        rest,
        stmt_at(&i, &rest, i.peek().span.line, StmtKind::Break),
    ))
}

/// `continue NL`.
fn continue_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (rest, ()) = end_of_statement(i.skip(1))?;
    Ok((
        rest,
        stmt_at(&i, &rest, i.peek().span.line, StmtKind::Continue),
    ))
}

/// A module reference: a quoted path, or a bare dotted name resolved the
/// way the reference does (`a.b` → `"a/b.sns"`, or `"a.b"` for Python).
struct ModuleRef {
    path: String,
    bare: bool,
    span: Span,
}

fn module_ref(i: Tokens<'_>, python: bool) -> PResult<'_, ModuleRef> {
    let t = i.peek();
    if let (K::Str, Literal::Str(path)) = (t.kind, t.literal()) {
        let span = t.span;
        return Ok((
            i.skip(1),
            ModuleRef {
                path,
                bare: false,
                span,
            },
        ));
    }
    let message = if python {
        "expected a Python module name (a string, or a bare dotted name like os.path) after \
         'import python'"
    } else {
        "expected a module path (a string, or a bare dotted name like pkg.mod) after 'import'"
    };
    let (mut i, first) = expect(K::Ident, message)(i)?;
    let mut parts = vec![first.lexeme()];
    let mut end = first.span.end;
    while i.check(K::Dot) && i.peek_at(1).kind == K::Ident {
        let seg = i.peek_at(1);
        parts.push(seg.lexeme());
        end = seg.span.end;
        i = i.skip(2);
    }
    let path = if python {
        parts.join(".")
    } else {
        format!("{}.sns", parts.join("/"))
    };
    let span = Span::new(first.span.start, end, first.span.line);
    Ok((
        i,
        ModuleRef {
            path,
            bare: true,
            span,
        },
    ))
}

/// `'as' IDENT`, if present.
fn alias(i: Tokens<'_>) -> PResult<'_, Option<Ident>> {
    let as_name = preceded(
        tok(K::As),
        expect(K::Ident, "expected an alias name after 'as'"),
    );
    let (i, name) = opt(as_name).parse(i)?;
    Ok((i, name.map(ident)))
}

/// `import_stmt = 'import' [ 'python' ] module_ref [ 'as' IDENT ] NL`.
fn import_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (rest, python) = opt(tok(K::Python)).parse(i.skip(1))?;
    let python = python.is_some();
    let (rest, m) = module_ref(rest, python)?;
    let (rest, alias) = alias(rest)?;
    let (rest, ()) = end_of_statement(rest)?;
    let kind = StmtKind::Import {
        python,
        path: m.path,
        bare: m.bare,
        path_span: m.span,
        alias,
    };
    Ok((rest, stmt_at(&i, &rest, i.peek().span.line, kind)))
}

/// `from_import_stmt = 'from' [ 'python' ] module_ref 'import'
/// import_name { ',' import_name } NL`.
fn from_import_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (rest, python) = opt(tok(K::Python)).parse(i.skip(1))?;
    let python = python.is_some();
    let (rest, m) = module_ref(rest, python)?;
    let (mut rest, _) = expect(
        K::Import,
        "expected 'import' after the module in a 'from' statement",
    )(rest)?;
    let mut names = Vec::new();
    loop {
        let (after, name) = expect(K::Ident, "expected a name to import")(rest)?;
        let (after, alias) = alias(after)?;
        names.push((ident(name), alias));
        rest = after;
        match tok(K::Comma)(rest) {
            Ok((after, _)) => rest = after,
            Err(_) => break,
        }
    }
    let (rest, ()) = end_of_statement(rest)?;
    let kind = StmtKind::FromImport {
        python,
        path: m.path,
        bare: m.bare,
        path_span: m.span,
        names,
    };
    Ok((rest, stmt_at(&i, &rest, i.peek().span.line, kind)))
}

/// `expr_stmt = expr NL`.
fn expr_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (rest, e) = expr(i)?;
    let (rest, ()) = end_of_statement(rest)?;
    Ok((
        rest,
        stmt_at(&i, &rest, i.peek().span.line, StmtKind::Expr(e)),
    ))
}
