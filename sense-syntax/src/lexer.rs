//! The lexer: normalised source text → tokens with layout resolved.
//!
//! Layout (the book: language.md "Lexical rules") is decided here, not in the parser: an
//! indentation stack, a bracket depth that turns newlines into plain
//! whitespace inside `(` `[` `{`, one DEDENT per closed level, and closing
//! DEDENTs at end of input. Line numbers follow §1.9, quirks included,
//! because every error the parser reports takes its line from a token.
//! Scanning of single tokens (numbers, names, operators, strings) lives in
//! `scan`; this file owns the per-line state machine and the comments.
//!
//! The lexer never looks at grammar: bracket kinds are not matched here.

mod scan;
mod unicode;

use crate::SyntaxError;
use crate::source::SourceFile;
use crate::span::Span;
use crate::token::{Literal, Token, TokenKind};

/// A `#` comment, kept aside for the formatter (the parser never sees it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// From the `#` to the end of its line (newline excluded).
    pub span: Span,
    /// The text after `#`, with surrounding whitespace trimmed as the
    /// reference does.
    pub text: String,
    /// True when a token of the same logical line precedes it.
    pub trailing: bool,
}

/// The result of lexing a whole file.
#[derive(Clone, Debug, PartialEq)]
pub struct Lexed {
    /// Every token, ending with exactly one EOF.
    pub tokens: Vec<Token>,
    /// Every comment, in source order.
    pub comments: Vec<Comment>,
}

/// Lexes a whole file.
///
/// A UTF-8 BOM at the very start is skipped (the reference rejects it as
/// `unexpected character '\ufeff'`; this is a documented divergence). The
/// first lexical error ends lexing and is returned.
pub fn tokenize(file: &SourceFile) -> Result<Lexed, SyntaxError> {
    let text = file.text();
    if u32::try_from(text.len()).is_err() {
        return Err(SyntaxError {
            message: "source file too large (more than 4 GiB)".to_string(),
            span: Span::new(0, 0, 1),
        });
    }
    let mut lexer = Lexer::new(text);
    if text.starts_with('\u{feff}') {
        lexer.pos = '\u{feff}'.len_utf8();
    }
    lexer.run()?;
    Ok(Lexed {
        tokens: lexer.tokens,
        comments: lexer.comments,
    })
}

/// Lexes `src[start..end]`, the expression of an f-string's `{…}` piece,
/// as if it stood inside brackets (no layout tokens), starting the line
/// count at `line`. Spans are offsets into `src`, so the parser reads
/// lexemes and reports errors against the whole file. Ends with one EOF.
pub(crate) fn tokenize_fragment(
    src: &str,
    start: usize,
    end: usize,
    line: u32,
) -> Result<Vec<Token>, SyntaxError> {
    let mut lexer = Lexer::new(src);
    lexer.pos = start;
    lexer.end = end.min(src.len());
    lexer.line = line;
    lexer.depth = 1;
    lexer.at_line_start = false;
    while !lexer.at_end() {
        lexer.scan_token()?;
    }
    let at = lexer.end as u32;
    lexer.layout(TokenKind::Eof, at, at);
    Ok(lexer.tokens)
}

/// The character an escape `\c` in a string or f-string stands for.
pub(crate) fn escape_char(c: char) -> char {
    scan::escape(c)
}

/// Scanning state for one file.
struct Lexer<'s> {
    src: &'s str,
    /// Byte offset of the next unread character.
    pos: usize,
    /// Byte offset where scanning stops (the text's length, or the end of
    /// an f-string's `{…}` piece).
    end: usize,
    /// The reference's line counter (see §1.9 for where it lags).
    line: u32,
    /// Open `(`/`[`/`{` count; layout is suspended while it is non-zero.
    depth: u32,
    /// Open `{` count: a `}` closes a map literal only while one is open.
    braces: u32,
    indents: Vec<u32>,
    at_line_start: bool,
    /// Whether the current logical line produced a real token yet.
    line_has_content: bool,
    tokens: Vec<Token>,
    comments: Vec<Comment>,
}

impl<'s> Lexer<'s> {
    fn new(src: &'s str) -> Self {
        Lexer {
            src,
            pos: 0,
            end: src.len(),
            line: 1,
            depth: 0,
            braces: 0,
            indents: vec![0],
            at_line_start: true,
            line_has_content: false,
            tokens: Vec::new(),
            comments: Vec::new(),
        }
    }

    fn run(&mut self) -> Result<(), SyntaxError> {
        while !self.at_end() {
            if self.at_line_start && self.depth == 0 {
                self.indentation()?;
                if self.at_end() {
                    break;
                }
            }
            self.scan_token()?;
        }
        let end = self.src.len() as u32;
        if self.line_has_content {
            self.layout(TokenKind::Newline, end, end);
        }
        while self.indents.len() > 1 {
            self.indents.pop();
            self.layout(TokenKind::Dedent, end, end);
        }
        self.layout(TokenKind::Eof, end, end);
        Ok(())
    }

    fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    fn rest(&self) -> &'s str {
        self.src.get(self.pos..self.end).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn error(&self, message: impl Into<String>, start: usize) -> SyntaxError {
        SyntaxError {
            message: message.into(),
            span: Span::new(start as u32, self.pos as u32, self.line),
        }
    }

    /// Pushes a layout token (empty lexeme) at the current line.
    fn layout(&mut self, kind: TokenKind, start: u32, end: u32) {
        self.layout_at(kind, start, end, self.line);
    }

    fn layout_at(&mut self, kind: TokenKind, start: u32, end: u32, line: u32) {
        self.tokens.push(Token {
            kind,
            span: Span::new(start, end, line),
        });
    }

    /// Pushes a real token covering `start..self.pos`. Its line is the
    /// current line, i.e. the line where the token ends.
    fn push(&mut self, kind: TokenKind, start: usize) {
        self.tokens.push(Token {
            kind,
            span: Span::new(start as u32, self.pos as u32, self.line),
        });
        self.line_has_content = true;
    }

    /// Skips blank and comment-only lines, then measures the indentation of
    /// the next real line against the stack (§1.8 step 1).
    fn indentation(&mut self) -> Result<(), SyntaxError> {
        let count = loop {
            let mut count: u32 = 0;
            while self.peek() == Some(' ') {
                count += 1;
                self.pos += 1;
            }
            match self.peek() {
                Some('\t') => {
                    return Err(SyntaxError {
                        message: "tabs are not allowed for indentation \u{2014} use spaces".into(),
                        span: Span::new(self.pos as u32, self.pos as u32 + 1, self.line),
                    });
                }
                Some('\n') => {
                    self.pos += 1;
                    self.line += 1;
                }
                Some('#') => {
                    self.comment(false);
                    if self.at_end() {
                        break count;
                    }
                    self.pos += 1;
                    self.line += 1;
                }
                _ => break count,
            }
        };
        self.at_line_start = false;
        if self.at_end() {
            return Ok(());
        }
        let here = self.pos as u32;
        let top = self.indents.last().copied().unwrap_or(0);
        if count > top {
            self.indents.push(count);
            self.layout(TokenKind::Indent, here, here);
        } else if count < top {
            while self.indents.len() > 1 && count < self.indents.last().copied().unwrap_or(0) {
                self.indents.pop();
                self.layout(TokenKind::Dedent, here, here);
            }
            if self.indents.last().copied().unwrap_or(0) != count {
                return Err(self.error("inconsistent indentation", self.pos));
            }
        }
        Ok(())
    }

    /// Consumes a comment from `#` up to (not including) the newline.
    fn comment(&mut self, trailing: bool) {
        let start = self.pos;
        let len = self.rest().find('\n').unwrap_or(self.rest().len());
        self.pos += len;
        let body = self.src.get(start + 1..self.pos).unwrap_or("");
        // Python's str.strip() also strips the ASCII separators 0x1C-0x1F.
        let text = body.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c));
        self.comments.push(Comment {
            span: Span::new(start as u32, self.pos as u32, self.line),
            text: text.to_string(),
            trailing,
        });
    }

    /// Whether a `{` here opens a map literal: only where an operand may
    /// start (after an operator, an opening bracket, a comma, a colon, a
    /// keyword such as `return`, or at the start of a line). After an
    /// operand, a `)` or `else` it would open a block, C-style: that keeps
    /// the reference's diagnosis (`if x {`, `def f() {`).
    fn operand_may_start(&self) -> bool {
        use TokenKind as K;
        let prev = if self.line_has_content || self.depth > 0 {
            self.tokens.last().map(|t| t.kind)
        } else {
            None
        };
        !matches!(
            prev,
            Some(
                K::Int
                    | K::Float
                    | K::Str
                    | K::Ident
                    | K::True
                    | K::False
                    | K::Nil
                    | K::RParen
                    | K::RBracket
                    | K::RBrace
                    | K::Else
            )
        )
    }

    /// Scans one token (or one piece of whitespace or a comment).
    fn scan_token(&mut self) -> Result<(), SyntaxError> {
        let start = self.pos;
        let Some(c) = self.peek() else {
            return Ok(());
        };
        match c {
            ' ' | '\r' | '\t' => self.pos += 1,
            '\n' => {
                self.pos += 1;
                self.line += 1;
                if self.depth == 0 {
                    if self.line_has_content {
                        // A NEWLINE reports the line it terminates.
                        let line = self.line - 1;
                        self.layout_at(TokenKind::Newline, start as u32, self.pos as u32, line);
                        self.line_has_content = false;
                    }
                    self.at_line_start = true;
                }
            }
            '#' => self.comment(self.line_has_content),
            '{' if self.operand_may_start() => {
                self.pos += 1;
                self.braces += 1;
                self.depth += 1;
                self.push(TokenKind::LBrace, start);
            }
            '}' if self.braces > 0 => {
                self.pos += 1;
                self.braces -= 1;
                self.depth = self.depth.saturating_sub(1);
                self.push(TokenKind::RBrace, start);
            }
            '{' | '}' => {
                self.pos += 1;
                return Err(self.error(
                    "Sense uses indentation for blocks, not '{ }' \u{2014} write ':' then an \
                     indented block instead",
                    start,
                ));
            }
            ';' => {
                self.pos += 1;
                return Err(self.error(
                    "semicolons aren't used in Sense \u{2014} start a new line instead",
                    start,
                ));
            }
            '"' => self.string(start, TokenKind::Str)?,
            c if scan::is_digit(c) => self.number()?,
            c if scan::is_alpha(c) || c == '_' => {
                let len = scan::identifier(self.rest());
                self.pos += len;
                let word = self.src.get(start..self.pos).unwrap_or("");
                if word == "f" && self.peek() == Some('"') {
                    // `f"…"` written together is an f-string (the reference
                    // reads IDENT + STRING there, always a syntax error).
                    return self.fstring(start);
                }
                let kind = TokenKind::keyword(word).unwrap_or(TokenKind::Ident);
                self.push(kind, start);
            }
            _ => match scan::punct(self.rest()) {
                Some((kind, len)) => {
                    self.pos += len;
                    match kind {
                        TokenKind::LParen | TokenKind::LBracket => self.depth += 1,
                        TokenKind::RParen | TokenKind::RBracket => {
                            self.depth = self.depth.saturating_sub(1)
                        }
                        _ => {}
                    }
                    self.push(kind, start);
                }
                None => {
                    self.pos += c.len_utf8();
                    let message = if c == '!' {
                        "'!' is not an operator in Sense \u{2014} use 'not' for negation and \
                         '!=' for not-equal"
                            .to_string()
                    } else {
                        format!(
                            "unexpected character {}",
                            crate::token::py_repr(c.encode_utf8(&mut [0; 4]))
                        )
                    };
                    return Err(self.error(message, start));
                }
            },
        }
        Ok(())
    }

    /// Scans a number. Digits of any script count, as in the reference
    /// (`٣` is 3); the value is computed from their decimal values.
    fn number(&mut self) -> Result<(), SyntaxError> {
        let start = self.pos;
        let (len, is_float) = scan::number(self.rest());
        self.pos += len;
        let text = self.src.get(start..self.pos).unwrap_or("");
        // A digit with no decimal value (`²`) crashes the reference's
        // conversion; here it is an unexpected character.
        let ascii = scan::ascii_number(text).map_err(|c| {
            let message = format!(
                "unexpected character {}",
                crate::token::py_repr(c.encode_utf8(&mut [0; 4]))
            );
            self.error(message, start)
        })?;
        // The value is not kept: `literal_value` recomputes it from the
        // lexeme when the parser asks. Only its range is checked here.
        let kind = if is_float {
            TokenKind::Float
        } else if scan::int_value(&ascii).is_some() {
            TokenKind::Int
        } else {
            return Err(self.error(
                format!("integer literal too large: {text} (Sense Ints are 64-bit)"),
                start,
            ));
        };
        self.push(kind, start);
        Ok(())
    }

    /// Scans a string literal whose opening quote is at the current
    /// position; the token (of `kind`, STRING or FSTRING) starts at `start`
    /// (before the `f` of an f-string). An f-string ends where a plain
    /// string would: its `{…}` pieces are read by the parser.
    fn string(&mut self, start: usize, kind: TokenKind) -> Result<(), SyntaxError> {
        let triple = self.open_quotes();
        while !self.at_closing_quotes(triple) {
            let Some(c) = self.peek() else {
                return Err(self.unterminated(triple, start));
            };
            self.pos += c.len_utf8();
            if c == '\n' {
                self.line += 1;
            }
            if c == '\\' {
                // The escaped character is consumed without line counting:
                // an escaped newline does not advance the line (§1.9 quirk).
                let Some(e) = self.peek() else {
                    // The reference crashes here; report it as unterminated.
                    return Err(self.unterminated(triple, start));
                };
                self.pos += e.len_utf8();
            }
        }
        self.close_quotes(triple);
        self.push(kind, start);
        Ok(())
    }

    /// Scans an f-string from its opening quote (the token starts at the
    /// `f`, at `start`). It ends at the first closing quote outside its
    /// `{…}` pieces; inside a piece brackets nest and a `"…"` is a string of
    /// the expression, so `f"{pause("why?")}"` is one token. A piece of a
    /// single-quoted f-string ends on its line: a line break (or the end
    /// of the file) inside one means its `{` was never closed.
    fn fstring(&mut self, start: usize) -> Result<(), SyntaxError> {
        let triple = self.open_quotes();
        // Open brackets of the current piece (0 in the text), and where
        // the piece's `{` is.
        let mut depth = 0u32;
        let mut open = start;
        while depth > 0 || !self.at_closing_quotes(triple) {
            let c = match self.peek() {
                Some('\n') | None if depth > 0 && !triple => return Err(self.never_closed(open)),
                Some(c) => c,
                None => return Err(self.unterminated(triple, start)),
            };
            self.pos += c.len_utf8();
            match c {
                '\n' => self.line += 1,
                '\\' => match self.peek() {
                    Some(e) => self.pos += e.len_utf8(),
                    None => return Err(self.unterminated(triple, start)),
                },
                '{' if depth == 0 && self.peek() == Some('{') => self.pos += 1,
                '{' if depth == 0 => {
                    open = self.pos - 1;
                    depth = 1;
                }
                '{' | '(' | '[' if depth > 0 => depth += 1,
                ')' | ']' | '}' if depth > 0 => depth -= 1,
                '"' if depth > 0 => self.piece_string(triple, open)?,
                _ => {}
            }
        }
        self.close_quotes(triple);
        self.push(TokenKind::FStr, start);
        Ok(())
    }

    /// Consumes a literal's opening quote (the current character) and, when
    /// two more follow, the rest of a triple quote; tells whether it was one.
    fn open_quotes(&mut self) -> bool {
        self.pos += 1;
        let triple = self.rest().starts_with("\"\"");
        if triple {
            self.pos += 2;
        }
        triple
    }

    /// Whether the literal opened by [`Self::open_quotes`] closes here.
    fn at_closing_quotes(&self, triple: bool) -> bool {
        let quotes = if triple { "\"\"\"" } else { "\"" };
        self.rest().starts_with(quotes)
    }

    /// Consumes the closing quotes [`Self::at_closing_quotes`] saw.
    fn close_quotes(&mut self, triple: bool) {
        self.pos += if triple { 3 } else { 1 };
    }

    /// Skips a `"…"` inside an f-string's piece (whose `{` is at `open`),
    /// after its opening quote.
    fn piece_string(&mut self, triple: bool, open: usize) -> Result<(), SyntaxError> {
        loop {
            let c = match self.peek() {
                Some('\n') | None if !triple => return Err(self.never_closed(open)),
                None => return Err(self.unterminated(true, open)),
                Some(c) => c,
            };
            self.pos += c.len_utf8();
            match c {
                '"' => return Ok(()),
                '\n' => self.line += 1,
                '\\' => self.pos += self.peek().map_or(0, char::len_utf8),
                _ => {}
            }
        }
    }

    /// An f-string piece's `{` at `open` with no `}` on its line.
    fn never_closed(&self, open: usize) -> SyntaxError {
        SyntaxError {
            message: "f-string: '{' was never closed (expected '}'; write '{{' for a brace)"
                .to_string(),
            span: Span::new(open as u32, open as u32 + 1, self.line),
        }
    }

    fn unterminated(&self, triple: bool, start: usize) -> SyntaxError {
        let message = if triple {
            "unterminated triple-quoted string literal"
        } else {
            "unterminated string literal"
        };
        self.error(message, start)
    }
}

/// The value of a literal token of `kind` whose lexeme is `lexeme` (as the
/// lexer accepted it): an INT or FLOAT from its digits of any script, a
/// STRING with its quotes removed and escapes resolved. Other kinds, and
/// text the lexer would not have produced, give [`Literal::None`].
pub fn literal_value(kind: TokenKind, lexeme: &str) -> Literal {
    match kind {
        TokenKind::Int => scan::ascii_number(lexeme)
            .ok()
            .and_then(|ascii| scan::int_value(&ascii))
            .map_or(Literal::None, Literal::Int),
        TokenKind::Float => scan::ascii_number(lexeme)
            .ok()
            .and_then(|ascii| ascii.parse().ok())
            .map_or(Literal::None, Literal::Float),
        TokenKind::Str => Literal::Str(string_value(lexeme)),
        _ => Literal::None,
    }
}

/// The value of a string literal's lexeme: quotes (one or three) removed,
/// each `\c` replaced by the character it stands for.
fn string_value(lexeme: &str) -> String {
    let quotes = if lexeme.len() >= 6 && lexeme.starts_with("\"\"\"") {
        3
    } else {
        1
    };
    let body = lexeme
        .get(quotes..lexeme.len().saturating_sub(quotes))
        .unwrap_or("");
    let mut value = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(e) = chars.next() {
                value.push(scan::escape(e));
            }
        } else {
            value.push(c);
        }
    }
    value
}

#[cfg(test)]
mod tests;

/// The value of a decimal digit of any script (Python's `str.isdecimal()`
/// characters: `٣` is 3); `None` for anything else, including `²`.
/// Conversions such as `int("٣٤")` use it, as the reference does.
pub fn decimal_value(c: char) -> Option<u32> {
    scan::decimal_value(c)
}

/// True when `word` is a name a program can bind: the whole of it lexes
/// as one identifier (a letter or `_`, then letters, digits and `_`, with
/// Python's Unicode classes) and it is not a reserved word. Hosts check
/// the names they bind (globals, host functions) with it.
pub fn is_bindable_name(word: &str) -> bool {
    !word.is_empty() && scan::identifier(word) == word.len() && TokenKind::keyword(word).is_none()
}
