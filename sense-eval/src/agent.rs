//! Agent objects: identity, status, the pause reason and kind, the
//! mailbox, and — while paused — the agent's fiber.
//!
//! The protocol that moves agents between statuses lives in the VM
//! (`vm/agents.rs`); this module is only the data.

use crate::error::EvalError;
use crate::heap::{ScopeRef, Tracer};
use crate::proto::ProtoId;
use crate::value::Value;
use crate::vm::Fiber;
use std::cell::OnceCell;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// The five statuses of an agent: `created` → `running` ⇄ `paused`, then
/// `completed` or `failed`.
///
/// ```
/// use sense_eval::agent::AgentStatus;
///
/// // `agent.status` in Sense reads these strings.
/// assert_eq!(AgentStatus::Paused.as_str(), "paused");
/// assert_eq!(AgentStatus::Completed.as_str(), "completed");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum AgentStatus {
    /// Declared, not started.
    Created,
    /// Its body is executing (or, for a nested start, waiting on another agent).
    Running,
    /// Suspended; `resume` continues it.
    Paused,
    /// The body finished.
    Completed,
    /// The body raised an error.
    Failed,
}

impl AgentStatus {
    /// The status string Sense code sees.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentStatus::Created => "created",
            AgentStatus::Running => "running",
            AgentStatus::Paused => "paused",
            AgentStatus::Completed => "completed",
            AgentStatus::Failed => "failed",
        }
    }
}

/// Why a paused agent is paused: hosts can tell a pause of its own from
/// `ask_human`, an empty mailbox, a host request, a host function that
/// suspended it and a spent step budget.
///
/// ```
/// use sense_eval::agent::PauseKind;
///
/// // The stable names the C ABI and `sense show` use.
/// assert_eq!(PauseKind::AskHuman.as_str(), "ask_human");
/// assert_eq!(PauseKind::WaitingMessage.as_str(), "message");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PauseKind {
    /// `pause()` / `pause(reason)` in the body.
    SelfPause,
    /// `ask_human(question)` in the body.
    AskHuman,
    /// `receive()` on an empty mailbox.
    WaitingMessage,
    /// The host asked it to pause (pause handle).
    HostRequest,
    /// Its instruction budget ran out.
    Budget,
    /// A host function suspended it.
    HostFunction,
}

impl PauseKind {
    /// A stable lower-case name (`self`, `ask_human`, `message`, `host`,
    /// `budget`, `host_function`).
    pub fn as_str(self) -> &'static str {
        match self {
            PauseKind::SelfPause => "self",
            PauseKind::AskHuman => "ask_human",
            PauseKind::WaitingMessage => "message",
            PauseKind::HostRequest => "host",
            PauseKind::Budget => "budget",
            PauseKind::HostFunction => "host_function",
        }
    }
}

/// An agent.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Agent {
    /// Declared name.
    pub name: crate::symbol::Symbol,
    /// The agent's own scope (child of the declaring scope).
    pub scope: ScopeRef,
    /// Its body.
    pub body: ProtoId,
    /// `async agent`.
    pub is_async: bool,
    /// Current status.
    pub status: AgentStatus,
    /// Last pause reason (never cleared).
    pub pause_reason: Value,
    /// Why it is (or last was) paused.
    pub pause_kind: PauseKind,
    /// Messages not yet received, oldest first.
    pub mailbox: VecDeque<Value>,
    /// The suspended execution while paused (or created-but-scheduled).
    pub fiber: Option<Box<Fiber>>,
    /// True when the pending pause is a call (`pause()`, `ask_human`, …)
    /// whose result the resume value becomes; false for pauses at a safe
    /// point (host request, budget), where the value is dropped.
    pub resume_pushes: bool,
    /// An error stored for a later collector (async agents).
    pub error: Option<EvalError>,
    /// True once a stored error has been raised (so it is raised only once).
    pub error_taken: bool,
    /// Set from any thread to ask the running agent to pause; made on
    /// first use ([`Agent::pause_flag`]), so an agent no host ever asks to
    /// pause costs no allocation for it (a million paused agents save an
    /// `Arc` each).
    #[serde(skip)]
    pub interrupt: OnceCell<Arc<PauseFlag>>,
    /// A process-unique number, so host handles detect a collected agent
    /// and never reach an agent of another runtime (every VM draws from one
    /// process-wide counter).
    pub serial: u64,
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

impl Agent {
    /// The agent's pause-request flag, shared with the host's pause
    /// handles; made on first use. A flag made after the agent completed
    /// or failed starts finished (requests to it are refused).
    pub fn pause_flag(&self) -> Arc<PauseFlag> {
        self.interrupt
            .get_or_init(|| {
                let flag = PauseFlag::default();
                if matches!(self.status, AgentStatus::Completed | AgentStatus::Failed) {
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

    pub(crate) fn trace(&self, t: &mut Tracer) {
        t.scope(self.scope);
        t.value(self.pause_reason);
        t.values(self.mailbox.as_slices().0);
        t.values(self.mailbox.as_slices().1);
        if let Some(f) = &self.fiber {
            f.trace(t);
        }
    }
}
