//! The task seam: what the tasks of a VM are to the language.
//!
//! The core runs tasks — a body with its own scope and fiber that starts,
//! suspends inside a native call or at a safe point, resumes, waits for
//! messages, completes or fails ([`crate::task`], `vm/task_protocol.rs`,
//! `vm/tasks.rs`). It does not name them: the layer above registers one
//! [`TaskKind`] ([`Vm::register_task_kind`]) that gives them a type name,
//! a printed form, members and the words of every refusal. The agent
//! runtime's agents are such tasks; a VM with no task kind refuses task
//! declarations.

use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::kind::Render;
use crate::symbol::Symbol;
use crate::value::Value;
use crate::vm::Vm;

/// Something the core refuses to do with a task; the task kind words it
/// ([`TaskKind::refusal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal<'a> {
    /// Starting a task that is not in status created.
    AlreadyStarted,
    /// Resuming a task that is not paused.
    NotPaused,
    /// The task waits for a message and nothing else can run.
    Deadlock,
    /// A host function asked to suspend its call, but no task is running.
    SuspendOutside {
        /// The host function's name.
        function: &'a str,
    },
    /// Code run by a nested run (a tool called by a model) tried to switch
    /// fibers (suspend, wait, start or resume a task).
    SwitchInNestedRun,
    /// A task has no member of that name (neither one of the kind's
    /// members nor a variable it sees).
    NoMember {
        /// The member's name.
        name: &'a str,
    },
    /// A host passed back a task handle ([`HostTask`](crate::HostTask))
    /// that names no live task of this VM (collected, or another VM's).
    ForeignHandle {
        /// The serial the handle names.
        serial: u64,
    },
}

/// The behaviour of the tasks of one VM, registered by the layer above
/// (the agent runtime registers its agents' kind).
///
/// A VM with none refuses task declarations:
///
/// ```
/// use sense_eval::{Config, Vm};
/// use sense_syntax::SourceFile;
///
/// let mut vm = Vm::new(Config::default());
/// let src = SourceFile::new("t.sns", "agent a:\n    x = 1\n");
/// let err = vm.run_main(src, None, None).unwrap_err();
/// assert!(err.display().contains("no task kind registered"), "{}", err.display());
/// ```
pub trait TaskKind: Sync + 'static {
    /// What `type_of` says (and what a `: Kind` annotation matches).
    fn type_name(&self) -> &'static str;
    /// The class the reference implementation uses for the object, named
    /// by "not JSON serializable" errors.
    fn host_class(&self) -> &'static str;
    /// Writes what `print` / `str` (and, with [`Render::python`], the
    /// reference's `repr`) show for the task.
    fn render(&self, vm: &Vm, task: ObjRef, out: &mut Render<'_>) -> EvalResult<()>;
    /// The names the kind answers itself ([`member`](Self::member)),
    /// before the task's variables (`status`, `name`, … for agents). The
    /// core looks every other name up in the task's scope, so reading a
    /// task's variable costs no call into the kind.
    fn members(&self) -> &'static [&'static str];
    /// `task.name` in Sense code, for a `name` of [`members`](Self::members).
    fn member(&self, vm: &mut Vm, task: ObjRef, name: Symbol) -> EvalResult<Value>;
    /// The error for a refused operation on `task` (`None` when no task
    /// is involved).
    fn refusal(&self, vm: &Vm, task: Option<ObjRef>, why: Refusal<'_>) -> EvalError;
}
