//! `try`/`except`/`finally` and `raise` (errors a program can handle, an
//! extension of the reference).
//!
//! Layout of `try: B except C as e: H finally: F`:
//!
//! ```text
//!     FinallyBegin(fin)      only with a `finally`
//!     TryBegin(handlers)     only with `except` clauses
//!     B                      in its own block scope
//!     TryEnd
//!     Jump(done)
//! handlers:                  [error]
//!     ExceptMatch(C, next)   one test per clause, in order
//!     Define(e) | Pop        in the clause's block scope
//!     H
//!     Jump(done)
//! next:
//!     Raise                  no clause matched: the error goes on
//! done:
//!     FinallyEnter           [] -> [nil, 0]
//! fin:                       [payload, kind]
//!     F
//!     FinallyExit            carries on what the `finally` interrupted
//! ```
//!
//! A `return` in `B` or `H` is `ReturnFinally`, which runs the `finally`
//! before returning (a plain `Return` never looks for one).
//!
//! The handler and the `finally` are entries of the fiber's control stack
//! (`CtlKind::Try`, `CtlKind::Finally`), so they unwind, suspend and
//! snapshot with the fiber like loops do.

use super::Compiler;
use crate::op::Op;
use sense_syntax::Span;
use sense_syntax::ast::{ERROR_CLASSES, Expr, TryStmt};

impl Compiler<'_> {
    pub(super) fn try_stmt(&mut self, t: &TryStmt, span: Span) {
        let fin = t
            .finally
            .as_ref()
            .map(|_| self.emit(Op::FinallyBegin(0), span));
        let mut to_done = Vec::new();
        // A `return` in the body or a clause runs the `finally` first.
        let guarded = u32::from(fin.is_some());
        self.finally_depth += guarded;
        if t.handlers.is_empty() {
            self.scoped_block(&t.body);
        } else {
            let begin = self.emit(Op::TryBegin(0), span);
            self.scoped_block(&t.body);
            self.emit(Op::TryEnd, span);
            to_done.push(self.emit(Op::Jump(0), span));
            self.patch(begin);
            for h in &t.handlers {
                let class = h.class.as_ref().map_or(0, |c| class_index(&c.name));
                let next = self.emit(Op::ExceptMatch(class, 0), h.span);
                let mark = match &h.name {
                    Some(n) => {
                        let s = self.sym(&n.name);
                        self.open_block_with(&h.body, Some((s, n.span)))
                    }
                    None => {
                        let mark = self.open_block(&h.body);
                        self.emit(Op::Pop, h.span);
                        mark
                    }
                };
                self.stmts(&h.body.stmts);
                self.close_block(mark, h.body.span);
                to_done.push(self.emit(Op::Jump(0), h.span));
                self.patch(next);
            }
            // No clause matched: the error goes on unwinding.
            self.emit(Op::Raise, span);
        }
        self.finally_depth -= guarded;
        for j in to_done {
            self.patch(j);
        }
        if let (Some(begin), Some(body)) = (fin, &t.finally) {
            self.emit(Op::FinallyEnter, span);
            self.patch(begin);
            self.scoped_block(body);
            self.emit(Op::FinallyExit, body.span);
        }
    }

    pub(super) fn raise_stmt(&mut self, value: &Expr, span: Span) {
        self.expr(value);
        self.emit(Op::Raise, span);
    }
}

/// The index of an error class name in [`ERROR_CLASSES`] (the parser
/// accepts no other name; 0, `SenseError`, otherwise).
fn class_index(name: &str) -> u8 {
    ERROR_CLASSES
        .iter()
        .position(|c| *c == name)
        .and_then(|i| u8::try_from(i).ok())
        .unwrap_or(0)
}
