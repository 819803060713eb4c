//! `for x in range(…)` without building the array.
//!
//! `range` returns a fresh Array of Ints; a `for` over a call of it is the
//! only holder of that array (it is bound to no name), so iterating the
//! Ints one by one is indistinguishable from building it. When the call
//! just before a loop's `IterPrep` is a call of the core `range` builtin
//! (checked at run time: a program may rebind `range`, and then the call
//! runs as written), the loop's two operand-stack slots hold two Ints
//! instead of `[array, position]`: the end (exclusive) and the next Int.
//! `IterNext` steps them toward each other. Arrays never sit in the first
//! slot as an Int, so the two layouts cannot be confused.
//!
//! Only steps of 1 and −1 (every `range(n)` and `range(a, b)`) are done
//! lazily; another step still builds the array. The checks are those of
//! `range` itself ([`crate::builtins::range_plan`]); when one fails, the
//! ordinary call runs and reports it, so errors read exactly as before.

use super::Vm;
use crate::builtins::{NativeImpl, range_plan};
use crate::value::Value;

impl Vm {
    /// Called for `Call(argc)` when the next instruction is `IterPrep`:
    /// when the callee is the core `range` and its arguments are valid
    /// with a step of ±1, replaces callee and arguments by the lazy
    /// loop's two slots and returns true (the caller then skips
    /// `IterPrep`). Otherwise changes nothing and returns false.
    pub(crate) fn lazy_range(&mut self, argc: usize) -> bool {
        let Some(callee_at) = self.cur.stack.len().checked_sub(argc + 1) else {
            return false;
        };
        let Value::Native(id) = self.stack_at(callee_at) else {
            return false;
        };
        let is_range = self
            .registries
            .natives
            .get(id.0 as usize)
            .is_some_and(|def| def.name == "range" && matches!(def.imp, NativeImpl::Builtin(_)));
        if !is_range {
            return false;
        }
        let Ok(plan) = range_plan(self, self.stack_from(callee_at + 1)) else {
            return false;
        };
        if plan.step != 1 && plan.step != -1 {
            return false;
        }
        // `count` Ints from `start` by ±1 stay inside i64 (`range_plan`
        // counted them between two i64s), so the end does too.
        let Ok(count) = i64::try_from(plan.count) else {
            return false;
        };
        let Some(end) = count
            .checked_mul(plan.step)
            .and_then(|d| plan.start.checked_add(d))
        else {
            return false;
        };
        // What `call_native` does for an unlabeled call before it runs.
        self.labeled.clear();
        self.cur.stack.truncate(callee_at);
        self.cur.stack.push(Value::Int(end));
        self.cur.stack.push(Value::Int(plan.start));
        true
    }
}

/// The next Int of a lazy `range` loop whose slots hold `end` and `next`,
/// and what `next` becomes; `None` when the loop is done.
#[inline]
pub(crate) fn lazy_range_next(end: i64, next: i64) -> Option<(Value, i64)> {
    if next == end {
        return None;
    }
    // Never overflows: `next` lies strictly between the start and `end`.
    let after = if next < end { next + 1 } else { next - 1 };
    Some((Value::Int(next), after))
}
