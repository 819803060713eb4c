//! `try`/`except`/`finally` at run time: the handler and `finally`
//! entries of the control stack, the `Error` values `except` binds, and
//! the completion a `finally` block carries on when it ends.
//!
//! A `finally` interrupts whatever leaves its statement — normal
//! completion, an error, `return`, `break`, `continue` — and finds that
//! completion on the operand stack as `[payload, kind]` when it ends
//! (`Op::FinallyExit`). Everything lives in the fiber (control stack,
//! operand stack), so a pause inside `try`, `except` or `finally`
//! suspends and snapshots like anywhere else.

use super::{Ctl, CtlKind, Exit, Vm};
use crate::error::{EvalError, EvalResult};
use crate::error_value::ErrorValue;
use crate::op::Op;
use crate::value::Value;
use sense_syntax::ast::ERROR_CLASSES;

/// What a `finally` block carries on with when it ends (the `kind` of its
/// `[payload, kind]`).
#[derive(Clone, Copy)]
pub(crate) enum Completion {
    /// The statement completed: go on after it.
    Normal = 0,
    /// An error (the payload, an `Error` value) goes on unwinding.
    Error = 1,
    /// `return` of the payload.
    Return = 2,
    /// `break`.
    Break = 3,
    /// `continue`.
    Continue = 4,
}

impl Completion {
    /// The completion a `kind` value on the stack stands for.
    fn of(kind: Value) -> Option<Completion> {
        let Value::Int(k) = kind else {
            return None;
        };
        [
            Completion::Normal,
            Completion::Error,
            Completion::Return,
            Completion::Break,
            Completion::Continue,
        ]
        .into_iter()
        .find(|c| *c as i64 == k)
    }
}

impl Vm {
    /// The innermost control entry at or above `floor`'s frame that
    /// `err` unwinds to: a `test` block (when `containable`), a `try` or a
    /// `finally` (when it is also catchable: not a resource limit).
    pub(super) fn error_handler(
        &self,
        err: &EvalError,
        containable: bool,
        floor: usize,
    ) -> Option<usize> {
        let catchable = containable && !err.is_limit();
        self.cur.ctl.iter().rposition(|c| {
            c.frame as usize >= floor
                && match c.kind {
                    CtlKind::Test { .. } => containable,
                    CtlKind::Try { .. } | CtlKind::Finally { .. } => catchable,
                    CtlKind::Loop { .. } => false,
                }
        })
    }

    /// Delivers `err` to the `try` or `finally` entry `ctl` (already
    /// unwound to): the `except` clauses get `[error]`, a `finally`
    /// `[error, Error]`.
    pub(super) fn catch(&mut self, ctl: &Ctl, err: EvalError) {
        let v = self.alloc_ext(ErrorValue { error: err });
        match ctl.kind {
            CtlKind::Try { handler_ip } => {
                self.set_ip(handler_ip as usize);
                self.cur.stack.push(v);
            }
            CtlKind::Finally { finally_ip } => {
                self.set_ip(finally_ip as usize);
                self.push_completion(v, Completion::Error);
            }
            CtlKind::Loop { .. } | CtlKind::Test { .. } => {}
        }
    }

    /// Removes control entry `pos` and everything above it, with the
    /// frames, stack entries, blocks and block scopes opened since; the
    /// frame that owns the entry is left current, in the scope the entry
    /// was opened in.
    pub(super) fn unwind_to(&mut self, pos: usize) -> Option<Ctl> {
        let ctl = self.cur.ctl.get(pos).cloned()?;
        if let Some(f) = self.cur.frames.get(ctl.frame as usize) {
            self.release_block_scopes(f.env, ctl.env);
        }
        self.cur.cut_back_to(pos, &ctl);
        self.set_env(ctl.env);
        Some(ctl)
    }

    /// The innermost `finally` entry above control entry `from` (`from`
    /// itself excluded), if any.
    pub(super) fn finally_above(&self, from: usize) -> Option<usize> {
        let above = self.cur.ctl.get(from..)?;
        above
            .iter()
            .rposition(|c| matches!(c.kind, CtlKind::Finally { .. }))
            .map(|i| i + from)
    }

    /// Runs the `finally` at control entry `pos` before `completion`
    /// (a `return`, `break` or `continue` leaving its statement).
    pub(super) fn enter_finally(&mut self, pos: usize, payload: Value, completion: Completion) {
        if let Some(ctl) = self.unwind_to(pos)
            && let CtlKind::Finally { finally_ip } = ctl.kind
        {
            self.set_ip(finally_ip as usize);
            self.push_completion(payload, completion);
        }
    }

    fn push_completion(&mut self, payload: Value, completion: Completion) {
        self.cur.stack.push(payload);
        self.cur.stack.push(Value::Int(completion as i64));
    }

    /// `return v` from inside `try` statements with a `finally`: the
    /// innermost open `finally` of the current frame runs first (its end
    /// comes back here); with none left, the frame returns.
    fn return_through_finally(&mut self, v: Value) -> EvalResult<Option<Exit>> {
        let base = self.cur.frames.last().map_or(0, |f| f.ctl_base as usize);
        match self.finally_above(base) {
            Some(pos) => {
                self.enter_finally(pos, v, Completion::Return);
                Ok(None)
            }
            None => self.do_return(v),
        }
    }

    /// Runs one instruction of `try`/`except`/`finally`/`raise` (kept out
    /// of the run loop: the loop saves `ip` first and reloads the frame
    /// after). `Some` when the driven fiber settled.
    #[cold]
    #[inline(never)]
    pub(super) fn exec_handler_op(&mut self, op: Op) -> EvalResult<Option<Exit>> {
        match op {
            Op::TryBegin(handler_ip) => self.push_ctl(CtlKind::Try { handler_ip }),
            Op::FinallyBegin(finally_ip) => self.push_ctl(CtlKind::Finally { finally_ip }),
            Op::TryEnd => {
                self.cur.ctl.pop();
            }
            Op::FinallyEnter => {
                self.cur.ctl.pop();
                self.push_completion(Value::Nil, Completion::Normal);
            }
            Op::ExceptMatch(class, t) => {
                if !self.except_matches(class)? {
                    self.set_ip(t as usize);
                }
            }
            Op::Raise => {
                let v = self.pop();
                return Err(self.raise_value(v));
            }
            Op::FinallyExit => return self.finally_exit(),
            Op::ReturnFinally => {
                let v = self.pop();
                return self.return_through_finally(v);
            }
            _ => {
                return Err(EvalError::runtime(
                    "internal error: malformed code (damaged state)",
                ));
            }
        }
        Ok(None)
    }

    /// `Op::FinallyExit`: carries on what the `finally` interrupted.
    /// `Some` when the driven fiber settled (a return ended it).
    fn finally_exit(&mut self) -> EvalResult<Option<Exit>> {
        let kind = self.pop();
        let payload = self.pop();
        match Completion::of(kind) {
            Some(Completion::Normal) => Ok(None),
            Some(Completion::Error) => Err(self.error_of(payload)?),
            Some(Completion::Return) => self.return_through_finally(payload),
            Some(Completion::Break) => self.do_break(false).map(|()| None),
            Some(Completion::Continue) => self.do_break(true).map(|()| None),
            None => Err(EvalError::runtime(
                "internal error: damaged 'finally' state",
            )),
        }
    }

    /// `except CLASS`: whether the error on the stack is of class
    /// `ERROR_CLASSES[class]` (0, `SenseError`, matches every error).
    fn except_matches(&self, class: u8) -> EvalResult<bool> {
        let err = self.error_of(self.peek())?;
        if class == 0 {
            return Ok(true);
        }
        let wanted = ERROR_CLASSES.get(class as usize).copied();
        Ok(wanted == Some(err.class().name()))
    }

    /// `raise v`: the error it raises.
    fn raise_value(&self, v: Value) -> EvalError {
        if let Some(text) = self.str_of(v) {
            return EvalError::runtime(text);
        }
        match self.error_of(v) {
            Ok(err) => err,
            Err(_) => EvalError::runtime(format!(
                "raise expects a String or an Error, got {}",
                self.type_name(v)
            )),
        }
    }

    /// The error an `Error` value holds.
    fn error_of(&self, v: Value) -> EvalResult<EvalError> {
        v.obj_ref()
            .and_then(|r| self.ext_ref::<ErrorValue>(r))
            .map(|e| e.error.clone())
            .ok_or_else(|| EvalError::runtime("internal error: not an Error value"))
    }
}
