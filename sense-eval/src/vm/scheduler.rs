//! The scheduler's state: which fibers wait below the running one, which
//! tasks are ready or blocked, and what the run loop has been asked to do
//! next. One owner, so that a snapshot saves it whole: [`Scheduler::image`]
//! and [`Scheduler::restored`] name every field (no `..`), and a field
//! added here that a snapshot does not account for is a compile error.
//!
//! The running fiber itself (`Vm::cur`) stays a field of the VM: the run
//! loop reaches it on every instruction.

use super::{Fiber, Pending, tasks::Blocked};
use crate::heap::{ObjRef, Tracer};
use std::collections::VecDeque;

/// Who runs next, and what waits.
#[derive(Debug, Default)]
pub(crate) struct Scheduler {
    /// Fibers waiting for the current one (innermost last). Boxed on
    /// purpose: a hand-off swaps box pointers instead of moving fibers.
    #[allow(clippy::vec_box)]
    pub callers: Vec<Box<Fiber>>,
    /// Frames on `callers`, all together (kept for the depth limit).
    pub caller_frames: usize,
    /// What a native asked the run loop to do after it returns.
    pub pending: Option<Pending>,
    /// The highest task serial this VM has handed out.
    pub task_serial: u64,
    /// `callers.len()` at which the fiber the host drives runs.
    pub stop_depth: usize,
    /// A fiber handed over by `start`/`resume`, waiting for the run loop.
    pub parked: Option<Box<Fiber>>,
    /// Async tasks (and futures) ready to run, oldest first.
    pub ready: VecDeque<ObjRef>,
    /// Tasks blocked waiting for a message on an empty mailbox, oldest first.
    pub blocked: Vec<Blocked>,
    /// Frame indexes of nested runs in progress (innermost last): errors
    /// and `break` never unwind below them.
    pub nested: Vec<usize>,
    /// `stop_depth` of each `drive` in progress (outermost first).
    pub drives: Vec<usize>,
}

/// What a snapshot stores of the scheduler (fields of the snapshot image;
/// the order there is the format's).
pub(crate) struct SchedulerImage<'a> {
    pub callers: &'a [Box<Fiber>],
    pub stop_depth: u64,
    pub drives: Vec<u64>,
    pub ready: Vec<ObjRef>,
    pub blocked: &'a [Blocked],
    pub task_serial: u64,
}

impl Scheduler {
    /// True when nothing is half done: no nested run, no request for the
    /// run loop, no fiber handed over (a snapshot can be taken).
    pub(crate) fn is_quiet(&self) -> bool {
        self.nested.is_empty() && self.pending.is_none() && self.parked.is_none()
    }

    /// Reports every fiber and task the scheduler keeps alive.
    pub(crate) fn trace(&self, t: &mut Tracer) {
        let Scheduler {
            callers,
            caller_frames: _,
            // A request names a task that a fiber or the heap also holds,
            // and lives only until the run loop takes it.
            pending: _,
            task_serial: _,
            stop_depth: _,
            parked,
            ready,
            blocked,
            nested: _,
            drives: _,
        } = self;
        for c in callers {
            c.trace(t);
        }
        for r in ready {
            t.obj(*r);
        }
        for b in blocked {
            t.obj(b.mailbox);
            t.obj(b.task);
        }
        if let Some(f) = parked {
            f.trace(t);
        }
    }

    /// The scheduler as a snapshot stores it. Only taken when
    /// [`is_quiet`](Self::is_quiet): what is not saved is empty then, or
    /// derived from what is.
    pub(crate) fn image(&self) -> SchedulerImage<'_> {
        let Scheduler {
            callers,
            caller_frames: _, // recounted from `callers` on restore
            pending: _,       // none while quiet
            task_serial,
            stop_depth,
            parked: _, // none while quiet
            ready,
            blocked,
            nested: _, // empty while quiet
            drives,
        } = self;
        SchedulerImage {
            callers,
            stop_depth: *stop_depth as u64,
            drives: drives.iter().map(|d| *d as u64).collect(),
            ready: ready.iter().copied().collect(),
            blocked,
            task_serial: *task_serial,
        }
    }

    /// The scheduler a snapshot's parts describe (already checked).
    #[allow(clippy::vec_box)]
    pub(crate) fn restored(
        callers: Vec<Box<Fiber>>,
        stop_depth: usize,
        drives: Vec<usize>,
        ready: Vec<ObjRef>,
        blocked: Vec<Blocked>,
        task_serial: u64,
    ) -> Scheduler {
        Scheduler {
            caller_frames: callers.iter().map(|f| f.frames.len()).sum(),
            callers,
            pending: None,
            task_serial,
            stop_depth,
            parked: None,
            ready: ready.into_iter().collect(),
            blocked,
            nested: Vec::new(),
            drives,
        }
    }
}
