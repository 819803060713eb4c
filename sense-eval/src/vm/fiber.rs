//! Fibers: the complete, plain-data state of one line of execution.
//!
//! The main program runs on one fiber, each started agent on its own.
//! Suspending an agent is leaving its fiber exactly as it is; resuming is
//! running the loop on it again. Nothing here lives on the Rust stack.

use crate::heap::{ObjRef, ScopeRef, Tracer};
use crate::proto::ProtoId;
use crate::symbol::Symbol;
use crate::value::Value;

/// What happens when a frame returns.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum FrameKind {
    /// A function call: the result goes to the caller's stack.
    Call,
    /// The fiber's first frame of a program or REPL input: returning ends the run.
    Main,
    /// An agent body: returning completes the agent.
    TaskBody,
    /// A tool or function called by a builtin (`ask_with_tools`): returning
    /// ends the nested run that is waiting for it.
    Nested,
    /// A body run for an extension object ([`crate::kind::BodyCall`]):
    /// its kind is told when it returns or fails.
    Ext(crate::kind::ExtFrame),
    /// An async tool's body, run as a task.
    FutureBody {
        /// The future it settles.
        future: ObjRef,
        /// Where the tool was called (its return-type error points there).
        call: sense_syntax::Span,
        /// The file of `call`.
        file: crate::proto::FileId,
    },
    /// An imported module's top level: returning finishes the import.
    Module {
        /// The module being loaded.
        module: ObjRef,
        /// Index into the module registry.
        index: u32,
        /// What to bind in the importer: `(member, name)`; a `None` member
        /// binds the module itself.
        names: Vec<(Option<Symbol>, Symbol)>,
    },
    /// A function called by an array method once per element (`xs.map(f)`
    /// and the like): returning hands the result to the walk held by the
    /// object (an `Obj::Walk`), which calls the function again or
    /// finishes the method call (see `vm/walk.rs`).
    Walk(ObjRef),
}

/// One activation.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Frame {
    /// The code being run.
    pub proto: ProtoId,
    /// Next instruction.
    pub ip: u32,
    /// The innermost materialised scope.
    pub env: ScopeRef,
    /// Where this frame's own scopes end: the scope its first scope was
    /// made under (a closure's defining scope, an agent's declaring scope).
    /// Scopes from `env` up to, not including, `outer` are its locals.
    pub outer: ScopeRef,
    /// Stack height at entry (the callee slot for calls).
    pub stack_base: u32,
    /// Block-stack height at entry.
    pub block_base: u32,
    /// Control-stack height at entry.
    pub ctl_base: u32,
    /// Where this frame's slots start in the fiber's slot array (a
    /// slotted body's `nslots` slots; other frames own none).
    pub slot_base: u32,
    /// What returning does.
    pub kind: FrameKind,
}

/// What an entry of the control stack is.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum CtlKind {
    /// A running loop.
    Loop {
        /// Where `break` goes.
        break_ip: u32,
        /// Where `continue` goes.
        continue_ip: u32,
    },
    /// A running `test` block.
    Test {
        /// Description, recorded with the result.
        description: String,
        /// The instruction after the block.
        end_ip: u32,
    },
    /// The body of a `try` statement with `except` clauses.
    Try {
        /// Where the `except` clauses start.
        handler_ip: u32,
    },
    /// A `try` statement whose `finally` has not run yet.
    Finally {
        /// Where the `finally` block starts.
        finally_ip: u32,
    },
}

/// A loop or test block in progress, with what is needed to unwind to it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Ctl {
    /// Loop or test.
    pub kind: CtlKind,
    /// Index of the owning frame.
    pub frame: u32,
    /// Operand-stack height to restore.
    pub stack: u32,
    /// Block-stack height to restore.
    pub blocks: u32,
    /// Scope to restore.
    pub env: ScopeRef,
}

/// What a fiber that handed control to a task is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Wait {
    /// `await(x)`: until the agent or future settles.
    Task(ObjRef),
    /// The end of a top level: until no task is ready.
    Drain,
}

/// A line of execution.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Fiber {
    /// Set while this fiber waits on tasks it let run (see [`Wait`]).
    pub waiting: Option<Wait>,
    /// Call frames, innermost last.
    pub frames: Vec<Frame>,
    /// Operand stack.
    pub stack: Vec<Value>,
    /// The frame slots of slotted bodies, each frame's from its
    /// `slot_base`; `None` is an unbound slot.
    pub slots: Vec<Option<Value>>,
    /// Scope at entry of each open block (see `Op::EnterBlock`).
    pub blocks: Vec<ScopeRef>,
    /// Open loops and test blocks.
    pub ctl: Vec<Ctl>,
    /// The agent this fiber runs, if any.
    pub task: Option<ObjRef>,
    /// The future whose async tool body this fiber runs, if any.
    pub future: Option<ObjRef>,
}

impl Fiber {
    /// Drops the frames from index `keep` on, and their slots.
    pub fn truncate_frames(&mut self, keep: usize) {
        if let Some(f) = self.frames.get(keep) {
            self.slots.truncate(f.slot_base as usize);
        }
        self.frames.truncate(keep);
    }

    /// Cuts the fiber back to where control entry `ctl` was opened:
    /// `ctl_len` control entries kept, and the frames, operand stack and
    /// blocks `ctl` recorded.
    pub fn cut_back_to(&mut self, ctl_len: usize, ctl: &Ctl) {
        self.ctl.truncate(ctl_len);
        self.truncate_frames(ctl.frame as usize + 1);
        self.stack.truncate(ctl.stack as usize);
        self.blocks.truncate(ctl.blocks as usize);
    }

    /// Pops the innermost frame and its slots.
    pub fn pop_frame(&mut self) -> Option<Frame> {
        let f = self.frames.pop()?;
        self.slots.truncate(f.slot_base as usize);
        Some(f)
    }

    /// Marks everything the fiber holds.
    pub fn trace(&self, t: &mut Tracer) {
        t.values(&self.stack);
        for v in self.slots.iter().flatten() {
            t.value(*v);
        }
        for f in &self.frames {
            t.scope(f.env);
            t.scope(f.outer);
            match f.kind {
                FrameKind::Module { module, .. } => t.obj(module),
                FrameKind::Ext(x) => {
                    t.obj(x.obj);
                    t.scope(x.env);
                }
                FrameKind::FutureBody { future, .. } => t.obj(future),
                FrameKind::Walk(w) => t.obj(w),
                _ => {}
            }
        }
        for &b in &self.blocks {
            t.scope(b);
        }
        for c in &self.ctl {
            t.scope(c.env);
        }
        if let Some(a) = self.task {
            t.obj(a);
        }
        if let Some(f) = self.future {
            t.obj(f);
        }
        if let Some(Wait::Task(r)) = self.waiting {
            t.obj(r);
        }
    }
}
