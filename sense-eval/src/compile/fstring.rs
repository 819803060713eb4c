//! f-strings: each piece's string, joined with `Add`.
//!
//! A text piece is a string constant; a `{…}` piece is its expression
//! followed by `ToStr`. The pieces are concatenated left to right with the
//! ordinary `Add` of two strings, so the string length limit and a pause
//! inside a piece's expression behave as anywhere else.

use super::Compiler;
use crate::op::Op;
use sense_syntax::Span;
use sense_syntax::ast::FStringPart;

impl Compiler<'_> {
    /// Emits `f"…"` with `parts`: `[] -> [string]`.
    pub(super) fn fstring(&mut self, parts: &[FStringPart], span: Span) {
        if parts.is_empty() {
            let k = self.string_const("");
            self.emit(Op::Const(k), span);
            return;
        }
        for (n, part) in parts.iter().enumerate() {
            match part {
                FStringPart::Text(t) => {
                    let k = self.string_const(t);
                    self.emit(Op::Const(k), span);
                }
                FStringPart::Expr(e) => {
                    self.expr(e);
                    self.emit(Op::ToStr, e.span);
                }
            }
            if n > 0 {
                self.emit(Op::Add, span);
            }
        }
    }
}
