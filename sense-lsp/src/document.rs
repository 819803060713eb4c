//! One open document: its text, the result of lexing and parsing it, its
//! declarations, and conversions between byte offsets and LSP positions
//! (lines and UTF-16 code units, the protocol's default encoding).

use crate::decls::{Decl, declarations};
use lsp_types::{Position, Range};
use sense_syntax::ast::Program;
use sense_syntax::token::{Token, TokenKind};
use sense_syntax::{SourceFile, Span, SyntaxError};

/// A parsed snapshot of a document's text.
pub struct Document {
    /// The text as the lexer sees it (line ends normalised to `\n`).
    pub file: SourceFile,
    /// The tokens, when the text lexes.
    pub tokens: Vec<Token>,
    /// The first syntax error, if any.
    pub error: Option<SyntaxError>,
    /// Declarations: of this text when it parses, otherwise those of the
    /// last text of the document that did (so completion and hover keep
    /// working on a half-typed line).
    pub decls: Vec<Decl>,
    /// The tree, when the text parses.
    pub program: Option<Program>,
}

impl Document {
    /// Lexes and parses `text`, keeping `previous`'s declarations when
    /// `text` does not parse.
    pub fn after(name: &str, text: &str, previous: Option<&Document>) -> Self {
        let mut doc = Document::new(name, text);
        if doc.program.is_none()
            && let Some(prev) = previous
        {
            doc.decls = prev.decls.clone();
        }
        doc
    }

    /// Lexes and parses `text`.
    pub fn new(name: &str, text: &str) -> Self {
        let file = SourceFile::new(name, text);
        let (tokens, mut error) = match sense_syntax::lexer::tokenize(&file) {
            Ok(l) => (l.tokens, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let mut decls = Vec::new();
        let mut program = None;
        if error.is_none() {
            match sense_syntax::parser::parse(file.text(), &tokens) {
                Ok(p) => {
                    decls = declarations(&p);
                    program = Some(p);
                }
                Err(e) => error = Some(e),
            }
        }
        Document {
            file,
            tokens,
            error,
            decls,
            program,
        }
    }

    /// The LSP position of byte `offset`.
    pub fn position(&self, offset: u32) -> Position {
        let text = self.file.text();
        let offset = (offset as usize).min(text.len());
        let (line, _) = self.file.line_col(offset as u32);
        let start = self.file.line_start(line).unwrap_or(0) as usize;
        let character = text
            .get(start..offset)
            .map_or(0, |s| s.chars().map(char::len_utf16).sum::<usize>());
        Position::new(line - 1, character as u32)
    }

    /// The LSP range of a span.
    pub fn range(&self, span: Span) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    /// The byte offset of an LSP position (clamped to its line).
    pub fn offset(&self, pos: Position) -> u32 {
        let text = self.file.text();
        let Some(start) = self.file.line_start(pos.line + 1) else {
            return text.len() as u32;
        };
        let line = self.file.line_text(pos.line + 1).unwrap_or("");
        let mut units = 0u32;
        for (i, c) in line.char_indices() {
            if units >= pos.character {
                return start + i as u32;
            }
            units += c.len_utf16() as u32;
        }
        start + line.len() as u32
    }

    /// The comment lines (`# …`) written right above line `line`
    /// (1-based), without their `#`: a declaration's documentation.
    pub fn comments_above(&self, line: u32) -> Vec<&str> {
        let mut out = Vec::new();
        let mut at = line;
        while at > 1 {
            at -= 1;
            match self.file.line_text(at).map(str::trim_start) {
                Some(t) if t.starts_with('#') => {
                    out.push(t.trim_start_matches('#').trim());
                }
                _ => break,
            }
        }
        out.reverse();
        out
    }

    /// The identifier token touching byte `offset` (the cursor may sit
    /// just after it), and the index of that token.
    pub fn ident_at(&self, offset: u32) -> Option<(usize, &Token)> {
        self.tokens.iter().enumerate().find(|(_, t)| {
            t.kind == TokenKind::Ident && t.span.start <= offset && offset <= t.span.end
        })
    }
}

/// Converts a `file:` URI to a path, decoding `%XX` escapes.
pub fn uri_to_path(uri: &str) -> Option<std::path::PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///srv/…` has an empty authority; `file://localhost/…` too.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%'
            && let Some(hex) = rest.get(i + 1..i + 3)
            && let Ok(v) = u8::from_str_radix(hex, 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b);
        i += 1;
    }
    let path = String::from_utf8(out).ok()?;
    // `file:///C:/x` on Windows.
    let path = match path.strip_prefix('/') {
        Some(p) if p.get(1..2) == Some(":") => p.to_string(),
        _ => path,
    };
    Some(std::path::PathBuf::from(path))
}

/// Converts an absolute path to a `file:` URI, escaping what a URI path
/// cannot hold.
pub fn path_to_uri(path: &std::path::Path) -> Option<lsp_types::Uri> {
    let text = path.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' | b':' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let d = Document::new("t", "x = 1\ns = \"é😀\" + y\n");
        // `y` is after é (1 unit) and 😀 (2 units).
        let y = d.file.text().find('y').unwrap() as u32;
        assert_eq!(d.position(y), Position::new(1, 12));
        assert_eq!(d.offset(Position::new(1, 12)), y);
        assert_eq!(d.offset(Position::new(0, 99)), 5);
    }

    #[test]
    fn uris_round_trip() {
        let p = std::path::Path::new("/tmp/a dir/x.sns");
        let uri = path_to_uri(p).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20dir/x.sns");
        assert_eq!(uri_to_path(uri.as_str()).unwrap(), p);
    }
}
