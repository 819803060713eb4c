//! Leaving a fiber, and the cooperative scheduling of async tasks (the
//! scheduler's state is `vm/scheduler.rs`).
//!
//! When a task's fiber stops running — it paused, completed, failed, or
//! (async tasks) blocked waiting for a message — control goes back to the
//! fiber that switched to it. That fiber either just gets the task as its
//! call's result (a plain start or resume), or it is waiting (an await,
//! the end of a top level) and the scheduler decides what runs next. Async
//! tasks run only when someone waits, so their interleaving is
//! deterministic (cooperative tasks, no data races: the book, agents.md "Async agents and tools").

use super::{Exit, Fiber, Vm, Wait};
use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::object::{FutureState, Obj};
use crate::task::{SuspendCause, TaskStatus};
use crate::value::Value;

/// A task waiting in `receive()` for a message to `mailbox`'s agent.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Blocked {
    /// The agent whose mailbox is empty.
    pub mailbox: ObjRef,
    /// The agent or future that is waiting.
    pub task: ObjRef,
    /// `receive(timeout)`: woken with nil once nothing else can run.
    pub timed: bool,
}

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
    /// True when `agent` is an `async agent`.
    pub fn is_async(&self, task: ObjRef) -> bool {
        self.task_ref(task).is_some_and(|a| a.is_async)
    }

    pub(crate) fn task_ref(&self, r: ObjRef) -> Option<&crate::task::Task> {
        match self.heap.get(r) {
            Obj::Task(a) => Some(a),
            _ => None,
        }
    }

    /// The future behind a value, if it is one.
    pub fn future_ref(&self, v: Value) -> Option<ObjRef> {
        match v {
            Value::Obj(r) if matches!(self.heap.get(r), Obj::Future(_)) => Some(r),
            _ => None,
        }
    }

    /// Starts the body `proto` as a future: a task of its own that runs
    /// when someone waits (`await`, the end of a top level) and settles
    /// with the body's result. `env` is the body's scope, `outer` the
    /// scope it was declared in, `label` what the future prints as
    /// (`<future LABEL (pending)>`). Returns the future, already queued;
    /// errors of its body are reported at the current call's position.
    pub fn spawn_future(
        &mut self,
        label: String,
        proto: crate::proto::ProtoId,
        env: crate::heap::ScopeRef,
        outer: crate::heap::ScopeRef,
    ) -> ObjRef {
        let (call, file) = self.current_span();
        let future = self
            .heap
            .alloc(Obj::Future(Box::new(crate::object::FutureObj {
                label,
                state: FutureState::Pending,
                fiber: None,
            })));
        let fiber = Box::new(Fiber {
            frames: vec![super::Frame {
                proto,
                ip: 0,
                env,
                outer,
                stack_base: 0,
                block_base: 0,
                ctl_base: 0,
                slot_base: 0,
                kind: super::FrameKind::FutureBody { future, call, file },
            }],
            future: Some(future),
            ..Default::default()
        });
        if let Obj::Future(f) = self.heap.get_mut(future) {
            f.fiber = Some(fiber);
        }
        self.sched.ready.push_back(future);
        future
    }

    /// Parks `fiber` in its async agent and queues it to run.
    pub(crate) fn park_ready(&mut self, task: ObjRef, fiber: Box<Fiber>) {
        if let Some(a) = self.task_mut(task) {
            a.fiber = Some(fiber);
        }
        self.sched.ready.push_back(task);
    }

    /// The current agent fiber stops running. Returns `Some` when it was
    /// the fiber the host drove.
    #[inline]
    pub(crate) fn leave_fiber(&mut self, how: Leave) -> EvalResult<Option<Exit>> {
        // Every host round trip's case, inline: an agent the host drove
        // paused. Exactly what the general path does for it.
        if matches!(how, Leave::Paused)
            && let Some(task) = self.cur.task
            && self.sched.callers.len() <= self.sched.stop_depth
        {
            let fiber = self.pop_caller();
            if let Some(a) = self.task_mut(task) {
                a.fiber = Some(fiber);
            }
            return Ok(Some(Exit::Paused(task)));
        }
        self.leave_fiber_general(how)
    }

    /// [`Vm::leave_fiber`] for every other case (out of line).
    #[inline(never)]
    fn leave_fiber_general(&mut self, how: Leave) -> EvalResult<Option<Exit>> {
        if let (Some(future), Leave::Blocked) = (self.cur.future, &how) {
            // An async tool body blocked in receive(): park it in its future.
            let fiber = self.pop_caller();
            if let Obj::Future(f) = self.heap.get_mut(future) {
                f.fiber = Some(fiber);
            }
            self.back_in_caller(future)?;
            return Ok(None);
        }
        let Some(task) = self.cur.task else {
            return Err(EvalError::runtime(
                "internal error: leaving a fiber with no task",
            ));
        };
        let at_host = self.sched.callers.len() <= self.sched.stop_depth;
        let fiber = self.pop_caller();
        if let Some(a) = self.task_mut(task) {
            match how {
                Leave::Paused | Leave::Blocked => a.fiber = Some(fiber),
                Leave::Completed => {
                    a.status = TaskStatus::Completed;
                    a.fiber = None;
                }
            }
        }
        if matches!(how, Leave::Completed) {
            self.clear_interrupt(task);
        }
        if at_host {
            return Ok(Some(match how {
                Leave::Completed => Exit::Completed(task),
                Leave::Paused | Leave::Blocked => Exit::Paused(task),
            }));
        }
        self.back_in_caller(task)?;
        if matches!(how, Leave::Paused | Leave::Blocked)
            && self.config.checkpoint_on_pause
            && self.sched.nested.is_empty()
        {
            return Ok(Some(Exit::Checkpoint));
        }
        Ok(None)
    }

    /// Drops a pending pause request of an agent that will not run again,
    /// and refuses later ones.
    pub(crate) fn clear_interrupt(&mut self, task: ObjRef) {
        let was_set = self.task_ref(task).is_some_and(|a| a.finish_interrupt());
        if was_set {
            self.hooks
                .interrupt
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
            let v = self.collect_task(target)?;
            self.cur.stack.push(v);
            return Ok(());
        }
        let next = if self.sched.ready.contains(&target) {
            self.sched.ready.retain(|r| *r != target);
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
                Err(self.refusal(Some(target), crate::kind::Refusal::Deadlock))
            }
        }
    }

    /// True once an agent is no longer running (paused, completed,
    /// failed), or a future has its result.
    pub fn is_settled(&self, task: ObjRef) -> bool {
        match self.heap.get(task) {
            Obj::Task(a) => a.status != TaskStatus::Running,
            Obj::Future(f) => !matches!(f.state, FutureState::Pending),
            _ => true,
        }
    }

    /// An async tool's body returned `v`: check its declared type, settle
    /// the future, and give control back.
    pub(crate) fn future_finished(
        &mut self,
        future: ObjRef,
        proto: crate::proto::ProtoId,
        v: Value,
        call: sense_syntax::Span,
        file: crate::proto::FileId,
    ) -> EvalResult<Option<Exit>> {
        let p = self.proto(proto).clone();
        if let Some(ann) = &p.ret
            && !self.matches(v, &ann.spec)
        {
            let err = EvalError::type_error(format!(
                "'{}' declared to return {}, got {}",
                p.name,
                ann.text,
                self.type_name(v)
            ))
            .at(call, file);
            return Err(err);
        }
        if let Obj::Future(f) = self.heap.get_mut(future) {
            f.state = FutureState::Ready(v);
        }
        self.pop_caller();
        self.back_in_caller(future)?;
        Ok(None)
    }

    /// A future's fiber died with `err`: the future keeps the error (every
    /// `await` re-raises it).
    pub(crate) fn future_failed(&mut self, future: ObjRef, err: EvalError) -> Option<EvalError> {
        if let Obj::Future(f) = self.heap.get_mut(future) {
            f.state = FutureState::Failed(err.clone());
        }
        self.pop_caller();
        match self.cur.waiting {
            Some(Wait::Task(t)) if t == future => {
                self.cur.waiting = None;
                Some(err)
            }
            Some(Wait::Task(t)) => self.continue_wait(t).err(),
            _ => None,
        }
    }

    /// Takes the next ready task; when none is ready, wakes the oldest
    /// `receive(timeout)` (it returns nil: nothing can arrive any more).
    pub(crate) fn next_ready(&mut self) -> Option<ObjRef> {
        if let Some(r) = self.sched.ready.pop_front() {
            return Some(r);
        }
        let i = self.sched.blocked.iter().position(|b| b.timed)?;
        let b = self.sched.blocked.remove(i);
        self.unblock(b.task, Value::Nil);
        self.sched.ready.pop_front()
    }

    /// True when a task is ready, or a timed receive could be woken.
    pub(crate) fn has_runnable(&self) -> bool {
        !self.sched.ready.is_empty() || self.sched.blocked.iter().any(|b| b.timed)
    }

    /// Delivers `value` to a task blocked in `receive()` and queues it.
    pub(crate) fn unblock(&mut self, task: ObjRef, value: Value) {
        let fiber = match self.heap.get_mut(task) {
            Obj::Task(a) => a.fiber.as_mut(),
            Obj::Future(f) => f.fiber.as_mut(),
            _ => None,
        };
        if let Some(f) = fiber {
            f.stack.push(value);
        }
        self.sched.ready.push_back(task);
    }

    /// Switches to a ready task's parked fiber; the current fiber becomes
    /// its caller.
    pub(crate) fn switch_to_task(&mut self, task: ObjRef) {
        let fiber = match self.heap.get_mut(task) {
            Obj::Task(a) => a.fiber.take(),
            Obj::Future(f) => f.fiber.take(),
            _ => None,
        };
        if let Some(fiber) = fiber {
            self.enter_boxed(fiber);
        }
    }

    /// The result of a settled task for `await`: an agent (raising its
    /// stored error once) or a future's value (raising its error every time).
    pub fn collect_task(&mut self, task: ObjRef) -> EvalResult<Value> {
        if let Obj::Future(f) = self.heap.get(task) {
            return match &f.state {
                FutureState::Ready(v) => Ok(*v),
                FutureState::Failed(e) => Err(e.clone()),
                FutureState::Pending => Ok(Value::Nil),
            };
        }
        self.collect_started_task(Value::Obj(task))
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

    /// The running task found `mailbox` empty: block it until a message is
    /// sent there (or, when `timed`, until nothing else can run; it is
    /// then woken with nil).
    pub fn block_for_message(&mut self, mailbox: ObjRef, timed: bool) {
        let Some(task) = self.cur.task.or(self.cur.future) else {
            return;
        };
        self.sched.blocked.push(Blocked {
            mailbox,
            task,
            timed,
        });
        self.sched.pending = Some(super::Pending::Block);
    }

    /// The current fiber died with `err` and no `test` block caught it.
    /// Returns the error to raise in the fiber that is current afterwards,
    /// or `None` if it was stored for a later `await`.
    pub(crate) fn fiber_failed(&mut self, task: ObjRef, err: EvalError) -> Option<EvalError> {
        if let Some(a) = self.task_mut(task) {
            a.status = TaskStatus::Failed;
            a.fiber = None;
        }
        self.clear_interrupt(task);
        self.pop_caller();
        match self.cur.waiting {
            // A plain start/resume, or an await of exactly this agent: the
            // error surfaces at that call.
            None => Some(err),
            Some(Wait::Task(t)) if t == task => {
                self.cur.waiting = None;
                if let Some(a) = self.task_mut(task) {
                    a.mark_error_taken();
                }
                Some(err)
            }
            // Someone else's task failed: keep the error for its await.
            Some(Wait::Task(t)) => {
                if let Some(a) = self.task_mut(task) {
                    a.set_error(err);
                }
                self.continue_wait(t).err()
            }
            Some(Wait::Drain) => {
                if let Some(a) = self.task_mut(task) {
                    a.set_error(err);
                }
                None
            }
        }
    }

    /// Marks the agent paused for a host request or budget at a safe point.
    pub(crate) fn pause_at_safepoint(
        &mut self,
        task: ObjRef,
        kind: SuspendCause,
    ) -> EvalResult<Option<Exit>> {
        self.mark_paused(task, Value::Nil, kind);
        self.leave_fiber(Leave::Paused)
    }
}
