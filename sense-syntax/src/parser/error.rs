//! Parse errors and the small token-level parsers every production uses.
//!
//! The reference parser never backtracks: the first mismatch it meets is the
//! error it reports. Here that means every reported mismatch is a nom
//! `Failure` (committed), and plain `Error` only comes from [`tok`], the
//! probe used inside `opt`/`alt` where the reference merely looks ahead.

use super::input::Tok;
use super::input::Tokens;
use crate::SyntaxError;
use crate::token::TokenKind;
use nom::error::ErrorKind;

pub(crate) use super::{MAX_CHAIN, MAX_EXPRESSION_HEIGHT as MAX_HEIGHT, MAX_NESTING as MAX_DEPTH};

/// A parse error: the reference's message and where it happened.
///
/// Boxed so that every parser result stays small (see [`Tokens`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ParseError(Box<SyntaxError>);

impl ParseError {
    /// `message` at `span`.
    pub(crate) fn new(message: impl Into<String>, span: crate::span::Span) -> Self {
        ParseError(Box::new(SyntaxError {
            message: message.into(),
            span,
        }))
    }

    /// `message` at token `at`, without a suffix.
    pub(crate) fn at(message: impl Into<String>, at: Tok<'_>) -> Self {
        ParseError::new(message, at.span)
    }

    /// `message (got KIND 'lexeme')` at token `at`.
    pub(crate) fn got(message: &str, at: Tok<'_>) -> Self {
        ParseError::at(format!("{message} (got {})", at.describe()), at)
    }

    /// `unexpected token KIND 'lexeme'` at token `at`.
    pub(crate) fn unexpected(at: Tok<'_>) -> Self {
        ParseError::at(format!("unexpected token {}", at.describe()), at)
    }
}

impl From<ParseError> for SyntaxError {
    fn from(e: ParseError) -> Self {
        *e.0
    }
}

impl<'a> nom::error::ParseError<Tokens<'a>> for ParseError {
    fn from_error_kind(input: Tokens<'a>, _kind: ErrorKind) -> Self {
        ParseError::unexpected(input.peek())
    }

    fn append(_input: Tokens<'a>, _kind: ErrorKind, other: Self) -> Self {
        other
    }
}

/// The parser result type.
pub(crate) type PResult<'a, T> = nom::IResult<Tokens<'a>, T, ParseError>;

/// A committed failure.
pub(crate) fn fail<'a, T>(e: ParseError) -> PResult<'a, T> {
    Err(nom::Err::Failure(e))
}

/// Matches one token of `kind` (the reference's `_match`); a recoverable
/// error otherwise.
pub(crate) fn tok<'a>(kind: TokenKind) -> impl Fn(Tokens<'a>) -> PResult<'a, Tok<'a>> {
    move |i: Tokens<'a>| {
        if i.kind() == kind && kind != TokenKind::Eof {
            Ok((i.skip(1), i.peek()))
        } else {
            Err(nom::Err::Error(ParseError::unexpected(i.peek())))
        }
    }
}

/// Requires one token of `kind` (the reference's `_expect`): a committed
/// `message (got …)` failure otherwise.
pub(crate) fn expect<'a>(
    kind: TokenKind,
    message: &'static str,
) -> impl Fn(Tokens<'a>) -> PResult<'a, Tok<'a>> {
    move |i: Tokens<'a>| {
        if i.check(kind) {
            Ok((i.skip(1), i.peek()))
        } else {
            fail(ParseError::got(message, i.peek()))
        }
    }
}

/// Holds one nesting level; dropping it gives the level back.
pub(crate) struct Nest<'a> {
    ctx: &'a super::input::Ctx<'a>,
}

impl Drop for Nest<'_> {
    fn drop(&mut self) {
        self.ctx.depth.set(self.ctx.depth.get().saturating_sub(1));
    }
}

/// Enters one nesting level at token `at`, failing when that would exceed
/// [`MAX_DEPTH`]. Every construct that makes the parser recurse takes a
/// level, so the Rust stack stays bounded whatever the input.
pub(crate) fn nest<'a>(i: &Tokens<'a>, at: Tok<'_>) -> Result<Nest<'a>, nom::Err<ParseError>> {
    let depth = i.ctx.depth.get() + 1;
    if depth > MAX_DEPTH {
        return Err(nom::Err::Failure(ParseError::at(
            format!("too deeply nested (more than {MAX_DEPTH} levels)"),
            at,
        )));
    }
    i.ctx.depth.set(depth);
    Ok(Nest { ctx: i.ctx })
}
