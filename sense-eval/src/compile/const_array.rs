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
//! instead of the compiler aborting the process.

use super::Compiler;
use crate::op::Op;
use crate::value::Value;
use sense_syntax::Span;
use sense_syntax::ast::{Expr, ExprKind};

/// Shorter literals keep the plain form (their listings stay readable and
/// the gain is nil).
const MIN_ELEMENTS: usize = 32;

impl Compiler<'_> {
    /// Compiles `items` as a constant array when every one is a number or
    /// string literal and there are enough of them; false (nothing
    /// emitted) otherwise.
    pub(super) fn const_array(&mut self, items: &[Expr], span: Span) -> bool {
        if items.len() < MIN_ELEMENTS || !items.iter().all(is_constant) {
            return false;
        }
        let n = items.len() as i64;
        let header = self.cur.consts.len() as u32;
        if self.cur.consts.try_reserve_exact(items.len() + 1).is_err() {
            self.cur.consts.push(Value::Int(-1 - n));
            self.emit(Op::ConstArray(header), span);
            return true;
        }
        self.cur.consts.push(Value::Int(n));
        for it in items {
            match &it.kind {
                ExprKind::Int(i) => {
                    self.constant(Value::Int(*i));
                }
                ExprKind::Float(f) => {
                    self.constant(Value::Float(*f));
                }
                ExprKind::Str(s) => {
                    self.string_const(s);
                }
                // `is_constant` admitted nothing else.
                _ => {
                    self.constant(Value::Int(0));
                }
            }
        }
        self.emit(Op::ConstArray(header), span);
        true
    }
}

/// Number and string literals: the constants a snapshot's constant tables
/// already hold and check.
fn is_constant(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_)
    )
}
