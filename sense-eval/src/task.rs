//! Task objects (what the agent runtime calls agents): identity, status,
//! the suspend value and cause, the mailbox, and — while paused — the
//! task's fiber.
//!
//! The mechanism that moves tasks between statuses is `vm/task_protocol.rs`
//! and `vm/tasks.rs`; what they are to the language is the registered
//! [`TaskKind`](crate::kind::TaskKind). This module is only the data.

use crate::error::EvalError;
use crate::heap::{ScopeRef, Tracer};
use crate::proto::ProtoId;
use crate::value::Value;
use crate::vm::Fiber;
use std::cell::OnceCell;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

mod wire;

/// The lifecycle of a task (a resumable body with its own fiber):
/// `Created` → `Running` ⇄ `Paused`, then `Completed` or `Failed`. The
/// agent runtime names these for its hosts; the variant order is part of
/// the snapshot format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TaskStatus {
    /// Declared, not started.
    Created,
    /// Its body is executing (or, for a nested start, waiting on another task).
    Running,
    /// Suspended; resuming continues it.
    Paused,
    /// The body finished.
    Completed,
    /// The body raised an error.
    Failed,
}

impl TaskStatus {
    /// The status string Sense code reads from `.status`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Created => "created",
            TaskStatus::Running => "running",
            TaskStatus::Paused => "paused",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
        }
    }
}

/// Why a paused task is paused: a small tag. The core sets the causes
/// it produces itself (a blocking wait for a message, a host request, a
/// spent step budget, a suspending host function); a native that
/// suspends its call ([`crate::Vm::suspend_call`]) chooses the tag, and
/// the layer that registered the native names it. Stored in snapshots
/// as one byte.
///
/// ```
/// use sense_eval::task::SuspendCause;
///
/// assert!(SuspendCause::BUDGET.is_safe_point());
/// assert!(!SuspendCause::CALL.is_safe_point());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SuspendCause(pub u8);

impl SuspendCause {
    /// A native suspended its call (also the cause a new task starts with).
    pub const CALL: SuspendCause = SuspendCause(0);
    /// Waiting for a message on an empty mailbox; resuming delivers the
    /// oldest message, or keeps waiting while there is none.
    pub const MESSAGE: SuspendCause = SuspendCause(2);
    /// The host asked it to pause (a safe point: the resume value is dropped).
    pub const HOST: SuspendCause = SuspendCause(3);
    /// Its instruction budget ran out (a safe point).
    pub const BUDGET: SuspendCause = SuspendCause(4);
    /// A host function suspended its call.
    pub const HOST_FUNCTION: SuspendCause = SuspendCause(5);
    /// The largest tag a snapshot may hold: the core's own causes, and
    /// the tags higher crates' natives use for their own suspensions
    /// (1, 6 and 7 in the agent layer).
    pub const LAST: SuspendCause = SuspendCause(7);

    /// True for a pause at a safe point rather than inside a call: the
    /// value it is resumed with becomes no call's result.
    pub fn is_safe_point(self) -> bool {
        self == SuspendCause::HOST || self == SuspendCause::BUDGET
    }
}

/// An agent.
///
/// Held unboxed in its heap slot (`Obj::Task`), so it must stay no
/// larger than the slot's largest other object (checked where `Obj` is
/// defined); what few tasks use lives in [`TaskExtra`]. Its snapshot
/// form is written by `task/wire.rs`.
#[derive(Debug, serde::Deserialize)]
#[serde(from = "wire::TaskIn")]
pub struct Task {
    /// Declared name.
    pub name: crate::symbol::Symbol,
    /// The agent's own scope (child of the declaring scope).
    pub scope: ScopeRef,
    /// Its body.
    pub body: ProtoId,
    /// `async agent`.
    pub is_async: bool,
    /// Current status.
    pub status: TaskStatus,
    /// Last pause reason (never cleared).
    pub pause_reason: Value,
    /// Why it is (or last was) paused.
    pub pause_kind: SuspendCause,
    /// The suspended execution while paused (or created-but-scheduled).
    pub fiber: Option<Box<Fiber>>,
    /// True when the pending pause is a call (`pause()`, `ask_human`, …)
    /// whose result the resume value becomes; false for pauses at a safe
    /// point (host request, budget), where the value is dropped.
    pub resume_pushes: bool,
    /// The mailbox and a stored error, made when the first message or
    /// error arrives: most agents never have either, and a paused agent
    /// without this box fits in its heap slot (see [`TaskExtra`]).
    pub extra: Option<Box<TaskExtra>>,
    /// Set from any thread to ask the running agent to pause; made on
    /// first use ([`Task::pause_flag`]), so an agent no host ever asks to
    /// pause costs no allocation for it (a million paused agents save an
    /// `Arc` each).
    pub interrupt: OnceCell<Arc<PauseFlag>>,
    /// A process-unique number, so host handles detect a collected agent
    /// and never reach an agent of another runtime (every VM draws from one
    /// process-wide counter).
    pub serial: u64,
}

/// The parts of a task few tasks use, boxed so that [`Task`] stays small
/// enough to live in its heap slot (`Obj::Task` holds it unboxed: a
/// paused agent costs no separate allocation for its task).
#[derive(Debug, Default)]
pub struct TaskExtra {
    /// Messages not yet received, oldest first.
    pub mailbox: VecDeque<Value>,
    /// An error stored for a later collector (async agents).
    pub error: Option<EvalError>,
    /// True once a stored error has been raised (so it is raised only once).
    pub error_taken: bool,
}

/// The last agent serial handed out in this process.
static LAST_SERIAL: AtomicU64 = AtomicU64::new(0);

/// A serial no agent of this process has had yet: every VM draws from one
/// counter, so a host's agent id can never name an agent of another VM.
pub(crate) fn next_serial() -> u64 {
    LAST_SERIAL.fetch_add(1, Ordering::Relaxed) + 1
}

/// Records that serials up to `serial` are taken (restored agents keep
/// the serials they were saved with), so later agents never reuse them.
pub(crate) fn reserve_serials(serial: u64) {
    LAST_SERIAL.fetch_max(serial, Ordering::Relaxed);
}

const FLAG_IDLE: u8 = 0;
const FLAG_REQUESTED: u8 = 1;
const FLAG_FINISHED: u8 = 2;

/// An agent's pause-request flag, shared with the host's pause handles.
///
/// Three states: idle, requested, and finished (the agent completed or
/// failed and will not run again). A request to a finished agent is
/// refused, so it cannot stay pending for ever — a pending request makes
/// every safe point of every fiber look at the flags.
#[derive(Debug, Default)]
pub struct PauseFlag(AtomicU8);

impl PauseFlag {
    /// Marks a pause as requested. False if one already was, or the agent
    /// has finished (then nothing changes).
    pub fn request(&self) -> bool {
        self.0
            .compare_exchange(
                FLAG_IDLE,
                FLAG_REQUESTED,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
    }

    /// True while a request is pending.
    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::Acquire) == FLAG_REQUESTED
    }

    /// Takes a pending request (the agent is pausing for it). True if
    /// there was one.
    pub fn take(&self) -> bool {
        self.0
            .compare_exchange(
                FLAG_REQUESTED,
                FLAG_IDLE,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
    }

    /// The agent will not run again: refuse requests from now on. True if
    /// a request was pending (it is dropped).
    pub fn finish(&self) -> bool {
        self.0.swap(FLAG_FINISHED, Ordering::AcqRel) == FLAG_REQUESTED
    }
}

impl Task {
    /// The agent's pause-request flag, shared with the host's pause
    /// handles; made on first use. A flag made after the agent completed
    /// or failed starts finished (requests to it are refused).
    pub fn pause_flag(&self) -> Arc<PauseFlag> {
        self.interrupt
            .get_or_init(|| {
                let flag = PauseFlag::default();
                if matches!(self.status, TaskStatus::Completed | TaskStatus::Failed) {
                    flag.finish();
                }
                Arc::new(flag)
            })
            .clone()
    }

    /// Takes a pending pause request (see [`PauseFlag::take`]); false when
    /// no flag was ever made.
    pub(crate) fn take_interrupt(&self) -> bool {
        self.interrupt.get().is_some_and(|f| f.take())
    }

    /// The agent will not run again (see [`PauseFlag::finish`]). True if a
    /// request was pending. Without a flag yet there is nothing to do: one
    /// made later starts finished.
    pub(crate) fn finish_interrupt(&self) -> bool {
        self.interrupt.get().is_some_and(|f| f.finish())
    }

    /// The rarely used parts, made on first use.
    fn extra_mut(&mut self) -> &mut TaskExtra {
        self.extra.get_or_insert_with(Box::default)
    }

    /// Messages not yet received, oldest first.
    pub fn mailbox(&self) -> impl Iterator<Item = &Value> {
        self.extra.iter().flat_map(|x| x.mailbox.iter())
    }

    /// How many messages wait in the mailbox.
    pub fn mailbox_len(&self) -> usize {
        self.extra.as_ref().map_or(0, |x| x.mailbox.len())
    }

    /// Queues a message at the back of the mailbox.
    pub fn push_message(&mut self, message: Value) {
        self.extra_mut().mailbox.push_back(message);
    }

    /// Takes the oldest message, if any.
    pub fn pop_message(&mut self) -> Option<Value> {
        self.extra.as_mut()?.mailbox.pop_front()
    }

    /// The error stored for a later collector, if any.
    pub fn error(&self) -> Option<&EvalError> {
        self.extra.as_ref()?.error.as_ref()
    }

    /// The stored error, mutably (to remap what it points at).
    pub fn error_mut(&mut self) -> Option<&mut EvalError> {
        self.extra.as_mut()?.error.as_mut()
    }

    /// Stores an error for a later collector (async agents).
    pub fn set_error(&mut self, err: EvalError) {
        self.extra_mut().error = Some(err);
    }

    /// True once a stored error has been raised.
    pub fn error_taken(&self) -> bool {
        self.extra.as_ref().is_some_and(|x| x.error_taken)
    }

    /// Records that the error has been raised (so it is raised only once).
    pub fn mark_error_taken(&mut self) {
        self.extra_mut().error_taken = true;
    }

    /// Takes the stored error for raising, once: `None` when there is
    /// none or it was raised already.
    pub fn take_error_once(&mut self) -> Option<EvalError> {
        let x = self.extra.as_mut()?;
        if x.error_taken {
            return None;
        }
        let err = x.error.take()?;
        x.error_taken = true;
        Some(err)
    }

    pub(crate) fn trace(&self, t: &mut Tracer) {
        t.scope(self.scope);
        t.value(self.pause_reason);
        if let Some(x) = &self.extra {
            t.values(x.mailbox.as_slices().0);
            t.values(x.mailbox.as_slices().1);
        }
        if let Some(f) = &self.fiber {
            f.trace(t);
        }
    }
}
