//! Tasks on fibers: declaring, starting, suspending, resuming, completing
//! and failing — the mechanism under the agent protocol (the book: agents.md),
//! whose natives and words the agent runtime registers (natives, and a
//! [`TaskKind`](crate::kind::TaskKind)).
//!
//! Starting or resuming from Sense code pushes the caller's fiber on
//! `callers` and runs the task's fiber; when that fiber pauses, completes
//! or fails, the caller's fiber comes back with the task as the call's
//! result (or the error raised at the call). At the host's level
//! (`stop_depth`) the same events end [`Vm::run`] instead.

use super::{Exit, Fiber, Frame, FrameKind, Pending, Vm};
use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::kind::Refusal;
use crate::object::Obj;
use crate::proto::TaskInfo;
use crate::scope::VarMap;
use crate::symbol::Symbol;
use crate::task::{SuspendCause, Task, TaskStatus};
use crate::value::Value;

impl Vm {
    /// A task declaration (`agent NAME: body`) — creates the task and
    /// binds it with the assign-or-create rule. Refused when no task kind
    /// is registered. Out of line: it runs once per declaration, and
    /// inlined it would take registers from the run loop.
    #[cold]
    #[inline(never)]
    pub(crate) fn declare_task(&mut self, info: &TaskInfo) -> EvalResult<()> {
        if self.task_kind.is_none() {
            return Err(EvalError::runtime(format!(
                "cannot declare '{}': this VM has no task kind registered (the agent runtime registers one)",
                self.interner.name(info.name)
            )));
        }
        let declaring = self.define_scope();
        let declaring = self.capture_env(declaring);
        let scope = self.child_scope(declaring);
        let serial = crate::task::next_serial();
        self.sched.task_serial = self.sched.task_serial.max(serial);
        let task = Task {
            name: info.name,
            scope,
            body: info.body,
            is_async: info.is_async,
            status: TaskStatus::Created,
            pause_reason: Value::Nil,
            pause_kind: SuspendCause::CALL,
            fiber: None,
            resume_pushes: false,
            extra: None,
            interrupt: Default::default(),
            serial,
        };
        let r = self.heap.alloc(Obj::Task(task));
        self.heap.scope_mut(scope).task = Some(r);
        self.assign(info.name, Value::Obj(r));
        // The declaring scope now lives as long as the agent. Its first
        // binding made room for four: a scope per agent declared in a loop
        // (a loop variable and the agent) keeps only what it holds.
        if let VarMap::Small(vars) = &mut self.heap.scope_mut(declaring).vars {
            vars.shrink_to_fit();
        }
        Ok(())
    }

    /// The task behind a value, if it is one.
    #[inline]
    pub fn task(&self, v: Value) -> Option<&Task> {
        match v {
            Value::Obj(r) => match self.heap.get(r) {
                Obj::Task(a) => Some(a),
                _ => None,
            },
            _ => None,
        }
    }

    /// The task `r`, mutably, if it is one.
    #[inline]
    pub fn task_mut(&mut self, r: ObjRef) -> Option<&mut Task> {
        match self.heap.try_get_mut(r) {
            Some(Obj::Task(a)) => Some(a),
            _ => None,
        }
    }

    /// `t.X`: one of the task kind's own members, else a variable the
    /// task's scope sees (the book: agents.md). Reading a variable
    /// makes no call into the kind: this is the run loop's path of every
    /// member read of a task.
    pub(crate) fn task_member(&mut self, r: ObjRef, sym: Symbol) -> EvalResult<Value> {
        if self.task_members.has(sym)
            && let Some(kind) = self.task_kind
        {
            return kind.member(self, r, sym);
        }
        let found = match self.task_ref(r) {
            Some(t) => self.lookup(t.scope, sym),
            None => None,
        };
        match found {
            Some(v) => Ok(v),
            None => Err(self.refusal(
                Some(r),
                Refusal::NoMember {
                    name: self.interner.name(sym),
                },
            )),
        }
    }

    /// The error the task kind words for a refused operation.
    #[cold]
    pub(crate) fn refusal(&self, task: Option<ObjRef>, why: Refusal<'_>) -> EvalError {
        match self.task_kind {
            Some(kind) => kind.refusal(self, task, why),
            None => EvalError::runtime(format!("refused: {why:?}")),
        }
    }

    /// A task's doc string (the docstring of its body).
    pub fn task_doc(&self, task: &Task) -> Option<&str> {
        self.code
            .protos
            .get(task.body.0 as usize)
            .and_then(|p| p.doc.as_deref())
    }

    /// A fresh fiber positioned at the start of `agent`'s body.
    pub(crate) fn task_fiber(&self, task: ObjRef) -> Option<Box<Fiber>> {
        let Obj::Task(a) = self.heap.get(task) else {
            return None;
        };
        Some(Box::new(Fiber {
            frames: vec![Frame {
                proto: a.body,
                ip: 0,
                env: a.scope,
                outer: self.heap.scope(a.scope).parent.unwrap_or(a.scope),
                stack_base: 0,
                block_base: 0,
                ctl_base: 0,
                slot_base: 0,
                kind: FrameKind::TaskBody,
            }],
            // Room for a call with one argument (`pause(reason)`, where a
            // body that pauses at once is waiting): a first push would make
            // room for four, twice what a million paused agents each need.
            // A body that needs more grows it once.
            stack: Vec::with_capacity(2),
            task: Some(task),
            ..Fiber::default()
        }))
    }

    /// Checks that `v` is a startable task and marks it running; returns
    /// its fiber.
    pub(crate) fn begin_start(&mut self, v: Value) -> EvalResult<(ObjRef, Box<Fiber>)> {
        let (r, a) = match v {
            Value::Obj(r) => match self.heap.get(r) {
                Obj::Task(a) => (r, a),
                _ => return Err(self.not_a_task(v)),
            },
            _ => return Err(self.not_a_task(v)),
        };
        if a.status != TaskStatus::Created {
            return Err(self.refusal(Some(r), Refusal::AlreadyStarted));
        }
        self.check_depth()?;
        let fiber = self.task_fiber(r).unwrap_or_default();
        if let Some(a) = self.task_mut(r) {
            a.status = TaskStatus::Running;
        }
        Ok((r, fiber))
    }

    /// Checks that `v` is a paused task, marks it running and returns its
    /// fiber with `value` delivered as the pending call's result. `None`
    /// when the task waits for a message and none has arrived: it stays
    /// paused. Inlined: it is most of a host round trip's way in.
    #[inline]
    pub(crate) fn begin_resume(
        &mut self,
        v: Value,
        value: Value,
    ) -> EvalResult<(ObjRef, Option<Box<Fiber>>)> {
        // One lookup for the checks and the hand-over (this is the hot
        // path of every host round trip); the errors keep their order: not
        // a task, then too deep, then not paused.
        // The depth test alone here: the error is built only when it fails.
        let too_deep = self.cur.frames.len() + self.sched.caller_frames >= self.config.max_depth;
        let r = match v {
            Value::Obj(r) => r,
            _ => return Err(self.not_a_task(v)),
        };
        let Some(Obj::Task(a)) = self.heap.try_get_mut(r) else {
            return Err(self.not_a_task(v));
        };
        if too_deep {
            return Err(self.depth_error());
        }
        if a.status != TaskStatus::Paused {
            return Err(self.refusal(Some(r), Refusal::NotPaused));
        }
        let mut value = value;
        if a.pause_kind == SuspendCause::MESSAGE {
            // The pending `receive()` takes the oldest message; with none
            // queued the agent keeps waiting.
            match a.pop_message() {
                Some(msg) => value = msg,
                None => return Ok((r, None)),
            }
        }
        let mut fiber = a.fiber.take().unwrap_or_default();
        if a.resume_pushes {
            fiber.stack.push(value);
        }
        a.status = TaskStatus::Running;
        Ok((r, Some(fiber)))
    }

    /// The recursion-limit error `begin_resume` found due (out of line).
    #[cold]
    fn depth_error(&self) -> EvalError {
        self.check_depth()
            .err()
            .unwrap_or_else(|| EvalError::runtime(crate::error::RECURSION_MESSAGE).limit())
    }

    /// The error for a value that is not a task where one is needed (the
    /// natives of the layer above check first and word their own).
    #[cold]
    fn not_a_task(&self, v: Value) -> EvalError {
        EvalError::runtime(format!("expected a task, got {}", self.type_name(v)))
    }

    /// Runs an agent's fiber on behalf of Sense code (`start`/`resume`
    /// builtins): leaves a switch request for the run loop.
    pub(crate) fn request_enter(&mut self, task: ObjRef, fiber: Box<Fiber>) {
        self.sched.parked = Some(fiber);
        self.sched.pending = Some(Pending::Enter(task));
    }

    /// Switches to the parked agent fiber, keeping the current one as its caller.
    pub(crate) fn enter_task(&mut self, _task: ObjRef) {
        if let Some(fiber) = self.sched.parked.take() {
            self.enter_boxed(fiber);
        }
    }

    /// Makes the fiber in `b` current; the current one moves into the box
    /// and onto `callers`. Swapping through the box moves no allocation:
    /// a hand-off allocates nothing.
    #[inline]
    pub(crate) fn enter_boxed(&mut self, mut b: Box<Fiber>) {
        std::mem::swap(&mut self.cur, &mut b);
        self.sched.caller_frames += b.frames.len();
        self.sched.callers.push(b);
    }

    /// Brings the most recent caller fiber back as the current one and
    /// returns the box now holding the fiber that was current.
    #[inline]
    pub(crate) fn pop_caller(&mut self) -> Box<Fiber> {
        let mut b = self.sched.callers.pop().unwrap_or_default();
        self.sched.caller_frames -= b.frames.len();
        std::mem::swap(&mut self.cur, &mut b);
        b
    }

    /// Records a pause on `agent` (status, reason, kind).
    #[inline]
    pub(crate) fn mark_paused(&mut self, task: ObjRef, reason: Value, kind: SuspendCause) {
        if let Some(a) = self.task_mut(task) {
            a.status = TaskStatus::Paused;
            a.pause_reason = reason;
            a.pause_kind = kind;
            a.resume_pushes = !kind.is_safe_point();
        }
    }

    /// Host entry: starts `agent` and runs it until it pauses, completes or fails.
    pub fn start_task(&mut self, task: Value) -> EvalResult<Exit> {
        let (_, fiber) = self.begin_start(task)?;
        self.drive(fiber)
    }

    /// Host entry: resumes a paused `agent` with `value`.
    #[inline]
    pub fn resume_task(&mut self, task: Value, value: Value) -> EvalResult<Exit> {
        match self.begin_resume(task, value)? {
            (_, Some(fiber)) => self.drive(fiber),
            (r, None) => Ok(Exit::Paused(r)),
        }
    }

    /// `start(a)` from Sense code: a plain agent runs now, until it
    /// settles; an async agent is queued and `start` returns at once.
    #[inline]
    pub fn start_from_code(&mut self, v: Value) -> EvalResult<Value> {
        let (r, fiber) = self.begin_start(v)?;
        if self.is_async(r) {
            self.park_ready(r, fiber);
            return Ok(v);
        }
        self.request_enter(r, fiber);
        Ok(Value::Nil)
    }

    /// `resume(a, value)` from Sense code.
    #[inline]
    pub fn resume_from_code(&mut self, v: Value, value: Value) -> EvalResult<Value> {
        match self.begin_resume(v, value)? {
            (r, Some(fiber)) if self.is_async(r) => {
                self.park_ready(r, fiber);
                Ok(v)
            }
            (r, Some(fiber)) => {
                self.request_enter(r, fiber);
                Ok(Value::Nil)
            }
            (r, None) => Ok(Value::Obj(r)),
        }
    }

    /// The task whose body lexically encloses the current code, if any.
    #[inline]
    pub fn lexical_task(&self) -> Option<ObjRef> {
        let mut s = Some(self.env());
        while let Some(cur) = s {
            let scope = self.heap.scope(cur);
            if let Some(a) = scope.task {
                return Some(a);
            }
            s = scope.parent;
        }
        None
    }

    /// The lexically enclosing task, if it is the one running now.
    #[inline]
    pub fn running_lexical_task(&self) -> Option<ObjRef> {
        let running = self.cur.task?;
        // Code in the body's own frame is lexically inside the running
        // task (a body frame only runs in its task's fiber): no scope
        // walk on the path of every `pause()` in an agent's body.
        if let Some(f) = self.cur.frames.last()
            && matches!(f.kind, FrameKind::TaskBody)
        {
            return Some(running);
        }
        self.lexical_task().filter(|a| *a == running)
    }

    /// Suspends the running task inside a native call, recording `reason`
    /// and `cause` (a tag the native chooses; see [`SuspendCause`]); the
    /// value it is resumed with becomes the call's result.
    #[inline]
    pub fn suspend_call(&mut self, task: ObjRef, reason: Value, kind: SuspendCause) {
        self.mark_paused(task, reason, kind);
        self.sched.pending = Some(Pending::Suspend);
    }

    /// Awaiting a started task: raise its stored error once, else return
    /// it.
    pub fn collect_started_task(&mut self, v: Value) -> EvalResult<Value> {
        if let Value::Obj(r) = v
            && let Some(err) = self.task_mut(r).and_then(Task::take_error_once)
        {
            return Err(err);
        }
        Ok(v)
    }

    /// Reads `sym` from `env` outwards (for hosts).
    pub fn lookup_global_chain(&self, env: crate::heap::ScopeRef, sym: Symbol) -> Option<Value> {
        self.lookup(env, sym)
    }

    /// Sends `message` to a task: queue it in its mailbox, or hand it
    /// straight to a task blocked waiting on that mailbox.
    pub fn send_message(&mut self, task: ObjRef, message: Value) -> EvalResult<()> {
        if let Some(i) = self.sched.blocked.iter().position(|b| b.mailbox == task) {
            // A blocked receive takes the message directly.
            let b = self.sched.blocked.remove(i);
            self.unblock(b.task, message);
            return Ok(());
        }
        if self.task_mut(task).is_none() {
            return Err(self.not_a_task(Value::Obj(task)));
        }
        // A queued message holds memory the heap ceiling counts (issue 27:
        // a loop of sends grew a mailbox to 8 times the ceiling).
        self.check_heap_room(crate::heap::VALUE_BYTES)?;
        if let Some(a) = self.task_mut(task) {
            a.push_message(message);
        }
        self.heap.charge(crate::heap::VALUE_BYTES);
        Ok(())
    }

    /// Leaves a request to wait for a running async task or a future.
    pub fn request_await(&mut self, target: ObjRef) {
        self.sched.pending = Some(Pending::Await(target));
    }

    /// True when the current fiber runs an async tool's body.
    pub fn in_future_task(&self) -> bool {
        self.cur.future.is_some()
    }

    /// True when the current fiber runs as a scheduled task (some fiber
    /// is waiting below it), not directly for the host.
    pub fn running_as_task(&self) -> bool {
        self.sched.callers.len() > self.sched.stop_depth
    }

    /// Reads one line for `ask_human` outside an agent.
    pub fn read_input(&mut self) -> Option<String> {
        (self.hooks.input)()
    }
}
