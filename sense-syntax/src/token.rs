//! Tokens: what the lexer hands the parser.
//!
//! Token kinds mirror the reference's token types one to one, because their
//! upper-case names appear verbatim in parse-error messages
//! (`(got RPAREN ')')`). This module also owns the rendering of a lexeme the
//! way the reference's messages show it (Python's `repr()` of a string).
//! It does no scanning itself; see [`crate::lexer`].

mod printable;

use crate::span::Span;

/// Declares [`TokenKind`] together with the table of reference names, so
/// the two can never drift apart.
macro_rules! token_kinds {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, )*) => {
        /// The kind of a token (docs/book/src/language.md § Lexical rules).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum TokenKind {
            $( $(#[$doc])* $variant, )*
        }

        impl TokenKind {
            /// The reference's upper-case name of this kind, as it appears in
            /// messages such as `unexpected token RPAREN ')'`.
            pub fn name(self) -> &'static str {
                match self {
                    $( TokenKind::$variant => $name, )*
                }
            }
        }
    };
}

token_kinds! {
    /// Integer literal.
    Int => "INT",
    /// Float literal.
    Float => "FLOAT",
    /// String literal (plain or triple-quoted).
    Str => "STRING",
    /// f-string literal `f"…{expr}…"` (plain or triple-quoted); its pieces
    /// are read by the parser (`parser/fstring.rs`).
    FStr => "FSTRING",
    /// Identifier.
    Ident => "IDENT",
    /// `def`
    Def => "DEF",
    /// `return`
    Return => "RETURN",
    /// `returns`
    Returns => "RETURNS",
    /// `if`
    If => "IF",
    /// `else`
    Else => "ELSE",
    /// `while`
    While => "WHILE",
    /// `for`
    For => "FOR",
    /// `in`
    In => "IN",
    /// `break`
    Break => "BREAK",
    /// `continue`
    Continue => "CONTINUE",
    /// `true`
    True => "TRUE",
    /// `false`
    False => "FALSE",
    /// `nil`
    Nil => "NIL",
    /// `import`
    Import => "IMPORT",
    /// `from`
    From => "FROM",
    /// `as`
    As => "AS",
    /// `python`
    Python => "PYTHON",
    /// `set`
    Set => "SET",
    /// `local`
    Local => "LOCAL",
    /// `session`
    Session => "SESSION",
    /// `agent`
    Agent => "AGENT",
    /// `action`
    Action => "ACTION",
    /// `reversible`
    Reversible => "REVERSIBLE",
    /// `irreversible`
    Irreversible => "IRREVERSIBLE",
    /// `requires`
    Requires => "REQUIRES",
    /// `approval`
    Approval => "APPROVAL",
    /// `policy`
    Policy => "POLICY",
    /// `allow`
    Allow => "ALLOW",
    /// `deny`
    Deny => "DENY",
    /// `test`
    Test => "TEST",
    /// `tool`
    Tool => "TOOL",
    /// `memory`
    Memory => "MEMORY",
    /// `async`
    Async => "ASYNC",
    /// `persistent`
    Persistent => "PERSISTENT",
    /// `model`
    Model => "MODEL",
    /// `and`
    And => "AND",
    /// `or`
    Or => "OR",
    /// `not`
    Not => "NOT",
    /// `+`
    Plus => "PLUS",
    /// `-`
    Minus => "MINUS",
    /// `*`
    Star => "STAR",
    /// `/`
    Slash => "SLASH",
    /// `%`
    Percent => "PERCENT",
    /// `=`
    Eq => "EQ",
    /// `==`
    EqEq => "EQEQ",
    /// `!=`
    BangEq => "BANGEQ",
    /// `<`
    Lt => "LT",
    /// `<=`
    LtEq => "LTEQ",
    /// `>`
    Gt => "GT",
    /// `>=`
    GtEq => "GTEQ",
    /// `->`
    Arrow => "ARROW",
    /// `(`
    LParen => "LPAREN",
    /// `)`
    RParen => "RPAREN",
    /// `[`
    LBracket => "LBRACKET",
    /// `]`
    RBracket => "RBRACKET",
    /// `{` (opens a map literal; elsewhere the lexer refuses it)
    LBrace => "LBRACE",
    /// `}`
    RBrace => "RBRACE",
    /// `,`
    Comma => "COMMA",
    /// `:`
    Colon => "COLON",
    /// `.`
    Dot => "DOT",
    /// End of a logical line.
    Newline => "NEWLINE",
    /// Start of a deeper indentation level.
    Indent => "INDENT",
    /// End of an indentation level.
    Dedent => "DEDENT",
    /// End of input.
    Eof => "EOF",
}

/// The 38 reserved words (docs/book/src/language.md § Lexical rules) and their kinds.
const KEYWORDS: [(&str, TokenKind); 38] = [
    ("def", TokenKind::Def),
    ("return", TokenKind::Return),
    ("returns", TokenKind::Returns),
    ("if", TokenKind::If),
    ("else", TokenKind::Else),
    ("while", TokenKind::While),
    ("for", TokenKind::For),
    ("in", TokenKind::In),
    ("break", TokenKind::Break),
    ("continue", TokenKind::Continue),
    ("true", TokenKind::True),
    ("false", TokenKind::False),
    ("nil", TokenKind::Nil),
    ("import", TokenKind::Import),
    ("from", TokenKind::From),
    ("as", TokenKind::As),
    ("python", TokenKind::Python),
    ("set", TokenKind::Set),
    ("local", TokenKind::Local),
    ("session", TokenKind::Session),
    ("agent", TokenKind::Agent),
    ("action", TokenKind::Action),
    ("reversible", TokenKind::Reversible),
    ("irreversible", TokenKind::Irreversible),
    ("requires", TokenKind::Requires),
    ("approval", TokenKind::Approval),
    ("policy", TokenKind::Policy),
    ("allow", TokenKind::Allow),
    ("deny", TokenKind::Deny),
    ("test", TokenKind::Test),
    ("tool", TokenKind::Tool),
    ("memory", TokenKind::Memory),
    ("async", TokenKind::Async),
    ("persistent", TokenKind::Persistent),
    ("model", TokenKind::Model),
    ("and", TokenKind::And),
    ("or", TokenKind::Or),
    ("not", TokenKind::Not),
];

/// The 38 reserved words, in a fixed order (for completion in editors and
/// the REPL).
pub fn keywords() -> impl Iterator<Item = &'static str> {
    KEYWORDS.iter().map(|&(w, _)| w)
}

impl TokenKind {
    /// The keyword kind spelled `word`, if `word` is reserved.
    pub fn keyword(word: &str) -> Option<TokenKind> {
        KEYWORDS.iter().find(|(w, _)| *w == word).map(|&(_, k)| k)
    }

    /// True for the 38 keyword kinds. Capability paths accept any of them
    /// as a segment.
    pub fn is_keyword(self) -> bool {
        KEYWORDS.iter().any(|&(_, k)| k == self)
    }

    /// True for NEWLINE, INDENT, DEDENT and EOF, whose lexeme is empty.
    pub fn is_layout(self) -> bool {
        matches!(
            self,
            TokenKind::Newline | TokenKind::Indent | TokenKind::Dedent | TokenKind::Eof
        )
    }
}

/// The value of a literal token.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// Not a literal (identifiers, keywords, operators, layout).
    None,
    /// Value of an INT token.
    Int(i64),
    /// Value of a FLOAT token.
    Float(f64),
    /// Value of a STRING token, escapes resolved.
    Str(String),
}

/// One token: its kind and where it is. 16 bytes, no allocation.
///
/// Its text is not copied: [`Token::lexeme`] and [`Token::literal`] read
/// it back from the source text the token was lexed from, so a huge file
/// costs a small, fixed amount per token (issue 18).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Its kind.
    pub kind: TokenKind,
    /// Byte range of its text; `span.line` follows docs/book/src/errors.md.
    pub span: Span,
}

impl Token {
    /// The reference's lexeme, read from `src` (the text this token was
    /// lexed from): the source text, quotes included for strings; empty
    /// for NEWLINE, INDENT, DEDENT and EOF.
    pub fn lexeme<'s>(&self, src: &'s str) -> &'s str {
        if self.kind.is_layout() {
            return "";
        }
        src.get(self.span.start as usize..self.span.end as usize)
            .unwrap_or("")
    }

    /// The literal value for INT, FLOAT and STRING tokens (escapes
    /// resolved), computed from the lexeme in `src`; [`Literal::None`] for
    /// other kinds.
    pub fn literal(&self, src: &str) -> Literal {
        crate::lexer::literal_value(self.kind, self.lexeme(src))
    }

    /// `KIND 'lexeme'`, the way parse errors describe a token.
    pub fn describe(&self, src: &str) -> String {
        format!("{} {}", self.kind.name(), py_repr(self.lexeme(src)))
    }
}

/// Renders `text` like Python's `repr()` of a `str`.
///
/// Single quotes unless the text contains `'` and no `"`; backslash, the
/// chosen quote, `\n`, `\r` and `\t` are escaped; other non-printable
/// characters become `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
pub fn py_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let cp = c as u32;
                let escaped = if cp < 0x100 {
                    format!("\\x{cp:02x}")
                } else if cp < 0x10000 {
                    format!("\\u{cp:04x}")
                } else {
                    format!("\\U{cp:08x}")
                };
                out.push_str(&escaped);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable()` for one character.
fn is_printable(c: char) -> bool {
    !in_ranges(c, printable::NON_PRINTABLE)
}

/// Whether `c` lies in one of the sorted, disjoint inclusive `ranges` (the
/// generated Unicode tables).
pub(crate) fn in_ranges(c: char, ranges: &[(u32, u32)]) -> bool {
    let cp = c as u32;
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

#[cfg(test)]
mod tests;
