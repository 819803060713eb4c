//! Non-local exits: errors looking for a `test` block or a `try`
//! statement's handler (`handlers.rs`), `break`/`continue`
//! looking for a loop (at run time, across calls — the book: scope.md "Control flow"), and
//! the safe points where pause requests, budgets and the collector act.

use super::handlers::Completion;
use super::{CtlKind, Exit, FrameKind, TestResult, Vm};
use crate::error::{EvalError, EvalResult};
use crate::object::Obj;
use crate::task::{SuspendCause, TaskStatus};
use crate::value::Value;
use std::sync::atomic::Ordering;

impl Vm {
    /// Delivers an error. Returns `Ok` when a `test` block contained it
    /// (execution continues after that block) or a `try` statement's
    /// `except` or `finally` takes it (execution continues there); otherwise the fiber dies,
    /// an agent fiber's agent fails, and the error moves to the fiber that
    /// started or resumed it — or back to the host.
    pub(crate) fn throw(&mut self, err: EvalError) -> EvalResult<()> {
        self.throw_from(err, true)
    }

    /// A stray `return`/`break`/`continue` (no function or loop to end):
    /// in the reference the signal passes through `test` blocks
    /// (the book: modules.md "Tests"), so the error they become is not contained by
    /// the `test` blocks of the fiber where it arises.
    pub(crate) fn throw_stray(&mut self, err: EvalError) -> EvalResult<()> {
        self.throw_from(err, false)
    }

    fn throw_from(&mut self, mut err: EvalError, mut containable: bool) -> EvalResult<()> {
        loop {
            let floor = self.sched.nested.last().copied().unwrap_or(0);
            let handler = self.error_handler(&err, containable, floor);
            if let Some(pos) = handler {
                let Some(ctl) = self.cur.ctl.get(pos).cloned() else {
                    return Err(err);
                };
                self.unwind_frames(ctl.frame as usize + 1, &err);
                if !matches!(ctl.kind, CtlKind::Test { .. }) {
                    // `try` or `finally`: the program handles it.
                    self.unwind_to(pos);
                    self.catch(&ctl, err);
                    return Ok(());
                }
                self.cur.cut_back_to(pos, &ctl);
                if let CtlKind::Test {
                    description,
                    end_ip,
                } = ctl.kind
                    && self.continue_at(ctl.env, end_ip)
                {
                    self.tests.push(TestResult {
                        description,
                        failure: Some(err.test_failure_text()),
                    });
                }
                return Ok(());
            }
            if !self.sched.nested.is_empty() {
                // A nested run (a tool called by a builtin) ends here; the
                // builtin gets the error.
                self.note_traceback(&mut err, floor);
                self.unwind_frames(floor, &err);
                if let Some(f) = self.cur.frames.get(floor) {
                    let (s, b, c) = (f.stack_base, f.block_base, f.ctl_base);
                    self.cur.stack.truncate(s as usize);
                    self.cur.blocks.truncate(b as usize);
                    self.cur.ctl.truncate(c as usize);
                }
                self.cur.truncate_frames(floor);
                return Err(err);
            }
            // No handler on this fiber: it dies.
            self.note_traceback(&mut err, 0);
            self.unwind_frames(0, &err);
            if let Some(future) = self.cur.future {
                match self.future_failed(future, err) {
                    Some(e) => {
                        err = e;
                        containable = true;
                        continue;
                    }
                    None => return Ok(()),
                }
            }
            let Some(task) = self.cur.task else {
                return Err(err);
            };
            if self.sched.callers.len() <= self.sched.stop_depth {
                if let Obj::Task(a) = self.heap.get_mut(task) {
                    a.status = TaskStatus::Failed;
                    a.fiber = None;
                }
                self.clear_interrupt(task);
                self.pop_caller();
                return Err(err);
            }
            match self.fiber_failed(task, err) {
                Some(e) => err = e,
                None => return Ok(()),
            }
            containable = true;
        }
    }

    /// Runs the failure hooks of frames about to be discarded (bodies
    /// run for an extension object tell its kind), and forgets the modules
    /// whose top level fails: importing one again runs it again, as in the
    /// reference (not "circular import"), once a `try` or `test` block
    /// contained the error.
    fn unwind_frames(&mut self, keep: usize, err: &EvalError) {
        let failed: Vec<u32> = self
            .cur
            .frames
            .iter()
            .skip(keep)
            .filter_map(|f| match f.kind {
                FrameKind::Module { index, .. } => Some(index),
                _ => None,
            })
            .collect();
        for index in failed {
            if let Some(m) = self.code.modules.get_mut(index as usize) {
                // No import resolves to an empty path.
                m.path = std::path::PathBuf::new();
            }
        }
        let doomed: Vec<crate::kind::ExtFrame> = self
            .cur
            .frames
            .iter()
            .skip(keep)
            .rev()
            .filter_map(|f| match f.kind {
                FrameKind::Ext(x) => Some(x),
                _ => None,
            })
            .collect();
        for x in doomed {
            self.ext_body_failed(x, err);
        }
    }

    /// `break` / `continue`: unwind to the innermost running loop of this
    /// fiber, wherever it is.
    pub(crate) fn do_break(&mut self, is_continue: bool) -> EvalResult<()> {
        let floor = self.sched.nested.last().copied().unwrap_or(0);
        let found = self
            .cur
            .ctl
            .iter()
            .rposition(|c| matches!(c.kind, CtlKind::Loop { .. }) && c.frame as usize >= floor);
        let Some(pos) = found else {
            let word = if is_continue { "continue" } else { "break" };
            return Err(EvalError::runtime(format!("'{word}' outside a loop")));
        };
        if let Some(fin) = self.finally_above(pos + 1) {
            // A `finally` between here and the loop runs first; its end
            // carries the `break`/`continue` on.
            let completion = if is_continue {
                Completion::Continue
            } else {
                Completion::Break
            };
            self.enter_finally(fin, Value::Nil, completion);
            return Ok(());
        }
        let Some(ctl) = self.cur.ctl.get(pos).cloned() else {
            return Err(EvalError::runtime("internal error: loop record"));
        };
        if let Some(f) = self.cur.frames.get(ctl.frame as usize) {
            self.release_block_scopes(f.env, ctl.env);
        }
        self.cur.cut_back_to(pos + 1, &ctl);
        if let CtlKind::Loop {
            break_ip,
            continue_ip,
        } = ctl.kind
        {
            self.continue_at(ctl.env, if is_continue { continue_ip } else { break_ip });
        }
        Ok(())
    }

    /// Sends the innermost frame on at `ip` in scope `env` (where a
    /// contained error or a `break`/`continue` lands). False when there
    /// is no frame.
    fn continue_at(&mut self, env: crate::heap::ScopeRef, ip: u32) -> bool {
        let Some(f) = self.cur.frames.last_mut() else {
            return false;
        };
        f.env = env;
        f.ip = ip;
        true
    }

    /// Recycles the block scopes between `from` and its ancestor `to` that
    /// a jump abandons (unless captured). Left in place, they would outlive
    /// their parent — recycled when the enclosing block ends — and a
    /// snapshot of the runtime would not restore (issue 8). Does nothing
    /// when `to` does not enclose `from`.
    pub(super) fn release_block_scopes(
        &mut self,
        from: crate::heap::ScopeRef,
        to: crate::heap::ScopeRef,
    ) {
        let mut chain = Vec::new();
        let mut captured = false;
        let mut at = from;
        while at != to {
            let scope = self.heap.scope(at);
            // Everything above a captured scope is captured too.
            captured |= scope.is_captured();
            if !captured {
                chain.push(at);
            }
            let Some(parent) = scope.parent else {
                return;
            };
            at = parent;
        }
        for s in chain {
            self.heap.release_scope(s);
        }
    }

    /// True when a safe point has work to do.
    #[inline]
    pub(crate) fn needs_safepoint(&self) -> bool {
        self.heap.wants_collect_within(self.config.max_heap)
            || self.config.max_steps.is_some()
            || self.interrupted()
    }

    /// A safe point: collect garbage, charge the step budget, honour a
    /// host's pause request. `Some` when the driven fiber settled.
    pub(crate) fn safepoint(&mut self) -> EvalResult<Option<Exit>> {
        if self.heap.wants_collect_within(self.config.max_heap) {
            self.collect_garbage();
            self.check_heap_ceiling()?;
        }
        if let Some(max) = self.config.max_steps {
            self.steps += 1;
            if self.steps > max {
                return self.budget_exhausted(max);
            }
        }
        if self.interrupted() && self.hooks.take_cancel() {
            return Err(EvalError::runtime("interrupted").limit());
        }
        if self.interrupted()
            && let Some(task) = self.cur.task
        {
            let requested = match self.heap.get(task) {
                Obj::Task(a) => a.take_interrupt(),
                _ => false,
            };
            if requested {
                self.hooks.interrupt.fetch_sub(1, Ordering::AcqRel);
                return self.pause_at_safepoint(task, SuspendCause::HOST);
            }
        }
        Ok(None)
    }

    fn budget_exhausted(&mut self, max: u64) -> EvalResult<Option<Exit>> {
        if let Some(task) = self.cur.task {
            self.steps = 0;
            return self.pause_at_safepoint(task, SuspendCause::BUDGET);
        }
        // The run ends here; the next one gets a fresh budget (issue 8).
        self.steps = 0;
        Err(EvalError::runtime(format!("step budget exhausted ({max} steps)")).limit())
    }
}
