//! `try`/`except`/`finally` and `raise` (an extension of the reference:
//! errors a program can handle).
//!
//! None of these words is a keyword: the reference treats them as
//! ordinary names (`try: Int = 5` declares a variable, `raise(x)` calls a
//! function named `raise`). So each is recognised only where the reference
//! rejects the program: `try` followed by `:` and the end of the line, and
//! `raise` followed by a token that cannot continue an expression (a
//! literal or a name). `except` and `finally` are recognised only
//! after a `try` block.

use super::error::{PResult, ParseError, expect, fail};
use super::expr::{expr, ident};
use super::input::Tokens;
use super::stmt::{block, end_of_statement, stmt_at};
use crate::ast::{ERROR_CLASSES, ExceptClause, Stmt, StmtKind, TryStmt};
use crate::span::Span;
use crate::token::TokenKind as K;

/// Whether the statement at `i` is a `try` statement: `try` `:` NEWLINE
/// (the reference reads `try:` as the start of a typed declaration and
/// rejects it when the line ends there).
pub(super) fn starts_try(i: &Tokens<'_>) -> bool {
    i.peek().lexeme() == "try" && i.peek_at(1).kind == K::Colon && i.peek_at(2).kind == K::Newline
}

/// Whether the statement at `i` is a `raise` statement: `raise` followed
/// by a token that cannot continue an expression (a string or f-string,
/// a number, a name, a constant). `raise(x)`, `raise[0]`,
/// `raise - 1` and `raise.x` keep the reference's meaning (a call, an
/// index, an operator on a variable named `raise`).
pub(super) fn starts_raise(i: &Tokens<'_>) -> bool {
    i.peek().lexeme() == "raise"
        && matches!(
            i.peek_at(1).kind,
            K::Str | K::FStr | K::Int | K::Float | K::Ident | K::True | K::False | K::Nil
        )
}

/// `raise expr NL`.
pub(super) fn raise_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (rest, value) = expr(i.skip(1))?;
    let (rest, ()) = end_of_statement(rest)?;
    Ok((
        rest,
        stmt_at(&i, &rest, i.peek().span.line, StmtKind::Raise(value)),
    ))
}

/// `try: block { except [CLASS] [as NAME]: block } [finally: block]`.
pub(super) fn try_stmt(i: Tokens<'_>) -> PResult<'_, Box<Stmt>> {
    let (mut rest, body) = block(i.skip(1))?;
    let mut handlers = Vec::new();
    while rest.kind() == K::Ident && rest.peek().lexeme() == "except" {
        let (after, clause) = except_clause(rest)?;
        handlers.push(clause);
        rest = after;
    }
    let finally = if rest.kind() == K::Ident && rest.peek().lexeme() == "finally" {
        let (after, b) = block(rest.skip(1))?;
        rest = after;
        Some(b)
    } else {
        None
    };
    if handlers.is_empty() && finally.is_none() {
        return fail(ParseError::got(
            "expected 'except' or 'finally' after the 'try' block",
            rest.peek(),
        ));
    }
    let kind = StmtKind::Try(Box::new(TryStmt {
        body,
        handlers,
        finally,
    }));
    Ok((rest, stmt_at(&i, &rest, i.peek().span.line, kind)))
}

/// `except [CLASS] [as NAME] block`.
fn except_clause(i: Tokens<'_>) -> PResult<'_, ExceptClause> {
    let word = i.peek();
    let mut rest = i.skip(1);
    let class = if rest.kind() == K::Ident {
        let t = rest.peek();
        if !ERROR_CLASSES.contains(&t.lexeme()) {
            return fail(ParseError::at(
                format!(
                    "unknown error class '{}' in 'except' (the classes are {})",
                    t.lexeme(),
                    ERROR_CLASSES.join(", ")
                ),
                t,
            ));
        }
        rest = rest.skip(1);
        Some(ident(t))
    } else {
        None
    };
    let name = if rest.kind() == K::As {
        let (after, n) = expect(K::Ident, "expected a name after 'as'")(rest.skip(1))?;
        rest = after;
        Some(ident(n))
    } else {
        None
    };
    if rest.kind() != K::Colon {
        return fail(ParseError::got(
            "expected an error class, 'as NAME' or ':' after 'except'",
            rest.peek(),
        ));
    }
    let header_end = rest.peek().span.end;
    let (rest, body) = block(rest)?;
    let span = Span::new(word.span.start, header_end, word.span.line);
    Ok((
        rest,
        ExceptClause {
            class,
            name,
            body,
            span,
        },
    ))
}
