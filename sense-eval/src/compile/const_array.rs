//! Array literals of constants, compiled compactly (issue 27 item 2): a
//! literal of many numbers or strings becomes one `ConstArray`
//! instruction over a run of the proto's constants instead of one
//! instruction (and span) per element plus a `MakeArray` that first piles
//! every element on the stack. A 50 MB literal of 17 million elements took
//! 2.2 GB that way, and aborted where the code vector could not double.
//!
//! The run is `consts[k] = Int(n)`, then the `n` elements. Its room is
//! reserved fallibly: when it cannot be had, the header is `Int(-1 - n)`
//! and the instruction fails cleanly ("out of memory") when it runs
//! instead of the compiler aborting the process. The parser already holds
//! such a literal compactly (`ExprKind::ConstArray`, from
//! `CONST_ARRAY_MIN` elements on); a plain `Array` node of constants (one
//! built by other means) compiles the same way.

use super::Compiler;
use crate::op::Op;
use crate::value::Value;
use sense_syntax::Span;
use sense_syntax::ast::{CONST_ARRAY_MIN, ConstItem, ConstItems, Expr, ExprKind};

impl Compiler<'_> {
    /// Compiles `items` as a constant array when every one is a number or
    /// string literal and there are enough of them (shorter literals keep
    /// the plain form: their listings stay readable and the gain is nil);
    /// false (nothing emitted) otherwise.
    pub(super) fn const_array(&mut self, items: &[Expr], span: Span) -> bool {
        if items.len() < CONST_ARRAY_MIN || !items.iter().all(|e| as_const(e).is_some()) {
            return false;
        }
        self.const_run(items.len(), items.iter().filter_map(as_const), span);
        true
    }

    /// The parser's compact form of the same literal
    /// (`ExprKind::ConstArray`), compiled the same way.
    pub(super) fn const_items(&mut self, items: &ConstItems, span: Span) {
        self.const_run(items.len(), items.iter(), span);
    }

    /// The run header, the `n` constants of `items`, one `ConstArray`.
    fn const_run<'a>(&mut self, n: usize, items: impl Iterator<Item = ConstItem<'a>>, span: Span) {
        let header = self.cur.consts.len() as u32;
        if self.cur.consts.try_reserve_exact(n + 1).is_err() {
            self.cur.consts.push(Value::Int(-1 - n as i64));
            self.emit(Op::ConstArray(header), span);
            return;
        }
        self.cur.consts.push(Value::Int(n as i64));
        for it in items {
            match it {
                ConstItem::Int(i) => {
                    self.constant(Value::Int(i));
                }
                ConstItem::Float(f) => {
                    self.constant(Value::Float(f));
                }
                ConstItem::Str(s) => {
                    self.string_const(s);
                }
            }
        }
        self.emit(Op::ConstArray(header), span);
    }
}

/// Number and string literals: the constants a snapshot's constant tables
/// already hold and check.
fn as_const(e: &Expr) -> Option<ConstItem<'_>> {
    match &e.kind {
        ExprKind::Int(i) => Some(ConstItem::Int(*i)),
        ExprKind::Float(f) => Some(ConstItem::Float(*f)),
        ExprKind::Str(s) => Some(ConstItem::Str(s)),
        _ => None,
    }
}
