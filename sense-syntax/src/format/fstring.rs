//! The canonical text of an f-string.
//!
//! Text or an expression with a line break is written triple-quoted,
//! everything else single-quoted. Braces of the
//! text are doubled; a piece whose expression starts with `{` (a map) gets
//! a space so it is not read as `{{`.

use crate::ast::{Expr, FStringPart};

/// Writes `f"…"` for `parts`, formatting each piece's expression with
/// `expr`.
pub(super) fn write_fstring(out: &mut String, parts: &[FStringPart], expr: fn(&Expr) -> String) {
    let pieces: Vec<Piece> = parts
        .iter()
        .map(|p| match p {
            FStringPart::Text(t) => Piece::Text(t),
            FStringPart::Expr(e) => Piece::Expr(expr(e)),
        })
        .collect();
    let triple = pieces.iter().any(|p| match p {
        Piece::Text(t) => t.contains('\n'),
        Piece::Expr(e) => e.contains('\n'),
    });
    let quotes = if triple { "\"\"\"" } else { "\"" };
    out.push('f');
    out.push_str(quotes);
    for piece in &pieces {
        match piece {
            Piece::Text(t) => text(out, t, triple),
            Piece::Expr(e) => {
                out.push('{');
                let pad = e.starts_with('{');
                if pad {
                    out.push(' ');
                }
                out.push_str(e);
                if pad {
                    out.push(' ');
                }
                out.push('}');
            }
        }
    }
    out.push_str(quotes);
}

enum Piece<'a> {
    Text(&'a str),
    Expr(String),
}

/// Literal text, escaped for the chosen quotes.
fn text(out: &mut String, t: &str, triple: bool) {
    for c in t.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\t' if !triple => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\n' if !triple => out.push_str("\\n"),
            '{' => out.push_str("{{"),
            '}' => out.push_str("}}"),
            c => out.push(c),
        }
    }
}
