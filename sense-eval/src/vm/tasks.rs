//! Leaving a fiber, and the cooperative scheduling of async agents.
//!
//! When an agent's fiber stops running — it paused, completed, failed, or
//! (async agents) blocked in `receive()` — control goes back to the fiber
//! that switched to it. That fiber either just gets the agent as its call's
//! result (a plain `start`/`resume`), or it is waiting (`await`, the end of
//! a top level) and the scheduler decides what runs next. Async agents run
//! only when someone waits, so their interleaving is deterministic
//! (DECISIONS.md: cooperative tasks, no data races).

use super::{Exit, Fiber, Vm, Wait};
use crate::agent::{AgentStatus, PauseKind};
use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::value::Value;

/// How a fiber stopped running.
pub(crate) enum Leave {
    /// Its agent paused (already marked).
    Paused,
    /// Its agent's body finished.
    Completed,
    /// Its async agent blocked on an empty mailbox.
    Blocked,
}

impl Vm {
    pub(crate) fn is_async(&self, agent: ObjRef) -> bool {
        self.agent_ref(agent).is_some_and(|a| a.is_async)
    }

    pub(crate) fn agent_ref(&self, r: ObjRef) -> Option<&crate::agent::Agent> {
        match self.heap.get(r) {
            crate::object::Obj::Agent(a) => Some(a),
            _ => None,
        }
    }

    /// Parks `fiber` in its async agent and queues it to run.
    pub(crate) fn park_ready(&mut self, agent: ObjRef, fiber: Fiber) {
        if let Some(a) = self.agent_mut(agent) {
            a.fiber = Some(Box::new(fiber));
        }
        self.ready.push_back(agent);
    }

    /// The current agent fiber stops running. Returns `Some` when it was
    /// the fiber the host drove.
    pub(crate) fn leave_fiber(&mut self, how: Leave) -> EvalResult<Option<Exit>> {
        let Some(agent) = self.cur.agent else {
            return Err(EvalError::runtime(
                "internal error: leaving a fiber with no agent",
            ));
        };
        let at_host = self.callers.len() <= self.stop_depth;
        let fiber = if at_host {
            std::mem::take(&mut self.cur)
        } else {
            self.pop_caller()
        };
        if let Some(a) = self.agent_mut(agent) {
            match how {
                Leave::Paused | Leave::Blocked => a.fiber = Some(Box::new(fiber)),
                Leave::Completed => {
                    a.status = AgentStatus::Completed;
                    a.fiber = None;
                }
            }
        }
        if matches!(how, Leave::Completed) {
            self.clear_interrupt(agent);
        }
        if at_host {
            return Ok(Some(match how {
                Leave::Completed => Exit::Completed(agent),
                Leave::Paused | Leave::Blocked => Exit::Paused(agent),
            }));
        }
        self.back_in_caller(agent)?;
        Ok(None)
    }

    /// Drops a pending pause request of an agent that will not run again.
    pub(crate) fn clear_interrupt(&mut self, agent: ObjRef) {
        let was_set = self
            .agent_ref(agent)
            .is_some_and(|a| a.interrupt.swap(false, std::sync::atomic::Ordering::AcqRel));
        if was_set {
            self.interrupt
                .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        }
    }

    /// Control came back to the current fiber because `from` stopped
    /// running (anything but failing): deliver, or keep waiting.
    fn back_in_caller(&mut self, from: ObjRef) -> EvalResult<()> {
        match self.cur.waiting {
            None => {
                self.cur.stack.push(Value::Obj(from));
                Ok(())
            }
            Some(Wait::Drain) => Ok(()),
            Some(Wait::Task(target)) => self.continue_wait(target),
        }
    }

    /// The current fiber waits for `target`: deliver it if it settled,
    /// otherwise run the next ready task, or fail with a deadlock.
    pub(crate) fn continue_wait(&mut self, target: ObjRef) -> EvalResult<()> {
        if self.is_settled(target) {
            self.cur.waiting = None;
            let v = self.collect_agent(Value::Obj(target))?;
            self.cur.stack.push(v);
            return Ok(());
        }
        let next = if self.ready.contains(&target) {
            self.ready.retain(|r| *r != target);
            Some(target)
        } else {
            self.next_ready()
        };
        match next {
            Some(task) => {
                self.switch_to_task(task);
                Ok(())
            }
            None => {
                self.cur.waiting = None;
                let name = self
                    .agent_ref(target)
                    .map(|a| a.name.clone())
                    .unwrap_or_default();
                Err(EvalError::runtime(format!(
                    "deadlock: agent '{name}' is waiting for a message and no other agent can run"
                )))
            }
        }
    }

    /// True once an agent is no longer running (paused, completed, failed).
    pub(crate) fn is_settled(&self, agent: ObjRef) -> bool {
        self.agent_ref(agent)
            .is_none_or(|a| a.status != AgentStatus::Running)
    }

    /// Takes the next ready task; when none is ready, wakes the oldest
    /// `receive(timeout)` (it returns nil: nothing can arrive any more).
    pub(crate) fn next_ready(&mut self) -> Option<ObjRef> {
        if let Some(r) = self.ready.pop_front() {
            return Some(r);
        }
        let timed = self.find_timed_receiver()?;
        self.unblock(timed, Value::Nil);
        self.ready.pop_front()
    }

    fn find_timed_receiver(&self) -> Option<ObjRef> {
        self.timed_receivers.first().copied()
    }

    /// Delivers `value` to a blocked `receive()` and queues its agent.
    pub(crate) fn unblock(&mut self, agent: ObjRef, value: Value) {
        self.timed_receivers.retain(|r| *r != agent);
        if let Some(a) = self.agent_mut(agent)
            && a.blocked.take().is_some()
        {
            if let Some(f) = a.fiber.as_mut() {
                f.stack.push(value);
            }
            self.ready.push_back(agent);
        }
    }

    /// Switches to a ready task's parked fiber; the current fiber becomes
    /// its caller.
    pub(crate) fn switch_to_task(&mut self, task: ObjRef) {
        let fiber = self
            .agent_mut(task)
            .and_then(|a| a.fiber.take())
            .map(|f| *f);
        if let Some(fiber) = fiber {
            let caller = std::mem::replace(&mut self.cur, fiber);
            self.caller_frames += caller.frames.len();
            self.callers.push(caller);
        }
    }

    /// `await(x)` on a running async agent: wait for it.
    pub(crate) fn begin_await(&mut self, target: ObjRef) -> EvalResult<()> {
        self.cur.waiting = Some(Wait::Task(target));
        self.continue_wait(target)
    }

    /// `Op::DrainTasks`: true when a task was switched to (the op runs
    /// again when control comes back).
    pub(crate) fn drain_step(&mut self) -> bool {
        match self.next_ready() {
            Some(task) => {
                self.cur.waiting = Some(Wait::Drain);
                self.switch_to_task(task);
                true
            }
            None => {
                self.cur.waiting = None;
                false
            }
        }
    }

    /// An async agent's `receive()` found no message: block it until one
    /// is sent (or, with a timeout, until nothing else can run).
    pub(crate) fn block_on_receive(&mut self, agent: ObjRef, timed: bool) {
        if let Some(a) = self.agent_mut(agent) {
            a.blocked = Some(timed);
        }
        if timed {
            self.timed_receivers.push(agent);
        }
        self.pending = Some(super::Pending::Block);
    }

    /// The current fiber died with `err` and no `test` block caught it.
    /// Returns the error to raise in the fiber that is current afterwards,
    /// or `None` if it was stored for a later `await`.
    pub(crate) fn fiber_failed(&mut self, agent: ObjRef, err: EvalError) -> Option<EvalError> {
        if let Some(a) = self.agent_mut(agent) {
            a.status = AgentStatus::Failed;
            a.fiber = None;
        }
        self.clear_interrupt(agent);
        self.pop_caller();
        match self.cur.waiting {
            // A plain start/resume, or an await of exactly this agent: the
            // error surfaces at that call.
            None => Some(err),
            Some(Wait::Task(t)) if t == agent => {
                self.cur.waiting = None;
                if let Some(a) = self.agent_mut(agent) {
                    a.error_taken = true;
                }
                Some(err)
            }
            // Someone else's task failed: keep the error for its await.
            Some(Wait::Task(t)) => {
                if let Some(a) = self.agent_mut(agent) {
                    a.error = Some(err);
                }
                self.continue_wait(t).err()
            }
            Some(Wait::Drain) => {
                if let Some(a) = self.agent_mut(agent) {
                    a.error = Some(err);
                }
                None
            }
        }
    }

    /// Marks the agent paused for a host request or budget at a safe point.
    pub(crate) fn pause_at_safepoint(
        &mut self,
        agent: ObjRef,
        kind: PauseKind,
    ) -> EvalResult<Option<Exit>> {
        self.mark_paused(agent, Value::Nil, kind);
        self.leave_fiber(Leave::Paused)
    }
}
