//! The parser's input: a view into the token stream that nom can consume.
//!
//! The view always extends to the final EOF token, which is never consumed,
//! so looking ahead is total: past the end, every peek sees EOF (as the
//! reference's parser does). The shared [`Ctx`] carries the nesting depth
//! that keeps recursion bounded.

use crate::span::Span;
use crate::token::{Literal, Token, TokenKind};
use nom::Needed;
use std::cell::Cell;
use std::iter::Enumerate;
use std::slice::Iter;

/// State shared by every view of one parse.
#[derive(Debug)]
pub(crate) struct Ctx<'a> {
    /// The whole token stream, ending with EOF.
    all: &'a [Token],
    /// The text the tokens were lexed from (their lexemes live there).
    src: &'a str,
    /// Current nesting depth (brackets, prefix operators, blocks, …).
    pub(crate) depth: Cell<u32>,
}

impl<'a> Ctx<'a> {
    /// Context for parsing `all` (lexed from `src`), which must end with
    /// EOF.
    pub(crate) fn new(src: &'a str, all: &'a [Token]) -> Self {
        Ctx {
            all,
            src,
            depth: Cell::new(0),
        }
    }
}

impl<'a> Ctx<'a> {
    /// Context for parsing `all`, tokens lexed from a piece of the text
    /// `outer` parses (an f-string's `{…}`), continuing its nesting depth.
    pub(crate) fn nested(outer: &Ctx<'a>, all: &'a [Token]) -> Self {
        Ctx {
            all,
            src: outer.src,
            depth: Cell::new(outer.depth.get()),
        }
    }

    /// The whole text being parsed.
    pub(crate) fn src(&self) -> &'a str {
        self.src
    }
}

/// A window `all[pos..pos + len]` of the token stream.
///
/// Kept to three words on purpose: views are copied into every parser
/// result, and in debug builds each copy costs stack in each frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tokens<'a> {
    pub(crate) ctx: &'a Ctx<'a>,
    pos: usize,
    len: usize,
}

/// Stands in for EOF if a caller hands over a stream without one.
static EOF: Token = Token {
    kind: TokenKind::Eof,
    span: Span {
        start: 0,
        end: 0,
        line: 1,
    },
};

/// A token together with the source text it was lexed from, so the parser
/// can read its lexeme and literal value. Dereferences to the [`Token`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tok<'a> {
    token: &'a Token,
    src: &'a str,
}

impl<'a> Tok<'a> {
    /// The token's lexeme (see [`Token::lexeme`]).
    pub(crate) fn lexeme(&self) -> &'a str {
        self.token.lexeme(self.src)
    }

    /// The token's literal value (see [`Token::literal`]).
    pub(crate) fn literal(&self) -> Literal {
        self.token.literal(self.src)
    }

    /// `KIND 'lexeme'`, as parse errors describe the token.
    pub(crate) fn describe(&self) -> String {
        self.token.describe(self.src)
    }
}

impl std::ops::Deref for Tok<'_> {
    type Target = Token;

    fn deref(&self) -> &Token {
        self.token
    }
}

impl<'a> Tokens<'a> {
    /// A view of the whole stream of `ctx`.
    pub(crate) fn new(ctx: &'a Ctx<'a>) -> Self {
        Tokens {
            ctx,
            pos: 0,
            len: ctx.all.len(),
        }
    }

    /// The token `n` places ahead; EOF past the end.
    pub(crate) fn peek_at(&self, n: usize) -> Tok<'a> {
        let all: &'a [Token] = self.ctx.all;
        let token = all
            .get(self.pos.saturating_add(n))
            .or_else(|| all.last())
            .unwrap_or(&EOF);
        Tok {
            token,
            src: self.ctx.src,
        }
    }

    /// The next token.
    pub(crate) fn peek(&self) -> Tok<'a> {
        self.peek_at(0)
    }

    /// The next token's kind.
    pub(crate) fn kind(&self) -> TokenKind {
        self.peek().kind
    }

    /// The reference's `_check`: the next token has this kind (never true
    /// at EOF).
    pub(crate) fn check(&self, kind: TokenKind) -> bool {
        let k = self.kind();
        k != TokenKind::Eof && k == kind
    }

    /// True when only EOF is left.
    pub(crate) fn at_end(&self) -> bool {
        self.kind() == TokenKind::Eof
    }

    /// The view after the next `n` tokens (EOF is never stepped over).
    pub(crate) fn skip(&self, n: usize) -> Self {
        let n = n.min(self.len.saturating_sub(1));
        Tokens {
            pos: self.pos + n,
            len: self.len - n,
            ..*self
        }
    }

    /// End offset of the last real (non-layout) token before this view, or
    /// `fallback` when there is none.
    pub(crate) fn prev_end(&self, fallback: u32) -> u32 {
        self.ctx
            .all
            .get(..self.pos)
            .unwrap_or(&[])
            .iter()
            .rev()
            .find(|t| !t.kind.is_layout())
            .map_or(fallback, |t| t.span.end)
    }

    pub(crate) fn slice(&self) -> &'a [Token] {
        let all: &'a [Token] = self.ctx.all;
        all.get(self.pos..self.pos + self.len).unwrap_or(&[])
    }
}

impl<'a> nom::Input for Tokens<'a> {
    type Item = &'a Token;
    type Iter = Iter<'a, Token>;
    type IterIndices = Enumerate<Iter<'a, Token>>;

    fn input_len(&self) -> usize {
        self.len
    }

    fn take(&self, index: usize) -> Self {
        Tokens {
            len: index.min(self.len),
            ..*self
        }
    }

    fn take_from(&self, index: usize) -> Self {
        let index = index.min(self.len);
        Tokens {
            pos: self.pos + index,
            len: self.len - index,
            ..*self
        }
    }

    fn take_split(&self, index: usize) -> (Self, Self) {
        (self.take_from(index), self.take(index))
    }

    fn position<P>(&self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool,
    {
        self.slice().iter().position(predicate)
    }

    fn iter_elements(&self) -> Self::Iter {
        self.slice().iter()
    }

    fn iter_indices(&self) -> Self::IterIndices {
        self.slice().iter().enumerate()
    }

    fn slice_index(&self, count: usize) -> Result<usize, Needed> {
        if count <= self.len {
            Ok(count)
        } else {
            Err(Needed::new(count - self.len))
        }
    }
}
