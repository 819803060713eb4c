//! f-strings: `f"Hello {name}, {len(xs)} items"` (a Sense extension; the
//! reference reads `f` + a string, always a syntax error).
//!
//! The lexer hands over the whole literal as one FSTRING token (a piece's
//! expression may hold strings and brackets). Here the body is split into text and `{…}` pieces;
//! each expression is lexed from its own bytes of the file
//! (`lexer::tokenize_fragment`) and parsed with the ordinary expression
//! parser, so its spans, lines and errors point into the source. `{{` and
//! `}}` are literal braces; escapes are those of plain strings.

use super::error::{MAX_HEIGHT, PResult, ParseError, fail, nest};
use super::expr::expr_with_height;
use super::input::{Ctx, Tokens};
use crate::ast::{Expr, ExprKind, FStringPart};
use crate::lexer::{escape_char, tokenize_fragment};
use crate::span::Span;

/// `fstring = FSTRING`, split into its pieces.
pub(super) fn fstring(i: Tokens<'_>) -> PResult<'_, (Box<Expr>, u32)> {
    let t = i.peek();
    let _level = nest(&i, t)?;
    let lexeme = t.lexeme();
    let quotes = if lexeme.len() >= 7 && lexeme.starts_with("f\"\"\"") {
        3
    } else {
        1
    };
    let body_start = t.span.start as usize + 1 + quotes;
    let body_end = (t.span.end as usize).saturating_sub(quotes);
    let src = i.ctx.src();
    let body = src.get(body_start..body_end).unwrap_or("");
    // Lines: a token reports the line where it ends; count back from there.
    let first_line = t.span.line.saturating_sub(newlines(lexeme));
    let mut reader = Reader {
        outer: i.ctx,
        src,
        base: body_start,
        body,
        first_line,
        parts: Vec::new(),
        text: String::new(),
        height: 1,
    };
    reader.read().map_err(nom::Err::Failure)?;
    let Reader {
        mut parts,
        text,
        height,
        ..
    } = reader;
    if !text.is_empty() {
        parts.push(FStringPart::Text(text));
    }
    if height > MAX_HEIGHT {
        return fail(ParseError::at("expression too long", t));
    }
    let kind = ExprKind::FString(parts);
    Ok((i.skip(1), (Box::new(Expr { kind, span: t.span }), height)))
}

fn newlines(text: &str) -> u32 {
    text.bytes().filter(|b| *b == b'\n').count() as u32
}

/// Walks an f-string's body, collecting its pieces.
struct Reader<'a, 'c> {
    outer: &'c Ctx<'a>,
    src: &'a str,
    /// Offset of `body` in `src`.
    base: usize,
    body: &'a str,
    first_line: u32,
    parts: Vec<FStringPart>,
    /// Text read since the last `{…}`.
    text: String,
    height: u32,
}

impl Reader<'_, '_> {
    fn read(&mut self) -> Result<(), ParseError> {
        let mut chars = self.body.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, e)) = chars.next() {
                        self.text.push(escape_char(e));
                    }
                }
                '{' if chars.peek().map(|p| p.1) == Some('{') => {
                    chars.next();
                    self.text.push('{');
                }
                '}' if chars.peek().map(|p| p.1) == Some('}') => {
                    chars.next();
                    self.text.push('}');
                }
                '}' => {
                    return Err(self.error(
                        "f-string: single '}' is not allowed (write '}}' for a brace)",
                        at,
                        at + 1,
                    ));
                }
                '{' => {
                    let Some(close) = closing_brace(self.body, at + 1) else {
                        return Err(self.error(
                            "f-string: '{' was never closed (expected '}'; write '{{' for a brace)",
                            at,
                            at + 1,
                        ));
                    };
                    self.piece(at, close)?;
                    while chars.peek().is_some_and(|p| p.0 <= close) {
                        chars.next();
                    }
                }
                c => self.text.push(c),
            }
        }
        Ok(())
    }

    /// The `{…}` piece from `open` to `close` (offsets in the body).
    fn piece(&mut self, open: usize, close: usize) -> Result<(), ParseError> {
        let inner = self.body.get(open + 1..close).unwrap_or("");
        if inner.trim().is_empty() {
            return Err(self.error("f-string: empty expression not allowed", open, close + 1));
        }
        let start = self.base + open + 1;
        let end = self.base + close;
        let line = self.first_line + newlines(self.body.get(..open).unwrap_or(""));
        let tokens = tokenize_fragment(self.src, start, end, line)
            .map_err(|e| ParseError::new(e.message, e.span))?;
        let ctx = Ctx::nested(self.outer, &tokens);
        let input = Tokens::new(&ctx);
        let (rest, (e, height)) = match expr_with_height(input) {
            Ok(done) => done,
            Err(nom::Err::Failure(e) | nom::Err::Error(e)) => {
                // The piece's EOF stands where its `}` is: say so.
                let e = crate::SyntaxError::from(e);
                let message = e.message.replace("EOF ''", "'}'");
                return Err(ParseError::new(message, e.span));
            }
            Err(nom::Err::Incomplete(_)) => {
                return Err(self.error("f-string: incomplete expression", open, close + 1));
            }
        };
        if !rest.at_end() {
            return Err(ParseError::got(
                "expected '}' after the f-string expression",
                rest.peek(),
            ));
        }
        if !self.text.is_empty() {
            self.parts
                .push(FStringPart::Text(std::mem::take(&mut self.text)));
        }
        self.height = self.height.max(height.saturating_add(1));
        self.parts.push(FStringPart::Expr(*e));
        Ok(())
    }

    /// `message` over body offsets `from..to`, on the line where `from` is.
    fn error(&self, message: &str, from: usize, to: usize) -> ParseError {
        let before = self.body.get(..from).unwrap_or("");
        let line = self.first_line + newlines(before);
        let span = Span::new((self.base + from) as u32, (self.base + to) as u32, line);
        ParseError::new(message, span)
    }
}

/// The offset of the `}` that closes a `{` whose expression starts at
/// `from`: brackets nest, and strings (possible in a triple-quoted
/// f-string) are skipped. `None` when the body ends first.
fn closing_brace(body: &str, from: usize) -> Option<usize> {
    let mut depth = 0u32;
    let mut chars = body.get(from..)?.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            '}' if depth == 0 => return Some(from + at),
            '}' => depth -= 1,
            '"' => loop {
                match chars.next()?.1 {
                    '"' => break,
                    '\\' => {
                        chars.next()?;
                    }
                    _ => {}
                }
            },
            _ => {}
        }
    }
    None
}
