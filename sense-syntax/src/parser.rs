//! The parser: tokens → [`Program`].
//!
//! A nom parser over a token slice (`input::Tokens`), written to take
//! exactly the decisions the reference's recursive-descent parser takes, in
//! the same order, so that the first error it meets is the one reported,
//! with the same message and line. Statements are in `stmt` and
//! `decl`, expressions in `expr`, errors and token-level helpers in
//! `error`.
//!
//! Two limits keep any input from exhausting the Rust stack (or the stack
//! of later passes that walk the tree): at most 200 nested levels of
//! brackets, prefix operators, blocks, `else if` and generic types; at
//! most 1000 operators in one chain; and expression trees at most
//! 1200 nodes high. Both are this
//! implementation's own errors; the reference fails with a host recursion
//! error long before either.
//!
//! The parser knows nothing about evaluation and does not recover: it
//! stops at the first error, like the reference.

mod decl;
mod error;
mod expr;
mod fstring;
mod input;
mod stmt;
mod try_stmt;

use crate::SyntaxError;
use crate::ast::{Program, Stmt};
use crate::span::Span;
use crate::token::{Token, TokenKind};
use input::{Ctx, Tokens};

/// Most nested levels (brackets, prefix operators, blocks, `else if`,
/// generic types) a program may have.
pub const MAX_NESTING: u32 = 200;
/// Most operators in one chain: binary operators folded in one expression
/// level (`1 + 1 + …`), or postfix operators in a row (`f()()…`, `a.b.c…`).
pub const MAX_CHAIN: u32 = 1000;
/// Greatest height of an expression tree. Chains and nesting are limited
/// separately; this bounds their combinations (a chain of
/// [`MAX_CHAIN`] operators under [`MAX_NESTING`] levels of brackets and
/// prefix operators fits), so passes that walk the tree recursively know
/// how deep it can be.
pub const MAX_EXPRESSION_HEIGHT: u32 = MAX_CHAIN + MAX_NESTING;

/// Parses a whole token stream (as produced by
/// [`crate::lexer::tokenize`] from the text `src`) into a program. Token
/// text is read from `src`.
///
/// The stream should end with an EOF token; one is supplied if it is
/// missing. The first syntax error is returned with the reference's
/// message; its `span.line` is the line of the token where parsing failed.
pub fn parse(src: &str, tokens: &[Token]) -> Result<Program, SyntaxError> {
    let mut stmts = Vec::new();
    parse_each(src, tokens, |s| stmts.push(s))?;
    Ok(Program { stmts })
}

/// Like [`parse`], but hands each top-level statement to `each` as soon as
/// it is parsed instead of collecting them, so a caller that consumes
/// statements one at a time never holds the whole tree. Statements before
/// the first syntax error have already been handed over when it is
/// returned.
pub fn parse_each(
    src: &str,
    tokens: &[Token],
    mut each: impl FnMut(Stmt),
) -> Result<(), SyntaxError> {
    let owned;
    let tokens = if tokens.last().map(|t| t.kind) == Some(TokenKind::Eof) {
        tokens
    } else {
        let end = tokens.last().map_or(Span::new(0, 0, 1), |t| t.span);
        let mut v = tokens.to_vec();
        v.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(end.end, end.end, end.line),
        });
        owned = v;
        &owned[..]
    };
    let ctx = Ctx::new(src, tokens);
    let mut i = Tokens::new(&ctx);
    while !i.at_end() {
        match stmt::statement(i) {
            Ok((rest, s)) => {
                each(*s);
                i = rest;
            }
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => return Err(e.into()),
            Err(nom::Err::Incomplete(_)) => {
                return Err(error::ParseError::unexpected(i.peek()).into());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
